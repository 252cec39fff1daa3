"""Module.__call__ (-> _wrapped_call_impl -> _call_impl) and its hooks: order, arguments, return values, removal.

The orders and arguments asserted here are what PyTorch 2.13 produces for the
same code (checked side by side).
"""

import warnings

import pytest

import minitorch as torch
import minitorch.nn as nn
from minitorch.nn.modules import module as module_mod
from minitorch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook

pytestmark = pytest.mark.chapter8


class Scale(nn.Module):
    def __init__(self, log=None):
        super().__init__()
        self.log = log if log is not None else []

    def forward(self, x, y=None, scale=1.0):
        self.log.append(("forward", scale))
        out = x * 2 * scale
        return out if y is None else out + y * 3


@pytest.fixture(autouse=True)
def no_global_hooks_left():
    yield
    assert not module_mod._global_forward_pre_hooks and not module_mod._global_forward_hooks


@pytest.mark.task("8.1")
def test_call_is_wrapped_call_impl_which_calls_call_impl():
    # PyTorch 2.x: __call__ is _wrapped_call_impl (not _call_impl), which calls _call_impl
    assert nn.Module.__call__ is nn.Module._wrapped_call_impl
    assert nn.Module.__call__ is not nn.Module._call_impl
    seen = []

    class Traced(nn.Module):
        def _call_impl(self, *args, **kwargs):
            seen.append(args)
            return super()._call_impl(*args, **kwargs)

        def forward(self, x):
            return x + 1

    assert Traced()(torch.ones(1)).tolist() == [2.0] and len(seen) == 1


@pytest.mark.task("8.1")
def test_full_order_of_hooks():
    log = []
    m = Scale(log)
    g1 = register_module_forward_pre_hook(lambda mod, args: log.append("global pre"))
    g2 = register_module_forward_hook(lambda mod, args, out: log.append("global forward hook"))
    try:
        m.register_forward_pre_hook(lambda mod, args: log.append(("pre", len(args))))
        m.register_forward_hook(lambda mod, args, out: log.append("forward hook"))
        m.register_forward_pre_hook(lambda mod, args, kwargs: log.append(("pre kwargs", kwargs)),
                                    with_kwargs=True)
        m.register_forward_pre_hook(lambda mod, args: log.append("prepended"), prepend=True)
        m.register_full_backward_pre_hook(lambda mod, grad_output: log.append(("backward pre", len(grad_output))))
        m.register_full_backward_hook(
            lambda mod, gi, go: log.append(("backward", [g.tolist() for g in gi], [g.tolist() for g in go])))
        x = torch.ones(2, requires_grad=True)
        y = torch.ones(2)
        out = m(x, y, scale=2.0)
        assert out.grad_fn.name() == "BackwardHookFunctionBackward"
        out.sum().backward()
    finally:
        g1.remove()
        g2.remove()
    assert log == ["global pre", "prepended", ("pre", 2), ("pre kwargs", {"scale": 2.0}), ("forward", 2.0),
                   "global forward hook", "forward hook", ("backward pre", 1),
                   ("backward", [[4.0, 4.0], [0.0, 0.0]], [[1.0, 1.0]])]
    assert x.grad.tolist() == [4.0, 4.0]


@pytest.mark.task("8.1")
def test_fast_path_without_hooks_adds_no_graph_node():
    m = Scale()
    out = m(torch.ones(2, requires_grad=True))
    assert out.grad_fn.name() == "MulBackward0"
    h = m.register_forward_hook(lambda *a: None)
    h.remove()
    assert m(torch.ones(2, requires_grad=True)).grad_fn.name() == "MulBackward0"


@pytest.mark.task("8.1")
def test_pre_hook_single_value_is_wrapped_and_forward_hook_replaces_output():
    seen = []
    m = Scale()
    m.register_forward_pre_hook(lambda mod, args: args[0] * 10)        # not a tuple
    m.register_forward_hook(lambda mod, args, out: (seen.append(args[0].tolist()), out + 1)[1])
    assert m(torch.ones(2)).tolist() == [21.0, 21.0]
    assert seen == [[10.0, 10.0]]      # the forward hook sees the replaced inputs


@pytest.mark.task("8.1")
def test_pre_hook_returning_tuple_replaces_all_args():
    m = Scale()
    m.register_forward_pre_hook(lambda mod, args: (args[0], torch.ones(2)))
    assert m(torch.zeros(2)).tolist() == [3.0, 3.0]


@pytest.mark.task("8.1")
def test_hooks_returning_none_change_nothing():
    m = Scale()
    m.register_forward_pre_hook(lambda mod, args: None)
    m.register_forward_hook(lambda mod, args, out: None)
    assert m(torch.ones(2)).tolist() == [2.0, 2.0]


