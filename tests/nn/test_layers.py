"""Layers: Parameter, Linear, activations, Sequential, ModuleList, Dropout, BatchNorm1d, losses.

Reprs and error texts are PyTorch 2.13's.
"""

from collections import OrderedDict

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch.nn import Parameter

pytestmark = pytest.mark.chapter7


# ----- Parameter -----------------------------------------------------------------------
def test_parameter_repr_and_defaults():
    p = Parameter(torch.tensor([1.0, 2.0]))
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    assert repr(Parameter(torch.tensor([1.0, 2.0]), requires_grad=False)) == "Parameter containing:\ntensor([1., 2.])"
    assert repr(Parameter()) == "Parameter containing:\ntensor([], requires_grad=True)"
    assert p.is_leaf and isinstance(p, torch.Tensor)


def test_parameter_shares_memory_and_ops_give_plain_tensors():
    t = torch.zeros(2)
    p = Parameter(t)
    t.add_(1)
    assert p.tolist() == [1.0, 1.0]
    assert type(p * 2) is torch.Tensor and type(p.detach()) is torch.Tensor


def test_parameter_from_non_leaf_is_a_leaf():
    x = torch.ones(2, requires_grad=True) * 2
    p = Parameter(x)
    assert p.is_leaf and p.grad_fn is None and p.requires_grad


# ----- Linear ------------------------------------------------------------------------
def test_linear_shapes_repr_and_default_init():
    torch.manual_seed(0)
    lin = nn.Linear(100, 10)
    assert lin.weight.shape == (10, 100) and lin.bias.shape == (10,)
    assert lin.in_features == 100 and lin.out_features == 10
    assert repr(lin) == "Linear(in_features=100, out_features=10, bias=True)"
    bound = 1 / np.sqrt(100)
    for p in (lin.weight, lin.bias):
        values = p.detach().numpy()
        assert np.abs(values).max() <= bound and np.abs(values).max() > 0.8 * bound
    assert lin(torch.zeros(3, 100)).shape == (3, 10)


def test_linear_without_bias_and_forward_value():
    lin = nn.Linear(2, 1, bias=False)
    assert lin.bias is None and "bias" in lin._parameters
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[2.0, -1.0]]))
    assert lin(torch.tensor([[1.0, 1.0], [0.0, 3.0]])).tolist() == [[1.0], [-3.0]]


def test_linear_dtype_argument():
    lin = nn.Linear(2, 2, dtype=torch.float64)
    assert lin.weight.dtype == torch.float64 and lin.bias.dtype == torch.float64


# ----- activations -------------------------------------------------------------------
def test_activation_modules():
    x = torch.tensor([-1.0, 0.5])
    assert nn.ReLU()(x).tolist() == [0.0, 0.5]
    assert nn.Sigmoid()(x).allclose(x.sigmoid())
    assert nn.Tanh()(x).allclose(x.tanh())
    assert repr(nn.ReLU()) == "ReLU()" and repr(nn.ReLU(inplace=True)) == "ReLU(inplace=True)"
    assert repr(nn.Sigmoid()) == "Sigmoid()" and repr(nn.Tanh()) == "Tanh()"
    assert nn.Softmax(dim=0)(x).sum().item() == pytest.approx(1.0)
    assert repr(nn.Softmax(dim=1)) == "Softmax(dim=1)"


def test_relu_inplace_changes_input():
    x = torch.tensor([-1.0, 2.0])
    nn.ReLU(inplace=True)(x)
    assert x.tolist() == [0.0, 2.0]


# ----- Sequential ----------------------------------------------------------------------
def test_sequential_forward_index_len_iter():
    layers = [nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)]
    seq = nn.Sequential(*layers)
    x = torch.randn(4, 2)
    assert seq(x).equal(layers[2](layers[1](layers[0](x))))
    assert len(seq) == 3 and list(seq) == layers
    assert seq[0] is layers[0] and seq[-1] is layers[2]
    with pytest.raises(IndexError, match="^index 5 is out of range$"):
        seq[5]
    with pytest.raises(IndexError, match="^index -4 is out of range$"):
        seq[-4]
    with pytest.raises(TypeError, match="'str' object cannot be interpreted as an integer"):
        seq["a"]


