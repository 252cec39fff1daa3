"""Task 13.1: the batching rule of ops with dim arguments (``batching_rules.with_dims``):
under ``vmap`` a dim of one example is a dim past the batch dim of the batched value.
Expected values from a loop over the examples."""

import numpy as np
import pytest

import minitorch as torch
from minitorch.func import vmap

pytestmark = pytest.mark.chapter13

X = torch.tensor(np.arange(24.0).reshape(4, 2, 3) / 7 - 1)


def looped(f, xs):
    return torch.stack([f(x) for x in xs])


@pytest.mark.task("13.1")
@pytest.mark.parametrize("dim", [0, 1, -1, -2])
def test_a_sum_over_a_dim_sums_that_dim_of_each_example(dim):
    f = lambda x: x.sum(dim)                                       # noqa: E731
    got = vmap(f)(X)
    np.testing.assert_allclose(got.numpy(), looped(f, X).numpy(), rtol=1e-14)


@pytest.mark.task("13.1")
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_over_a_dim_of_each_example(dim):
    f = lambda x: torch.softmax(x, dim)                            # noqa: E731
    got = vmap(f)(X)
    assert tuple(got.shape) == (4, 2, 3)
    np.testing.assert_allclose(got.numpy(), looped(f, X).numpy(), rtol=1e-13)


@pytest.mark.task("13.1")
def test_transpose_swaps_the_two_dims_of_each_example():
    got = vmap(lambda x: x.transpose(0, 1))(X)
    assert tuple(got.shape) == (4, 3, 2)
    np.testing.assert_array_equal(got.numpy(), X.numpy().transpose(0, 2, 1))


@pytest.mark.task("13.1")
def test_a_dim_op_with_the_batch_in_another_dim():
    f = lambda x: x.mean(-1, keepdim=True)                         # noqa: E731
    got = vmap(f, in_dims=2)(X)
    expected = looped(f, X.permute(2, 0, 1))
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-14)
