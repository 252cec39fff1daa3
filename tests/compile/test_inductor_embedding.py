"""minitorch's numpy backend (chapter 21) sums an embedding's gradient rows by index
with eager's ``add_rows``, called on the arrays: the table's gradient is eager
minitorch's."""

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn
from minitorch._inductor.compile_fx import output_code

pytestmark = pytest.mark.chapter21


@pytest.mark.parametrize("options", [{}, {"padding_idx": 2}, {"scale_grad_by_freq": True}],
                         ids=["plain", "padding", "by-frequency"])
def test_an_embeddings_gradient_is_summed_by_sorted_rows(options):
    minitorch.manual_seed(0)
    table = nn.Embedding(7, 5, **options)
    idx = minitorch.tensor(np.random.default_rng(0).integers(0, 7, (6, 9)))
    weights = minitorch.randn(6, 9, 5)
    f = lambda idx: (table(idx) * weights).sum()
    grads = []
    for run in (f, minitorch.compile(f)):
        table.zero_grad()
        run(idx).backward()
        grads.append(table.weight.grad.numpy().copy())
    assert "embedding_rows_backward(" in output_code(1)[0]
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-6, atol=1e-6)
    assert np.any(grads[0] != 0)


def test_no_index_gives_a_zero_gradient():
    table = nn.Embedding(4, 3)
    minitorch.compile(lambda idx: table(idx).sum())(
        minitorch.tensor(np.zeros((2, 0), dtype=np.int64))).backward()
    assert "embedding_rows_backward(" in output_code(1)[0]
    assert np.array_equal(table.weight.grad.numpy(), np.zeros((4, 3), np.float32))
