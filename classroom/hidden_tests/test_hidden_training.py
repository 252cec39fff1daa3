"""Hidden tests of assignment a4-training (chapters 9-11)."""

import pathlib

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch import optim

from classroom.nbcode import notebook_namespace

pytestmark = pytest.mark.chapter9

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.task("9.1")
def test_sgd_momentum_maximize_two_steps():
    p = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)
    opt = optim.SGD([p], lr=0.5, momentum=0.5, maximize=True)
    for g in (1.0, 2.0):
        p.grad = torch.tensor([g], dtype=torch.float64)
        opt.step()
    assert p.tolist() == pytest.approx([1.0 + 0.5 * 1.0 + 0.5 * 2.5])


@pytest.mark.task("9.2")
def test_adam_first_step_moves_each_entry_by_about_lr():
    p = torch.tensor([1.0, -1.0, 3.0], dtype=torch.float64, requires_grad=True)
    opt = optim.Adam([p], lr=0.01)
    p.grad = torch.tensor([100.0, -0.001, 5.0], dtype=torch.float64)
    opt.step()
    np.testing.assert_allclose(p.tolist(), [0.99, -0.99, 2.99], atol=1e-5)


@pytest.mark.task("10.1")
def test_weighted_mean_with_ignored_targets_per_pixel():
    x = torch.tensor(np.zeros((1, 2, 1, 3)), requires_grad=True)
    target = torch.tensor([[[0, 1, 1]]])
    w = torch.tensor([2.0, 1.0], dtype=torch.float64)
    F.nll_loss(x, target, weight=w, ignore_index=0).backward()
    assert x.grad.reshape(-1).tolist() == [0.0, 0.0, 0.0, 0.0, -0.5, -0.5]


@pytest.mark.task("11.2")
def test_conv_of_a_non_square_image_and_its_gradient():
    ns = notebook_namespace(ROOT / "book" / "11b_im2col_backward.ipynb", task="11.2")
    rng = np.random.default_rng(111)
    x = torch.tensor(rng.normal(size=(1, 1, 3, 5)), requires_grad=True)
    w = torch.tensor(rng.normal(size=(1, 1, 2, 2)), requires_grad=True)
    out = ns["Conv2dFunction"].apply(x, w, None)
    xs, ws = x.detach().numpy(), w.detach().numpy()
    expected = np.array([[(xs[0, 0, i:i + 2, j:j + 2] * ws[0, 0]).sum() for j in range(4)]
                         for i in range(2)])
    np.testing.assert_allclose(out.detach().numpy()[0, 0], expected, rtol=1e-12)
    out.sum().backward()
    counts = np.zeros((3, 5))
    for i in range(2):
        for j in range(4):
            counts[i:i + 2, j:j + 2] += ws[0, 0]
    np.testing.assert_allclose(x.grad.numpy()[0, 0], counts, rtol=1e-12)
