"""The backward of the negative log-likelihood loss, and so of cross-entropy (classroom
task 10.1, chapter 10).

d loss / d input is zero except at each sample's target class, where it is minus the
sample's weight (its class's weight, 0 for an ignored target), divided by the total
weight for ``reduction="mean"``; cross-entropy's gradient in the logits is then
``softmax - one_hot`` (weighted, averaged).  The expected values are written with numpy.
"""

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch.autograd import grad

pytestmark = pytest.mark.chapter10

CREATE_GRAPH = pytest.mark.parametrize("create_graph", [False, True], ids=["plain", "create_graph"])
RNG = np.random.default_rng(10)
LOGP = RNG.normal(size=(5, 4))
TARGET = np.array([0, 3, 1, 3, 2])
WEIGHT = np.array([1.0, 2.0, 0.5, 3.0])


def nll_slope(shape, target, weight=None, ignore_index=-100, reduction="mean"):
    """The expected d loss / d input for (N, C) input, by hand."""
    w = np.ones(shape[1]) if weight is None else weight
    slope = np.zeros(shape)
    total = 0.0
    for i, t in enumerate(target):
        if t == ignore_index:
            continue
        slope[i, t] = -w[t]
        total += w[t]
    return slope / total if reduction == "mean" else slope


def gradient(loss_of, x, seed, create_graph):
    x = torch.tensor(x, requires_grad=True)
    loss = loss_of(x)
    g, = grad(loss, [x], torch.tensor(np.broadcast_to(seed, loss.shape).copy()),
              create_graph=create_graph)
    return g.detach().numpy()


@pytest.mark.task("10.1")
@CREATE_GRAPH
@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_nll_loss_gradient(create_graph, reduction, weighted):
    weight = WEIGHT if weighted else None
    w = None if weight is None else torch.tensor(weight)
    got = gradient(lambda x: F.nll_loss(x, torch.tensor(TARGET), weight=w, reduction=reduction),
                   LOGP, 1.5, create_graph)
    np.testing.assert_allclose(got, 1.5 * nll_slope(LOGP.shape, TARGET, weight,
                                                    reduction=reduction), rtol=1e-12)


@pytest.mark.task("10.1")
@CREATE_GRAPH
def test_nll_loss_gradient_per_sample(create_graph):
    seed = np.array([1.0, -2.0, 0.5, 3.0, 4.0])
    got = gradient(lambda x: F.nll_loss(x, torch.tensor(TARGET), reduction="none"),
                   LOGP, seed, create_graph)
    np.testing.assert_allclose(got, seed[:, None] * nll_slope(LOGP.shape, TARGET,
                                                              reduction="sum"), rtol=1e-12)


@pytest.mark.task("10.1")
@CREATE_GRAPH
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_ignored_targets_get_no_gradient_and_do_not_count(create_graph, weighted):
    target = np.array([0, 3, 1, 3, 2])
    weight = WEIGHT if weighted else None
    w = None if weight is None else torch.tensor(weight)
    got = gradient(lambda x: F.nll_loss(x, torch.tensor(target), weight=w, ignore_index=3),
                   LOGP, 1.0, create_graph)
    expected = nll_slope(LOGP.shape, target, weight, ignore_index=3)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert not got[[1, 3]].any()


@pytest.mark.task("10.1")
@CREATE_GRAPH
def test_cross_entropy_gradient_is_softmax_minus_one_hot(create_graph):
    logits = RNG.normal(size=(6, 3))
    target = np.array([2, 0, 1, 1, 0, 2])
    got = gradient(lambda x: F.cross_entropy(x, torch.tensor(target)), logits, 1.0,
                   create_graph)
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    softmax = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(got, (softmax - np.eye(3)[target]) / 6, rtol=1e-10, atol=1e-14)


@pytest.mark.task("10.1")
@CREATE_GRAPH
def test_nll_loss_of_images_puts_the_gradient_at_each_pixels_class(create_graph):
    x = RNG.normal(size=(2, 3, 2, 2))
    target = np.array([[[0, 1], [2, 1]], [[1, 1], [0, 2]]])
    got = gradient(lambda t: F.nll_loss(t, torch.tensor(target), reduction="sum"), x, 1.0,
                   create_graph)
    expected = np.zeros_like(x)
    for n, i, j in np.ndindex(2, 2, 2):
        expected[n, target[n, i, j], i, j] = -1.0
    np.testing.assert_allclose(got, expected)


@pytest.mark.task("10.1")
def test_one_sample_without_a_batch_dim():
    x = torch.tensor(LOGP[0], requires_grad=True)
    F.nll_loss(x, torch.tensor(2)).backward()
    assert x.grad.tolist() == [0.0, 0.0, -1.0, 0.0]
