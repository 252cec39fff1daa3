"""The old 60-minute-blitz autograd page, in its own words here: ``Variable`` with
``requires_grad``, a mean of squares, and a vector-Jacobian product seeded with a
``FloatTensor``."""

import pytest

import minitorch as torch
from minitorch.autograd import Variable

pytestmark = [pytest.mark.tutorials, pytest.mark.chapter4]


def test_mean_of_squares_gradient():
    x = Variable(torch.ones(2, 2) * 0.5, requires_grad=True)
    y = x * 4 - 1
    out = (y * y + 2).mean()
    out.backward()
    assert x.grad.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert y.grad_fn.name() == "SubBackward0" and out.item() == 3.0


def test_vector_jacobian_product_with_a_float_tensor_seed():
    x = Variable(torch.FloatTensor([0.25, -1.0, 2.0]), requires_grad=True)
    y = x * 2
    doublings = 0
    while y.data.norm() < 100:
        y = y * 2
        doublings += 1
    y.backward(torch.FloatTensor([1.0, 0.5, 0.125]))
    assert doublings == 5
    assert x.grad.tolist() == [64.0, 32.0, 8.0] and x.grad.dtype == torch.float32


def test_legacy_constructors_pick_their_dtype():
    assert torch.LongTensor([3, 4]).dtype == torch.int64
    assert torch.DoubleTensor(2, 3).shape == (2, 3)
    assert isinstance(torch.ones(1), torch.FloatTensor)
    assert not isinstance(torch.ones(1).double(), torch.FloatTensor)
