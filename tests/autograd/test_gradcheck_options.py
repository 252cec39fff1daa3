"""gradcheck and gradgradcheck take PyTorch 2.13's keyword arguments and do what each
says, or refuse it (chapter 6).  The expectations were checked against PyTorch, except
where a test says that minitorch refuses what PyTorch implements (the batched checks)."""

import inspect
import sys

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import Function, gradcheck, gradgradcheck

from ..doubling import Doubling, DoublingWithoutMaterializedGrads

# The module of gradcheck, found through the function (``autograd.gradcheck`` names both).
GradcheckError = sys.modules[gradcheck.__module__].GradcheckError

pytestmark = pytest.mark.chapter6


def x64(*values):
    return torch.tensor(list(values), dtype=torch.float64, requires_grad=True)


GRADCHECK_KEYWORDS = {
    "eps": 1e-06, "atol": 1e-05, "rtol": 0.001, "raise_exception": True, "nondet_tol": 0.0,
    "check_undefined_grad": True, "check_grad_dtypes": False, "check_batched_grad": False,
    "check_batched_forward_grad": False, "check_forward_ad": False, "check_backward_ad": True,
    "fast_mode": False, "masked": None,
}
GRADGRADCHECK_KEYWORDS = {
    "eps": 1e-06, "atol": 1e-05, "rtol": 0.001, "gen_non_contig_grad_outputs": False,
    "raise_exception": True, "nondet_tol": 0.0, "check_undefined_grad": True,
    "check_grad_dtypes": False, "check_batched_grad": False, "check_fwd_over_rev": False,
    "check_rev_over_rev": True, "fast_mode": False, "masked": False,
}


@pytest.mark.parametrize("function, positional, keywords", [
    (gradcheck, ["func", "inputs"], GRADCHECK_KEYWORDS),
    (gradgradcheck, ["func", "inputs", "grad_outputs"], GRADGRADCHECK_KEYWORDS),
], ids=["gradcheck", "gradgradcheck"])
def test_the_signature_is_pytorchs(function, positional, keywords):
    parameters = inspect.signature(function).parameters
    assert [n for n, p in parameters.items() if p.kind is not p.KEYWORD_ONLY] == positional
    assert {n: p.default for n, p in parameters.items() if p.kind is p.KEYWORD_ONLY} == keywords


@pytest.mark.parametrize("function", [gradcheck, gradgradcheck])
def test_an_unknown_keyword_is_refused(function):
    with pytest.raises(TypeError, match="unexpected keyword argument 'fast'"):
        function(lambda a: a * 2, (x64(1.0),), fast=True)


# ----- options minitorch refuses --------------------------------------------------------------

@pytest.mark.parametrize("options", [
    {"check_batched_grad": True},
    {"check_forward_ad": True, "check_batched_forward_grad": True},
], ids=["batched", "batched_forward"])
def test_batched_checks_are_refused(options):
    """minitorch's gradcheck does not run the vmap checks (PyTorch does)."""
    with pytest.raises(NotImplementedError):
        gradcheck(lambda a: a * 2, (x64(0.3, 0.7),), **options)


@pytest.mark.parametrize("options", [{"check_forward_ad": True},
                                     {"check_forward_ad": True, "check_backward_ad": False}],
                         ids=["both", "forward_only"])
def test_check_forward_ad_compares_forward_mode_with_finite_differences(options):
    assert gradcheck(lambda a: (a * a).sin(), (x64(0.3, 0.7),), **options)

    class WrongJvp(Doubling):
        @staticmethod
        def jvp(ctx, t):
            return t * 3
    with pytest.raises(GradcheckError, match="Jacobian computed with forward mode mismatch "
                       "for output 0 with respect to input 0"):
        gradcheck(WrongJvp.apply, (x64(0.3, 0.7),), **options)


@pytest.mark.parametrize("options", [{"check_batched_grad": True}, {"check_fwd_over_rev": True}],
                         ids=["batched", "fwd_over_rev"])
def test_gradgradcheck_refuses_them_too(options):
    with pytest.raises(NotImplementedError):
        gradgradcheck(lambda a: a * a, (x64(0.3, 0.7),), **options)