def test_sequential_slice_keeps_names():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Tanh())
    tail = seq[1:]
    assert isinstance(tail, nn.Sequential) and list(tail._modules) == ["1", "2"]
    assert repr(tail) == "Sequential(\n  (1): ReLU()\n  (2): Tanh()\n)"


def test_sequential_from_ordered_dict_and_editing():
    seq = nn.Sequential(OrderedDict([("a", nn.ReLU()), ("b", nn.Tanh())]))
    assert repr(seq) == "Sequential(\n  (a): ReLU()\n  (b): Tanh()\n)"
    assert seq.a is seq[0]
    s = nn.Sequential(nn.ReLU(), nn.Tanh())
    del s[0]
    assert repr(s) == "Sequential(\n  (0): Tanh()\n)"
    s.append(nn.ReLU())
    assert len(s) == 2 and isinstance(s[1], nn.ReLU)
    s[0] = nn.Sigmoid()
    assert isinstance(s[0], nn.Sigmoid)
    assert repr(nn.Sequential()) == "Sequential()"


# ----- ModuleList ---------------------------------------------------------------------
def test_module_list_registers_and_indexes():
    layers = [nn.Linear(1, 1) for _ in range(3)]
    ml = nn.ModuleList(layers)
    assert len(ml) == 3 and list(ml) == layers and ml[-1] is layers[2]
    assert len(list(ml.parameters())) == 6
    assert isinstance(ml[1:], nn.ModuleList) and list(ml[1:]) == layers[1:]
    with pytest.raises(IndexError, match="^index 3 is out of range$"):
        ml[3]
    del ml[0]
    assert list(ml._modules) == ["0", "1"] and list(ml) == layers[1:]
    ml.append(nn.ReLU())
    ml.insert(0, nn.Tanh())
    assert [type(m).__name__ for m in ml] == ["Tanh", "Linear", "Linear", "ReLU"]
    ml += [nn.Sigmoid()]
    assert len(ml) == 5


def test_module_list_repr_groups_repeats():
    ml = nn.ModuleList([nn.Linear(1, 1), nn.Linear(1, 1), nn.ReLU(), nn.Linear(1, 1)])
    assert repr(ml) == ("ModuleList(\n"
                        "  (0-1): 2 x Linear(in_features=1, out_features=1, bias=True)\n"
                        "  (2): ReLU()\n"
                        "  (3): Linear(in_features=1, out_features=1, bias=True)\n"
                        ")")
    assert repr(nn.ModuleList()) == "ModuleList()"


def test_module_list_has_no_forward():
    with pytest.raises(NotImplementedError, match=r'Module \[ModuleList\] is missing the required "forward" function'):
        nn.ModuleList()(1)


# ----- Dropout ------------------------------------------------------------------------
def test_dropout_train_vs_eval():
    d = nn.Dropout(0.5)
    assert repr(d) == "Dropout(p=0.5, inplace=False)"
    assert repr(nn.Dropout(0.3, inplace=True)) == "Dropout(p=0.3, inplace=True)"
    x = torch.ones(1000)
    y = d(x)
    assert (y.numpy() == 0).any() and np.allclose(y.numpy()[y.numpy() != 0], 2.0)
    d.eval()
    assert d(x) is x
    with pytest.raises(ValueError, match="^dropout probability has to be between 0 and 1, but got 1.5$"):
        nn.Dropout(1.5)


# ----- BatchNorm1d ----------------------------------------------------------------------
def test_batchnorm_repr_buffers_and_parameters():
    bn = nn.BatchNorm1d(3)
    assert repr(bn) == "BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)"
    assert [n for n, _ in bn.named_parameters()] == ["weight", "bias"]
    assert [n for n, _ in bn.named_buffers()] == ["running_mean", "running_var", "num_batches_tracked"]
    assert bn.num_batches_tracked.dtype == torch.int64 and bn.num_batches_tracked.item() == 0
    bare = nn.BatchNorm1d(2, affine=False, track_running_stats=False)
    assert repr(bare) == "BatchNorm1d(2, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)"
    assert list(bare.state_dict()) == []
    assert "momentum=None" in repr(nn.BatchNorm1d(2, momentum=None))


def np_batchnorm_train(x, running_mean, running_var, momentum, eps=1e-5):
    mean = x.mean(0)
    var = x.var(0)
    out = (x - mean) / np.sqrt(var + eps)
    n = x.shape[0]
    running_mean = (1 - momentum) * running_mean + momentum * mean
    running_var = (1 - momentum) * running_var + momentum * var * n / (n - 1)
    return out, running_mean, running_var


