"""SGD's momentum and Adam's moments and step (classroom task 9.1, the optimizer family), chapter 9.

The trajectories are PyTorch 2.13's (the rows of ``test_optim.py`` and
``test_trajectories.py`` that go through momentum or Adam), and the state after one and
two steps is worked out by hand from the update rules the chapter writes down.
"""

import math

import numpy as np
import pytest

import minitorch as torch
from minitorch import optim

from tests.optim.test_optim import TRAJECTORIES, run
from tests.optim.test_trajectories import FLOAT64, train

pytestmark = pytest.mark.chapter9

SGD_MOMENTUM = [row for row in FLOAT64 if row[0] == "SGD" and row[1].get("momentum")]
ADAM = [row for row in FLOAT64 if row[0] == "Adam"]
SHORT_SGD = TRAJECTORIES[1:4]           # momentum, nesterov, dampening
SHORT_ADAM = TRAJECTORIES[4:6]


def _ids(rows):
    return [f"{r[0]}({', '.join(f'{k}={v}' for k, v in r[1].items())})" for r in rows]


@pytest.mark.task("9.1")
@pytest.mark.parametrize("cls_name, options, losses, params", SGD_MOMENTUM, ids=_ids(SGD_MOMENTUM))
def test_sgd_with_momentum_follows_pytorch(cls_name, options, losses, params):
    got_losses, got_params = train(cls_name, options, np.float64)
    assert np.allclose(got_losses, losses, rtol=1e-12, atol=0)
    assert np.allclose(got_params, params, rtol=1e-12, atol=1e-14)


@pytest.mark.task("9.1")
@pytest.mark.parametrize("make, expected", SHORT_SGD, ids=["momentum", "nesterov", "dampening"])
def test_sgd_with_momentum_on_a_quadratic(make, expected):
    assert np.allclose(run(make), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.task("9.1")
def test_momentum_buffer_starts_as_the_gradient_then_decays():
    p = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
    opt = optim.SGD([p], lr=0.1, momentum=0.9, dampening=0.25)
    p.grad = torch.tensor([0.5, 1.0], dtype=torch.float64)
    opt.step()
    buf = opt.state[p]["momentum_buffer"]
    assert buf.tolist() == [0.5, 1.0]                    # the first gradient, undamped
    assert buf is not p.grad
    assert p.tolist() == pytest.approx([1.0 - 0.05, -2.0 - 0.1])
    p.grad = torch.tensor([2.0, -1.0], dtype=torch.float64)
    opt.step()
    expected = [0.9 * 0.5 + 0.75 * 2.0, 0.9 * 1.0 + 0.75 * -1.0]
    assert opt.state[p]["momentum_buffer"].tolist() == pytest.approx(expected)
    assert p.tolist() == pytest.approx([0.95 - 0.1 * expected[0], -2.1 - 0.1 * expected[1]])


@pytest.mark.task("9.1")
@pytest.mark.parametrize("cls_name, options, losses, params", ADAM, ids=_ids(ADAM))
def test_adam_follows_pytorch(cls_name, options, losses, params):
    got_losses, got_params = train(cls_name, options, np.float64)
    assert np.allclose(got_losses, losses, rtol=1e-12, atol=0)
    assert np.allclose(got_params, params, rtol=1e-12, atol=1e-14)


@pytest.mark.task("9.1")
@pytest.mark.parametrize("make, expected", SHORT_ADAM, ids=["plain", "amsgrad"])
def test_adam_on_a_quadratic(make, expected):
    assert np.allclose(run(make), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.task("9.1")
def test_adam_moments_and_bias_corrected_step():
    p = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
    opt = optim.Adam([p], lr=0.1, betas=(0.8, 0.9), eps=1e-3)
    grads = [np.array([0.5, -1.0]), np.array([2.0, 0.25])]
    m, v, x = np.zeros(2), np.zeros(2), np.array([1.0, -2.0])
    for t, g in enumerate(grads, 1):
        p.grad = torch.tensor(g, dtype=torch.float64)
        opt.step()
        m = 0.8 * m + 0.2 * g
        v = 0.9 * v + 0.1 * g * g
        x = x - 0.1 * (m / (1 - 0.8 ** t)) / (np.sqrt(v / (1 - 0.9 ** t)) + 1e-3)
        state = opt.state[p]
        assert state["exp_avg"].tolist() == pytest.approx(m.tolist(), rel=1e-12)
        assert state["exp_avg_sq"].tolist() == pytest.approx(v.tolist(), rel=1e-12)
        assert p.tolist() == pytest.approx(x.tolist(), rel=1e-12)
    assert math.isclose(float(state["step"]), 2.0)
