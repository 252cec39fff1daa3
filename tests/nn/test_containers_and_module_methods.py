"""ModuleDict, ParameterList, ParameterDict, Flatten/Unflatten and Module.to/get_* as in PyTorch 2.13 (chapter 7).

Reprs, key orders, messages and exception types were printed by PyTorch
2.13 for the same code (with ``torch`` written ``minitorch``).
"""

import collections

import numpy as np
import pytest
from hypothesis import given, strategies as st

import minitorch as torch
import minitorch.nn as nn
from tests.strategies import arrays, shapes

pytestmark = pytest.mark.chapter7


# ----- ModuleDict -----------------------------------------------------------------------------
@pytest.mark.task("7.2")
def test_module_dict_registers_children_in_insertion_order():
    md = nn.ModuleDict({"b": nn.Linear(2, 3), "a": nn.ReLU()})
    assert repr(md) == ("ModuleDict(\n  (b): Linear(in_features=2, out_features=3, bias=True)\n"
                        "  (a): ReLU()\n)")
    assert list(md) == list(md.keys()) == ["b", "a"] and len(md) == 2
    assert "a" in md and "x" not in md
    assert [name for name, _ in md.named_parameters()] == ["b.weight", "b.bias"]
    assert [type(m).__name__ for m in md.values()] == ["Linear", "ReLU"]
    assert [k for k, _ in md.items()] == ["b", "a"]
    assert repr(nn.ModuleDict()) == "ModuleDict()"


@pytest.mark.task("7.1")
def test_module_dict_editing():
    md = nn.ModuleDict([("z", nn.ReLU()), ("y", nn.Tanh())])
    assert list(md) == ["z", "y"]
    md.update([("b", nn.Tanh())])
    md.update(nn.ModuleDict({"c": nn.ReLU()}))
    md["d"] = nn.Identity()
    assert list(md) == ["z", "y", "b", "c", "d"]
    assert isinstance(md.pop("z"), nn.ReLU) and "z" not in md
    del md["y"]
    assert list(md) == ["b", "c", "d"]
    md.clear()
    assert len(md) == 0


@pytest.mark.task("8.1")
def test_module_dict_errors():
    md = nn.ModuleDict({"a": nn.ReLU()})
    with pytest.raises(KeyError):
        md["x"]
    with pytest.raises(TypeError, match="^int is not a Module subclass$"):
        md["c"] = 3
    with pytest.raises(TypeError, match="^ModuleDict.update should be called with an iterable of key/value "
                                        "pairs, but got int$"):
        md.update(3)
    with pytest.raises(ValueError, match="^ModuleDict update sequence element #0 has length 1; 2 is required$"):
        md.update([("a",)])
    with pytest.raises(TypeError, match="^ModuleDict update sequence element #0 should be Iterable; isint$"):
        md.update([3])
    with pytest.raises(KeyError, match='contain ".", got: a.b'):
        nn.ModuleDict({"a.b": nn.ReLU()})
    with pytest.raises(NotImplementedError, match='is missing the required "forward" function'):
        md(1)


# ----- ParameterList ------------------------------------------------------------------------------
@pytest.mark.task("8.2")
def test_parameter_list_repr_and_registration():
    pl = nn.ParameterList([nn.Parameter(torch.ones(2, 3)), nn.Parameter(torch.zeros(4, dtype=torch.float64))])
    assert repr(pl) == ("ParameterList(\n    (0): Parameter containing: [minitorch.float32 of size 2x3]\n"
                        "    (1): Parameter containing: [minitorch.float64 of size 4]\n)")
    assert [name for name, _ in pl.named_parameters()] == ["0", "1"]
    assert list(pl.state_dict()) == ["0", "1"]
    assert pl[-1].shape == (4,) and len(pl) == 2
    assert repr(pl[0:1]) == "ParameterList(  (0): Parameter containing: [minitorch.float32 of size 2x3])"
    assert repr(nn.ParameterList()) == "ParameterList()"
    assert not any(key[0].isdigit() for key in dir(pl))


