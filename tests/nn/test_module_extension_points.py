"""Module extension points as PyTorch 2.13 has them (chapter 8): a subclass's
``_load_from_state_dict`` is the per-module loading step (and can upgrade old checkpoints),
``load_state_dict(assign=True)``, forward hooks with ``always_call=True`` (local and
global, with kwargs), the legacy backward hook's warnings, and ``nn.Buffer``.  Every
expected value was checked against PyTorch 2.13 on the same code."""

import warnings

import pytest

import minitorch as torch
import minitorch.nn as nn
from minitorch.nn.modules.module import register_module_forward_hook

pytestmark = pytest.mark.chapter8


class Old(nn.Module):
    """A layer whose parameter was called ``weight`` in old checkpoints and ``w`` now."""

    def __init__(self, calls):
        super().__init__()
        self.w = nn.Parameter(torch.zeros(2))
        self.calls = calls

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, *lists):
        # lists: missing_keys, unexpected_keys, error_msgs, passed on as they are
        self.calls.append((prefix, dict(local_metadata), strict, sorted(state_dict)))
        if prefix + "weight" in state_dict:
            state_dict[prefix + "w"] = state_dict.pop(prefix + "weight")
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, *lists)


class Net(nn.Module):
    def __init__(self, calls):
        super().__init__()
        self.old = Old(calls)
        self.lin = nn.Linear(2, 1)


@pytest.mark.task("8.2")
def test_load_state_dict_calls_each_modules_load_from_state_dict():
    calls = []
    net = Net(calls)
    old_checkpoint = {"old.weight": torch.tensor([1.0, 2.0]), "lin.weight": torch.ones(1, 2),
                      "lin.bias": torch.ones(1)}
    assert repr(net.load_state_dict(old_checkpoint)) == "<All keys matched successfully>"
    assert net.old.w.tolist() == [1.0, 2.0]
    # the child sees only its own entries; strict is always passed as True, as in PyTorch
    assert calls == [("old.", {}, True, ["old.weight"])]
    calls.clear()
    net.load_state_dict(net.state_dict(), strict=False)
    assert calls == [("old.", {"version": 1}, True, ["old.w"])]
    calls.clear()
    net.load_state_dict(net.state_dict(), assign=True)
    assert calls == [("old.", {"version": 1, "assign_to_params_buffers": True}, True, ["old.w"])]


@pytest.mark.task("8.2")
def test_assign_replaces_parameters_keeping_the_checkpoints_dtype_and_requires_grad():
    lin = nn.Linear(2, 1)
    lin.load_state_dict({"weight": torch.ones(1, 2, dtype=torch.float64),
                         "bias": torch.zeros(1, dtype=torch.float64)}, assign=True)
    assert lin.weight.dtype == torch.float64 and type(lin.weight) is nn.Parameter
    assert lin.weight.requires_grad
    lin = nn.Linear(2, 1)
    lin.weight.requires_grad_(False)
    lin.load_state_dict({"weight": torch.ones(1, 2), "bias": torch.zeros(1)}, assign=True)
    assert not lin.weight.requires_grad and lin.bias.requires_grad


@pytest.mark.task("8.2")
def test_unexpected_keys_follow_pytorchs_rule():
    # a key with no dot must name an entry; one with a dot must start with a child's name
    n = nn.Sequential(nn.Linear(2, 2))
    sd = n.state_dict()
    sd["0"] = torch.ones(1)
    sd["0.weight.x"] = torch.ones(1)
    result = n.load_state_dict(sd, strict=False)
    assert result.unexpected_keys == ["0", "0.weight.x"]


@pytest.mark.task("8.2")
def test_load_post_hooks_may_clear_missing_keys_before_strict_checks():
    lin = nn.Linear(2, 1)
    lin.register_load_state_dict_post_hook(lambda module, keys: keys.missing_keys.clear())
    assert repr(lin.load_state_dict({"weight": torch.ones(1, 2)})) == \
        "<All keys matched successfully>"


class Failing(nn.Module):
    def forward(self, x, scale=1):
        raise ValueError("no")


@pytest.mark.task("8.1")
def test_always_call_hooks_global_and_with_kwargs_see_none():
    seen = []
    handle = register_module_forward_hook(lambda m, a, o: seen.append(("global", o)),
                                          always_call=True)
    try:
        module = Failing()
        module.register_forward_hook(lambda m, a, k, o: seen.append(("local", k, o)),
                                     with_kwargs=True, always_call=True)
        with pytest.raises(ValueError):
            module(torch.ones(1), scale=2)
    finally:
        handle.remove()
    assert seen == [("global", None), ("local", {"scale": 2}, None)]


@pytest.mark.task("8.1")
def test_an_always_call_hook_that_raises_only_warns():
    module = Failing()
    module.register_forward_hook(lambda m, a, o: 1 / 0, always_call=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="no"):
            module(torch.ones(1))
    assert [str(w.message) for w in caught] == [
        "module forward hook with ``always_call=True`` raised an exception that was silenced "
        "as another error was raised in forward: division by zero"]


