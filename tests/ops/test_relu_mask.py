"""ReLU's backward on arrays multiplies the gradient by a mask of where the output was
positive, made a float mask first: numpy multiplies a float array by a bool array
through a casting loop, about twice as slow.  These tests hold it to the same bits as the backward written with tensor operations
(``create_graph=True``): ``-0.0`` where a negative gradient meets a zero output, NaN
where an infinite or NaN gradient does, as ``grad * (result > 0)`` gives."""

import numpy as np
import pytest

import minitorch

pytestmark = pytest.mark.chapter6

X = [[-2.0, -0.0, 0.0, 1.5], [3.0, -1e-30, 2.5, -4.0], [0.5, -0.5, 7.0, -7.0]]
G = [[-1.0, -3.0, np.inf, 2.0], [np.nan, -np.inf, -0.25, np.nan], [-0.0, 5.0, 1e-30, -2.0]]


def gradient(relu, dtype, create_graph):
    x = minitorch.tensor(X, dtype=dtype, requires_grad=True)
    y = relu(x * 1)                     # x * 1: an in-place relu needs a non-leaf
    (g,) = minitorch.autograd.grad(y, x, minitorch.tensor(G, dtype=dtype),
                                   create_graph=create_graph)
    return g.detach().numpy()


def same_bits(a, b):
    return a.dtype == b.dtype and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
@pytest.mark.parametrize("relu", [minitorch.relu, minitorch.relu_], ids=["relu", "relu_"])
def test_array_path_gives_the_bits_of_the_tensor_path(relu, dtype):
    on_arrays = gradient(relu, dtype, create_graph=False)
    on_tensors = gradient(relu, dtype, create_graph=True)
    assert same_bits(on_arrays, on_tensors)


@pytest.mark.parametrize("relu", [minitorch.relu, minitorch.relu_], ids=["relu", "relu_"])
def test_array_path_gives_the_product_with_the_mask(relu):
    """Written out: where the output is not positive, ``g * 0`` (signed zero or NaN)."""
    x, g = np.array(X), np.array(G)
    expected = g * (np.maximum(x, 0) > 0)
    got = gradient(relu, minitorch.float64, create_graph=False)
    assert same_bits(got, expected)
    assert np.signbit(got[0, 0]) and np.isnan(got[0, 2]) and np.isnan(got[1, 1])