@pytest.mark.task("7.2")
def test_parameter_list_wraps_tensors_and_keeps_other_values():
    x = torch.ones(2)
    pl = nn.ParameterList([x, 3, "s"])
    assert type(pl[0]) is nn.Parameter and pl[0].requires_grad and pl[0] is not x
    assert repr(pl) == ("ParameterList(\n    (0): Parameter containing: [minitorch.float32 of size 2]\n"
                        "    (1): Object of type: int\n    (2): Object of type: str\n)")
    pl[0] = torch.zeros(2)
    assert type(pl[0]) is nn.Parameter
    assert len(pl.append(torch.zeros(1))) == 4 and type(pl[3]) is nn.Parameter
    pl += [torch.zeros(1)]
    assert len(pl) == 5 and len(list(pl.parameters())) == 3
    shapes_ = nn.ParameterList([torch.tensor(1.0), torch.ones(0, 2, dtype=torch.float64)])
    assert repr(shapes_) == ("ParameterList(\n    (0): Parameter containing: [minitorch.float32 of size ]\n"
                             "    (1): Parameter containing: [minitorch.float64 of size 0x2]\n)")


@pytest.mark.task("7.1")
def test_parameter_list_errors():
    pl = nn.ParameterList([torch.ones(2)])
    with pytest.raises(IndexError, match="^index 5 is out of range$"):
        pl[5]
    with pytest.raises(RuntimeError, match="^ParameterList should not be called.$"):
        pl(1)
    with pytest.raises(TypeError, match="^ParameterList.extend should be called with an iterable, but got int$"):
        nn.ParameterList(3)
    with pytest.raises(TypeError, match="but got Tensor$"):
        pl.extend(torch.ones(2))


# ----- ParameterDict ------------------------------------------------------------------------------
@pytest.mark.task("7.2")
def test_parameter_dict_repr_sorts_a_plain_dict():
    pd = nn.ParameterDict({"w": nn.Parameter(torch.ones(2, 2)), "b": torch.zeros(3)})
    assert list(pd) == ["b", "w"]                  # a plain dict is added in sorted order
    assert repr(pd) == ("ParameterDict(\n    (b): Parameter containing: [minitorch.FloatTensor of size 3]\n"
                        "    (w): Parameter containing: [minitorch.FloatTensor of size 2x2]\n)")
    assert [name for name, _ in pd.named_parameters()] == ["b", "w"]
    assert type(pd["b"]) is nn.Parameter
    assert repr(nn.ParameterDict()) == "ParameterDict()"
    assert repr(nn.ParameterDict({"x": 1, "y": "s"})) == (
        "ParameterDict(\n    (x): Object of type: int\n    (y): Object of type: str\n)")
    assert repr(nn.ParameterDict({"a": torch.tensor(1.0), "b": torch.ones(2, dtype=torch.float64)})) == (
        "ParameterDict(\n    (a): Parameter containing: [minitorch.FloatTensor of size ]\n"
        "    (b): Parameter containing: [minitorch.DoubleTensor of size 2]\n)")


@pytest.mark.task("7.2")
def test_parameter_dict_orders_and_dict_methods():
    assert list(nn.ParameterDict([("b", torch.ones(1)), ("a", torch.ones(1))])) == ["b", "a"]
    pd = nn.ParameterDict(collections.OrderedDict([("b", torch.ones(1)), ("a", torch.ones(1))]))
    assert list(pd) == ["b", "a"]
    pd.update({"z": torch.ones(1), "c": torch.ones(1)})
    assert list(pd.keys()) == ["b", "a", "c", "z"] and list(reversed(pd)) == ["z", "c", "a", "b"]
    assert "a" in pd and len(pd) == 4 and pd.get("nope", 5) == 5 and type(pd.get("a")) is nn.Parameter
    copy = pd.copy()
    assert type(copy) is nn.ParameterDict and copy["a"] is pd["a"]
    assert copy.pop("b").shape == (1,) and "b" not in copy
    assert copy.popitem()[0] == "z"
    del copy["a"]
    assert list(copy) == ["c"]
    assert nn.ParameterDict().setdefault("q", torch.ones(1)).shape == (1,)
    assert list(pd | {"y": torch.ones(1)}) == ["b", "a", "c", "z", "y"]
    pd |= {"e": torch.ones(1)}
    assert "e" in pd and [k for k, _ in pd.items()][-1] == "e" and len(list(pd.values())) == 5
    pd.clear()
    assert len(pd) == 0 and list(pd.parameters()) == []
    assert list(pd.fromkeys(["a", "b"], torch.ones(1))) == ["a", "b"]