@pytest.mark.task("8.1")
def test_always_call_hooks_run_once_and_see_the_output_when_a_later_hook_fails():
    runs = []
    lin = nn.Linear(1, 1)
    lin.register_forward_hook(lambda m, a, o: runs.append(1), always_call=True)
    lin(torch.ones(1))
    assert runs == [1]
    lin = nn.Linear(1, 1)
    seen = []
    lin.register_forward_hook(lambda m, a, o: 1 / 0)
    lin.register_forward_hook(lambda m, a, o: seen.append(type(o).__name__), always_call=True)
    with pytest.raises(ZeroDivisionError):
        lin(torch.ones(1))
    assert seen == ["Tensor"]


@pytest.mark.task("8.1")
def test_an_always_call_hook_that_already_ran_is_not_run_again():
    # it ran as a forward hook, then a later hook failed: PyTorch 2.13 runs it once
    runs = []
    lin = nn.Linear(1, 1)
    lin.register_forward_hook(lambda m, a, o: runs.append("always"), always_call=True)
    lin.register_forward_hook(lambda m, a, o: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        lin(torch.ones(1))
    assert runs == ["always"]


@pytest.mark.task("8.1")
def test_any_error_in_an_always_call_hook_only_warns_and_the_first_error_goes_on():
    def fails(module, args, output):
        raise KeyError("hook failed")

    seen = []
    handle = register_module_forward_hook(fails, always_call=True)
    try:
        module = Failing()
        module.register_forward_hook(fails, always_call=True)
        module.register_forward_hook(lambda m, a, o: seen.append(o), always_call=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(ValueError, match="^no$"):
                module(torch.ones(1))
    finally:
        handle.remove()
    assert [(w.category, str(w.message)) for w in caught] == [
        (UserWarning, f"{scope}module forward hook with ``always_call=True`` raised an "
                      "exception that was silenced as another error was raised in forward: "
                      "'hook failed'")
        for scope in ("global ", "")]
    assert seen == [None]           # the hooks after the failing one still ran


@pytest.mark.task("8.1")
def test_backward_hooks_warn_when_the_output_is_not_a_tensor_or_tuple():
    class Listed(nn.Module):
        def forward(self, x):
            return [x * 2]

    module = Listed()
    module.register_full_backward_hook(lambda m, gi, go: None)
    with pytest.warns(UserWarning, match=r"^For backward hooks to be called, module output "
                      r"should be a Tensor or a tuple of Tensors but received <class 'list'>$"):
        out = module(torch.ones(2, requires_grad=True))
    assert isinstance(out, list) and out[0].tolist() == [2.0, 2.0]
    module = Listed()
    module.register_full_backward_pre_hook(lambda m, go: None)
    with pytest.warns(UserWarning, match="but received <class 'list'>"):
        module(torch.ones(2, requires_grad=True))
    lin = nn.Linear(2, 1)
    lin.register_full_backward_hook(lambda m, gi, go: None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # a Tensor output: no warning
        lin(torch.ones(1, 2, requires_grad=True))


@pytest.mark.task("8.1")
def test_legacy_backward_hook_on_a_module_with_two_output_nodes_warns():
    class Two(nn.Module):
        def forward(self, x):
            return x * 2, x * 3

    two = Two()
    two.register_backward_hook(lambda m, gi, go: None)
    with pytest.warns(FutureWarning, match="outputs are generated by different autograd Nodes"):
        two(torch.ones(1, 2, requires_grad=True))
    lin = nn.Linear(2, 3)           # a leaf input: its AccumulateGrad is not an input's grad_fn
    lin.register_backward_hook(lambda m, gi, go: None)
    with pytest.warns(FutureWarning, match="the forward contains multiple autograd Nodes"):
        lin(torch.ones(1, 2, requires_grad=True))


@pytest.mark.task("8.2")
def test_buffer_marks_a_tensor_to_register():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.b = nn.Buffer(torch.ones(2), persistent=False)
            self.c = nn.Buffer(torch.zeros(1))

    m = M()
    assert list(m.state_dict()) == ["c"] and [n for n, _ in m.named_buffers()] == ["b", "c"]
    assert type(m.c) is torch.Tensor and isinstance(m.c, nn.Buffer) and m.c.persistent
    assert not isinstance(torch.ones(1), nn.Buffer)
    m.c = torch.ones(3)                 # a plain tensor assigned to a buffer name stays one
    assert m.c.tolist() == [1.0, 1.0, 1.0] and "c" in m._buffers
    with pytest.raises(TypeError, match="cannot assign 'int' as buffer 'b'"):
        m.b = 5
    x = torch.ones(2, requires_grad=True)
    buf = nn.Buffer(x)
    assert buf.requires_grad and buf is not x and buf.grad_fn is None

    class Early(nn.Module):
        def __init__(self):
            self.b = nn.Buffer(torch.ones(1))

    with pytest.raises(AttributeError, match=r"cannot assign buffer before Module.__init__\(\)"):
        Early()
