"""Hidden tests of assignment a4-training (chapters 9-11)."""

import pathlib

import numpy as np
import pytest

import minitorch
import minitorch as torch
import minitorch.nn as nn
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


@pytest.mark.task("9.1")
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


@pytest.mark.task("9.1")
def test_sgd_groups_with_their_own_lr_and_a_state_dict_that_reloads():
    w = nn.Parameter(minitorch.tensor([1.0, 2.0]))
    v = nn.Parameter(minitorch.tensor([3.0]))
    opt = minitorch.optim.SGD([{"params": [w]}, {"params": [v], "lr": 0.5}], lr=0.1,
                              momentum=0.9)
    for _ in range(2):
        opt.zero_grad()
        (w.sum() + 3 * v.sum()).backward()
        opt.step()
    np.testing.assert_allclose(w.detach().numpy(), [0.71, 1.71], rtol=1e-6)
    np.testing.assert_allclose(v.detach().numpy(), [-1.35], rtol=1e-6)
    saved = opt.state_dict()
    assert saved["param_groups"][1]["params"] == [1] and sorted(saved["state"]) == [0, 1]
    other = minitorch.optim.SGD([{"params": [w]}, {"params": [v]}], lr=0.3, momentum=0.9)
    other.load_state_dict(saved)
    assert other.param_groups[1]["lr"] == 0.5
    np.testing.assert_allclose(other.state[v]["momentum_buffer"].numpy(), [5.7], rtol=1e-6)


@pytest.mark.task("10.2")
def test_loader_collates_namedtuples_dicts_and_keeps_strings():
    import collections
    from minitorch.utils.data import DataLoader
    Pair = collections.namedtuple("Pair", "x y")
    batches = list(DataLoader([Pair(1, 2.0), Pair(3, 4.0), Pair(5, 6.0)], batch_size=2))
    assert type(batches[0]) is Pair and batches[0].x.tolist() == [1, 3]
    assert batches[0].y.dtype == minitorch.float64 and batches[1].y.tolist() == [6.0]
    batches = list(DataLoader([{"a": minitorch.ones(2), "b": "s"}] * 3, batch_size=2))
    assert batches[0]["a"].shape == (2, 2) and batches[0]["b"] == ["s", "s"]
    assert batches[1]["b"] == ["s"]


@pytest.mark.task("10.2")
def test_loader_lengths_batch_samplers_and_no_batching():
    from minitorch.utils.data import DataLoader
    loader = DataLoader(range(10), batch_size=4, drop_last=True)
    assert len(loader) == 2 and [b.tolist() for b in loader] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert [b.tolist() for b in DataLoader(range(5), batch_sampler=[[4, 0], [2]])] == \
        [[4, 0], [2]]
    assert list(DataLoader(range(3), batch_size=None)) == [0, 1, 2]
    batch, = DataLoader([np.float32(1.5), np.float32(2.5)], batch_size=2)
    assert batch.dtype == minitorch.float32 and batch.tolist() == [1.5, 2.5]


@pytest.mark.task("11.3")
def test_a_grouped_strided_dilated_padded_conv_and_its_gradients():
    import minitorch.nn.functional as F
    x = (minitorch.arange(80.0, dtype=minitorch.float64).reshape(1, 4, 5, 4) / 10)
    x.requires_grad_()
    w = (minitorch.arange(48.0, dtype=minitorch.float64).reshape(6, 2, 2, 2) / 7 - 1)
    w.requires_grad_()
    b = minitorch.tensor([0.5, -1, 0, 1, 2, 3.0], dtype=minitorch.float64, requires_grad=True)
    y = F.conv2d(x, w, b, stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2)
    assert y.shape == (1, 6, 3, 2)
    y.backward(minitorch.arange(36.0, dtype=minitorch.float64).reshape(y.shape) / 36)
    values = y.detach().numpy()
    np.testing.assert_allclose([values.sum(), (values ** 2).sum()], [3187.799993, 588697.541644],
                               rtol=1e-8)
    gx = x.grad.numpy()
    np.testing.assert_allclose(gx.ravel()[:4], [0.595238, 0.630952, 0.666667, 0.714286],
                               atol=1e-6)
    np.testing.assert_allclose([gx.sum(), (gx ** 2).sum()], [417.571429, 3722.595806],
                               rtol=1e-8)
    gw = w.grad.numpy()
    np.testing.assert_allclose([gw.sum(), (gw ** 2).sum()], [596.866667, 13410.332418],
                               rtol=1e-8)
    np.testing.assert_allclose(b.grad.numpy(), [0.416667, 1.416667, 2.416667, 3.416667,
                                                4.416667, 5.416667], atol=1e-6)
