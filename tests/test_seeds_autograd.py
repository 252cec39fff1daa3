"""The seed documents' autograd code, run with only ``import torch`` changed to
``import minitorch as torch``, giving the results the seeds state."""

import warnings

import pytest

import minitorch as torch

from tests.seed_code import Exp, LinearFunction, MulConstant, MulConstantNoMaterialize

pytestmark = pytest.mark.chapter6


def test_seed001_intermediate_gradients_are_not_kept():
    # DeZero prints "None None 2.0 1.0" with retain_grad=False: y and t keep no gradient.
    x0 = torch.tensor(1.0, requires_grad=True)
    x1 = torch.tensor(1.0, requires_grad=True)
    t = x0 + x1
    y = x0 + t
    y.backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert (y.grad, t.grad) == (None, None)
    assert (x0.grad.item(), x1.grad.item()) == (2.0, 1.0)


def test_seed001_retained_gradients():
    x0 = torch.tensor(1.0, requires_grad=True)
    x1 = torch.tensor(1.0, requires_grad=True)
    t = x0 + x1
    y = x0 + t
    t.retain_grad()
    y.retain_grad()
    y.backward()
    assert (y.grad.item(), t.grad.item(), x0.grad.item(), x1.grad.item()) == (1.0, 1.0, 2.0, 1.0)


def test_seed002_requires_grad_propagation():
    x = torch.randn(5, 5)  # requires_grad=False by default
    y = torch.randn(5, 5)  # requires_grad=False by default
    z = torch.randn((5, 5), requires_grad=True)
    a = x + y
    assert a.requires_grad is False
    b = a + z
    assert b.requires_grad is True


def test_seed004_saved_tensors():
    x = torch.rand(5, requires_grad=True)
    y = x.pow(2)
    assert x.equal(y.grad_fn._saved_self) is True
    assert (x is y.grad_fn._saved_self) is True

    x = torch.rand(5, requires_grad=True)
    y = x.exp()
    assert y.equal(y.grad_fn._saved_result) is True
    assert (y is y.grad_fn._saved_result) is False


def test_seed004_exp():
    input = torch.tensor([0.0, 1.0], requires_grad=True)
    output = Exp.apply(input)
    output.sum().backward()
    assert input.grad.allclose(output.detach())


def test_seed004_linear_function_and_gradcheck():
    from minitorch.autograd import gradcheck
    linear = LinearFunction.apply
    input = (torch.randn(20, 20, dtype=torch.double, requires_grad=True),
             torch.randn(30, 20, dtype=torch.double, requires_grad=True))
    test = gradcheck(linear, input, eps=1e-6, atol=1e-4)
    assert test is True
    with_bias = (*input, torch.randn(30, dtype=torch.double, requires_grad=True))
    assert gradcheck(linear, with_bias, eps=1e-6, atol=1e-4)


@pytest.mark.parametrize("fn", [MulConstant, MulConstantNoMaterialize])
def test_seed004_mul_constant(fn):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    fn.apply(x, 3.0).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
