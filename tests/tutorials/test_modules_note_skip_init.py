"""The modules note: ``nn.utils.skip_init`` builds a layer without drawing its initial values,
then the program sets them itself."""

import pytest

import minitorch as torch
from minitorch import nn

pytestmark = [pytest.mark.tutorials, pytest.mark.chapter7]


def test_skip_init_draws_nothing_and_the_layer_works():
    torch.manual_seed(3)
    before = torch.rand(2)
    torch.manual_seed(3)
    m = torch.nn.utils.skip_init(nn.Linear, 4, 3, dtype=torch.float64)
    assert torch.equal(before, torch.rand(2))          # the random stream did not move
    assert m.weight.dtype == torch.float64 and m.weight.shape == (3, 4)
    assert m.weight.requires_grad
    with torch.no_grad():
        m.weight.copy_(torch.eye(3, 4, dtype=torch.float64) * 2)
        m.bias.fill_(0.5)
    assert m(torch.ones(1, 4, dtype=torch.float64)).tolist() == [[2.5, 2.5, 2.5]]


def test_skip_init_refusals():
    with pytest.raises(RuntimeError, match="Expected a Module"):
        torch.nn.utils.skip_init(int)

    class NoDevice(nn.Module):
        def __init__(self):
            super().__init__()

    with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip "
                                           "initialization"):
        torch.nn.utils.skip_init(NoDevice)
