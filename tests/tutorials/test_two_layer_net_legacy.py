"""A two-layer net in the pre-0.4 style of the old "learning PyTorch with examples" pages:
inputs wrapped in ``Variable``, ``MSELoss(size_average=False)``, an ``optim.SGD`` loop."""

import warnings

import pytest

import minitorch as torch
from minitorch.autograd import Variable

pytestmark = [pytest.mark.tutorials, pytest.mark.chapter9]


class TwoLayer(torch.nn.Module):
    def __init__(self, d_in, hidden, d_out):
        super().__init__()
        self.hidden = torch.nn.Linear(d_in, hidden)
        self.out = torch.nn.Linear(hidden, d_out)
        with torch.no_grad():                      # fixed weights: no random stream involved
            for i, p in enumerate(self.parameters()):
                wave = torch.sin(torch.arange(p.numel(), dtype=torch.float32) + i)
                p.copy_(wave.reshape(p.shape) * 0.5)

    def forward(self, x):
        return self.out(self.hidden(x).clamp(min=0))


def test_variable_net_trains_as_in_pytorch():
    x = Variable(torch.linspace(-1, 1, 12).reshape(4, 3))
    y = Variable(torch.cos(torch.arange(8, dtype=torch.float32)).reshape(4, 2),
                 requires_grad=False)
    model = TwoLayer(3, 5, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        criterion = torch.nn.MSELoss(size_average=False)
    assert "size_average and reduce args will be deprecated" in str(caught[0].message)
    assert criterion.reduction == "sum"
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(30):
        loss = criterion(model(x), y)
        losses.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    # PyTorch 2.13 on the same program
    assert [losses[i] for i in (0, 1, 10, 29)] == pytest.approx(
        [3.965791, 3.873425, 3.27114, 2.655889], rel=1e-5)
    assert model.out.bias.tolist() == pytest.approx([-0.002255, -0.413623], abs=2e-6)
    assert isinstance(x, Variable) and not x.requires_grad and not y.requires_grad
