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


class _WithSub(minitorch.nn.Module):
    def __init__(self):
        super().__init__()
        self.sub = minitorch.nn.Linear(2, 2)
        self.none_attr = None

    def forward(self, x):
        return self.sub(x)


@pytest.mark.parametrize("target, message", [
    # PyTorch 2.13: the qualified name of what was searched, empty at the top; an
    # attribute that is None counts as missing.
    ("nope", "Node nope target nope references nonexistent attribute nope of "),
    ("sub.nope", "Node sub_nope target sub.nope references nonexistent attribute nope "
                 "of sub"),
    ("none_attr", "Node none_attr target none_attr references nonexistent attribute "
                  "none_attr of "),
])
def test_lint_names_a_missing_attribute_and_where_it_was_looked_for(target, message):
    gm = fx.symbolic_trace(_WithSub())
    with gm.graph.inserting_after(next(iter(gm.graph.nodes))):
        gm.graph.get_attr(target)
    with pytest.raises(RuntimeError) as info:
        gm.graph.lint()
    assert str(info.value) == message


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


@pytest.mark.task("18.1")
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


# ----- the code generator (task 18.1): graphs built by hand, no tracing ---------------------
# Each expected source was printed by PyTorch 2.13 for the same graph built with torch.fx
# (torch.sum, torch.relu, torch.nn.Module); minitorch writes minitorch.sum where PyTorch
# writes torch.sum, and a function of this module is named after its qualified name
# (PyTorch: ``__main___join`` for a script's ``join``).

def join(a, b):
    return a + b


def every_kind_of_line():
    g = fx.Graph()
    x = g.placeholder("x")
    inp = g.placeholder("input")
    y = g.placeholder("y", default_value=2)
    add = g.call_function(operator.add, (x, y))
    relu = g.call_method("relu", (add,))
    neg = g.call_function(operator.neg, (relu,))
    item = g.call_function(operator.getitem, (x, (slice(None, 2, None), 0)))
    shape = g.call_function(getattr, (x, "shape"))
    total = g.call_function(minitorch.sum, (neg,), {"dim": 1, "keepdim": True})
    g.call_function(operator.mul, (inp, 3))                # read by no one
    joined = g.call_function(join, (total, inp))
    g.output((joined, [item, shape], {"a": add}))
    return g


@pytest.mark.task("18.1")
def test_the_code_of_every_kind_of_line_is_pytorchs():
    gm = fx.GraphModule(minitorch.nn.Module(), every_kind_of_line())
    assert gm.code == (
        "\n\n\ndef forward(self, x, input, y = 2):\n"
        "    input_1 = input\n"
        "    add = x + y;  y = None\n"
        "    relu = add.relu()\n"
        "    neg = -relu;  relu = None\n"
        "    getitem = x[(slice(None, 2, None), 0)]\n"
        "    getattr_1 = x.shape;  x = None\n"
        "    sum_1 = minitorch.sum(neg, dim = 1, keepdim = True);  neg = None\n"
        "    mul = input_1 * 3;  mul = None\n"
        "    join = tests_fx_test_graph_join(sum_1, input_1);  sum_1 = input_1 = None\n"
        "    return (join, [getitem, getattr_1], {'a': add})\n    ")


@pytest.mark.task("18.1")
def test_the_generated_forward_computes_the_graph():
    gm = fx.GraphModule(minitorch.nn.Module(), every_kind_of_line())
    x = minitorch.tensor([[1.0, -5.0], [-3.0, 4.0], [0.5, 0.5]])
    joined, (item, shape), rest = gm(x, minitorch.ones(3, 1))
    assert joined.tolist() == [[-2.0], [-5.0], [-4.0]]
    assert item.tolist() == [1.0, -3.0] and shape == (3, 2)
    assert rest["a"].tolist() == [[3.0, -3.0], [-1.0, 6.0], [2.5, 2.5]]
    assert gm(x, minitorch.ones(3, 1), 0)[2]["a"].tolist() == x.tolist()


