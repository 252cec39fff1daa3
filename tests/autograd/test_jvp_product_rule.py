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
