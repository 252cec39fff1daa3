"""Chapter 15's attention backward, written in a code cell of
``book/15b_attention_backward.ipynb`` (classroom task 15.1): the ``Attention``
Function's gradients of q, k and v equal autograd's through attention composed of
tensor operations (written here again), pass ``gradcheck`` in float64, on batches of
heads, with and without a causal mask.

The page's cells are run up to the one that holds the task's region
(``classroom.nbcode``).
"""

import math
import pathlib

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck

from classroom.nbcode import notebook_namespace

pytestmark = pytest.mark.chapter15

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "book" / "15b_attention_backward.ipynb"
RNG = np.random.default_rng(1515)


@pytest.fixture(scope="module")
def page():
    return notebook_namespace(NOTEBOOK, task="15.1")


def composed(q, k, v, bias=None):
    """softmax(q k^T / sqrt(d) + bias) v, one recorded operation at a time."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if bias is not None:
        scores = scores + bias
    return scores.softmax(dim=-1) @ v


def causal(length, source=None):
    """The additive causal mask: 0 where key j <= query i, -inf above."""
    allowed = np.tril(np.ones((length, source or length), dtype=bool))
    return torch.tensor(np.where(allowed, 0.0, -np.inf))


def leaves(*shapes):
    return [torch.tensor(RNG.standard_normal(s), requires_grad=True) for s in shapes]


def gradients(fn, inputs, bias, seed):
    out = fn(*inputs, bias)
    return [out] + list(torch.autograd.grad(out, inputs, seed))


CASES = [  # (q, k, v shapes, masked)
    (((2, 3, 5, 4), (2, 3, 5, 4), (2, 3, 5, 4)), False),
    (((2, 3, 5, 4), (2, 3, 5, 4), (2, 3, 5, 4)), True),
    (((1, 2, 3, 4), (1, 2, 6, 4), (1, 2, 6, 2)), False),
    (((4, 3), (4, 3), (4, 5)), True),
]


@pytest.mark.task("15.1")
@pytest.mark.parametrize("shapes, masked", CASES)
def test_gradients_match_the_composed_version(page, shapes, masked):
    inputs = leaves(*shapes)
    length, source = shapes[0][-2], shapes[1][-2]
    bias = causal(length, source) if masked else None
    seed = torch.tensor(RNG.standard_normal(shapes[0][:-1] + shapes[2][-1:]))
    mine = gradients(page["Attention"].apply, inputs, bias, seed)
    reference = gradients(composed, inputs, bias, seed)
    for name, a, b in zip(("output", "q", "k", "v"), mine, reference):
        assert tuple(a.shape) == tuple(b.shape), name
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10,
                                   atol=1e-12, err_msg=name)


@pytest.mark.task("15.1")
@pytest.mark.parametrize("masked", [False, True])
def test_gradcheck_on_batched_heads(page, masked):
    inputs = leaves((2, 2, 3, 2), (2, 2, 3, 2), (2, 2, 3, 2))
    bias = causal(3) if masked else None
    assert gradcheck(lambda q, k, v: page["Attention"].apply(q, k, v, bias), inputs)


@pytest.mark.task("15.1")
def test_no_gradient_reaches_future_keys_and_values(page):
    q, k, v = leaves((1, 2, 5, 3), (1, 2, 5, 3), (1, 2, 5, 3))
    out = page["Attention"].apply(q, k, v, causal(5))
    out[:, :, 2].sum().backward()
    assert k.grad[:, :, 3:].abs().max().item() == 0.0
    assert v.grad[:, :, 3:].abs().max().item() == 0.0
    assert v.grad[:, :, :3].abs().min().item() > 0.0
    assert q.grad[:, :, 3:].abs().max().item() == 0.0


@pytest.mark.task("15.1")
def test_only_the_gradients_asked_for(page):
    q, k, v = leaves((2, 4, 3), (2, 4, 3), (2, 4, 3))
    grad_k, = torch.autograd.grad(page["Attention"].apply(q, k, v).sum(), (k,))
    reference, = torch.autograd.grad(composed(q, k, v).sum(), (k,))
    np.testing.assert_allclose(grad_k.numpy(), reference.numpy(), rtol=1e-10, atol=1e-12)