def test_checking_nothing_is_an_assertion_error():
    with pytest.raises(AssertionError, match="Expected at least one of check_forward_ad or "
                                             "check_backward_ad to be True"):
        gradcheck(lambda a: a * 2, (x64(0.3),), check_backward_ad=False)
    with pytest.raises(AssertionError, match="Expected at least one of check_fwd_over_rev or "
                                             "check_rev_over_rev to be True"):
        gradgradcheck(lambda a: a * 2, (x64(0.3),), check_rev_over_rev=False)


# ----- nondet_tol -----------------------------------------------------------------------------

class Noisy(Doubling):
    """A backward that differs slightly on every call (as a nondeterministic kernel)."""
    calls = 0

    @staticmethod
    def backward(ctx, grad):
        Noisy.calls += 1
        return grad * (2 + Noisy.calls * 1e-7)


def test_a_backward_that_is_not_reentrant_fails_unless_nondet_tol_allows_it():
    with pytest.raises(GradcheckError, match="Backward is not reentrant"):
        gradcheck(Noisy.apply, (x64(0.3, 0.7),))
    assert gradcheck(Noisy.apply, (x64(0.3, 0.7),), raise_exception=False) is False
    assert gradcheck(Noisy.apply, (x64(0.3, 0.7),), nondet_tol=1e-5)


# ----- backward must multiply by its gradient -------------------------------------------------

class PlusTiny(Doubling):
    """Right up to 1e-12, even when the output gradient is zero."""

    @staticmethod
    def backward(ctx, grad):
        return grad * 2 + 1e-12


def test_backward_must_give_zero_for_a_zero_output_gradient():
    with pytest.raises(GradcheckError, match="backward not multiplied by grad_output"):
        gradcheck(PlusTiny.apply, (x64(0.3, 0.7),))


def test_masked_compares_that_zero_with_allclose():
    assert gradcheck(PlusTiny.apply, (x64(0.3, 0.7),), masked=True, check_undefined_grad=False)
    for masked in (None, False):
        with pytest.raises(GradcheckError, match="backward not multiplied by grad_output"):
            gradcheck(PlusTiny.apply, (x64(0.3, 0.7),), masked=masked, check_undefined_grad=False)


# ----- check_undefined_grad -------------------------------------------------------------------

class OnesWithoutGradient(DoublingWithoutMaterializedGrads):
    """Right for a real gradient, but returns ones when none arrived (None)."""

    @staticmethod
    def backward(ctx, grad):
        return torch.ones(2, dtype=torch.float64) if grad is None else grad * 2


class RaisesWithoutGradient(DoublingWithoutMaterializedGrads):
    @staticmethod
    def backward(ctx, grad):
        if grad is None:
            raise RuntimeError("no gradient")
        return grad * 2


def test_check_undefined_grad():
    with pytest.raises(GradcheckError, match="Expected all input grads to be undefined or zero "
                                             "when all output grads are undefined or zero"):
        gradcheck(OnesWithoutGradient.apply, (x64(0.3, 0.7),))
    with pytest.raises(GradcheckError, match="Expected backward function to handle undefined "
                                             "output grads"):
        gradcheck(RaisesWithoutGradient.apply, (x64(0.3, 0.7),))
    for function in (OnesWithoutGradient, RaisesWithoutGradient):
        assert gradcheck(function.apply, (x64(0.3, 0.7),), check_undefined_grad=False)


# ----- fast_mode ------------------------------------------------------------------------------

class Counted(Doubling):
    calls = 0
    factor = 2.0

    @staticmethod
    def backward(ctx, grad):
        Counted.calls += 1
        return grad * Counted.factor


@pytest.mark.parametrize("fast, calls", [(False, 41), (True, 3)], ids=["slow", "fast"])
def test_fast_mode_runs_backward_once_per_output_instead_of_once_per_element(fast, calls):
    """Slow mode: two backwards per output element (the second checks reentrancy) plus
    the zero-gradient check; fast mode: two per output plus that check."""
    Counted.calls, Counted.factor = 0, 2.0
    x = torch.tensor(np.linspace(0.1, 0.9, 20), requires_grad=True)
    assert gradcheck(Counted.apply, (x,), fast_mode=fast, check_undefined_grad=False)
    assert Counted.calls == calls


