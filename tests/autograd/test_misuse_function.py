"""Misuse of custom autograd Functions (the ctx API) and of gradcheck/gradgradcheck
(chapter 6).  PyTorch 2.13's exception types and wording; see tests/misuse.py."""

import pytest

import minitorch as torch
from minitorch.autograd import Function
from tests.misuse import Row, check, namespace, params

pytestmark = pytest.mark.chapter6
# The rows that raise in a custom Function's gradient check, which course task 6.8 writes:
# `check` grades them with 6.8's other tests.
GRADED_BY_6_8 = pytest.mark.task("6.8")


def function(forward, backward):
    """A Function subclass from two plain functions (made static)."""
    return type("F", (Function,),
                {"forward": staticmethod(forward), "backward": staticmethod(backward)})


def _mark_dirty_and_return(ctx, x):
    x.mul_(2)
    ctx.mark_dirty(x)
    return x


def _mark_dirty_not_returned(ctx, x):
    ctx.mark_dirty(x)
    return x * 2


def _mark_dirty_before_change(ctx, x):
    ctx.mark_dirty(x)
    x.mul_(2)
    return x


def _save(value):
    def forward(ctx, x):
        ctx.save_for_backward(value(x))
        return x * 2
    return forward


def _forward_raises(ctx, x):
    raise KeyError("fwd")


def _backward_raises(ctx, g):
    raise ValueError("boom")


def _set_materialize(value):
    def forward(ctx, x):
        ctx.set_materialize_grads(value)
        return x * 2
    return forward


def _mark_non_differentiable_number(ctx, x):
    ctx.mark_non_differentiable(3)
    return x * 2


FUNCTIONS = dict(
    Double=function(lambda ctx, x: x * 2, lambda ctx, g: g * 2),
    TwoGrads=function(lambda ctx, x: x * 2, lambda ctx, g: (g, g)),
    WrongShape=function(lambda ctx, x: x * 2, lambda ctx, g: torch.ones(3)),
    StrGrad=function(lambda ctx, x: x * 2, lambda ctx, g: "g"),
    IntGrad=function(lambda ctx, x: x * 2, lambda ctx, g: 5),
    ListGrad=function(lambda ctx, x: x * 2, lambda ctx, g: [g]),
    SavesInt=function(_save(lambda x: 3), lambda ctx, g: g),
    SavesList=function(_save(lambda x: [x]), lambda ctx, g: g),
    SavesInput=function(_save(lambda x: x), lambda ctx, g: g),
    DirtyReturned=function(_mark_dirty_and_return, lambda ctx, g: g),
    DirtyNotReturned=function(_mark_dirty_not_returned, lambda ctx, g: g),
    DirtyBeforeChange=function(_mark_dirty_before_change, lambda ctx, g: g),
    NonDiffNumber=function(_mark_non_differentiable_number, lambda ctx, g: g),
    MaterializeNoArg=function(lambda ctx, x: (ctx.set_materialize_grads(), x * 2)[1], lambda ctx,
                              g: g),
    ForwardRaises=function(_forward_raises, lambda ctx, g: g),
    BackwardRaises=function(lambda ctx, x: x * 2, _backward_raises),
    GradForNumber=function(lambda ctx, x, k: x * 2, lambda ctx, g: (g * 2, g)),
    StrForAConstant=function(lambda ctx, x, k: x * k, lambda ctx, g: (g, "g")),
    BadShapeAfterANumber=function(lambda ctx, n, x, k, y: x * k + y,
                                  lambda ctx, g: (None, g, None, torch.ones(7))),
    NoBackward=type("NoBackward", (Function,), {"forward": staticmethod(lambda ctx, x: x * 2)}),
)

X = "x = torch.ones(2, requires_grad=True)\n"
D64 = "torch.ones(2, dtype=torch.float64, requires_grad=True)"

