"""``F.group_norm``/``nn.GroupNorm`` (``nn/_functions/normalization.py``): values and
gradients against PyTorch 2.13's numbers, both backward paths, gradcheck and gradgradcheck in
float64, the node and what it shows, printing, parameters and refusals."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck
from tests.nn.test_layers_chapter11 import grads_with_and_without_graph
from tests.strategies import arrays

pytestmark = [pytest.mark.tutorials, pytest.mark.chapter10]

# PyTorch 2.13 on the inputs of test_values_and_gradients_match_pytorch (float64)
OUT0 = [[-0.04123417420140971, 1.1405449892322324, 1.2358018398588264],
        [1.3139153370235106, -1.2082063380345764, -1.7759343087682335],
        [2.454726571658508, 1.118183512385752, 0.643783657272049],
        [3.2661559773490425, 2.5837986091247758, 2.258392284184336]]
GRAD_X1 = [[1.8018701104603099, 1.771742975699366, 0.5832184975852651],
           [-1.7706989906141448, -2.224048978521129, -0.16208361460966736],
           [-0.15746397490407238, -0.695606386251495, 0.10082897641376909],
           [0.30156434007898325, 0.027492448095553512, 0.42318459656726204]]
GRAD_W = [0.02793978265223334, 0.37181422023755967, -0.07959512571062956, 0.3574024084533477]
GRAD_B = [3.0121934277115194, -3.3524846632346343, 3.6256758954291985, -3.8262991999253817]


def inputs():
    x = torch.arange(24., dtype=torch.float64).reshape(2, 4, 3).sin().requires_grad_()
    w = torch.tensor([1., 2., -1., 0.5], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([0., 1., 2., 3.], dtype=torch.float64, requires_grad=True)
    return x, w, b


def test_values_and_gradients_match_pytorch():
    x, w, b = inputs()
    o = F.group_norm(x, 2, w, b)
    assert o.grad_fn.name() == "NativeGroupNormBackward0"
    node = o.grad_fn
    assert (node._saved_N, node._saved_C, node._saved_HxW, node._saved_group) == (2, 4, 3, 2)
    assert node._saved_eps == 1e-5
    np.testing.assert_allclose(o[0].detach().numpy(), OUT0, rtol=1e-13, atol=1e-14)
    weights = torch.arange(24., dtype=torch.float64).reshape(2, 4, 3).cos()
    for create_graph in (False, True):
        gx, gw, gb = torch.autograd.grad((o * weights).sum(), (x, w, b), retain_graph=True,
                                         create_graph=create_graph)
        np.testing.assert_allclose(gx[1].detach().numpy(), GRAD_X1, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(gw.detach().numpy(), GRAD_W, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(gb.detach().numpy(), GRAD_B, rtol=1e-12)


def test_float32_and_constant_groups():
    assert F.group_norm(torch.ones(2, 4), 2).tolist() == [[0.0] * 4, [0.0] * 4]
    out = nn.GroupNorm(1, 3)(torch.tensor([[1., 2., 4.]]))
    assert out.tolist()[0] == pytest.approx([-1.0690414905548096, -0.2672603130340576,
                                             1.3363019227981567], rel=1e-6)


@given(data=arrays((2, 4, 2, 2)), groups=st.sampled_from([1, 2, 4]))
def test_gradcheck_and_both_backward_paths(data, groups):
    x = torch.tensor(data + np.arange(data.size).reshape(data.shape) * 0.1, requires_grad=True)
    w = torch.tensor([1., 2., -1., 0.5], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([0., 1., 2., 3.], dtype=torch.float64, requires_grad=True)

    def f(a, ww, bb):
        return F.group_norm(a, groups, ww, bb)

    assert gradcheck(f, (x, w, b)) and gradgradcheck(f, (x, w, b))
    grads_with_and_without_graph(f, [x, w, b])
    assert gradgradcheck(lambda a: F.group_norm(a, groups), (x,))


def test_module_prints_and_registers_as_pytorch():
    assert repr(nn.GroupNorm(2, 4)) == "GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)"
    assert repr(nn.GroupNorm(2, 4, affine=False)) == \
        "GroupNorm(2, 4, eps=1e-05, affine=False, bias=False)"
    assert list(nn.GroupNorm(2, 4, affine=False).state_dict()) == []
    no_bias = nn.GroupNorm(2, 4, bias=False)
    assert repr(no_bias) == "GroupNorm(2, 4, eps=1e-05, affine=True, bias=False)"
    assert [n for n, _ in no_bias.named_parameters()] == ["weight"] and no_bias.bias is None
    m = nn.GroupNorm(2, 4, dtype=torch.float64)
    assert m.weight.tolist() == [1.0] * 4 and m.bias.tolist() == [0.0] * 4
    assert m.weight.dtype == torch.float64
    x, _, _ = inputs()
    assert m(x).equal(F.group_norm(x, 2, m.weight, m.bias))


def test_refusals():
    with pytest.raises(ValueError, match=r"num_channels \(4\) must be divisible by num_groups "
                                         r"\(3\)"):
        nn.GroupNorm(3, 4)
    with pytest.raises(RuntimeError, match=r"Expected number of channels in input to be "
                                           r"divisible by num_groups, but got input of shape "
                                           r"\[2, 3\] and num_groups=2"):
        F.group_norm(torch.ones(2, 3), 2)
    with pytest.raises(RuntimeError, match=r"Expected weight to be a vector of size equal to "
                                           r"the number of channels in input, but got weight "
                                           r"of shape \[3\] and input of shape \[2, 4\]"):
        F.group_norm(torch.ones(2, 4), 2, weight=torch.ones(3))
    with pytest.raises(RuntimeError, match="Expected at least 2 dimensions for input tensor but "
                                           "received 1"):
        F.group_norm(torch.ones(4), 2)
    with pytest.raises(NotImplementedError, match="\"GroupNormKernelImpl\" not implemented for "
                                                  "'Long'"):
        F.group_norm(torch.ones(2, 4, dtype=torch.int64), 2)