def test_fast_mode_catches_a_wrong_backward():
    Counted.factor = 3.0
    try:
        x = torch.tensor(np.linspace(0.1, 0.9, 20), requires_grad=True)
        with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to "
                                                 "input 0") as info:
            gradcheck(Counted.apply, (x,), fast_mode=True)
        assert "fast mode" in str(info.value).lower()
    finally:
        Counted.factor = 2.0


def test_fast_mode_passes_a_right_backward_with_several_inputs_and_outputs():
    def f(a, b):
        return a * b, (a.exp() * b).sum(), a.sigmoid()

    assert gradcheck(f, (x64(0.3, -0.2, 1.1), x64(0.5, 0.7, -0.4)), fast_mode=True)
    assert gradgradcheck(f, (x64(0.3, -0.2, 1.1), x64(0.5, 0.7, -0.4)), fast_mode=True)


def test_fast_mode_leaves_the_random_number_generator_alone():
    torch.manual_seed(0)
    expected = torch.rand(3).tolist()
    torch.manual_seed(0)
    gradcheck(lambda a: a * a, (x64(0.3, 0.7),), fast_mode=True)
    assert torch.rand(3).tolist() == expected


# ----- outputs and inputs ---------------------------------------------------------------------

def test_outputs_that_are_not_differentiable():
    x = x64(1.0, 2.0)
    assert gradcheck(lambda a: a.long(), (x,))
    assert gradcheck(lambda a: (a * 2, a.argmax()), (x,))
    with pytest.raises(GradcheckError, match="Numerical gradient for function expected to be zero"):
        gradcheck(lambda a: a.detach() * 2, (x,))


def test_an_input_with_stride_zero_is_refused():
    x = torch.tensor([0.3], dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="The 0th input has a dimension with stride 0"):
        gradcheck(lambda a: a * 2, (x.expand(3),))


def test_a_non_contiguous_input_is_nudged_in_place():
    m = torch.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], dtype=torch.float64).t()
    m.requires_grad_()
    assert gradcheck(lambda a: a * a, (m,))


# ----- check_grad_dtypes ----------------------------------------------------------------------

def test_check_grad_dtypes_catches_a_gradient_in_another_dtype():
    """Only a built-in op can hand back a gradient of another dtype (a custom Function's
    gradients are converted to their input's dtype), so a broken built-in is made here."""
    from minitorch.ops._common import BuiltinFunction

    class HalfPrecisionGradient(BuiltinFunction):
        @staticmethod
        def forward(ctx, a):
            return a._data * 2

        @staticmethod
        def backward(ctx, grad):
            return (grad * 2).float()

    x = x64(0.25, 0.5)
    # without the option the Jacobians agree, and the zero-gradient check catches it later
    with pytest.raises(GradcheckError, match="grad is incorrect type"):
        gradcheck(HalfPrecisionGradient.apply, (x,), check_undefined_grad=False)
    with pytest.raises(GradcheckError, match="Gradient has dtype mismatch"):
        gradcheck(HalfPrecisionGradient.apply, (x,), check_grad_dtypes=True,
                  check_undefined_grad=False)


# ----- gradgradcheck --------------------------------------------------------------------------

class Square(Function):
    """x * x, recording whether the gradients backward receives are contiguous."""
    contiguous = []

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        Square.contiguous.append(grad.is_contiguous())
        return grad * 2 * x


def test_gradgradcheck_can_give_non_contiguous_grad_outputs():
    m = torch.tensor(np.linspace(0.1, 1.2, 12).reshape(3, 4), requires_grad=True)
    Square.contiguous = []
    assert gradgradcheck(Square.apply, (m,), gen_non_contig_grad_outputs=True)
    assert Square.contiguous and not any(Square.contiguous)


def test_gradgradcheck_options_reach_gradcheck():
    x = x64(0.3, 0.7)
    assert gradgradcheck(lambda a: a * a * a, (x,), fast_mode=True, nondet_tol=1e-9,
                         check_grad_dtypes=True, masked=True)
    with pytest.raises(AssertionError, match="Setting check_undefined_grad=True requires "
                                             "check_rev_over_rev to be True"):
        gradgradcheck(lambda a: a * a, (x,), check_rev_over_rev=False, check_fwd_over_rev=True)
