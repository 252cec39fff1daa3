"""Summing a broadcast gradient back (chapter 3): ``sum_to_shape`` on numpy arrays,
``Tensor.sum_to_size`` on tensors, and the gradients of broadcast operands.

Broadcasting copies an operand along the dims it adds in front and the dims of size 1 it
stretches; the gradient of the operand is the sum of the gradients of its copies.  The
tests check what that means without a second implementation of it: copies of an array
sum to the array times their number, the total is kept, an element of the result is the
sum over the positions broadcast from it, and a few results worked out by hand.
"""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import minitorch
from minitorch.ops import sum_to_shape

from tests.strategies import arrays, broadcastable_shapes

pytestmark = pytest.mark.chapter3


def copies(big, shape):
    """How many copies of each element of ``shape`` broadcasting to ``big`` makes."""
    return int(np.prod(big)) // max(1, int(np.prod(shape)))


@pytest.mark.task("3.1")
@given(data=st.data())
def test_sum_to_shape_adds_every_copy_back(data):
    first, second = data.draw(broadcastable_shapes())
    big = np.broadcast_shapes(first, second)
    for shape in (first, second):
        y = data.draw(arrays(shape))
        result = sum_to_shape(np.broadcast_to(y, big), shape)
        assert result.shape == shape
        np.testing.assert_allclose(result, y * copies(big, shape), rtol=1e-12, atol=1e-12)


@pytest.mark.task("3.1")
@given(data=st.data())
def test_each_element_receives_the_sum_over_its_copies(data):
    first, second = data.draw(broadcastable_shapes())
    big = np.broadcast_shapes(first, second)
    x = data.draw(arrays(big))
    for shape in (first, second):
        result = sum_to_shape(x, shape)
        assert result.shape == shape
        np.testing.assert_allclose(result.sum(), x.sum(), rtol=1e-9, atol=1e-9)
        if not shape or 0 in shape:
            continue
        where = tuple(data.draw(st.integers(0, n - 1)) for n in shape)
        mark = np.zeros(shape)
        mark[where] = 1.0
        from_there = np.broadcast_to(mark, big) == 1.0
        np.testing.assert_allclose(result[where], x[from_there].sum(), rtol=1e-9, atol=1e-9)


@pytest.mark.task("3.1")
@pytest.mark.parametrize("big, shape, expected", [
    ((2, 3, 4), (3, 1), [[60.0], [92.0], [124.0]]),     # a dim added in front, one stretched
    ((2, 3, 4), (4,), [60.0, 66.0, 72.0, 78.0]),        # dims added in front only
    ((2, 3, 4), (2, 1, 4), [[[12.0, 15.0, 18.0, 21.0]],  # a stretched dim in the middle
                            [[48.0, 51.0, 54.0, 57.0]]]),
    ((2, 3, 4), (1, 1, 1), [[[276.0]]]),                 # every dim stretched
    ((5, 1, 3), (1, 3), [[30.0, 35.0, 40.0]]),           # a size-1 dim not stretched stays
    ((3, 4), (), 66.0),                                  # a 0-d operand: the sum of all
    ((1, 2, 3), (2, 1), [[3.0], [12.0]]),                # a size-1 dim in front, added
    ((1, 4), (1,), [6.0]),                   # stretched dim i of shape is dim lead + i of x
    ((2, 1, 4), (1, 1), [[28.0]]),                       # ... not dim i of x
])
def test_sum_to_shape_on_known_shapes(big, shape, expected):
    x = np.arange(float(np.prod(big))).reshape(big)     # 0, 1, 2, ... (worked by hand)
    result = sum_to_shape(x, shape)
    assert result.shape == shape
    assert result.tolist() == expected


@pytest.mark.task("3.1")
def test_sum_to_size_of_a_tensor():
    x = minitorch.arange(24.0).reshape(2, 3, 4)
    y = x.sum_to_size(3, 1)
    assert y.shape == (3, 1)
    assert y.tolist() == [[60.0], [92.0], [124.0]]
    assert x.sum_to_size(2, 3, 4).tolist() == x.tolist()


@pytest.mark.task("4.2")
def test_a_broadcast_bias_receives_the_sum_of_its_gradients():
    x = minitorch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    bias = minitorch.tensor([0.5, 0.5, 0.5], requires_grad=True)
    column = minitorch.tensor([[2.0], [3.0]], requires_grad=True)
    (x + bias + column).backward(minitorch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    assert bias.grad.shape == (3,) and bias.grad.tolist() == [5.0, 7.0, 9.0]
    assert column.grad.shape == (2, 1) and column.grad.tolist() == [[6.0], [15.0]]
    assert x.grad.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


@pytest.mark.task("4.2")
@given(data=st.data())
def test_gradients_of_broadcast_operands_have_their_shapes(data):
    first, second = data.draw(broadcastable_shapes())
    a = minitorch.tensor(data.draw(arrays(first)), requires_grad=True)
    b = minitorch.tensor(data.draw(arrays(second)), requires_grad=True)
    out = a - b
    seed = data.draw(arrays(out.shape))
    out.backward(minitorch.tensor(seed))
    assert a.grad.shape == first and b.grad.shape == second
    np.testing.assert_allclose(a.grad.numpy(), sum_to_shape(seed, first), rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), -sum_to_shape(seed, second), rtol=1e-12)
