"""The quickstart and "build the model" pages: choose the accelerator if there is one (there
is none), build a small net with ``Flatten``, move it there, predict with ``Softmax``."""

import pytest

import minitorch as torch
from minitorch import nn

pytestmark = [pytest.mark.tutorials, pytest.mark.chapter10]

NET_REPR = """Net(
  (flat): Flatten(start_dim=1, end_dim=-1)
  (stack): Sequential(
    (0): Linear(in_features=6, out_features=4, bias=True)
    (1): ReLU()
    (2): Linear(in_features=4, out_features=3, bias=True)
  )
)"""


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.flat = nn.Flatten()
        self.stack = nn.Sequential(nn.Linear(6, 4), nn.ReLU(), nn.Linear(4, 3))

    def forward(self, x):
        return self.stack(self.flat(x))


def test_device_choice_falls_back_to_the_cpu_and_the_model_predicts():
    accelerator = torch.accelerator
    device = accelerator.current_accelerator().type if accelerator.is_available() else "cpu"
    assert device == "cpu" and accelerator.device_count() == 0
    model = Net().to(device)
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(torch.cos(torch.arange(p.numel(), dtype=torch.float32) * (i + 1))
                    .reshape(p.shape))
    assert repr(model) == NET_REPR
    X = torch.linspace(-1, 1, 12, device=device).reshape(2, 3, 2)
    prob = nn.Softmax(dim=1)(model(X))
    expected = [[0.700258, 0.125387, 0.174355], [0.677902, 0.126359, 0.195739]]  # PyTorch
    assert prob.tolist()[0] == pytest.approx(expected[0], abs=1e-6)
    assert prob.tolist()[1] == pytest.approx(expected[1], abs=1e-6)
    assert prob.argmax(1).tolist() == [0, 0] and str(prob.device) == "cpu"
    assert torch.get_default_device() == torch.device("cpu")
