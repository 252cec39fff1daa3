"""nn as PyTorch 2.13 behaves (chapter 7): Module lookups, layers on every input
kind, losses and their legacy arguments, containers, devices."""

import math

import pytest

import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.functional as F

pytestmark = pytest.mark.chapter7


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 3)
        self.register_buffer("steps", torch.zeros(1))

    def forward(self, x):
        return self.fc1(x)


def linear(bias=True):
    lin = nn.Linear(3, 2, bias=bias)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
        if bias:
            lin.bias.copy_(torch.tensor([0.01, -0.02]))
    return lin


def test_get_parameter_and_get_buffer():
    net = Net()
    assert net.get_parameter("fc1.bias") is net.fc1.bias
    assert net.get_buffer("steps") is net.steps


def test_linear_on_a_vector_and_on_a_batch_of_batches():
    lin = linear()
    out = lin(torch.tensor([1.0, 2.0, 3.0], requires_grad=True))
    assert out.grad_fn.name() == "ViewBackward0"
    assert [round(v, 5) for v in out.tolist()] == [0.61, -0.42]
    assert tuple(lin(torch.ones(2, 4, 3)).shape) == (2, 4, 2)
    assert lin(torch.ones(0, 3)).shape == (0, 2)


def test_linear_without_bias_records_mm():
    lin = linear(bias=False)
    assert lin(torch.ones(2, 3)).grad_fn.name() == "MmBackward0"
    with_bias = linear()
    with_bias.bias = None
    assert with_bias(torch.ones(1, 3)).grad_fn.name() == "MmBackward0"


def test_in_place_relu_keeps_its_node_name():
    x = torch.tensor([-1.0, 2.0], requires_grad=True)
    y = x * 1
    z = nn.ReLU(inplace=True)(y)
    assert z is y and z.grad_fn.name() == "ReluBackward0" and y._version == 1


def test_dropout_on_cpu_records_a_multiplication():
    torch.manual_seed(0)
    x = torch.ones(100, requires_grad=True)
    y = F.dropout(x, 0.5)
    assert y.grad_fn.name() == "MulBackward0"
    assert nn.Dropout(0.5)(x).grad_fn.name() == "MulBackward0"


def test_dropout_that_changes_nothing_returns_the_input():
    x = torch.ones(2, 2, requires_grad=True)
    assert F.dropout(x, 0.0).grad_fn is None
    assert nn.Dropout(0.5).eval()(x).grad_fn is None
    assert nn.Identity()(x) is x


def test_mse_loss_legacy_arguments():
    a, b = torch.tensor([1.0, 2.0]), torch.tensor([0.0, 4.0])
    legacy = "size_average and reduce args will be deprecated"      # PyTorch warns too
    with pytest.warns(UserWarning, match=legacy + ", please use reduction='sum'"):
        assert nn.MSELoss(size_average=False)(a, b).item() == 5.0
    assert F.mse_loss(a, b, reduction="sum").item() == 5.0
    # the third positional argument is size_average, not reduction
    with pytest.warns(UserWarning, match=legacy + ", please use reduction='mean'"):
        assert F.mse_loss(a, b, "sum").item() == 2.5


def test_loss_reduction_is_checked_when_called():
    loss = nn.MSELoss(reduction="bogus")
    assert loss.reduction == "bogus"
    with pytest.raises(ValueError, match="bogus is not a valid value for reduction"):
        loss(torch.ones(1), torch.ones(1))
    assert nn.CrossEntropyLoss(reduction="x").reduction == "x"


def test_cross_entropy_label_smoothing():
    logits = torch.tensor([[1.0, 2.0, 0.5], [0.0, 0.0, 3.0]])
    loss = nn.CrossEntropyLoss(label_smoothing=0.1)(logits, torch.tensor([1, 2]))
    assert abs(loss.item() - 0.421312540769577) < 1e-6


def test_cross_entropy_over_extra_dims():
    loss = nn.CrossEntropyLoss()(torch.ones(2, 3, 4), torch.zeros(2, 4, dtype=torch.int64))
    assert abs(loss.item() - math.log(3)) < 1e-6


def test_softmax_of_an_empty_tensor():
    assert F.softmax(torch.ones(0), 0).shape == (0,)


def test_sequential_insert_extend_and_add():
    s = nn.Sequential(nn.ReLU(), nn.Tanh())
    s.insert(1, nn.Sigmoid())
    assert [type(m).__name__ for m in s] == ["ReLU", "Sigmoid", "Tanh"] and list(s._modules) == ["0", "1", "2"]
    s.extend([nn.Identity()])
    assert len(s) == 4
    both = nn.Sequential(nn.ReLU()) + nn.Sequential(nn.Tanh())
    assert isinstance(both, nn.Sequential) and len(both) == 2


def test_devices():
    assert torch.ones(2).device.type == "cpu" and str(torch.ones(2).device) == "cpu"
    assert torch.device("cpu") == torch.ones(2).device
    assert nn.Linear(3, 2, device="cpu").weight.device.type == "cpu"


def test_load_state_dict_with_assign_replaces_the_parameters():
    net = Net()
    new = {k: v * 0 for k, v in net.state_dict().items()}
    net.load_state_dict(new, assign=True)
    assert isinstance(net.fc1.weight, nn.Parameter) and net.fc1.weight.requires_grad
    assert net.fc1.weight.tolist() == [[0.0, 0.0]] * 3


def test_tensor_statistics_used_with_init():
    torch.manual_seed(0)
    t = torch.empty(200, 300)
    nn.init.normal_(t, 1.0, 0.5)
    assert abs(t.mean().item() - 1.0) < 0.01 and abs(t.std().item() - 0.5) < 0.01
