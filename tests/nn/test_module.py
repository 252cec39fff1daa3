"""nn.Module's bookkeeping: __init__'s dicts, registration, iteration, apply/train/eval, repr.

Expected messages and orders were taken from PyTorch 2.13 running the same code.
"""

import contextlib
from collections import OrderedDict

import pytest

import minitorch as torch
import minitorch.nn as nn
from minitorch.nn import Parameter

pytestmark = pytest.mark.chapter7


@contextlib.contextmanager
def key_error(message):
    """Expect a KeyError whose message is exactly ``message`` (str() of a KeyError adds quotes)."""
    with pytest.raises(KeyError) as info:
        yield
    assert info.value.args[0] == message


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 3)
        self.register_buffer("steps", torch.zeros(1))
        self.register_buffer("scratch", torch.zeros(1), persistent=False)
        self.act = nn.ReLU()
        self.scale = Parameter(torch.ones(1))

    def forward(self, x):
        return self.act(self.fc(x)) * self.scale


# ----- __init__ ------------------------------------------------------------------------
def test_init_creates_the_dicts_the_seeds_list():
    m = nn.Module()
    d = vars(m)
    for name in ("_parameters", "_buffers", "_modules", "_forward_pre_hooks", "_forward_hooks",
                 "_backward_hooks", "_state_dict_hooks", "_load_state_dict_pre_hooks"):
        assert isinstance(d[name], dict) and not d[name], name
    for name in ("_forward_pre_hooks", "_forward_hooks", "_backward_hooks", "_state_dict_hooks",
                 "_load_state_dict_pre_hooks"):
        assert isinstance(d[name], OrderedDict), name
    assert d["_non_persistent_buffers_set"] == set()
    assert d["training"] is True
    assert d["_is_full_backward_hook"] is None


def test_class_attributes():
    assert nn.Module.dump_patches is False
    assert nn.Module._version == 1
    assert "training" not in vars(nn.Module)


@pytest.mark.task("8.1")
def test_forward_missing_raises_pytorch_message():
    with pytest.raises(NotImplementedError, match=r'^Module \[Module\] is missing the required "forward" function$'):
        nn.Module()(torch.ones(1))

    class NoForward(nn.Module):
        pass
    with pytest.raises(NotImplementedError, match=r"Module \[NoForward\]"):
        NoForward()(1)


# ----- registration ------------------------------------------------------------------
@pytest.mark.task("7.1")
def test_setattr_registers_parameters_modules_buffers():
    n = Net()
    assert list(n._parameters) == ["scale"]
    assert list(n._modules) == ["fc", "act"]
    assert list(n._buffers) == ["steps", "scratch"]
    assert n._non_persistent_buffers_set == {"scratch"}
    for name in ("fc", "act", "scale", "steps"):
        assert name not in vars(n)
    assert n.fc is n._modules["fc"] and n.scale is n._parameters["scale"]
    assert n.steps is n._buffers["steps"]


@pytest.mark.task("7.1")
def test_assigning_before_init_raises_attribute_error():
    class A(nn.Module):
        def __init__(self):
            self.p = Parameter(torch.zeros(1))

    class B(nn.Module):
        def __init__(self):
            self.m = nn.ReLU()

    class C(nn.Module):
        def __init__(self):
            self.register_buffer("b", torch.zeros(1))

    class D(nn.Module):
        def __init__(self):
            self.register_parameter("p", None)

    with pytest.raises(AttributeError, match=r"^cannot assign parameters before Module.__init__\(\) call$"):
        A()
    with pytest.raises(AttributeError, match=r"^cannot assign module before Module.__init__\(\) call$"):
        B()
    with pytest.raises(AttributeError, match=r"^cannot assign buffer before Module.__init__\(\) call$"):
        C()
    with pytest.raises(AttributeError, match=r"^cannot assign parameter before Module.__init__\(\) call$"):
        D()


@pytest.mark.task("7.1")
def test_plain_tensor_over_parameter_slot_is_a_type_error():
    lin = nn.Linear(3, 4)
    with pytest.raises(TypeError, match=r"cannot assign 'minitorch.FloatTensor' as parameter 'weight' "
                                        r"\(minitorch.nn.Parameter or None expected\)"):
        lin.weight = torch.zeros(4, 3)
    with pytest.raises(TypeError, match=r"cannot assign 'int' as parameter 'weight'"):
        lin.weight = 3
    lin.weight = None
    assert lin._parameters["weight"] is None and lin.weight is None