@pytest.mark.task("7.1")
def test_parameter_dict_errors():
    pd = nn.ParameterDict({"w": torch.ones(1)})
    with pytest.raises(AttributeError):                  # PyTorch looks keys up as attributes
        pd["z"]
    with pytest.raises(TypeError, match="^Index given to ParameterDict cannot be used as a key as it is not a "
                                        "string \\(type is 'int'\\)"):
        nn.ParameterDict({1: torch.ones(1)})
    with pytest.raises(TypeError, match="update should be called with an iterable of key/value pairs, but "
                                        "got int$"):
        nn.ParameterDict(3)
    with pytest.raises(ValueError, match="^ParameterDict update sequence element #0 has length 1; 2 is required$"):
        nn.ParameterDict([("a",)])
    with pytest.raises(TypeError, match="^ParameterDict update sequence element #0 should be Iterable; isint$"):
        nn.ParameterDict([3])
    with pytest.raises(RuntimeError, match="^ParameterDict should not be called.$"):
        pd(1)


@pytest.mark.task("8.2")
def test_containers_inside_a_model():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleDict({"fc": nn.Linear(2, 2)})
            self.ps = nn.ParameterList([nn.Parameter(torch.ones(1))])
            self.pd = nn.ParameterDict({"s": nn.Parameter(torch.ones(1))})

    net = Net()
    assert repr(net) == (
        "Net(\n  (layers): ModuleDict(\n    (fc): Linear(in_features=2, out_features=2, bias=True)\n  )\n"
        "  (ps): ParameterList(  (0): Parameter containing: [minitorch.float32 of size 1])\n"
        "  (pd): ParameterDict(  (s): Parameter containing: [minitorch.FloatTensor of size 1])\n)")
    assert list(net.state_dict()) == ["layers.fc.weight", "layers.fc.bias", "ps.0", "pd.s"]
    net.double()
    assert net.ps[0].dtype == torch.float64 and net.pd["s"].dtype == torch.float64


# ----- Flatten and Unflatten --------------------------------------------------------------------
@pytest.mark.task("8.1")
def test_flatten_and_unflatten_shapes_and_reprs():
    x = torch.ones(2, 3, 4)
    assert nn.Flatten()(x).shape == (2, 12) and nn.Flatten(0, 1)(x).shape == (6, 4)
    assert nn.Flatten(-2)(x).shape == (2, 12) and nn.Flatten(0, -1)(torch.ones(())).shape == (1,)
    assert nn.Flatten(1)(torch.ones(0, 3)).shape == (0, 3) and nn.Flatten(0)(torch.ones(0, 3)).shape == (0,)
    assert repr(nn.Flatten()) == "Flatten(start_dim=1, end_dim=-1)" and nn.Flatten().start_dim == 1
    assert nn.Unflatten(1, (2, 5))(torch.ones(3, 10)).shape == (3, 2, 5)
    assert nn.Unflatten(-1, (2, -1))(torch.ones(3, 10)).shape == (3, 2, 5)
    assert nn.Unflatten(0, [2, 5])(torch.ones(10)).shape == (2, 5)
    assert nn.Unflatten(1, (2, -1))(torch.ones(0, 6)).shape == (0, 2, 3)
    assert repr(nn.Unflatten(1, (2, 5))) == "Unflatten(dim=1, unflattened_size=(2, 5))"
    assert repr(nn.Unflatten(1, torch.Size([2, 5]))) == "Unflatten(dim=1, unflattened_size=minitorch.Size([2, 5]))"


