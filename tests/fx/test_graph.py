"""``fx.Graph`` and ``fx.Node`` (chapter 18): building, printing, editing, checking.

Expected strings and messages were observed on PyTorch 2.13 (``torch.fx``) on the same
graphs; where minitorch prints another name for the same function (``minitorch.relu``
for ``torch.relu``), the comment says what PyTorch prints.
"""

import operator

import pytest

import minitorch
import minitorch.fx as fx

pytestmark = pytest.mark.chapter18


def small_graph():
    g = fx.Graph()
    x = g.placeholder("x")
    y = g.placeholder("y", default_value=3)
    a = g.call_function(operator.add, (x, y))
    b = g.call_function(minitorch.relu, (a,))
    c = g.call_method("sum", (b,), {"dim": 0})
    d = g.call_function(minitorch.neg, (x,))        # read by no one
    o = g.output(c)
    return g, (x, y, a, b, c, d, o)


def test_names_come_from_targets_and_never_shadow_builtins():
    g, (x, y, a, b, c, d, o) = small_graph()
    # PyTorch 2.13: x x add relu sum_1 neg output
    assert [n.name for n in (x, y, a, b, c, d, o)] == ["x", "y", "add", "relu", "sum_1", "neg",
                                                       "output"]
    again = g.create_node("call_function", operator.add, (x, x), name="add")
    assert again.name == "add_1"
    assert g.call_function(getattr, (x, "shape")).name == "getattr_1"


def test_a_node_prints_as_pytorch_prints_it():
    g, (x, y, a, b, c, d, o) = small_graph()
    assert a.format_node() == ("%add : [num_users=1] = call_function[target=operator.add]"
                               "(args = (%x, %y), kwargs = {})")
    assert y.format_node() == "%y : [num_users=1] = placeholder[target=y](default=3)"
    assert o.format_node() == "return sum_1"
    assert repr(a) == "add" and a.all_input_nodes == [x, y] and a.prev is y and a.next is b
    assert list(a.users) == [b]


def test_the_graph_prints_one_line_per_node():
    g, _ = small_graph()
    # PyTorch prints target=torch.relu and torch.neg
    assert str(g) == """graph():
    %x : [num_users=2] = placeholder[target=x]
    %y : [num_users=1] = placeholder[target=y](default=3)
    %add : [num_users=1] = call_function[target=operator.add](args = (%x, %y), kwargs = {})
    %relu : [num_users=1] = call_function[target=minitorch.relu](args = (%add,), kwargs = {})
    %sum_1 : [num_users=1] = call_method[target=sum](args = (%relu,), kwargs = {dim: 0})
    %neg : [num_users=0] = call_function[target=minitorch.neg](args = (%x,), kwargs = {})
    return sum_1"""
    assert str(fx.Graph()) == "graph():"


def test_a_node_with_users_cannot_be_erased():
    g, (x, y, a, *_) = small_graph()
    with pytest.raises(RuntimeError, match=r"^Tried to erase Node add but it still had 1 users "
                                           r"in the graph: \{relu: None\}!$"):
        g.erase_node(a)


def test_dead_code_elimination_removes_unread_nodes_once():
    g, _ = small_graph()
    assert g.eliminate_dead_code() is True
    assert [n.name for n in g.nodes] == ["x", "y", "add", "relu", "sum_1", "output"]
    assert g.eliminate_dead_code() is False
    assert len(g.nodes) == 6


def test_an_unread_in_place_call_is_dead_code_too():
    # As in PyTorch: a graph is meant to be functional (fx's documented caveat).
    def f(x):
        x.add_(1)
        return x
    gm = fx.symbolic_trace(f)
    assert gm.graph.eliminate_dead_code() is True
    assert [n.op for n in gm.graph.nodes] == ["placeholder", "output"]


def test_inserting_before_and_replacing_inputs():
    g, (x, y, a, b, c, d, o) = small_graph()
    g.eliminate_dead_code()
    with g.inserting_before(b):
        m = g.call_function(operator.mul, (a, 2))
    b.replace_input_with(a, m)
    assert [n.name for n in g.nodes] == ["x", "y", "add", "mul", "relu", "sum_1", "output"]
    assert b.args == (m,) and list(m.users) == [b] and list(a.users) == [m]
    assert m.replace_all_uses_with(a) == [b]
    assert list(m.users) == []
    g.erase_node(m)
    g.lint()


def test_inserting_after_keeps_the_inserted_nodes_in_order():
    g = fx.Graph()
    p = g.placeholder("p")
    r = g.call_function(minitorch.relu, (p,))
    g.output(r)
    with g.inserting_after(p):
        first = g.create_node("call_function", minitorch.neg, (p,), name="myneg")
        second = g.call_function(minitorch.exp, (first,))
    assert [n.name for n in g.nodes] == ["p", "myneg", "exp", "relu", "output"]
    assert second.prev is first
    new = g.call_function(minitorch.sin, (p,))          # the insert point is back at the end
    assert new.prev.op == "output"


def test_lint_finds_a_node_used_before_it_is_defined():
    g = fx.Graph()
    p = g.placeholder("p")
    q = g.call_function(minitorch.relu, (p,))
    with g.inserting_before(q):
        g.call_function(minitorch.neg, (q,))
    with pytest.raises(RuntimeError, match="Argument 'relu' of Node 'neg' was used before it "
                                           "has been defined! Please check that Nodes in the "
                                           "graph are topologically ordered"):
        g.lint()


def test_graph_copy_returns_the_output_value_and_fills_the_map():
    g, _ = small_graph()
    g.eliminate_dead_code()
    copy, val_map = fx.Graph(), {}
    out = copy.graph_copy(g, val_map)
    assert out.name == "sum_1" and isinstance(out, fx.Node)
    assert len(val_map) == 5
    assert "return" not in str(copy)          # no output node: graph_copy leaves it to you


def test_find_nodes_by_op_and_target():
    g, (x, y, a, b, *_) = small_graph()
    assert g.find_nodes(op="call_function", target=minitorch.relu) == [b]
    assert g.find_nodes(op="placeholder") == [x, y]
    with pytest.raises(AssertionError, match="target must not be None for call_function op"):
        g.find_nodes(op="call_function")


def test_nodes_iterate_forwards_backwards_and_survive_erasing():
    g, _ = small_graph()
    assert [n.name for n in reversed(g.nodes)][:2] == ["output", "neg"]
    for node in g.nodes:                      # erasing the node being visited is fine
        if node.name == "neg":
            g.erase_node(node)
    assert len(g.nodes) == 6


def test_python_code_of_a_graph():
    g, _ = small_graph()
    g.eliminate_dead_code()
    assert g.python_code("self").src == (
        "\n\n\ndef forward(self, x, y = 3):\n"
        "    add = x + y;  x = y = None\n"
        "    relu = minitorch.relu(add);  add = None\n"
        "    sum_1 = relu.sum(dim = 0);  relu = None\n"
        "    return sum_1\n    ")
    assert fx.Graph().python_code("self").src == "\n\n\ndef forward(self):\n    pass\n    "