@pytest.mark.task("18.1")
def test_modules_and_attributes_are_read_through_self():
    root = minitorch.nn.Module()
    root.seq = minitorch.nn.Sequential(minitorch.nn.Linear(2, 2))
    root.register_buffer("b", minitorch.ones(2))
    g = fx.Graph()
    x = g.placeholder("x")
    lin = g.call_module("seq.0", (x,))
    m = g.call_function(operator.matmul, (lin, g.get_attr("b")))
    g.output(g.call_function(minitorch.relu, (m,)))
    gm = fx.GraphModule(root, g)
    assert gm.code == (
        '\n\n\ndef forward(self, x):\n'
        '    seq_0 = getattr(self.seq, "0")(x);  x = None\n'
        '    b = self.b\n'
        '    matmul = seq_0 @ b;  seq_0 = b = None\n'
        '    relu = minitorch.relu(matmul);  matmul = None\n'
        '    return relu\n    ')
    x = minitorch.randn(3, 2)
    expected = minitorch.relu(root.seq[0](x) @ root.b)
    assert gm(x).tolist() == expected.tolist()


@pytest.mark.task("18.1")
def test_literals_globals_and_a_one_item_tuple():
    g = fx.Graph()
    x = g.placeholder("x")
    t = g.call_function(minitorch.add, (x, 1.5), {"alpha": float("inf")})
    g.output((g.call_function(minitorch.mul, (t, x)),))
    gm = fx.GraphModule(minitorch.nn.Module(), g)
    assert gm.code == (
        "\n\n\ndef forward(self, x):\n"
        "    add = minitorch.add(x, 1.5, alpha = inf)\n"
        "    mul = minitorch.mul(add, x);  add = x = None\n"
        "    return (mul,)\n    ")
    assert gm(minitorch.ones(2))[0].tolist() == [float("inf")] * 2
    g = fx.Graph()
    g.output(g.placeholder("x"))
    assert fx.GraphModule(minitorch.nn.Module(), g).code == \
        "\n\n\ndef forward(self, x):\n    return x\n    "


@pytest.mark.task("18.1")
def test_functions_of_the_operator_module_and_of_others_are_named_as_pytorch_names_them():
    # The code PyTorch 2.13 generates for the same graph (torch.fx); its graph prints
    # the targets as operator.abs, math.sqrt, builtins.len, as minitorch's does.
    import math
    g = fx.Graph()
    x = g.placeholder("x")
    a = g.call_function(operator.abs, (x,))
    b = g.call_function(operator.not_, (a,))
    c = g.call_function(math.sqrt, (x,))
    d = g.call_function(len, (x,))
    e = g.call_function(abs, (x,))
    g.output((a, b, c, d, e))
    code = g.python_code("self")
    assert code.src == (
        "\n\n\ndef forward(self, x):\n"
        "    abs_1 = _operator_abs(x)\n"
        "    not_ = _operator_not_(abs_1)\n"
        "    sqrt = math_sqrt(x)\n"
        "    len_1 = len(x)\n"
        "    abs_2 = abs(x);  x = None\n"
        "    return (abs_1, not_, sqrt, len_1, abs_2)\n    ")
    assert code.globals["_operator_abs"] is operator.abs
    assert "call_function[target=operator.abs](args = (%x,)" in str(g)
    gm = fx.GraphModule(minitorch.nn.Module(), g)
    absolute, negated, root, length, builtin_abs = gm(minitorch.tensor([4.0]))
    assert (absolute.tolist(), negated, root, length, builtin_abs.tolist()) == \
        ([4.0], False, 2.0, 1, [4.0])


