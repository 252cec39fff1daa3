"""Chapter 11's convolution, written in the notebook's code cells: im2col and the
convolution as one matrix product (classroom task 11.1), col2im and the backward of
``Conv2dFunction`` (task 11.2).

The cells of ``book/11b_im2col_backward.ipynb`` are run up to the one that holds each task's
region (``classroom.nbcode``), and what they defined is checked against a convolution
written as loops here, and its gradients written as loops too.
"""

import pathlib

import numpy as np
import pytest

import minitorch

from classroom.nbcode import notebook_namespace

pytestmark = pytest.mark.chapter11

NOTEBOOK = pathlib.Path(__file__).resolve().parents[1] / "book" / "11b_im2col_backward.ipynb"
RNG = np.random.default_rng(11)


@pytest.fixture(scope="module")
def forward():
    return notebook_namespace(NOTEBOOK, task="11.1")


@pytest.fixture(scope="module")
def backward():
    return notebook_namespace(NOTEBOOK, task="11.2")


def conv_by_loops(x, w, b=None):
    n, c, h, wd = x.shape
    c_out, _, k, _ = w.shape
    out = np.zeros((n, c_out, h - k + 1, wd - k + 1))
    for i, o, r, s in np.ndindex(*out.shape):
        out[i, o, r, s] = (x[i, :, r:r + k, s:s + k] * w[o]).sum()
    return out if b is None else out + b.reshape(1, -1, 1, 1)


def conv_gradients_by_loops(x, w, seed):
    """d sum(seed * conv(x, w, b)) / d x, d w, d b."""
    k = w.shape[2]
    gx, gw = np.zeros_like(x), np.zeros_like(w)
    for i, o, r, s in np.ndindex(*seed.shape):
        gx[i, :, r:r + k, s:s + k] += seed[i, o, r, s] * w[o]
        gw[o] += seed[i, o, r, s] * x[i, :, r:r + k, s:s + k]
    return gx, gw, seed.sum(axis=(0, 2, 3))


@pytest.mark.task("11.1")
@pytest.mark.parametrize("shape, k", [((1, 1, 4, 4), 3), ((2, 3, 5, 6), 2), ((2, 2, 3, 3), 3)])
def test_im2col_puts_each_window_in_a_row(forward, shape, k):
    x = RNG.normal(size=shape)
    rows = forward["im2col"](x, k)
    n, c, h, w = shape
    assert rows.shape == (n * (h - k + 1) * (w - k + 1), c * k * k)
    row = 0
    for i in range(n):
        for r in range(h - k + 1):
            for s in range(w - k + 1):
                np.testing.assert_array_equal(rows[row], x[i, :, r:r + k, s:s + k].reshape(-1))
                row += 1


@pytest.mark.task("11.1")
@pytest.mark.parametrize("shape, c_out, k, bias", [((2, 3, 6, 5), 4, 3, True),
                                                    ((1, 1, 8, 8), 2, 3, False),
                                                    ((3, 2, 4, 4), 5, 1, True)])
def test_conv2d_im2col_matches_loops(forward, shape, c_out, k, bias):
    x = RNG.normal(size=shape)
    w = RNG.normal(size=(c_out, shape[1], k, k))
    b = RNG.normal(size=c_out) if bias else None
    out = forward["conv2d_im2col"](x, w, b)
    np.testing.assert_allclose(out, conv_by_loops(x, w, b), rtol=1e-10, atol=1e-12)


@pytest.mark.task("11.2")
def test_col2im_adds_every_window_back(backward):
    counts = backward["col2im"](np.ones((36, 9)), (1, 1, 8, 8), 3)[0, 0]
    assert counts[0, 0] == 1 and counts[0, 1] == 2 and counts[1, 1] == 4 and counts[4, 4] == 9
    assert counts.sum() == 36 * 9


@pytest.mark.task("11.2")
def test_col2im_undoes_im2col_up_to_the_counts(backward):
    x = RNG.normal(size=(2, 3, 5, 4))
    rows = backward["im2col"](x, 2)
    counts = backward["col2im"](np.ones_like(rows), x.shape, 2)
    np.testing.assert_allclose(backward["col2im"](rows, x.shape, 2), x * counts)


@pytest.mark.task("11.2")
@pytest.mark.parametrize("shape, c_out, k", [((2, 3, 6, 5), 4, 3), ((1, 1, 4, 4), 2, 2),
                                             ((2, 2, 3, 3), 3, 3)])
def test_conv2d_function_gradients_match_loops(backward, shape, c_out, k):
    x = RNG.normal(size=shape)
    w = RNG.normal(size=(c_out, shape[1], k, k))
    b = RNG.normal(size=c_out)
    xt, wt, bt = (minitorch.tensor(a, requires_grad=True) for a in (x, w, b))
    out = backward["Conv2dFunction"].apply(xt, wt, bt)
    seed = RNG.normal(size=out.shape)
    out.backward(minitorch.tensor(seed))
    gx, gw, gb = conv_gradients_by_loops(x, w, seed)
    np.testing.assert_allclose(xt.grad.numpy(), gx, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(wt.grad.numpy(), gw, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(bt.grad.numpy(), gb, rtol=1e-10, atol=1e-12)


@pytest.mark.task("11.2")
def test_conv2d_function_gives_only_the_gradients_asked_for(backward):
    x = minitorch.tensor(RNG.normal(size=(1, 2, 4, 4)))
    w = minitorch.tensor(RNG.normal(size=(3, 2, 3, 3)), requires_grad=True)
    out = backward["Conv2dFunction"].apply(x, w, None)
    out.sum().backward()
    assert x.grad is None
    _, gw, _ = conv_gradients_by_loops(x.numpy(), w.detach().numpy(), np.ones(out.shape))
    np.testing.assert_allclose(w.grad.numpy(), gw, rtol=1e-10)