ROWS = [
    Row("Double.apply(torch.ones(2, requires_grad=True), 5)", TypeError, "takes 2 positional arguments but 3 were given",
        plain=False),
    Row("Double.apply()", TypeError, "missing 1 required positional argument", plain=False),
    Row("torch.autograd.Function.apply(torch.ones(2))", NotImplementedError,
        "You must implement the forward function for custom autograd.Function"),
    Row(X + "NoBackward.apply(x).sum().backward()", NotImplementedError,
        "You must implement either the backward or vjp method for your custom autograd.Function"),
    Row(X + "TwoGrads.apply(x).sum().backward()", RuntimeError,
        r"function \w*Backward returned an incorrect number of gradients \(expected 1, got 2\)"),
    Row(X + "WrongShape.apply(x).sum().backward()", RuntimeError,
        r"Function \w*Backward returned an invalid gradient at index 0 - got \[3\] but expected shape compatible with \[2\]"),
    Row(X + "StrGrad.apply(x).sum().backward()", RuntimeError,
        r"expected Variable or None \(got str\)", mark=GRADED_BY_6_8),
    Row(X + "IntGrad.apply(x).sum().backward()", RuntimeError,
        r"expected Variable or None \(got int\)", mark=GRADED_BY_6_8),
    Row(X + "ListGrad.apply(x).sum().backward()", RuntimeError,
        r"expected Variable or None \(got list\)", mark=GRADED_BY_6_8),
    # PyTorch 2.13: a gradient for an argument that is no tensor (a number, None, a list of
    # tensors) is an error, with the position counted from 1.
    Row(X + "GradForNumber.apply(x, 3.0).sum().backward()", RuntimeError,
        r"function \w*Backward returned a gradient different than None at position 2, but the "
        r"corresponding forward input was not a Variable", mark=GRADED_BY_6_8),
    Row(X + "GradForNumber.apply(x, None).sum().backward()", RuntimeError,
        r"returned a gradient different than None at position 2", mark=GRADED_BY_6_8),
    Row(X + "GradForNumber.apply(x, [torch.ones(2, requires_grad=True)]).sum().backward()",
        RuntimeError, r"returned a gradient different than None at position 2", mark=GRADED_BY_6_8),
    # PyTorch 2.13: what is no tensor is refused even for a tensor that needs no gradient
    # (a tensor there is dropped), and an invalid gradient's index counts tensors only.
    Row(X + "StrForAConstant.apply(x, torch.ones(2)).sum().backward()", RuntimeError,
        r"expected Variable or None \(got str\)", mark=GRADED_BY_6_8),
    Row(X + "BadShapeAfterANumber.apply(3.0, x, torch.ones(2), x * 1).sum().backward()",
        RuntimeError, r"returned an invalid gradient at index 2 - got \[7\] but expected shape "
        r"compatible with \[2\]", mark=GRADED_BY_6_8),
    Row(X + "SavesInt.apply(x)", TypeError,
        "save_for_backward can only save variables, but argument 0 is of type int"),
    Row(X + "SavesList.apply(x)", TypeError,
        "save_for_backward can only save variables, but argument 0 is of type list"),
    Row(X + "y = SavesInput.apply(x)\ny.sum().backward()\ny.grad_fn.saved_tensors", RuntimeError,
        "Trying to backward through the graph a second time"),
    Row(X + "DirtyReturned.apply(x)", RuntimeError,
        "a leaf Variable that requires grad has been used in an in-place operation"),
    Row(X + "DirtyBeforeChange.apply(x)", RuntimeError,
        "a leaf Variable that requires grad has been used in an in-place operation"),
    Row(X + "DirtyNotReturned.apply(x * 1)", RuntimeError,
        "Some elements marked as dirty during the forward method were not returned as output"),
    Row(X + "NonDiffNumber.apply(x)", RuntimeError,
        "mark_non_differentiable only accepts variable arguments"),
    Row(X + "MaterializeNoArg.apply(x)", TypeError, "set_materialize_grads"),
    Row(X + "ForwardRaises.apply(x)", KeyError, "fwd", plain=False),
    Row(X + "BackwardRaises.apply(x).sum().backward()", ValueError, "boom", plain=False),
    Row("torch.autograd.gradcheck(lambda a: a * 2, (torch.ones(2, dtype=torch.float64),))", ValueError,
        "gradcheck expects at least one input tensor to require gradient, but none of them have requires_grad=True"),
    Row("torch.autograd.gradcheck(lambda a: a * 2, ())", ValueError,
        "expects at least one input tensor to require gradient"),
    Row("torch.autograd.gradcheck(lambda a: a * 2, (2.0,))", ValueError,
        "expects at least one input tensor to require gradient"),
    Row("torch.autograd.gradcheck(lambda a: a * 2, (torch.ones(2, dtype=torch.int64),))", ValueError,
        "expects at least one input tensor to require gradient"),
    Row(f"torch.autograd.gradcheck(lambda a: a * 2, ({D64},), unknown=True)", TypeError,
        "gradcheck\\(\\) got an unexpected keyword argument 'unknown'"),
    Row(f"torch.autograd.gradcheck(lambda a: a * 2, ({D64},), foo=1)", TypeError,
        "unexpected keyword argument 'foo'"),
    Row(f"torch.autograd.gradgradcheck(lambda a: a * 2, ({D64},), bogus=1)", TypeError,
        "gradgradcheck\\(\\) got an unexpected keyword argument 'bogus'"),
    Row("torch.autograd.gradgradcheck(lambda a: a * 2, (torch.ones(2, dtype=torch.float64),))", ValueError,
        "expects at least one input tensor to require gradient"),
    Row("torch.autograd.gradcheck(lambda a: a * 2)", TypeError,
        "missing 1 required positional argument: 'inputs'"),
    Row(f"torch.autograd.gradcheck(lambda a: (a * 3).detach().requires_grad_() * 1, ({D64},))", RuntimeError,
        "Jacobian mismatch for output 0 with respect to input 0"),
    Row("torch.autograd.gradcheck(lambda a: a * 1000, (torch.tensor([1., 3.], requires_grad=True),))",
        RuntimeError, "Jacobian mismatch for output 0 with respect to input 0",
        note="float32 inputs: a step of 1e-6 is below float32's spacing, so the estimate is "
             "off by percents (1007.08 and 976.56 in PyTorch 2.13 too)"),
]

NAMES = namespace(Function=Function, **FUNCTIONS)


@pytest.mark.parametrize("row", params(ROWS))
def test_misuse(row):
    check(row, NAMES)