@pytest.mark.task("8.1")
@given(shape=shapes(min_dims=1, max_dims=4), data=st.data())
def test_flatten_then_unflatten_is_the_identity_with_gradients(shape, data):
    values = data.draw(arrays(shape))
    start = data.draw(st.integers(0, len(shape) - 1))
    end = data.draw(st.integers(start, len(shape) - 1))
    x = torch.from_numpy(values).requires_grad_()
    flat = nn.Flatten(start, end)(x)
    assert flat.shape == shape[:start] + (int(np.prod(shape[start:end + 1])),) + shape[end + 1:]
    back = nn.Unflatten(start, shape[start:end + 1])(flat)
    assert back.shape == shape and np.array_equal(back.detach().numpy(), values)
    (back * back).sum().backward()
    assert np.allclose(x.grad.numpy(), 2 * values)


@pytest.mark.parametrize("make, error, message", [
    (lambda: nn.Flatten()(torch.ones(3)), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda: nn.Flatten(2, 1)(torch.ones(2, 3, 4)), RuntimeError,
     "flatten() has invalid args: start_dim cannot come after end_dim"),
    (lambda: nn.Flatten(1, 5)(torch.ones(2, 3, 4)), IndexError,
     "Dimension out of range (expected to be in range of [-3, 2], but got 5)"),
    (lambda: nn.Unflatten(1, (3, 5))(torch.ones(3, 10)), RuntimeError,
     "unflatten: Provided sizes [3, 5] don't multiply up to the size of dim 1 (10) in the input tensor"),
    (lambda: nn.Unflatten(-1, (3, 5))(torch.ones(3, 10)), RuntimeError,
     "unflatten: Provided sizes [3, 5] don't multiply up to the size of dim 1 (10) in the input tensor"),
    (lambda: nn.Unflatten(1, (-1, 3))(torch.ones(3, 10)), RuntimeError,
     "unflatten: Provided sizes [-1, 3] don't multiply up to the size of dim 1 (10) in the input tensor"),
    (lambda: nn.Unflatten(5, (2, 5))(torch.ones(3, 10)), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 5)"),
    (lambda: nn.Unflatten(1, ())(torch.ones(3, 10)), RuntimeError, "unflatten: sizes must be non-empty"),
    (lambda: nn.Unflatten(1, 5), TypeError, "unflattened_size must be a tuple of ints, but found type int"),
    (lambda: nn.Unflatten(1, ["a"]), TypeError,
     "unflattened_size must be tuple of ints, but found element of type str at pos 0"),
])
def test_flatten_and_unflatten_errors_match_pytorch(make, error, message):
    with pytest.raises(error) as info:
        make()
    assert str(info.value) == message


def test_unflatten_refuses_named_dimensions():
    with pytest.raises(TypeError, match="no named dimensions"):
        nn.Unflatten("features", (("C", 2), ("H", 5)))


# ----- Module.to and friends ----------------------------------------------------------------------
def small_net():
    return nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.Sequential(nn.Linear(3, 1)))


@pytest.mark.task("7.2")
@pytest.mark.parametrize("args, kwargs", [
    ((torch.float64,), {}), ((), {"dtype": torch.float64}), (("cpu", torch.float64), {}),
    ((torch.zeros(1, dtype=torch.float64),), {}), ((torch.float64,), {"non_blocking": True}),
])
def test_to_a_dtype_in_every_form(args, kwargs):
    net = small_net()
    weight = net[0].weight
    assert net.to(*args, **kwargs) is net and net[0].weight is weight
    assert [p.dtype for p in net.parameters()] == [torch.float64] * 6
    assert [b.dtype for b in net.buffers()] == [torch.float64, torch.float64, torch.int64]


