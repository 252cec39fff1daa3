"""Module hooks as PyTorch 2.13 runs them (chapter 8): forward hooks registered with
``always_call=True`` run even when the call fails, and the old-style backward hook
warns when the module's forward records several nodes."""

import pytest

import minitorch as torch
import minitorch.nn as nn

pytestmark = pytest.mark.chapter8


@pytest.mark.task("8.1")
def test_always_call_forward_hook_runs_when_a_pre_hook_raises():
    lin = nn.Linear(2, 1)
    seen = []
    lin.register_forward_hook(lambda m, args, out: seen.append(out), always_call=True)
    lin.register_forward_hook(lambda m, args, out: seen.append("plain"))
    lin.register_forward_pre_hook(lambda m, args: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        lin(torch.ones(1, 2))
    assert seen == [None]


@pytest.mark.task("8.1")
def test_always_call_forward_hook_runs_when_forward_raises():
    class Failing(nn.Module):
        def forward(self, x):
            raise KeyError("inside forward")

    m = Failing()
    seen = []
    m.register_forward_hook(lambda mod, args, out: seen.append(out), always_call=True)
    with pytest.raises(KeyError):
        m(torch.ones(1))
    assert seen == [None]


@pytest.mark.task("8.1")
def test_old_style_backward_hook_warns_for_a_module_with_several_nodes():
    net = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    net.register_backward_hook(lambda m, grad_input, grad_output: None)
    with pytest.warns(FutureWarning,
                      match="Using a non-full backward hook when the forward contains multiple autograd Nodes"):
        net(torch.ones(1, 2, requires_grad=True)).sum().backward()