def test_batchnorm_training_running_stats_with_momentum_and_unbiased_var():
    rng = np.random.default_rng(0)
    bn = nn.BatchNorm1d(3)
    rm, rv = np.zeros(3), np.ones(3)
    for step in range(3):
        x = rng.normal(loc=2.0, scale=3.0, size=(8, 3))
        out = bn(torch.tensor(x, dtype=torch.float32))
        expected, rm, rv = np_batchnorm_train(x, rm, rv, 0.1)
        assert np.allclose(out.detach().numpy(), expected, atol=1e-4)
    assert np.allclose(bn.running_mean.numpy(), rm, atol=1e-5)
    assert np.allclose(bn.running_var.numpy(), rv, atol=1e-4)
    assert bn.num_batches_tracked.item() == 3
    assert not bn.running_mean.requires_grad


def test_batchnorm_momentum_none_is_cumulative_average():
    bn = nn.BatchNorm1d(1, momentum=None)
    batches = [np.array([[1.0], [3.0]]), np.array([[5.0], [9.0]])]
    for b in batches:
        bn(torch.tensor(b, dtype=torch.float32))
    assert bn.running_mean.tolist() == pytest.approx([(2.0 + 7.0) / 2])
    assert bn.running_var.tolist() == pytest.approx([(2.0 + 8.0) / 2])


def test_batchnorm_eval_uses_running_stats_and_does_not_update():
    bn = nn.BatchNorm1d(2)
    with torch.no_grad():
        bn.running_mean.copy_(torch.tensor([1.0, -1.0]))
        bn.running_var.copy_(torch.tensor([4.0, 1.0]))
        bn.weight.copy_(torch.tensor([2.0, 1.0]))
        bn.bias.copy_(torch.tensor([0.5, 0.0]))
    bn.eval()
    x = torch.tensor([[3.0, 0.0]])
    out = bn(x)
    assert np.allclose(out.detach().numpy(), [[2.0 * 2 / np.sqrt(4 + 1e-5) + 0.5, 1 / np.sqrt(1 + 1e-5)]])
    assert bn.num_batches_tracked.item() == 0 and bn.running_mean.tolist() == [1.0, -1.0]


def test_batchnorm_3d_input_and_gradients():
    rng = np.random.default_rng(1)
    x = torch.tensor(rng.normal(size=(4, 2, 5)), dtype=torch.float64, requires_grad=True)
    bn = nn.BatchNorm1d(2, dtype=torch.float64)
    out = bn(x)
    assert out.shape == (4, 2, 5)
    assert np.allclose(out.detach().numpy().mean(axis=(0, 2)), 0, atol=1e-9)
    bn.train()
    assert torch.autograd.gradcheck(lambda x: bn(x), (x,))


def test_batchnorm_errors():
    with pytest.raises(ValueError, match=r"^Expected more than 1 value per channel when training, got input "
                                         r"size minitorch.Size\(\[1, 3\]\)$"):
        nn.BatchNorm1d(3)(torch.zeros(1, 3))
    with pytest.raises(ValueError, match=r"^expected 2D or 3D input \(got 4D input\)$"):
        nn.BatchNorm1d(3)(torch.zeros(2, 3, 4, 5))
    with pytest.raises(RuntimeError, match="^running_mean should contain 4 elements not 3$"):
        nn.BatchNorm1d(3)(torch.zeros(2, 4))


# ----- losses ----------------------------------------------------------------------------
def test_loss_modules():
    assert repr(nn.MSELoss()) == "MSELoss()" and repr(nn.CrossEntropyLoss()) == "CrossEntropyLoss()"
    a, b = torch.tensor([1.0, 2.0]), torch.tensor([0.0, 0.0])
    assert nn.MSELoss()(a, b).item() == 2.5
    assert nn.MSELoss(reduction="sum")(a, b).item() == 5.0
    logits = torch.tensor([[2.0, 0.0], [0.0, 2.0]])
    target = torch.tensor([0, 0])
    assert nn.CrossEntropyLoss()(logits, target).item() == pytest.approx(F.cross_entropy(logits, target).item())
    weighted = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 3.0]))
    assert list(weighted.state_dict()) == ["weight"]
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        nn.MSELoss(reduction="avg")(a, b)       # PyTorch checks it when the loss is called
