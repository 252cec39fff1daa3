"""Custom Functions as PyTorch 2.13 runs them (chapter 6): keyword arguments to
``apply``, the ``setup_context`` style, ``vjp`` as the backward, nodes that can be
called, and gradcheck on outputs that are not differentiable."""

import pytest

import minitorch as torch
from minitorch.autograd import Function

pytestmark = pytest.mark.chapter6


class Scale(Function):
    @staticmethod
    def forward(ctx, x, scale=2.0):
        ctx.scale = scale
        return x * scale

    @staticmethod
    def backward(ctx, g):
        return g * ctx.scale, None


class ScaleWithSetup(Function):
    """The newer style: forward without ctx, then setup_context."""

    @staticmethod
    def forward(x, k):
        return x * k

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.k = inputs[1]

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None


class VjpOnly(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def vjp(ctx, g):
        return g * 5


@pytest.mark.task("6.8")
def test_apply_takes_keyword_arguments():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = Scale.apply(x, scale=3.0)
    assert y.tolist() == [3.0, 6.0] and y.grad_fn.name() == "ScaleBackward"
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


@pytest.mark.task("6.8")
def test_setup_context_style():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    ScaleWithSetup.apply(x, 3.0).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


@pytest.mark.task("6.8")
def test_vjp_is_the_backward_when_backward_is_not_defined():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    VjpOnly.apply(x).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


@pytest.mark.task("6.8")
def test_a_custom_node_can_be_applied_by_hand():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = Scale.apply(x)
    grads = y.grad_fn.apply(torch.ones(2))
    assert grads[0].tolist() == [2.0, 2.0] and grads[1] is None


@pytest.mark.task("4.1")
def test_a_builtin_node_can_be_called():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    grads = (x * 2).grad_fn(torch.ones(2))
    assert grads[0].tolist() == [2.0, 2.0] and grads[1] is None


def test_gradcheck_ignores_outputs_that_are_not_differentiable():
    x = torch.ones(2, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda a: a.long(), (x,))
    assert torch.autograd.gradcheck(lambda a: (a * 2, a.argmax()), (x,))


def test_gradcheck_options_of_pytorch_are_accepted():
    x = torch.ones(2, dtype=torch.float64, requires_grad=True)
    for options in ({"fast_mode": True}, {"check_undefined_grad": False}, {"check_grad_dtypes": True},
                    {"check_batched_grad": False}, {"nondet_tol": 0.0}):
        assert torch.autograd.gradcheck(lambda a: a * 2, (x,), **options)


# ----- what apply and the gradient check do with what a custom Function returns -----------
class WideGradient(Function):
    """A backward that returns float64 for a float32 input."""
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return (g * 2).double()


class DoublesInPlace(Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 2


class GradientForAConstant(Function):
    """A gradient of the wrong shape for ``k``, a tensor that needs none."""
    @staticmethod
    def forward(ctx, x, k):
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g, torch.ones(5)


@pytest.mark.task("6.8")
def test_a_gradient_comes_back_in_its_inputs_dtype():
    # PyTorch 2.13: float32 [2.0, 2.0] in x.grad, though backward returned float64.
    x = torch.ones(2, requires_grad=True)
    WideGradient.apply(x).sum().backward()
    assert x.grad.dtype == torch.float32 and x.grad.tolist() == [2.0, 2.0]


@pytest.mark.task("6.8")
@pytest.mark.parametrize("context", ["no_grad", "no tensor requires grad", "grad"])
def test_mark_dirty_counts_the_change_once(context):
    # PyTorch 2.13: version 2 in each case (mul_ bumps it, and so does the dirty output).
    x = torch.ones(2, requires_grad=context == "grad").clone()
    if context == "no_grad":
        with torch.no_grad():
            DoublesInPlace.apply(x)
    else:
        DoublesInPlace.apply(x)
    assert x._version == 2 and x.tolist() == [2.0, 2.0]


@pytest.mark.task("6.8")
def test_a_gradient_for_a_tensor_that_needs_none_is_dropped_whatever_its_shape():
    # PyTorch 2.13 accepts it and drops it: k.grad stays None.
    x, k = torch.ones(2, requires_grad=True), torch.ones(2)
    GradientForAConstant.apply(x, k).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0] and k.grad is None
