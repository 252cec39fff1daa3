"""The embedding's gradient adds each looked-up row's gradient into its row of the
table: ``add_rows`` does it in rounds (the performance appendix) and must give the bits
of ``np.add.at``, which adds one row at a time in the order of the indices."""

import os

import numpy as np
import pytest

import minitorch
from minitorch.nn._functions.normalization import add_rows

pytestmark = pytest.mark.chapter11

# Under ``make test PERTURB=ulp`` the embedding's backward moves its sums by an ulp on
# purpose (another machine's last bits); ``add_rows`` itself is plain numpy.
PERTURBED = bool(os.environ.get("MINITORCH_PERTURB"))


def by_add_at(n_rows, index, rows):
    table = np.zeros((n_rows,) + rows.shape[1:], rows.dtype)
    np.add.at(table, index, rows)
    return table


def by_add_rows(n_rows, index, rows):
    table = np.zeros((n_rows,) + rows.shape[1:], rows.dtype)
    add_rows(table, index, rows)
    return table


CASES = [                   # rows in the table, indices, row shape, dtype
    (65, 2048, (128,), np.float32),     # a GPT batch: every index many times (rounds)
    (50, 300, (64,), np.float64),       # rounds, float64
    (1000, 64, (128,), np.float32),     # mostly one occurrence each: one or two rounds
    (4, 400, (128,), np.float32),       # an index that takes up much of it: np.add.at
    (10, 1000, (3,), np.float32),       # narrow rows: np.add.at
    (7, 50, (), np.float32),            # one number a row
    (5, 0, (16,), np.float32),          # nothing looked up
]


@pytest.mark.parametrize("n_rows, n, row_shape, dtype", CASES)
def test_add_rows_gives_the_bits_of_add_at(n_rows, n, row_shape, dtype):
    rng = np.random.default_rng(n_rows * 7 + n)
    index = rng.integers(0, n_rows, n)
    rows = (rng.standard_normal((n,) + row_shape) * 1e3).astype(dtype)
    rows[rng.random(rows.shape) < 0.05] = -0.0      # 0.0 + -0.0 is 0.0: the start counts
    expected = by_add_at(n_rows, index, rows)
    got = by_add_rows(n_rows, index, rows)
    assert got.dtype == expected.dtype
    assert np.array_equal(got.view(np.uint8), expected.view(np.uint8))


def test_add_rows_keeps_the_order_of_repeated_indices():
    # in float32, 1e8 - 1e8 + 1 is 1 but 1 - 1e8 + 1e8 is 0: the order shows in the sum
    index = np.tile(np.arange(20), 3)               # every row three times: rounds
    big = np.float32(1e8)
    rows = np.repeat(np.array([big, -big, 1], np.float32), 20)[:, None] * np.ones(64, np.float32)
    expected = by_add_at(20, index, rows)
    assert np.all(expected == 1)
    assert np.array_equal(by_add_rows(20, index, rows), expected)
    assert np.all(by_add_at(20, index[::-1], rows[::-1]) == 0)


def test_embedding_gradient_is_add_at():
    rng = np.random.default_rng(3)
    indices = rng.integers(0, 65, (32, 64))
    weight = minitorch.nn.Embedding(65, 128)
    grad = rng.standard_normal((32, 64, 128)).astype(np.float32)
    weight(minitorch.tensor(indices)).backward(minitorch.from_numpy(grad))
    expected = by_add_at(65, indices.ravel(), grad.reshape(-1, 128))
    if PERTURBED:
        np.testing.assert_allclose(weight.weight.grad.numpy(), expected, rtol=1e-6, atol=1e-6)
    else:
        assert np.array_equal(weight.weight.grad.numpy(), expected)