@pytest.mark.task("18.1")
def test_an_object_without_a_literal_becomes_one_global_each():
    # PyTorch 2.13 writes such a value by its repr (``array([ True, False])``), which
    # does not run; minitorch keeps it as a global of the code, one name per object.
    import numpy as np
    mask, other = np.array([True, False]), np.array([False, True])
    g = fx.Graph()
    x = g.placeholder("x")
    a = g.call_function(minitorch.mul, (x, mask))
    b = g.call_function(minitorch.add, (a, other))
    g.output(g.call_function(minitorch.mul, (b, mask)))
    code = g.python_code("self")
    assert "mul = minitorch.mul(x, _ndarray)" in code.src
    assert "add = minitorch.add(mul, _ndarray_1)" in code.src
    assert "mul_1 = minitorch.mul(add, _ndarray)" in code.src
    assert code.globals["_ndarray"] is mask and code.globals["_ndarray_1"] is other
    gm = fx.GraphModule(minitorch.nn.Module(), g)
    assert gm(minitorch.tensor([2.0, 3.0])).tolist() == [2.0, 0.0]


@pytest.mark.task("18.1")
def test_verbose_code_annotates_each_value_with_dtype_and_shape():
    # PyTorch 2.13 prints the same annotations, with a comment line
    # "# No stacktrace found for following nodes" before the first node.
    g = fx.Graph()
    x = g.placeholder("x")
    x.meta["val"] = minitorch.ones(4, 3)
    y = g.call_function(minitorch.relu, (x,))
    y.meta["val"] = minitorch.ones(4, 3, dtype=minitorch.float64)
    g.output(g.call_function(join, (y, y)))
    assert g.python_code("self", verbose=True).src == (
        '\n\n\ndef forward(self, x: "f32[4, 3]"):\n'
        '    relu: "f64[4, 3]" = minitorch.relu(x);  x = None\n'
        '    join = tests_fx_test_graph_join(relu, relu);  relu = None\n'
        '    return join\n    ')


@pytest.mark.task("18.1")
def test_defaults_containers_and_attributes_that_are_not_identifiers():
    # PyTorch 2.13 prints the same lines (torch.stack for minitorch.stack).
    g = fx.Graph()
    x = g.placeholder("x")
    mode = g.placeholder("mode", default_value="mean")
    n = g.placeholder("n", default_value=None)
    t = g.placeholder("t", default_value=(1, 2))
    a = g.call_function(operator.getitem, (x, (slice(None), None)))
    b = g.call_function(getattr, (a, "not an identifier"))
    c = g.call_method("view", (x, -1), {})
    d = g.call_function(minitorch.stack, ([x, [c, c]],), {"dim": 0})
    g.output({0: b, "k": (d, (mode, n, t))})
    assert g.python_code("self").src == (
        "\n\n\ndef forward(self, x, mode = 'mean', n = None, t = (1, 2)):\n"
        "    getitem = x[(slice(None, None, None), None)]\n"
        "    getattr_1 = getattr(getitem, 'not an identifier');  getitem = None\n"
        "    view = x.view(-1)\n"
        "    stack = minitorch.stack([x, [view, view]], dim = 0);  x = view = None\n"
        "    return {0: getattr_1, 'k': (stack, (mode, n, t))}\n    ")


def doubled(a):
    return a * 2


fx.wrap("doubled")


@pytest.mark.task("18.1")
def test_a_call_of_a_wrapped_function_puts_its_wrap_line_first():
    # PyTorch 2.13 writes the same line for a traced call of a function it wraps
    # ('\ntorch.fx._symbolic_trace.wrap("__main___doubled")\n\ndef forward(self, x):').
    g = fx.Graph()
    x = g.placeholder("x")
    a = g.call_function(doubled, (x,))
    b = g.call_function(doubled, (a,))
    g.output(g.call_function(operator.add, (a, b)))
    gm = fx.GraphModule(minitorch.nn.Module(), g)
    assert gm.code == (
        '\nminitorch.fx._symbolic_trace.wrap("tests_fx_test_graph_doubled")\n\n'
        'def forward(self, x):\n'
        '    doubled = tests_fx_test_graph_doubled(x);  x = None\n'
        '    doubled_1 = tests_fx_test_graph_doubled(doubled)\n'
        '    add = doubled + doubled_1;  doubled = doubled_1 = None\n'
        '    return add\n    ')
    assert gm(minitorch.ones(2)).tolist() == [6.0, 6.0]
