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


@pytest.mark.task("13.3")
def test_vmap_over_dim_1_with_an_unmapped_argument():
    x = torch.arange(6.0).reshape(2, 3)
    out = vmap(lambda a, b: a * b + 1, in_dims=(1, None))(x, torch.tensor(2.0))
    assert out.tolist() == [[1.0, 7.0], [3.0, 9.0], [5.0, 11.0]]


@pytest.mark.task("13.3")
def test_vmap_out_dims_per_output_and_an_unbatched_output_expanded():
    x = torch.arange(6.0).reshape(2, 3)
    total, fives = vmap(lambda a: (a.sum(), a * 0 + 5), out_dims=(0, 1))(x)
    assert total.tolist() == [3.0, 12.0] and fives.tolist() == [[5.0, 5.0]] * 3
    assert vmap(lambda a: a.sum(), chunk_size=1)(x).tolist() == [3.0, 12.0]


@pytest.mark.task("13.3")
def test_vmap_refuses_mapped_sizes_that_differ():
    with pytest.raises(ValueError, match=r"got sizes \[2, 3\] for the mapped dimension"):
        vmap(lambda a, b: a + b)(torch.ones(2, 3), torch.ones(3, 3))


@pytest.mark.task("14.1")
def test_a_non_reentrant_checkpoint_runs_the_function_again_once_for_backward():
    x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    calls = []

    def block(a):
        calls.append(1)
        return (a.exp() * a).sin()

    y = checkpoint(block, x, use_reentrant=False)
    assert len(calls) == 1
    y.sum().backward()
    assert len(calls) == 2
    e = np.exp([0.5, 1.5])
    inner = e * np.array([0.5, 1.5])
    np.testing.assert_allclose(x.grad.numpy(), np.cos(inner) * (e + inner), rtol=1e-12)
