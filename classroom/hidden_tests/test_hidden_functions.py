"""Hidden tests of assignment a2-functions (chapter 6): other shapes and dtypes."""

import numpy as np
import pytest

import minitorch
from minitorch.autograd import grad, gradcheck

pytestmark = pytest.mark.chapter6


@pytest.mark.task("6.1")
def test_sigmoid_backward_in_float32():
    x = minitorch.tensor([-1.0, 0.0, 2.0], dtype=minitorch.float32, requires_grad=True)
    x.sigmoid().sum().backward()
    s = 1 / (1 + np.exp(-np.array([-1.0, 0.0, 2.0])))
    assert x.grad.dtype == minitorch.float32
    np.testing.assert_allclose(x.grad.numpy(), s * (1 - s), rtol=1e-6)


@pytest.mark.task("6.3")
def test_both_operands_broadcast_against_each_other():
    a = minitorch.tensor([[1.0], [2.0]], requires_grad=True)          # (2, 1)
    b = minitorch.tensor([3.0, 4.0, 5.0], requires_grad=True)         # (3,)
    (a * b + a / b).sum().backward()
    assert a.grad.shape == (2, 1) and b.grad.shape == (3,)
    np.testing.assert_allclose(a.grad.numpy(), [[12 + 1 / 3 + 1 / 4 + 1 / 5]] * 2)
    np.testing.assert_allclose(b.grad.numpy(), 3 - 3 / np.array([9.0, 16.0, 25.0]))


@pytest.mark.task("6.4")
def test_pow_of_zero_by_a_positive_power():
    x = minitorch.tensor([0.0, 1.0, -2.0], requires_grad=True)
    (x ** 2).sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, -4.0]


@pytest.mark.task("6.5")
def test_mm_of_a_row_by_a_column_and_back():
    a = minitorch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    b = minitorch.tensor([[4.0], [5.0], [6.0]], requires_grad=True)
    g_a, g_b = grad(b.mm(a).sum(), [a, b])
    assert g_a.tolist() == [[15.0, 15.0, 15.0]] and g_b.tolist() == [[6.0], [6.0], [6.0]]


@pytest.mark.task("6.6")
def test_sum_over_every_dim_by_name_and_mean_of_a_column():
    x = minitorch.tensor(np.arange(6.0).reshape(3, 2), requires_grad=True)
    (x.sum((0, 1)) * 2 + x.mean()).backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((3, 2), 2 + 1 / 6))


@pytest.mark.task("6.7")
def test_gradcheck_of_a_function_with_two_outputs():
    x = minitorch.tensor([0.5, 1.5], dtype=minitorch.float64, requires_grad=True)
    assert gradcheck(lambda t: (t.sigmoid(), (t * t).sum()), (x,))
