"""Task 12.1: the jvp rule of ops with two inputs (``forward_rules._binary``), which
``Mul`` and ``Div`` use: one term per input that carries a tangent, as in the product
rule.  Expected tangents are the derivatives written out in numpy."""

import numpy as np
import pytest

import minitorch as torch
import minitorch.autograd.forward_ad as fwAD

pytestmark = pytest.mark.chapter12

d = torch.float64
a0 = torch.tensor([0.5, -1.0, 2.0], dtype=d)
b0 = torch.tensor([1.5, 0.25, -0.75], dtype=d)
ta = torch.tensor([1.0, 2.0, -1.0], dtype=d)
tb = torch.tensor([-3.0, 0.5, 4.0], dtype=d)


def tangent_of(op, a_tangent, b_tangent, a=a0, b=b0):
    """The tangent of ``op(a, b)`` with the given tangents (None: that input is fixed)."""
    with fwAD.dual_level():
        a = a if a_tangent is None else fwAD.make_dual(a, a_tangent)
        b = b if b_tangent is None else fwAD.make_dual(b, b_tangent)
        return fwAD.unpack_dual(op(a, b)).tangent


@pytest.mark.task("12.1")
def test_mul_with_both_tangents_is_the_product_rule():
    got = tangent_of(torch.mul, ta, tb)
    expected = ta.numpy() * b0.numpy() + a0.numpy() * tb.numpy()
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-14)


@pytest.mark.task("12.1")
def test_mul_with_one_tangent_keeps_only_its_term():
    np.testing.assert_allclose(tangent_of(torch.mul, ta, None).numpy(),
                               ta.numpy() * b0.numpy(), rtol=1e-14)
    np.testing.assert_allclose(tangent_of(torch.mul, None, tb).numpy(),
                               a0.numpy() * tb.numpy(), rtol=1e-14)


@pytest.mark.task("12.1")
def test_div_with_both_tangents_is_the_quotient_rule():
    got = tangent_of(torch.div, ta, tb)
    a, b = a0.numpy(), b0.numpy()
    expected = ta.numpy() / b - a * tb.numpy() / b ** 2
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-13)


@pytest.mark.task("12.1")
def test_a_broadcast_product_has_the_output_shape():
    column = torch.tensor([[1.0], [2.0]], dtype=d)
    got = tangent_of(torch.mul, torch.ones_like(column), None, a=column, b=b0)
    assert tuple(got.shape) == (2, 3)
    np.testing.assert_allclose(got.numpy(), np.broadcast_to(b0.numpy(), (2, 3)))


# In-place ``a.mul_(b)`` uses the same rule (``a.div_(b)`` a rule of its own), with the
# value of ``a`` before the change; ``b`` may be a plain number there (it has no tangent).  The dual
# shares its tangent's memory, so each case makes its own copies.  Expected
# tangents: torch 2.13's, for a0, b0, ta, tb above.
IN_PLACE = {
    ("mul_", "both"): [0.0, 0.0, 8.75],
    ("mul_", "a only"): [1.5, 0.5, 0.75],
    ("mul_", "b only"): [-1.5, -0.5, 8.0],
    ("mul_", "number"): [2.5, 5.0, -2.5],
    ("div_", "both"): [4 / 3, 16.0, -116 / 9],
    ("div_", "a only"): [2 / 3, 8.0, 4 / 3],
    ("div_", "b only"): [2 / 3, 8.0, -128 / 9],
    ("div_", "number"): [0.4, 0.8, -0.4],
}


def in_place_tangent(method, which):
    with fwAD.dual_level():
        a = a0.clone() if which == "b only" else fwAD.make_dual(a0.clone(), ta.clone())
        if which == "number":
            b = 2.5
        else:
            b = fwAD.make_dual(b0, tb.clone()) if which in ("both", "b only") else b0
        getattr(a, method)(b)
        return fwAD.unpack_dual(a).tangent


@pytest.mark.task("12.1")
@pytest.mark.parametrize("which", ["both", "a only", "b only", "number"])
def test_an_in_place_product_uses_the_value_before_the_change(which):
    got = in_place_tangent("mul_", which)
    np.testing.assert_allclose(got.numpy(), IN_PLACE["mul_", which], rtol=1e-14)


@pytest.mark.parametrize("which", ["both", "a only", "b only", "number"])
def test_an_in_place_quotient_uses_the_value_before_the_change(which):
    """``div_`` has its own rule (PyTorch's rounding), not the task's."""
    got = in_place_tangent("div_", which)
    np.testing.assert_allclose(got.numpy(), IN_PLACE["div_", which], rtol=1e-14)
