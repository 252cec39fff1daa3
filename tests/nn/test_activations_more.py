"""``silu``/``SiLU``, ``logsigmoid``/``LogSigmoid``, ``hardtanh``/``Hardtanh`` and
``relu6``/``ReLU6`` (``nn/_functions/activation.py``): values and gradients against PyTorch
2.13's numbers, gradcheck and gradgradcheck in float64, both backward paths, the nodes they
record, in-place forms, printing and refusals."""

import numpy as np
import pytest
from hypothesis import given

import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck
from tests.nn.test_layers_chapter11 import grads_with_and_without_graph
from tests.strategies import arrays, away_from, shapes

pytestmark = [pytest.mark.tutorials, pytest.mark.chapter10]

POINTS = [-7., -1., 0., 0.5, 1., 6., 7.]
# PyTorch 2.13: (node name, values, gradient of the sum) at POINTS, float64
EXPECTED = {
    "silu": ("SiluBackward0",
             [-0.00637736, -0.26894142, 0.0, 0.31122967, 0.73105858, 5.98516426, 6.99362264],
             [-0.0054605, 0.07232949, 0.5, 0.73996119, 0.92767051, 1.01232643, 1.0054605]),
    "hardtanh": ("HardtanhBackward0", [-1.0, -1.0, 0.0, 0.5, 1.0, 1.0, 1.0],
                 [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0]),
    "relu6": ("HardtanhBackward0", [0.0, 0.0, 0.0, 0.5, 1.0, 6.0, 6.0],
              [0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]),
    "logsigmoid": ("LogSigmoidBackward0",
                   [-7.00091147, -1.31326169, -0.69314718, -0.47407698, -0.31326169,
                    -0.00247569, -0.00091147],
                   [0.99908895, 0.73105858, 0.5, 0.37754067, 0.26894142, 0.00247262,
                    0.00091105]),
    "hardtanh_half": ("HardtanhBackward0", [-0.5, -0.5, 0.0, 0.5, 0.5, 0.5, 0.5],
                      [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]),
}
FUNCTIONS = {"silu": F.silu, "hardtanh": F.hardtanh, "relu6": F.relu6,
             "logsigmoid": F.logsigmoid, "hardtanh_half": lambda t: F.hardtanh(t, -0.5, 0.5)}


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_values_gradients_and_nodes_match_pytorch(key):
    name, values, grads = EXPECTED[key]
    for create_graph in (False, True):
        x = torch.tensor(POINTS, dtype=torch.float64, requires_grad=True)
        y = FUNCTIONS[key](x)
        g, = torch.autograd.grad(y.sum(), x, create_graph=create_graph)
        assert y.grad_fn.name() == name
        np.testing.assert_allclose(y.detach().numpy(), values, atol=1e-8)
        np.testing.assert_allclose(g.detach().numpy(), grads, atol=1e-8)


@pytest.mark.parametrize("key", ["silu", "logsigmoid"])
@given(data=shapes(1, 3).flatmap(arrays))
def test_smooth_ones_pass_gradcheck_and_gradgradcheck(key, data):
    x = torch.tensor(data, requires_grad=True)
    f = FUNCTIONS[key]
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))
    grads_with_and_without_graph(f, [x])


@pytest.mark.parametrize("key", ["hardtanh", "relu6", "hardtanh_half"])
@given(data=shapes(1, 3).flatmap(arrays))
def test_clipping_ones_pass_gradcheck_away_from_the_corners(key, data):
    x = torch.tensor(away_from(data, [-1.0, -0.5, 0.0, 0.5, 1.0, 6.0]), requires_grad=True)
    f = FUNCTIONS[key]
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))
    grads_with_and_without_graph(f, [x])


def test_extremes_do_not_overflow():
    big = torch.tensor([-1000., 1000.])
    assert F.logsigmoid(big).tolist() == [-1000.0, 0.0]
    assert str(F.logsigmoid(big)) == "tensor([-1000.,     0.])"       # PyTorch prints this
    assert str(F.silu(big)) == "tensor([  -0., 1000.])"


def test_in_place_forms():
    z = torch.tensor([-1., 2., 8.])
    assert F.silu(z, inplace=True) is z
    assert z.tolist() == pytest.approx([-0.268941, 1.761594, 7.997317], abs=1e-6)
    w = torch.tensor([-1., 2., 8.], requires_grad=True)
    z = w.clone()
    r = F.relu6(z, inplace=True)
    assert r is z and r.grad_fn.name() == "HardtanhBackward0" and r.tolist() == [0., 2., 6.]
    r.sum().backward()
    assert w.grad.tolist() == [0.0, 1.0, 0.0]
    w = torch.tensor([-1., 2., 8.], requires_grad=True)
    z = w.clone()
    assert F.silu(z, inplace=True) is z
    z.sum().backward()                      # needs the values before the change: kept
    assert w.grad.tolist() == pytest.approx([0.0723, 1.0908, 1.0023], abs=1e-4)   # PyTorch
    t = torch.tensor([-3., 0.25, 3.])
    assert F.hardtanh_(t) is t and t.tolist() == [-1.0, 0.25, 1.0]
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        F.silu(torch.ones(2, requires_grad=True), inplace=True)


def test_integer_inputs():
    assert F.hardtanh(torch.tensor([-3, 0, 3])).tolist() == [-1, 0, 1]
    assert F.relu6(torch.tensor([-3, 2, 9])).tolist() == [0, 2, 6]
    with pytest.raises(NotImplementedError, match="\"silu_cpu\" not implemented for 'Long'"):
        F.silu(torch.tensor([1, 2]))
    with pytest.raises(NotImplementedError, match="\"log_sigmoid_cpu\" not implemented for "
                                                  "'Long'"):
        F.logsigmoid(torch.tensor([1, 2]))


def test_modules_print_and_compute_as_pytorch():
    assert [repr(m) for m in (nn.SiLU(), nn.SiLU(inplace=True), nn.Hardtanh(),
                              nn.Hardtanh(-2., 2.), nn.ReLU6(), nn.ReLU6(inplace=True),
                              nn.LogSigmoid(), nn.Hardtanh(0.5, 2.0, True))] == [
        "SiLU()", "SiLU(inplace=True)", "Hardtanh(min_val=-1.0, max_val=1.0)",
        "Hardtanh(min_val=-2.0, max_val=2.0)", "ReLU6()", "ReLU6(inplace=True)",
        "LogSigmoid()", "Hardtanh(min_val=0.5, max_val=2.0, inplace=True)"]
    assert isinstance(nn.ReLU6(), nn.Hardtanh)
    assert (nn.ReLU6().min_val, nn.ReLU6().max_val) == (0.0, 6.0)
    x = torch.tensor([-1.0, 3.0, 9.0])
    assert nn.ReLU6()(x).tolist() == [0.0, 3.0, 6.0]
    assert nn.SiLU()(x).equal(F.silu(x)) and nn.LogSigmoid()(x).equal(F.logsigmoid(x))
    with pytest.raises(AssertionError, match=r"max_val \(1.0\) must be greater than min_val "
                                             r"\(2.0\)"):
        nn.Hardtanh(2.0, 1.0)
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh(x, 1.0, -1.0)
