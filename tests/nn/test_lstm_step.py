"""Part V, recurrent layers: one step of the LSTM cell (course task 16.1,
``_lstm_step`` in ``minitorch/nn/modules/rnn.py``) gives PyTorch 2.13's ``(h', c')``
and gradients, and the layers built on it (``nn.LSTMCell``, ``nn.LSTM``) still match.
Expected values from PyTorch 2.13 (``torch.nn.LSTMCell`` in float64)."""

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn as nn
from minitorch.autograd import gradcheck

from .seq_parity import check_case

pytestmark = pytest.mark.chapter16

X = [[0.13, -0.14]]
H = [[-0.81, -0.3]]
C = [[0.24, -0.96]]
W_IH = [[0.75, 0.71], [-0.91, 0.6], [-0.63, 0.39], [-0.69, 0.38], [0.92, 0.97],
        [0.33, -0.67], [-0.21, -0.44], [0.91, -0.4]]
W_HH = [[0.12, -0.19], [-0.72, -0.23], [0.54, -0.17], [0.36, 0.16], [-0.85, 0.46],
        [0.35, 0.6], [-0.7, 0.95], [0.74, 0.81]]
B_IH = [0.92, 0.24, -0.26, -0.88, 0.4, 0.26, 0.3, -0.99]
B_HH = [0.89, -0.23, -0.86, 0.98, 0.47, 0.05, 0.53, 0.61]


def small_cell():
    """An ``LSTMCell(2, 2)`` in float64 holding the weights above."""
    cell = nn.LSTMCell(2, 2, dtype=torch.float64)
    with torch.no_grad():
        for name, value in (("weight_ih", W_IH), ("weight_hh", W_HH), ("bias_ih", B_IH),
                            ("bias_hh", B_HH)):
            getattr(cell, name).copy_(torch.tensor(value, dtype=torch.float64))
    return cell


def one_step():
    """``(cell, x, h, c, h', c')`` for the small case, with x, h and c leaves."""
    cell = small_cell()
    x, h, c = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (X, H, C))
    h_next, c_next = cell(x, (h, c))
    return cell, x, h, c, h_next, c_next


@pytest.mark.task("16.1")
def test_one_step_gives_pytorchs_new_state():
    *_, h_next, c_next = one_step()
    np.testing.assert_allclose(h_next.tolist(), [[0.5021720919311388, -0.09854222083626298]],
                               rtol=1e-12)
    np.testing.assert_allclose(c_next.tolist(), [[0.7959520452671477, -0.39960037734461423]],
                               rtol=1e-12)


@pytest.mark.task("16.1")
def test_one_step_gives_pytorchs_gradients():
    cell, x, h, c, h_next, c_next = one_step()
    weights_h = torch.tensor([[1.0, -2.0]], dtype=torch.float64)
    weights_c = torch.tensor([[0.5, 3.0]], dtype=torch.float64)
    (h_next * weights_h + c_next * weights_c).sum().backward()
    np.testing.assert_allclose(x.grad.tolist(), [[1.2554204502953006, -1.1427658407581727]],
                               rtol=1e-12)
    np.testing.assert_allclose(h.grad.tolist(), [[0.250040841478429, 1.1341707308024587]],
                               rtol=1e-12)
    np.testing.assert_allclose(c.grad.tolist(), [[0.15016077766698782, 1.0363712571763064]],
                               rtol=1e-12)
    bias_grad = [0.10226983380916245, -0.010184566277425183, 0.030197782441500332,
                 -0.5914538570021841, 0.16977003136719176, 1.5661374141851052,
                 0.12110660971381823, 0.1459232678391329]
    np.testing.assert_allclose(cell.bias_ih.grad.tolist(), bias_grad, rtol=1e-12)
    np.testing.assert_allclose(cell.bias_hh.grad.tolist(), bias_grad, rtol=1e-12)
    np.testing.assert_allclose(
        cell.weight_hh.grad.tolist(),
        [[-0.08283856538542159, -0.030680950142748735],
         [0.008249498684714399, 0.0030553698832275545],
         [-0.02446020377761527, -0.0090593347324501],
         [0.4790776241717692, 0.17743615710065522],
         [-0.13751372540742535, -0.050931009410157525],
         [-1.2685713054899352, -0.46984122425553154],
         [-0.09809635386819278, -0.036331982914145466],
         [-0.11819784694969765, -0.043776980351739866]], rtol=1e-12)


@pytest.mark.task("16.1")
def test_zero_forget_gate_forgets_the_old_cell_state():
    """With the forget gate's row of weights and biases far negative, f = 0 and the
    new cell state does not depend on the old one."""
    cell = small_cell()
    with torch.no_grad():
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(cell, name)[2:4] = 0.0
        cell.bias_ih[2:4] = -1000.0
    x, h = (torch.tensor(v, dtype=torch.float64) for v in (X, H))
    c = torch.tensor(C, dtype=torch.float64, requires_grad=True)
    _, c_next = cell(x, (h, c))
    c_next.sum().backward()
    assert c.grad.abs().max().item() == 0.0


@pytest.mark.task("16.1")
def test_gradcheck_of_one_step():
    cell = small_cell()
    inputs = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (X, H, C)]
    assert gradcheck(lambda x, h, c: cell(x, (h, c)), inputs)


@pytest.mark.task("16.1")
@pytest.mark.parametrize("name", ["LSTMCell", "LSTM", "LSTM_2layers_bidirectional",
                                  "LSTM_initial_state", "LSTM_batch_first_no_bias"])
def test_layers_built_on_the_step_match_pytorch(name):
    check_case(name)