@pytest.mark.task("7.2")
def test_to_cpu_is_accepted_and_changes_nothing():
    net = small_net()
    for device in ["cpu", "cpu:0"]:
        assert net.to(device) is net and net.to(device=device) is net
    assert net.to() is net and net.cpu() is net
    assert next(net.parameters()).dtype == torch.float32


@pytest.mark.task("7.2")
@pytest.mark.parametrize("call, named, error", [         # error: PyTorch 2.13's type
    (lambda net: net.to("cuda"), "cuda", AssertionError),
    (lambda net: net.to("cuda:0"), "cuda", AssertionError),
    (lambda net: net.to(device="cuda"), "cuda", AssertionError),
    (lambda net: net.to("mps"), "mps", RuntimeError),
    (lambda net: net.to(0), "cuda", RuntimeError),
    (lambda net: net.to("cuda", torch.float64), "cuda", AssertionError),
    (lambda net: net.cuda(), "cuda", AssertionError),
])
def test_other_devices_are_refused_with_pytorchs_error_naming_them(call, named, error):
    net = small_net()
    with pytest.raises(error) as info:
        call(net)
    assert type(info.value) is error
    assert named in str(info.value) and "CPU only" in str(info.value)
    assert next(net.parameters()).dtype == torch.float32          # nothing changed


@pytest.mark.task("7.1")
def test_device_objects_with_a_type_are_understood():
    class FakeDevice:
        def __init__(self, type):
            self.type = type

        def __str__(self):
            return self.type

    net = small_net()
    assert net.to(FakeDevice("cpu")) is net
    with pytest.raises(AssertionError, match="cuda is not available"):
        net.to(FakeDevice("cuda"))


@pytest.mark.task("7.1")
def test_to_errors():
    with pytest.raises(TypeError, match="^nn.Module.to only accepts floating point or complex dtypes, but got "
                                        "desired dtype=minitorch.int64$"):
        small_net().to(torch.int64)
    with pytest.raises(RuntimeError, match="device type at start of device string: banana$"):
        small_net().to("banana")
    with pytest.raises(TypeError, match="unexpected keyword argument 'devices'"):
        small_net().to(devices="cpu")


@pytest.mark.task("7.2")
def test_float_double_and_the_grads():
    net = small_net()
    net[0].weight.grad = torch.ones(3, 2)
    net.double()
    assert net[0].weight.dtype == torch.float64 and net[0].weight.grad.dtype == torch.float64
    assert net[1].num_batches_tracked.dtype == torch.int64
    net.float()
    assert net[0].weight.dtype == torch.float32 and net[1].running_var.dtype == torch.float32


@pytest.mark.task("7.2")
@pytest.mark.parametrize("method", ["half", "bfloat16"])
def test_half_precision_is_refused_clearly(method):
    net = small_net()
    with pytest.raises(NotImplementedError, match=f"Module.{method}\\(\\): minitorch has no .* dtype"):
        getattr(net, method)()
    assert next(net.parameters()).dtype == torch.float32


# ----- finding members by name -----------------------------------------------------------------
@pytest.mark.task("7.1")
def test_get_submodule_parameter_buffer():
    net = small_net()
    assert net.get_submodule("2.0") is net[2][0] and net.get_submodule("") is net
    assert net.get_parameter("2.0.bias") is net[2][0].bias
    assert net.get_buffer("1.running_var") is net[1].running_var


@pytest.mark.task("7.1")
@pytest.mark.parametrize("call, message", [
    (lambda net: net.get_submodule("2.5"), "Sequential has no attribute `5`"),
    (lambda net: net.get_submodule("x.y"), "Sequential has no attribute `x`"),
    (lambda net: net.get_submodule("0.weight"), "`weight` is not an nn.Module"),
    (lambda net: net.get_parameter("2.0.foo"), "Linear has no attribute `foo`"),
    (lambda net: net.get_parameter("1.running_mean"), "`running_mean` is not an nn.Parameter"),
    (lambda net: net.get_parameter("9.weight"), "Sequential has no attribute `9`"),
    (lambda net: net.get_buffer("1.foo"), "BatchNorm1d has no attribute `foo`"),
    (lambda net: net.get_buffer("0.weight"), "`weight` is not a buffer"),
])
def test_get_errors_match_pytorch(call, message):
    with pytest.raises(AttributeError) as info:
        call(small_net())
    assert str(info.value) == message


