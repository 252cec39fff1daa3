"""Summing a broadcast gradient back (chapter 3): ``sum_to_shape`` on numpy arrays,
``Tensor.sum_to_size`` on tensors, and the gradients of broadcast operands.

Broadcasting copies an operand along the dims it adds in front and the dims of size 1 it
stretches; the gradient of the operand is the sum of the gradients of its copies.  The
reference below adds the elements one at a time into the position they were copied from.
"""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import minitorch
from minitorch.ops import sum_to_shape

from tests.strategies import arrays, broadcastable_shapes

pytestmark = pytest.mark.chapter3


def summed_by_hand(x, shape):
    """Each element of ``x`` added into the element of ``shape`` it was broadcast from."""
    out = np.zeros(shape, dtype=x.dtype)
    lead = x.ndim - len(shape)
    for index in np.ndindex(x.shape):
        source = tuple(0 if size == 1 else i for i, size in zip(index[lead:], shape))
        out[source] += x[index]
    return out


@pytest.mark.task("3.1")
@given(data=st.data())
def test_sum_to_shape_adds_every_copy_back(data):
    first, second = data.draw(broadcastable_shapes())
    big = np.broadcast_shapes(first, second)
    x = data.draw(arrays(big))
    for shape in (first, second):
        result = sum_to_shape(x, shape)
        assert result.shape == shape
        np.testing.assert_allclose(result, summed_by_hand(x, shape), rtol=1e-12, atol=1e-12)


@pytest.mark.task("3.1")
@pytest.mark.parametrize("big, shape", [
    ((2, 3, 4), (3, 1)),        # a dim added in front and a dim stretched
    ((2, 3, 4), (4,)),          # dims added in front only
    ((2, 3, 4), (2, 1, 4)),     # a stretched dim in the middle
    ((2, 3, 4), (1, 1, 1)),     # every dim stretched
    ((5, 1, 3), (1, 3)),        # a dim of size 1 that was not stretched stays
    ((3, 4), ()),               # a 0-d operand receives the sum of everything
])
def test_sum_to_shape_on_known_shapes(big, shape):
    x = np.arange(float(np.prod(big))).reshape(big)
    result = sum_to_shape(x, shape)
    assert result.shape == shape
    np.testing.assert_array_equal(result, summed_by_hand(x, shape))


@pytest.mark.task("3.1")
def test_sum_to_size_of_a_tensor():
    x = minitorch.arange(24.0).reshape(2, 3, 4)
    y = x.sum_to_size(3, 1)
    assert y.shape == (3, 1)
    assert y.tolist() == summed_by_hand(x.numpy(), (3, 1)).tolist()
    assert x.sum_to_size(2, 3, 4).tolist() == x.tolist()


@pytest.mark.task("3.1")
def test_a_broadcast_bias_receives_the_sum_of_its_gradients():
    x = minitorch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    bias = minitorch.tensor([0.5, 0.5, 0.5], requires_grad=True)
    column = minitorch.tensor([[2.0], [3.0]], requires_grad=True)
    (x + bias + column).backward(minitorch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    assert bias.grad.shape == (3,) and bias.grad.tolist() == [5.0, 7.0, 9.0]
    assert column.grad.shape == (2, 1) and column.grad.tolist() == [[6.0], [15.0]]
    assert x.grad.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


@pytest.mark.task("3.1")
@given(data=st.data())
def test_gradients_of_broadcast_operands_have_their_shapes(data):
    first, second = data.draw(broadcastable_shapes())
    a = minitorch.tensor(data.draw(arrays(first)), requires_grad=True)
    b = minitorch.tensor(data.draw(arrays(second)), requires_grad=True)
    out = a - b
    seed = data.draw(arrays(out.shape))
    out.backward(minitorch.tensor(seed))
    assert a.grad.shape == first and b.grad.shape == second
    np.testing.assert_allclose(a.grad.numpy(), summed_by_hand(seed, first), rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), -summed_by_hand(seed, second), rtol=1e-12)
