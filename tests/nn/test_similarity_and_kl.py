"""``F.normalize``, ``F.cosine_similarity``/``nn.CosineSimilarity`` and
``F.kl_div``/``nn.KLDivLoss``: compositions of differentiable ops, as in PyTorch.  Values and
gradients against PyTorch 2.13's numbers, gradcheck/gradgradcheck in float64, refusals."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given

import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck
from tests.strategies import arrays

pytestmark = [pytest.mark.tutorials, pytest.mark.chapter10]


def f64(values, requires_grad=False):
    return torch.tensor(values, dtype=torch.float64, requires_grad=requires_grad)


# ----- normalize ------------------------------------------------------------------------------
def test_normalize_values_and_gradient_match_pytorch():
    x = f64([[3., 4.], [0., 0.], [1., -2.]], requires_grad=True)
    y = F.normalize(x)
    assert y.grad_fn.name() == "DivBackward0"
    np.testing.assert_allclose(y.detach().numpy(),
                               [[0.6, 0.8], [0.0, 0.0], [0.4472135954999579, -0.8944271909999159]],
                               rtol=1e-15)
    g, = torch.autograd.grad((y * torch.arange(6., dtype=torch.float64).reshape(3, 2)).sum(), x)
    # PyTorch: the zero row's gradient is the weights divided by eps
    np.testing.assert_allclose(g.numpy(), [[-0.096, 0.072], [2e12, 3e12],
                                           [2.325510696599781, 1.162755348299891]], rtol=1e-12)
    np.testing.assert_allclose(F.normalize(x, p=1, dim=0).detach().numpy(),
                               [[0.75, 2 / 3], [0.0, 0.0], [0.25, -1 / 3]], rtol=1e-15)
    z = torch.tensor([[3., 4.], [0., 0.]])
    assert F.normalize(z, dim=0).tolist() == [[1.0, 1.0], [0.0, 0.0]]
    assert F.normalize(z, p=math.inf).tolist() == [[0.75, 1.0], [0.0, 0.0]]
    out = torch.empty(2, 2)
    assert F.normalize(z, out=out) is out and out.tolist()[0] == pytest.approx([0.6, 0.8])


@given(data=arrays((3, 4)))
def test_normalize_gradcheck(data):
    assume(np.all(np.linalg.norm(data, axis=1) > 0.1))
    x = f64(data, requires_grad=True)
    assert gradcheck(F.normalize, (x,)) and gradgradcheck(F.normalize, (x,))


def test_normalize_refuses_integers():
    with pytest.raises(RuntimeError):
        F.normalize(torch.tensor([1, 2]))


# ----- cosine_similarity ----------------------------------------------------------------------
def test_cosine_similarity_matches_pytorch():
    xs = f64([[0.3, -1.2, 2.0, 0.1], [1.5, 0.2, -0.7, 0.9]], requires_grad=True)
    ys = f64([[1.0, 0.5, -0.5, 2.0], [-1.0, 0.3, 0.8, 0.4]], requires_grad=True)
    c = F.cosine_similarity(xs, ys)
    assert c.grad_fn.name() == "SumBackward1"
    gx, gy = torch.autograd.grad(c.sum(), (xs, ys))
    np.testing.assert_allclose(c.detach().numpy(), [-0.19927667032480256, -0.6296014530738895],
                               rtol=1e-13)
    np.testing.assert_allclose(gx.numpy(), [
        [0.19195176481893522, 0.04741568296208792, -0.018639268474751808, 0.36591827058328535],
        [-0.12083865105874975, 0.150246287378357, 0.18435914550910137, 0.31140013440980463]],
        rtol=1e-12)
    np.testing.assert_allclose(gy.numpy(), [
        [0.09058030469309208, -0.1992766703248026, 0.34420515783375, 0.09058030469309208],
        [0.24273252562372494, 0.17671740359216795, -0.002234357976452661, 0.4787619773180918]],
        rtol=1e-12, atol=1e-15)


def test_cosine_similarity_near_zero_and_broadcasting():
    a = torch.tensor([[1., 2., 3.], [0., 0., 0.], [1e-9, 0., 0.]], requires_grad=True)
    b = torch.tensor([[2., 0., 1.], [1., 1., 1.], [1., 2., 0.]])
    c = F.cosine_similarity(a, b)
    assert c.tolist() == pytest.approx([0.5976142883300781, 0.0, 0.04472136124968529], rel=1e-6)
    c.sum().backward()
    # PyTorch raises the norms to eps outside the graph: these are its float32 gradients
    assert a.grad.tolist()[1] == pytest.approx([57735028.0] * 3, rel=1e-6)
    assert a.grad.tolist()[2] == pytest.approx([40249224.0, 89442720.0, 0.0], rel=1e-6)
    v = torch.tensor([1., 2., 3.])
    assert F.cosine_similarity(v, torch.tensor([[2., 0., 1.], [1., 1., 1.]])).tolist() == \
        pytest.approx([0.5976142883300781, 0.9258200526237488], rel=1e-6)
    assert F.cosine_similarity(torch.ones(2, 3, dtype=torch.float64), torch.ones(2, 3)).dtype \
        == torch.float64
    assert F.cosine_similarity(torch.ones(2, 3, dtype=torch.int64), torch.ones(2, 3)).tolist() \
        == pytest.approx([1.0, 1.0], abs=1e-6)


@given(data=arrays((2, 2, 3)))
def test_cosine_similarity_gradcheck(data):
    assume(np.all(np.linalg.norm(data, axis=2) > 0.1))
    x1, x2 = f64(data[0], True), f64(data[1], True)
    assert gradcheck(F.cosine_similarity, (x1, x2))
    assert gradgradcheck(F.cosine_similarity, (x1, x2))


def test_cosine_similarity_refusals_and_module():
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of "
                                           r"tensor b \(4\) at non-singleton dimension 1"):
        F.cosine_similarity(torch.ones(2, 3), torch.ones(2, 4))
    with pytest.raises(IndexError, match="Dimension out of range"):
        F.cosine_similarity(torch.ones(3), torch.ones(3), dim=1)
    with pytest.raises(RuntimeError, match="expected common dtype to be floating point, yet "
                                           "common dtype is Long"):
        F.cosine_similarity(torch.ones(2, 3, dtype=torch.int64),
                            torch.ones(2, 3, dtype=torch.int64))
    m = nn.CosineSimilarity(dim=0, eps=1e-6)
    assert repr(m) == "CosineSimilarity()" and (m.dim, m.eps) == (0, 1e-6)
    b = torch.tensor([[2., 0., 1.], [1., 1., 1.]])
    assert nn.CosineSimilarity()(b, b).tolist() == pytest.approx([1.0, 1.0], abs=1e-6)


# ----- kl_div ---------------------------------------------------------------------------------
def test_kl_div_matches_pytorch():
    lp = torch.tensor([[-1., -2., -0.5]], requires_grad=True)
    t = torch.tensor([[0.0, 0.5, 0.5]])
    none = F.kl_div(lp, t, reduction="none")
    assert none.grad_fn.name() == "SubBackward0"
    assert none.tolist()[0] == pytest.approx([0.0, 0.6534264087677002, -0.0965735912322998],
                                             abs=1e-7)
    assert F.kl_div(lp, t, reduction="sum").item() == pytest.approx(0.5568528175354004, rel=1e-6)
    k = F.kl_div(lp, t, reduction="batchmean")
    assert k.grad_fn.name() == "DivBackward0" and k.item() == pytest.approx(0.5568528175354004)
    k.backward()
    assert lp.grad.tolist() == [[0.0, -0.5, -0.5]]
    with pytest.warns(UserWarning, match="reduction: 'mean' divides the total loss by both the "
                                         "batch size and the support size"):
        mean = F.kl_div(lp, t)
    assert mean.item() == pytest.approx(0.1856176108121872, rel=1e-6)
    assert F.kl_div(lp, (t + 0.1).log(), reduction="sum", log_target=True).item() == \
        pytest.approx(0.7567508220672607, rel=1e-6)
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        assert F.kl_div(lp, t, size_average=False).item() == pytest.approx(0.5568528175354004)


def test_kl_div_module_and_refusal():
    lp = torch.log_softmax(torch.tensor([[1., 2., 0.5], [0.3, 0.3, -1.]], dtype=torch.float64), 1)
    t = f64([[0.2, 0.5, 0.3], [0.6, 0.2, 0.2]])
    loss = nn.KLDivLoss(reduction="batchmean")
    assert loss(lp, t).item() == pytest.approx(0.10766988405788439, rel=1e-12)    # PyTorch
    assert repr(nn.KLDivLoss(reduction="batchmean", log_target=True)) == "KLDivLoss()"
    assert nn.KLDivLoss(log_target=True).log_target and nn.KLDivLoss().reduction == "mean"
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.kl_div(lp, t, reduction="foo")


@given(data=arrays((2, 2, 3)))
def test_kl_div_gradcheck(data):
    lp = torch.log_softmax(f64(data[0]), 1).detach().requires_grad_()
    target = torch.softmax(f64(data[1]), 1).detach().requires_grad_()
    for log_target, tgt in ((False, target), (True, target.log().detach().requires_grad_())):
        def f(a, b):
            return F.kl_div(a, b, reduction="batchmean", log_target=log_target)
        assert gradcheck(f, (lp, tgt)) and gradgradcheck(f, (lp, tgt))