@pytest.mark.task("7.1")
def test_non_module_over_child_slot_and_bad_buffer_value():
    n = Net()
    with pytest.raises(TypeError, match=r"cannot assign 'int' as child module 'fc'"):
        n.fc = 3
    with pytest.raises(TypeError, match=r"cannot assign 'int' as buffer 'steps'"):
        n.steps = 3
    n.steps = torch.ones(2)
    assert n._buffers["steps"].tolist() == [1.0, 1.0]
    n.fc = None
    assert n._modules["fc"] is None


@pytest.mark.task("7.1")
def test_reassigning_moves_between_registries():
    n = Net()
    n.steps = Parameter(torch.zeros(1))      # a Parameter replaces the buffer
    assert "steps" in n._parameters and "steps" not in n._buffers
    n.scratch = nn.Tanh()
    assert "scratch" in n._modules and "scratch" not in n._buffers
    assert "scratch" not in n._non_persistent_buffers_set
    n.plain = 5
    assert vars(n)["plain"] == 5
    n.plain = Parameter(torch.zeros(1))
    assert "plain" not in vars(n) and "plain" in n._parameters


@pytest.mark.task("7.1")
def test_register_parameter_errors():
    lin = nn.Linear(1, 1)
    lin.existing = 5
    with key_error('parameter name can\'t contain "."'):
        lin.register_parameter("a.b", None)
    with key_error('parameter name can\'t be empty string ""'):
        lin.register_parameter("", None)
    with pytest.raises(TypeError, match="^parameter name should be a string. Got int$"):
        lin.register_parameter(1, None)
    with key_error("attribute 'existing' already exists"):
        lin.register_parameter("existing", None)
    with pytest.raises(TypeError, match=r"cannot assign 'minitorch.FloatTensor' object to parameter 'foo' "
                                        r"\(minitorch.nn.Parameter or None required\)"):
        lin.register_parameter("foo", torch.zeros(1))


@pytest.mark.task("7.1")
def test_register_parameter_refuses_a_non_leaf():
    # a Parameter that does not require grad, changed in place by one that does,
    # is no longer a leaf (PyTorch 2.13 refuses it with these words)
    p = Parameter(torch.zeros(2), requires_grad=False)
    p.mul_(torch.ones(2, requires_grad=True))
    lin = nn.Linear(1, 1)
    message = ("^Cannot assign non-leaf Tensor to parameter 'w'. Model parameters must be "
               "created explicitly. To express 'w' as a function of another Tensor, compute "
               r"the value in the forward\(\) method.$")
    with pytest.raises(ValueError, match=message):
        lin.register_parameter("w", p)
    with pytest.raises(ValueError, match=message):
        lin.w = p
    assert "w" not in lin._parameters


@pytest.mark.task("7.1")
def test_names_of_class_attributes_are_taken():
    # forward is an attribute of the class, not of the instance: still taken
    m = nn.Module()
    with key_error("attribute 'forward' already exists"):
        m.register_buffer("forward", torch.zeros(1))
    with key_error("attribute 'forward' already exists"):
        m.register_parameter("forward", Parameter(torch.zeros(1)))
    with key_error("attribute 'forward' already exists"):
        m.add_module("forward", nn.ReLU())
    assert m._buffers == {} and m._parameters == {} and m._modules == {}


@pytest.mark.task("7.1")
def test_buffer_persistence_follows_the_last_registration():
    m = nn.Module()
    m.register_buffer("b", torch.zeros(1), persistent=False)
    assert m._non_persistent_buffers_set == {"b"}
    m.register_buffer("b", torch.ones(1))            # registered again, persistent
    assert m._non_persistent_buffers_set == set() and m.b.tolist() == [1.0]
    m.x = nn.Buffer(torch.zeros(1), persistent=False)
    m.y = nn.Buffer(torch.zeros(1))
    assert m._non_persistent_buffers_set == {"x"} and list(m._buffers) == ["b", "x", "y"]
    m.x = nn.Buffer(torch.zeros(1))                  # an nn.Buffer over it: persistent
    assert m._non_persistent_buffers_set == set()