@pytest.mark.task("8.1")
def test_kwargs_reach_forward_and_with_kwargs_hooks():
    m = Scale()
    got = []
    m.register_forward_hook(lambda mod, args, kwargs, out: got.append(kwargs), with_kwargs=True)
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"scale": 5.0}), with_kwargs=True)
    assert m(torch.ones(1), scale=3.0).tolist() == [10.0]
    assert got == [{"scale": 5.0}]


@pytest.mark.task("8.1")
def test_with_kwargs_pre_hook_must_return_pair():
    m = Scale()
    m.register_forward_pre_hook(lambda mod, args, kwargs: 3, with_kwargs=True)
    with pytest.raises(RuntimeError, match=r"forward pre-hook must return None or a tuple of \(new_args, new_kwargs\)"):
        m(torch.ones(1))


@pytest.mark.task("8.1")
def test_hooks_fire_in_registration_order_and_remove():
    lin = nn.Linear(2, 2)
    log = []
    handles = [lin.register_forward_hook(lambda mod, a, o, i=i: log.append(i)) for i in range(3)]
    lin(torch.ones(1, 2))
    assert log == [0, 1, 2]
    handles[1].remove()
    handles[1].remove()            # removing twice is harmless
    log.clear()
    lin(torch.ones(1, 2))
    assert log == [0, 2]
    with lin.register_forward_hook(lambda *a: log.append("ctx")):
        lin(torch.ones(1, 2))
    log.clear()
    lin(torch.ones(1, 2))
    assert log == [0, 2]


@pytest.mark.task("8.1")
def test_with_kwargs_flag_removed_with_handle():
    m = Scale()
    h = m.register_forward_pre_hook(lambda mod, args, kwargs: None, with_kwargs=True)
    assert h.id in m._forward_pre_hooks_with_kwargs
    h.remove()
    assert not m._forward_pre_hooks and not m._forward_pre_hooks_with_kwargs


@pytest.mark.task("8.1")
def test_global_hooks_run_for_every_module_before_local_ones():
    log = []
    seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    seq[1].register_forward_hook(lambda mod, a, o: log.append("local relu"))
    h1 = register_module_forward_pre_hook(lambda mod, args: log.append(("pre", type(mod).__name__)))
    h2 = register_module_forward_hook(lambda mod, args, out: log.append(("post", type(mod).__name__)))
    try:
        seq(torch.ones(1, 2))
    finally:
        h1.remove()
        h2.remove()
    assert log == [("pre", "Sequential"), ("pre", "Linear"), ("post", "Linear"), ("pre", "ReLU"),
                   ("post", "ReLU"), "local relu", ("post", "Sequential")]
    log.clear()
    seq(torch.ones(1, 2))
    assert log == ["local relu"]


@pytest.mark.task("8.1")
def test_global_forward_hook_can_replace_output():
    h = register_module_forward_hook(lambda mod, args, out: out * 0)
    try:
        assert nn.Linear(2, 2)(torch.ones(1, 2)).tolist() == [[0.0, 0.0]]
    finally:
        h.remove()


# ----- full backward hooks -----------------------------------------------------------
@pytest.mark.task("8.1")
def test_full_backward_hook_arguments_and_replacement():
    lin = nn.Linear(2, 3)
    seen = {}

    def hook(mod, grad_input, grad_output):
        seen["args"] = (mod, grad_input, grad_output)
        return (grad_input[0] * 0,)

    lin.register_full_backward_hook(hook)
    x = torch.ones(4, 2, requires_grad=True)
    lin(x).sum().backward()
    mod, gi, go = seen["args"]
    assert mod is lin
    assert isinstance(gi, tuple) and isinstance(go, tuple) and len(gi) == 1 and len(go) == 1
    assert go[0].tolist() == [[1.0] * 3] * 4
    expected = lin.weight.detach().sum(0)
    assert gi[0].shape == (4, 2) and gi[0].allclose(expected.expand(4, 2))
    assert x.grad.tolist() == [[0.0, 0.0]] * 4       # replaced
    assert lin.weight.grad.tolist() == [[4.0, 4.0]] * 3   # parameters are unaffected


@pytest.mark.task("8.1")
def test_full_backward_hook_wrong_length_is_an_error():
    lin = nn.Linear(2, 2)
    lin.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
    with pytest.raises(RuntimeError, match="^Backward hook returned an invalid number of grad_input, got 2, but expected 1$"):
        lin(torch.ones(1, 2, requires_grad=True)).sum().backward()


