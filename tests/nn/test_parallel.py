"""``nn.DataParallel`` (``minitorch/nn/parallel.py``): without accelerators it calls the module
it holds, as PyTorch 2.13 does on a CPU."""

import pytest

import minitorch as torch
from minitorch import nn

pytestmark = pytest.mark.chapter10


def test_wraps_and_calls_its_module():
    inner = nn.Linear(2, 3)
    net = nn.DataParallel(inner, device_ids=[0, 1], output_device=0, dim=1)
    assert net.module is inner and net.device_ids == [] and net.training
    assert repr(net) == ("DataParallel(\n  (module): Linear(in_features=2, out_features=3, "
                         "bias=True)\n)")
    x = torch.ones(4, 2)
    assert net(x).equal(inner(x))
    assert list(net.state_dict()) == ["module.weight", "module.bias"]
    assert [n for n, _ in net.named_parameters()] == ["module.weight", "module.bias"]
    assert nn.parallel.DataParallel is nn.DataParallel


def test_gradients_reach_the_wrapped_module():
    inner = nn.Linear(2, 1)
    out = nn.DataParallel(inner)(torch.ones(3, 2)).sum()
    out.backward()
    assert inner.weight.grad.tolist() == [[3.0, 3.0]] and inner.bias.grad.tolist() == [3.0]


def test_keyword_arguments_pass_through():
    class Scale(nn.Module):
        def forward(self, x, factor=1.0):
            return x * factor

    assert nn.DataParallel(Scale())(torch.ones(2), factor=3.0).tolist() == [3.0, 3.0]
