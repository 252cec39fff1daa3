"""Hidden tests of assignment a5-transforms (chapters 12-14)."""

import numpy as np
import pytest

import minitorch as torch
import minitorch.autograd.forward_ad as fwAD
from minitorch.func import vmap
from minitorch.utils.checkpoint import checkpoint

pytestmark = pytest.mark.chapter12

d = torch.float64


@pytest.mark.task("12.1")
def test_div_with_only_the_denominators_tangent():
    a = torch.tensor([[1.0], [-2.0]], dtype=d)
    b = torch.tensor([0.5, 4.0, -1.0], dtype=d)
    tb = torch.tensor([1.0, -1.0, 2.0], dtype=d)
    with fwAD.dual_level():
        t = fwAD.unpack_dual(a / fwAD.make_dual(b, tb)).tangent
    expected = -a.numpy() * tb.numpy() / b.numpy() ** 2
    assert tuple(t.shape) == (2, 3)
    np.testing.assert_allclose(t.numpy(), expected, rtol=1e-14)


@pytest.mark.task("12.1")
def test_a_square_by_mul_doubles_the_tangent():
    x = torch.tensor([0.5, -3.0], dtype=d)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, torch.tensor([1.0, 10.0], dtype=d))
        t = fwAD.unpack_dual(dual * dual).tangent
    np.testing.assert_allclose(t.numpy(), [1.0, -60.0], rtol=1e-14)


@pytest.mark.task("13.1")
def test_max_over_a_negative_dim_and_its_indices():
    xs = torch.tensor(np.random.default_rng(13).standard_normal((3, 4, 5)))
    values, indices = vmap(lambda x: tuple(x.max(-2)))(xs)
    np.testing.assert_array_equal(values.numpy(), xs.numpy().max(axis=1))
    np.testing.assert_array_equal(indices.numpy(), xs.numpy().argmax(axis=1))


@pytest.mark.task("13.1")
def test_nested_vmaps_sum_the_innermost_examples_dim():
    xs = torch.tensor(np.arange(24.0).reshape(2, 3, 4))
    got = vmap(vmap(lambda x: x.sum(0)))(xs)
    np.testing.assert_array_equal(got.numpy(), xs.numpy().sum(axis=2))


@pytest.mark.task("14.1")
def test_two_checkpointed_blocks_in_a_row():
    calls = []

    def block(a):
        calls.append(1)
        return (a * a).sin()

    x = torch.tensor([0.2, -0.7, 1.1], dtype=d, requires_grad=True)
    y = checkpoint(block, checkpoint(block, x, use_reentrant=False), use_reentrant=False)
    y.sum().backward()
    assert len(calls) == 4
    xn = x.detach().numpy()
    inner = np.sin(xn * xn)
    expected = np.cos(inner * inner) * 2 * inner * np.cos(xn * xn) * 2 * xn
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-13)
