"""``GraphModule`` (chapter 18): generated code, recompiling, printing, copying, pickling;
``Interpreter``, ``Transformer``, ``ShapeProp`` and ``replace_pattern``.

Printed forms and messages observed on PyTorch 2.13 for the same modules (PyTorch's
``print_readable`` adds a comment line "# No stacktrace found for following nodes"
and says ``torch.nn.Module``).
"""

import copy
import operator
import pickle

import numpy as np
import pytest

import minitorch
import minitorch.fx as fx
import minitorch.nn as nn
from minitorch.fx.passes.shape_prop import ShapeProp, TensorMetadata

pytestmark = pytest.mark.chapter18


class Sub(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(2, 2)

    def forward(self, x):
        return self.l(x) * 2


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.sub = Sub()
        self.register_buffer("b", minitorch.ones(2))
        self.p = nn.Parameter(minitorch.zeros(2))

    def forward(self, x):
        return self.sub(x) + self.b + self.p


CODE = """


def forward(self, x):
    sub_l = self.sub.l(x);  x = None
    mul = sub_l * 2;  sub_l = None
    b = self.b
    add = mul + b;  mul = b = None
    p = self.p
    add_1 = add + p;  add = p = None
    return add_1
    """


def test_a_graph_module_keeps_what_its_graph_reads():
    gm = fx.symbolic_trace(M())
    assert gm.code == CODE
    assert list(gm.state_dict()) == ["p", "b", "sub.l.weight", "sub.l.bias"]
    assert [name for name, _ in gm.named_modules()] == ["", "sub", "sub.l"]
    assert type(gm).__name__ == "M" and isinstance(gm, fx.GraphModule)
    assert str(gm) == ("M(\n  (sub): Module(\n    (l): Linear(in_features=2, out_features=2, "
                       "bias=True)\n  )\n)\n" + CODE +
                       "\n# To see more debug info, please use `graph_module.print_readable()`")


def test_print_readable_shows_a_class():
    text = fx.symbolic_trace(M()).print_readable(print_output=False)
    assert text.startswith("class M(minitorch.nn.Module):\n    def forward(self, x):\n"
                           "        sub_l = self.sub.l(x);  x = None\n")


def test_recompile_after_editing_the_graph():
    gm = fx.symbolic_trace(M())
    x = minitorch.randn(3, 2)
    before = gm(x)
    for node in gm.graph.nodes:
        if node.target is operator.mul:
            node.target = operator.sub
    assert "sub_l * 2" in gm.code               # the code changes on recompile only
    result = gm.recompile()
    assert isinstance(result, fx.PythonCode) and "mul = sub_l - 2" in gm.code
    expected = gm.sub.l(x) - 2 + gm.b + gm.p
    np.testing.assert_array_equal(gm(x).detach().numpy(), expected.detach().numpy())
    assert not np.array_equal(before.detach().numpy(), expected.detach().numpy())


def test_deepcopy_copies_state_and_code():
    gm = fx.symbolic_trace(M())
    twin = copy.deepcopy(gm)
    assert twin.code == gm.code and type(twin).__name__ == "GraphModule"
    assert twin.sub.l.weight is not gm.sub.l.weight
    np.testing.assert_array_equal(twin.sub.l.weight.detach().numpy(),
                                  gm.sub.l.weight.detach().numpy())


def test_pickling_carries_the_graph_not_code_and_tensors_follow_minitorchs_rule():
    gm = fx.symbolic_trace(lambda x: minitorch.relu(x) + 1)
    loaded = pickle.loads(pickle.dumps(gm))
    assert loaded.code == gm.code and b"def forward" not in pickle.dumps(gm)
    assert loaded(minitorch.tensor([-1.0, 2.0])).tolist() == [1.0, 3.0]
    with pytest.raises(TypeError, match="minitorch tensors are not pickled"):
        pickle.dumps(fx.symbolic_trace(M()))


def test_a_graph_module_from_a_dict_of_attributes():
    m = M()
    graph = fx.Tracer().trace(m)
    gm = fx.GraphModule({"sub.l": m.sub.l, "b": m.b, "p": m.p}, graph)
    assert type(gm).__name__ == "GraphModule" and gm.code == CODE
    x = minitorch.randn(4, 2)
    np.testing.assert_array_equal(gm(x).detach().numpy(), m(x).detach().numpy())


def test_interpreter_runs_node_by_node():
    gm = fx.symbolic_trace(nn.Sequential(nn.Linear(2, 3), nn.ReLU()))
    seen = []

    class Watch(fx.Interpreter):
        def call_module(self, target, args, kwargs):
            seen.append(target)
            return super().call_module(target, args, kwargs)
    x = minitorch.randn(1, 2)
    np.testing.assert_array_equal(Watch(gm).run(x).detach().numpy(), gm(x).detach().numpy())
    assert seen == ["0", "1"]
    with pytest.raises(RuntimeError, match="Expected positional argument for parameter input, "
                                           "but one was not passed in!"):
        fx.Interpreter(gm).run()


def reuses(x):
    a = x + 1
    b = a * 2
    return a + b


@pytest.mark.parametrize("collect", [True, False])
def test_interpreter_drops_a_value_once_its_last_reader_has_run(collect):
    gm = fx.symbolic_trace(reuses)
    held = []

    class Watch(fx.Interpreter):
        def run_node(self, n):
            held.append((n.name, sorted(v.name for v in self.env)))
            return super().run_node(n)
    out = Watch(gm, garbage_collect_values=collect).run(minitorch.ones(2))
    assert out.tolist() == [6.0, 6.0]
    if collect:             # x goes after add, add and mul after add_1 reads them
        assert held == [("x", []), ("add", ["x"]), ("mul", ["add"]),
                        ("add_1", ["add", "mul"]), ("output", ["add_1"])]
    else:
        assert held[-1] == ("output", ["add", "add_1", "mul", "x"])


def test_transformer_writes_a_new_graph():
    class Sigmoid(fx.Transformer):
        def call_module(self, target, args, kwargs):
            if target == "1":
                return minitorch.sigmoid(*args)
            return super().call_module(target, args, kwargs)
    gm = fx.symbolic_trace(nn.Sequential(nn.Linear(2, 2), nn.ReLU()))
    new = Sigmoid(gm).transform()
    assert new.code == """


def forward(self, input):
    input_1 = input
    _0 = getattr(self, "0")(input_1);  input_1 = None
    sigmoid = minitorch.sigmoid(_0);  _0 = None
    return sigmoid
    """
    x = minitorch.randn(3, 2)
    np.testing.assert_array_equal(new(x).detach().numpy(),
                                  minitorch.sigmoid(getattr(gm, "0")(x)).detach().numpy())


def test_shape_prop_records_each_value():
    gm = fx.symbolic_trace(nn.Sequential(nn.Linear(2, 2), nn.ReLU()))
    ShapeProp(gm).propagate(minitorch.ones(3, 2))
    meta = {n.name: n.meta["tensor_meta"] for n in gm.graph.nodes}
    assert TensorMetadata._fields == ("shape", "dtype", "requires_grad", "stride",
                                      "memory_format", "is_quantized", "qparams")
    assert list(meta) == ["input_1", "_0", "_1", "output"]     # as in PyTorch
    assert meta["input_1"].shape == (3, 2) and meta["input_1"].requires_grad is False
    assert meta["_1"].requires_grad is True and meta["_1"].stride == (2, 1)
    assert meta["output"].dtype is minitorch.float32


def test_replace_pattern_rewrites_every_match():
    def f(x):
        return minitorch.relu(x) + minitorch.relu(x * 2)
    gm = fx.symbolic_trace(f)
    matches = fx.replace_pattern(gm, lambda x: minitorch.relu(x), lambda x: minitorch.sigmoid(x))
    assert repr(matches) == ("[Match(anchor=relu, nodes_map={relu: relu, x: x}), "
                             "Match(anchor=relu, nodes_map={relu: relu_1, x: mul})]")
    assert gm.code == """


def forward(self, x):
    mul = x * 2
    sigmoid = minitorch.sigmoid(x);  x = None
    sigmoid_1 = minitorch.sigmoid(mul);  mul = None
    add = sigmoid + sigmoid_1;  sigmoid = sigmoid_1 = None
    return add
    """