@pytest.mark.task("7.2")
def test_register_buffer_errors_and_persistence():
    lin = nn.Linear(1, 1)
    with key_error('buffer name can\'t contain "."'):
        lin.register_buffer("b.c", None)
    with key_error('buffer name can\'t be empty string ""'):
        lin.register_buffer("", None)
    with pytest.raises(TypeError, match="^buffer name should be a string. Got int$"):
        lin.register_buffer(3, None)
    with key_error("attribute 'weight' already exists"):
        lin.register_buffer("weight", None)
    with pytest.raises(TypeError, match=r"cannot assign 'int' object to buffer 'q'"):
        lin.register_buffer("q", 3)
    lin.register_buffer("q", torch.zeros(1), persistent=False)
    assert lin._non_persistent_buffers_set == {"q"}
    lin.register_buffer("q", torch.zeros(1))          # re-registering as persistent
    assert lin._non_persistent_buffers_set == set()
    lin.register_buffer("none_yet", None)
    assert lin._buffers["none_yet"] is None and list(lin.buffers()) == [lin.q]


@pytest.mark.task("7.1")
def test_add_module_and_register_module():
    m = nn.Module()
    relu = nn.ReLU()
    m.add_module("act", relu)
    m.register_module("act2", relu)
    assert m.act is relu and m.act2 is relu
    m.attr = 1
    with pytest.raises(TypeError, match="^int is not a Module subclass$"):
        m.add_module("x", 3)
    with pytest.raises(TypeError, match="^module name should be a string. Got int$"):
        m.add_module(3, relu)
    with key_error("attribute 'attr' already exists"):
        m.add_module("attr", relu)
    with key_error('module name can\'t contain ".", got: a.b'):
        m.add_module("a.b", relu)
    with key_error('module name can\'t be empty string ""'):
        m.add_module("", relu)
    m.add_module("empty", None)
    assert m.empty is None


@pytest.mark.task("7.1")
def test_getattr_and_delattr():
    n = Net()
    with pytest.raises(AttributeError, match="^'Net' object has no attribute 'nothere'$"):
        n.nothere
    del n.scale
    del n.scratch
    del n.act
    assert "scale" not in n._parameters and "scratch" not in n._buffers and "act" not in n._modules
    assert n._non_persistent_buffers_set == set()
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'scale'"):
        n.scale
    n.plain = 1
    del n.plain
    with pytest.raises(AttributeError):
        del n.plain


@pytest.mark.task("7.1")
def test_dir_lists_registered_names():
    names = dir(Net())
    for name in ("fc", "act", "scale", "steps", "forward", "training"):
        assert name in names
    assert names == sorted(set(names))
    m = nn.Module()
    m.add_module("0", nn.ReLU())                     # Sequential's children are named so
    m.add_module("head", nn.ReLU())
    names = dir(m)
    assert "head" in names and "0" not in names
    assert not [name for name in names if name[0].isdigit()]


# ----- iteration -------------------------------------------------------------------------
def make_tree():
    root = nn.Module()
    root.a = Parameter(torch.zeros(1))
    root.register_buffer("buf", torch.zeros(1))
    root.block = nn.Sequential(nn.Linear(1, 2), nn.ReLU())
    root.head = nn.Linear(2, 1)
    root.block[0].register_buffer("count", torch.zeros(1))
    return root


@pytest.mark.task("7.2")
def test_named_parameters_order_and_prefixes():
    root = make_tree()
    assert [n for n, _ in root.named_parameters()] == ["a", "block.0.weight", "block.0.bias",
                                                       "head.weight", "head.bias"]
    assert [n for n, _ in root.named_parameters(prefix="model")] == [
        "model.a", "model.block.0.weight", "model.block.0.bias", "model.head.weight", "model.head.bias"]
    assert [n for n, _ in root.named_parameters(recurse=False)] == ["a"]
    assert [p for p in root.parameters()][0] is root.a
    assert len(list(root.parameters(recurse=False))) == 1