@pytest.mark.task("8.1")
def test_full_backward_hooks_order():
    lin = nn.Linear(2, 2)
    log = []
    for i in range(2):
        lin.register_full_backward_hook(lambda mod, gi, go, i=i: log.append(("backward", i)))
    lin.register_full_backward_hook(lambda mod, gi, go: log.append("first"), prepend=True)
    lin(torch.ones(1, 2, requires_grad=True)).sum().backward()
    assert log == ["first", ("backward", 0), ("backward", 1)]


@pytest.mark.task("8.1")
def test_backward_hook_with_no_input_requiring_grad():
    lin = nn.Linear(2, 2)
    seen = []
    lin.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go[0].shape)))
    with pytest.warns(UserWarning, match="no inputs require gradients"):
        lin(torch.ones(1, 2)).sum().backward()
    assert seen == [((None,), (1, 2))]
    lin.register_full_backward_hook(lambda mod, gi, go: (torch.zeros(1, 2),))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="Backward hook for Modules where no input requires gradient "
                                               "should always return None or None for all gradients."):
            lin(torch.ones(1, 2)).sum().backward()


@pytest.mark.task("8.1")
def test_backward_hook_tuple_outputs_with_non_tensors_and_unused_outputs():
    class Two(nn.Module):
        def forward(self, a, b):
            return a * 2, b * 3, 5

    two = Two()
    seen = []
    two.register_full_backward_hook(lambda mod, gi, go: seen.append(
        ([None if g is None else g.tolist() for g in gi], [None if g is None else g.tolist() for g in go])))
    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2, requires_grad=True)
    out = two(a, b)
    assert isinstance(out, tuple) and out[2] == 5
    (out[0].sum() + out[1].sum() * 4).backward()
    out = two(a, b)
    out[0].sum().backward()
    assert seen == [([[2.0, 2.0], [12.0, 12.0]], [[1.0, 1.0], [4.0, 4.0], None]),
                    ([[2.0, 2.0], [0.0, 0.0]], [[1.0, 1.0], None, None])]


@pytest.mark.task("8.1")
def test_backward_pre_hook_can_replace_grad_output():
    lin = nn.Linear(2, 1)
    lin.register_full_backward_pre_hook(lambda mod, go: (go[0] * 10,))
    x = torch.ones(1, 2, requires_grad=True)
    lin(x).sum().backward()
    assert x.grad.allclose(lin.weight.detach() * 10)
    assert lin.bias.grad.tolist() == [10.0]


@pytest.mark.task("8.1")
def test_backward_pre_hook_wrong_length_is_an_error():
    lin = nn.Linear(2, 1)
    lin.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
    with pytest.raises(RuntimeError, match="Backward pre hook returned an invalid number of grad_output, got 2, but expected 1"):
        lin(torch.ones(1, 2, requires_grad=True)).sum().backward()


@pytest.mark.task("8.1")
def test_backward_hooks_not_set_up_under_no_grad():
    lin = nn.Linear(2, 1)
    lin.register_full_backward_hook(lambda *a: None)
    with torch.no_grad():
        out = lin(torch.ones(1, 2, requires_grad=True))
    assert out.grad_fn is None


@pytest.mark.task("8.1")
def test_mixing_full_and_legacy_backward_hooks_is_an_error():
    message = ("Cannot use both regular backward hooks and full backward hooks on a single Module. "
               "Please use only one of them.")
    a = nn.Linear(2, 2)
    a.register_full_backward_hook(lambda *args: None)
    with pytest.raises(RuntimeError, match=message):
        a.register_backward_hook(lambda *args: None)
    b = nn.Linear(2, 2)
    b.register_backward_hook(lambda *args: None)
    with pytest.raises(RuntimeError, match=message):
        b.register_full_backward_hook(lambda *args: None)


@pytest.mark.task("8.1")
def test_legacy_backward_hook_sits_on_output_grad_fn():
    lin = nn.Linear(2, 2)
    seen = []
    lin.register_backward_hook(lambda mod, gi, go: seen.append((mod, len(go))))
    lin(torch.ones(1, 2, requires_grad=True)).sum().backward()
    assert seen == [(lin, 1)]


# ----- a subclass that overrides __call__ (seed 003) --------------------------------
@pytest.mark.task("8.1")
def test_override_call_around_call_impl_still_runs_hooks():
    log = []

    class MyModule(nn.Module):
        def __call__(self, *args, **kwargs):
            log.append("before")
            output = self._call_impl(*args, **kwargs)
            log.append("after")
            return output

        def forward(self, x):
            log.append("forward")
            return x + 1

    m = MyModule()
    m.register_forward_pre_hook(lambda mod, args: log.append("pre"))
    m.register_forward_hook(lambda mod, args, out: log.append("hook"))
    assert m(torch.zeros(1)).tolist() == [1.0]
    assert log == ["before", "pre", "forward", "hook", "after"]