@pytest.mark.task("7.1")
def test_plain_attributes_are_neither_parameters_nor_buffers():
    net = small_net()
    net[0].plain = 3
    with pytest.raises(AttributeError, match="^`plain` is not a buffer$"):
        net.get_buffer("0.plain")
    with pytest.raises(AttributeError, match="^`plain` is not an nn.Parameter$"):
        net.get_parameter("0.plain")


@pytest.mark.task("7.2")
def test_named_parameters_options_and_register_module():
    net = small_net()
    assert [n for n, _ in net.named_parameters(prefix="model")] == [
        "model.0.weight", "model.0.bias", "model.1.weight", "model.1.bias", "model.2.0.weight", "model.2.0.bias"]
    assert [n for n, _ in net[0].named_parameters(recurse=False)] == ["weight", "bias"]
    assert list(net.named_parameters(recurse=False)) == []
    shared = nn.Linear(1, 1)
    twice = nn.Sequential(shared, shared)
    assert [n for n, _ in twice.named_parameters()] == ["0.weight", "0.bias"]
    assert [n for n, _ in twice.named_parameters(remove_duplicate=False)] == [
        "0.weight", "0.bias", "1.weight", "1.bias"]
    seq = nn.Sequential()
    seq.register_module("x", nn.ReLU())
    assert list(seq._modules) == ["x"]


@pytest.mark.task("8.1")
def test_identity_ignores_its_arguments():
    layer = nn.Identity(3, foo=1)
    x = torch.ones(2)
    assert repr(layer) == "Identity()" and layer(x) is x


# ----- ModuleList: + and pop (values printed by PyTorch 2.13) ---------------------------------
def _kinds(module_list):
    return [(key, type(m).__name__) for key, m in module_list._modules.items()]


@pytest.mark.task("7.1")
def test_module_list_add_makes_a_new_list_of_the_same_modules():
    ml = nn.ModuleList([nn.ReLU(), nn.Tanh()])
    both = ml + nn.ModuleList([nn.Sigmoid()])
    assert _kinds(both) == [("0", "ReLU"), ("1", "Tanh"), ("2", "Sigmoid")]
    assert both[0] is ml[0] and len(ml) == 2
    assert _kinds(ml + [nn.Identity()]) == [("0", "ReLU"), ("1", "Tanh"), ("2", "Identity")]
    assert _kinds(ml + nn.Sequential(nn.Identity()))[-1] == ("2", "Identity")
    assert (ml + ml)[2] is ml[0]
    assert repr(ml + ()) == "ModuleList(\n  (0): ReLU()\n  (1): Tanh()\n)"
    with pytest.raises(TypeError, match="'int' object is not iterable"):
        ml + 3
    with pytest.raises(TypeError, match="int is not a Module subclass"):
        ml + [3]


@pytest.mark.task("7.1")
def test_module_list_pop_returns_the_module_and_renumbers():
    def make():
        return nn.ModuleList([nn.ReLU(), nn.Tanh(), nn.Sigmoid()])

    for key, popped, left in [(0, "ReLU()", [("0", "Tanh"), ("1", "Sigmoid")]),
                              (-1, "Sigmoid()", [("0", "ReLU"), ("1", "Tanh")]),
                              (1, "Tanh()", [("0", "ReLU"), ("1", "Sigmoid")])]:
        ml = make()
        assert repr(ml.pop(key)) == popped and _kinds(ml) == left
    ml = make()
    assert repr(ml.pop(slice(0, 2))) == "ModuleList(\n  (0): ReLU()\n  (1): Tanh()\n)"
    assert _kinds(ml) == [("0", "Sigmoid")]
    with pytest.raises(IndexError, match="index 5 is out of range"):
        make().pop(5)