@pytest.mark.task("7.2")
def test_named_buffers_modules_children():
    root = make_tree()
    assert [n for n, _ in root.named_buffers()] == ["buf", "block.0.count"]
    assert [n for n, _ in root.named_buffers(recurse=False)] == ["buf"]
    assert [n for n, _ in root.named_modules()] == ["", "block", "block.0", "block.1", "head"]
    assert [n for n, _ in root.named_modules(prefix="m")] == ["m", "m.block", "m.block.0", "m.block.1", "m.head"]
    assert [n for n, _ in root.named_children()] == ["block", "head"]
    assert list(root.children()) == [root.block, root.head]
    assert list(root.modules())[0] is root


@pytest.mark.task("7.2")
def test_shared_parameters_and_modules_yielded_once():
    shared = nn.Linear(2, 2)
    root = nn.Module()
    root.first = shared
    root.second = shared
    root.extra = nn.Linear(2, 2)
    root.extra.weight = shared.weight          # a parameter shared between two modules
    assert [n for n, _ in root.named_modules()] == ["", "first", "extra"]
    assert [n for n, _ in root.named_children()] == ["first", "extra"]
    assert [n for n, _ in root.named_parameters()] == ["first.weight", "first.bias", "extra.bias"]
    assert len(list(root.named_parameters(remove_duplicate=False))) == 6
    assert [n for n, _ in root.named_modules(remove_duplicate=False)] == ["", "first", "second", "extra"]


@pytest.mark.task("7.2")
def test_none_entries_are_skipped():
    lin = nn.Linear(2, 2, bias=False)
    assert [n for n, _ in lin.named_parameters()] == ["weight"]
    root = nn.Module()
    root.add_module("gone", None)
    assert list(root.children()) == [] and [n for n, _ in root.named_modules()] == [""]


# ----- apply, train, eval, requires_grad_, zero_grad ------------------------------------
@pytest.mark.task("7.2")
def test_apply_is_post_order_and_returns_self():
    root = make_tree()
    seen = []
    assert root.apply(lambda m: seen.append(type(m).__name__)) is root
    assert seen == ["Linear", "ReLU", "Sequential", "Linear", "Module"]


@pytest.mark.task("7.2")
def test_train_and_eval_are_recursive():
    root = make_tree()
    assert root.eval() is root
    assert all(not m.training for m in root.modules())
    assert root.train() is root
    assert all(m.training for m in root.modules())
    root.train(False)
    assert not root.block[1].training


@pytest.mark.task("7.1")
@pytest.mark.parametrize("mode", [1, 0, "yes", None])
def test_train_rejects_non_bool(mode):
    with pytest.raises(ValueError, match="^training mode is expected to be boolean$"):
        nn.Linear(1, 1).train(mode)


@pytest.mark.task("7.2")
def test_requires_grad_freezes_and_unfreezes():
    root = make_tree()
    assert root.requires_grad_(False) is root
    assert not any(p.requires_grad for p in root.parameters())
    assert all(not b.requires_grad for b in root.buffers())
    root.requires_grad_()
    assert all(p.requires_grad for p in root.parameters())


@pytest.mark.task("8.1")
def test_zero_grad_sets_to_none_or_zeros():
    lin = nn.Linear(2, 1)
    lin(torch.ones(3, 2)).sum().backward()
    grad = lin.weight.grad
    lin.zero_grad(set_to_none=False)
    assert lin.weight.grad is grad and lin.weight.grad.tolist() == [[0.0, 0.0]]
    lin(torch.ones(3, 2)).sum().backward()
    assert lin.weight.grad.tolist() == [[3.0, 3.0]]
    lin.zero_grad()
    assert lin.weight.grad is None and lin.bias.grad is None


@pytest.mark.task("8.1")
def test_zero_grad_to_zeros_detaches_a_grad_made_with_create_graph():
    # PyTorch 2.13: the same tensor, no grad_fn, no longer requiring grad, zeros
    lin = nn.Linear(2, 1)
    (lin(torch.ones(3, 2)) ** 2).sum().backward(create_graph=True)
    grad = lin.weight.grad
    assert grad.grad_fn is not None
    lin.zero_grad(set_to_none=False)
    assert lin.weight.grad is grad and grad.grad_fn is None and not grad.requires_grad
    assert grad.tolist() == [[0.0, 0.0]]


