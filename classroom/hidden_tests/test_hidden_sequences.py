"""Hidden tests of assignment a6-sequences (chapters 15-16). Expected values of the LSTM
case from PyTorch 2.13 (``torch.nn.LSTMCell`` in float64, two steps)."""

import math
import pathlib

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn as nn

from classroom.nbcode import notebook_namespace

pytestmark = pytest.mark.chapter15

ROOT = pathlib.Path(__file__).resolve().parents[2]


def composed(q, k, v, bias=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if bias is not None:
        scores = scores + bias
    return scores.softmax(dim=-1) @ v


@pytest.mark.task("15.1")
def test_attention_backward_with_a_float_mask_per_head():
    """A mask that is not 0 or -inf (a bias per head, as ALiBi adds), more keys than
    queries, values wider than keys."""
    ns = notebook_namespace(ROOT / "book" / "15b_attention_backward.ipynb", task="15.1")
    rng = np.random.default_rng(1516)
    q, k, v = (torch.tensor(rng.standard_normal(s), requires_grad=True)
               for s in ((2, 3, 2, 3), (2, 3, 4, 3), (2, 3, 4, 5)))
    bias = torch.tensor(rng.standard_normal((1, 3, 2, 4)) * 2)
    seed = torch.tensor(rng.standard_normal((2, 3, 2, 5)))
    mine = torch.autograd.grad(ns["Attention"].apply(q, k, v, bias), (q, k, v), seed)
    reference = torch.autograd.grad(composed(q, k, v, bias), (q, k, v), seed)
    for a, b in zip(mine, reference):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.task("16.1")
@pytest.mark.chapter16
def test_lstm_cell_two_steps_through_time():
    cell = nn.LSTMCell(1, 2, dtype=torch.float64)
    values = {
        "weight_ih": [[-0.13], [0.99], [1.0], [0.9], [-0.62], [0.37], [0.34], [0.21]],
        "weight_hh": [[0.15, 0.31], [-0.52, -0.07], [-0.84, 0.68], [-0.96, -0.96],
                      [0.87, 0.94], [0.72, 0.38], [-0.69, 0.82], [0.01, 0.4]],
        "bias_ih": [-0.95, -0.76, 0.39, 0.9, -0.51, -0.61, -0.45, 0.13],
        "bias_hh": [-0.63, -0.83, 0.06, 0.25, 0.02, 0.79, -0.47, -0.04]}
    with torch.no_grad():
        for name, value in values.items():
            getattr(cell, name).copy_(torch.tensor(value, dtype=torch.float64))
    x = torch.tensor([[[-0.25], [0.54]], [[0.34], [0.42]]], dtype=torch.float64,
                     requires_grad=True)
    state = None
    for t in range(2):
        state = cell(x[t], state)
    h, c = state
    np.testing.assert_allclose(h.tolist(), [[-0.04330109614234896, 0.04007977257877974],
                                            [-0.05906209818762687, 0.08323207086101421]],
                               rtol=1e-12)
    np.testing.assert_allclose(c.tolist(), [[-0.13950624653735283, 0.07424380044811674],
                                            [-0.1812446395626962, 0.15266042821914158]],
                               rtol=1e-12)
    (h.sum() + 0.5 * c.sum()).backward()
    np.testing.assert_allclose(x.grad.reshape(-1).tolist(),
                               [-0.0024266822032317586, 0.1075082931075058,
                                0.07288821447316207, 0.08909055154610082], rtol=1e-12)
    np.testing.assert_allclose(
        cell.weight_ih.grad.reshape(-1).tolist(),
        [-0.07788575898562919, 0.0742791997354777, -0.010916409245935895,
         0.0066763667257802905, 0.06966855968567934, 0.2440745079976087,
         -0.028975825222576444, 0.023076265748854383], rtol=1e-12)


@pytest.mark.task("16.1")
def test_a_two_layer_bidirectional_batch_first_lstm():
    torch.manual_seed(0)
    lstm = nn.LSTM(2, 3, num_layers=2, bidirectional=True, batch_first=True,
                   dtype=torch.float64)
    with torch.no_grad():
        for i, p in enumerate(lstm.parameters()):
            p.copy_(torch.linspace(-0.5, 0.5, p.numel(), dtype=torch.float64)
                    .reshape(p.shape) * (1 + i % 3) / 3)
    x = torch.linspace(-1, 1, 16, dtype=torch.float64).reshape(2, 4, 2)
    out, (h, c) = lstm(x)
    assert out.shape == (2, 4, 6) and h.shape == c.shape == (4, 2, 3)
    np.testing.assert_allclose([out.sum().item(), h.sum().item(), c.sum().item()],
                               [3.8977452679585767, 2.022304795804183, 2.979618459372621],
                               rtol=1e-9)


@pytest.mark.task("15.2")
def test_grouped_query_attention_with_a_bool_mask_and_its_gradients():
    import minitorch.nn.functional as F
    q = torch.linspace(-1, 1, 48, dtype=torch.float64).reshape(2, 4, 3, 2).requires_grad_()
    k = torch.linspace(1, -1, 40, dtype=torch.float64).reshape(2, 2, 5, 2).requires_grad_()
    v = torch.linspace(0, 1, 40, dtype=torch.float64).reshape(2, 2, 5, 2).requires_grad_()
    mask = torch.tensor([[True, True, False, True, False]] * 3)
    o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
    (o * torch.linspace(0, 1, o.numel(), dtype=torch.float64).reshape(o.shape)).sum().backward()
    np.testing.assert_allclose(
        [o.sum().item(), q.grad.sum().item(), (q.grad ** 2).sum().item(),
         k.grad.abs().sum().item(), v.grad.sum().item()],
        [22.36554742637805, -0.26886447548362147, 0.0019767086082411044, 0.9217966237209757,
         24.0], rtol=1e-9)
