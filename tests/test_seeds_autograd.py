"""The seed documents' autograd code, run with only ``import torch`` changed to
``import minitorch as torch``, giving the results the seeds state."""

import warnings

import pytest

import minitorch as torch
from minitorch.autograd import Function


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


class Exp(Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result


class LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class MulConstant(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


class MulConstantNoMaterialize(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.set_materialize_grads(False)
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        if grad_output is None:
            return None, None
        return grad_output * ctx.constant, None


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