# ----- repr ------------------------------------------------------------------------------
@pytest.mark.task("7.1")
def test_repr_nested_sequential_matches_pytorch():
    s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 1), nn.Sigmoid()))
    assert repr(s) == (
        "Sequential(\n"
        "  (0): Linear(in_features=2, out_features=3, bias=True)\n"
        "  (1): ReLU()\n"
        "  (2): Sequential(\n"
        "    (0): Linear(in_features=3, out_features=1, bias=True)\n"
        "    (1): Sigmoid()\n"
        "  )\n"
        ")")


@pytest.mark.task("7.1")
def test_repr_one_line_and_empty_cases():
    assert repr(nn.Module()) == "Module()"
    assert repr(nn.Linear(3, 4)) == "Linear(in_features=3, out_features=4, bias=True)"
    assert repr(nn.Linear(2, 2, bias=False)) == "Linear(in_features=2, out_features=2, bias=False)"


@pytest.mark.task("7.1")
def test_repr_multi_line_extra_and_children():
    class Odd(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = nn.Tanh()

        def extra_repr(self):
            return "first=1\nsecond=2"

    assert repr(Odd()) == "Odd(\n  first=1\n  second=2\n  (inner): Tanh()\n)"

    class OneExtraOneChild(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = nn.Tanh()

        def extra_repr(self):
            return "k=1"

    assert repr(OneExtraOneChild()) == "OneExtraOneChild(\n  k=1\n  (inner): Tanh()\n)"


@pytest.mark.task("7.1")
def test_repr_of_none_child():
    m = nn.Module()
    m.add_module("gone", None)
    assert repr(m) == "Module(\n  (gone): None\n)"


@pytest.mark.task("7.1")
def test_repr_of_a_tree_300_deep_prints_like_pytorch():
    # PyTorch 2.13 prints this tree: 601 lines, 185,748 characters.
    deep = nn.Linear(1, 1)
    for _ in range(300):
        deep = nn.Sequential(deep)
    text = repr(deep)
    assert len(text) == 185748 and text.count("\n") == 600
    assert text.startswith("Sequential(\n  (0): Sequential(\n    (0): Sequential(")
    assert " " * 600 + "(0): Linear(in_features=1, out_features=1, bias=True)" in text


@pytest.mark.task("7.1")
def test_repr_asks_a_child_with_its_own_repr():
    class Named(nn.Module):
        def __repr__(self):
            return "Named<custom>\nsecond line"

    s = nn.Sequential(nn.Sequential(Named()))
    assert repr(s) == ("Sequential(\n  (0): Sequential(\n    (0): Named<custom>\n"
                       "    second line\n  )\n)")


@pytest.mark.task("7.1")
def test_repr_of_a_module_inside_itself_is_a_recursion_error():
    outer = nn.Sequential(nn.Sequential())
    outer[0].add_module("loop", outer)
    with pytest.raises(RecursionError):          # as in PyTorch 2.13
        repr(outer)


@pytest.mark.task("7.1")
def test_get_submodule():
    root = make_tree()
    assert root.get_submodule("block.0") is root.block[0]
    assert root.get_submodule("") is root
    with pytest.raises(AttributeError, match="has no attribute `nope`"):
        root.get_submodule("block.nope")


# ----- dtype conversion -------------------------------------------------------------------
@pytest.mark.task("8.1")
def test_to_double_float_keep_parameter_objects():
    bn_net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    weight = bn_net[0].weight
    assert bn_net.to(torch.float64) is bn_net
    assert bn_net[0].weight is weight and weight.dtype == torch.float64 and weight.requires_grad
    assert bn_net[1].running_mean.dtype == torch.float64
    assert bn_net[1].num_batches_tracked.dtype == torch.int64          # integers are left alone
    assert bn_net(torch.randn(3, 2, dtype=torch.float64)).dtype == torch.float64
    bn_net.float()
    assert weight.dtype == torch.float32 and bn_net[1].running_var.dtype == torch.float32
    bn_net.double()
    assert weight.dtype == torch.float64
    assert bn_net.to("cpu") is bn_net and bn_net.cpu() is bn_net
    with pytest.raises(TypeError, match="only accepts floating point or complex dtypes"):
        bn_net.to(torch.int64)


def test_global_hook_registry_is_reachable_as_in_pytorch():
    assert nn.modules.module.register_module_forward_hook is not None
    assert nn.modules.module.register_module_forward_pre_hook is not None
