"""Task 13.1: the batching rule of ops with dim arguments (``batching_rules.with_dims``):
under ``vmap`` a dim of one example is a dim past the batch dim of the batched value.
Expected values from a loop over the examples."""

import numpy as np
import pytest

import minitorch as torch
from minitorch.func import vmap
from minitorch.ops import reduction, shape, statistics

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


@pytest.mark.task("13.1")
@pytest.mark.parametrize("op", [
    lambda x: reduction.SumDim.apply(x, (-1,), False),
    lambda x: reduction.SumDim.apply(x, None, False),         # None: every dim
    lambda x: reduction.Softmax.apply(x, -2),
    lambda x: statistics.Var.apply(x, None, 1, False),
    lambda x: shape.Transpose.apply(x, -1, -2),
])
def test_the_rule_takes_negative_and_none_dims_as_the_op_does(op):
    # x.sum(-1) reaches SumDim as dim 1: the functions normalise dims before apply.  The
    # ops take negative dims and None themselves, and so must their rule: counted from
    # the end of one example, not of the batched value.
    np.testing.assert_allclose(vmap(op)(X).numpy(), looped(op, X).numpy(), rtol=1e-14)


# Expected values from PyTorch 2.13 (torch.func.vmap on the same input).
NAMED_PAIRS = {
    "max": (-2, [[11.0, 10.0, 9.0, 8.0], [23.0, 22.0, 21.0, 20.0]], [[2] * 4, [2] * 4]),
    "min": (0, [[3.0, 2.0, 1.0, 0.0], [15.0, 14.0, 13.0, 12.0]], [[0] * 4, [0] * 4]),
}


@pytest.mark.task("13.1")
@pytest.mark.parametrize("name", NAMED_PAIRS)
def test_max_and_min_over_a_dim_return_their_named_pair(name):
    """vmap returns ``return_types.max`` (or ``min``) as PyTorch does, with ``values`` and
    ``indices`` batched; the pair used to come back as one broken entry."""
    dim, values, indices = NAMED_PAIRS[name]
    xs = torch.arange(24.0).reshape(2, 3, 4).flip(-1)
    got = vmap(lambda x: getattr(x, name)(dim))(xs)
    assert type(got).__name__ == name and len(got) == 2
    assert got.values.tolist() == values
    assert got.indices.tolist() == indices
