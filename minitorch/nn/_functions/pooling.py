"""Pooling as built-in Functions: max, average and adaptive average (chapter 11).

Pooling reads the same windows as a convolution (``conv.windows``), then
reduces each window instead of multiplying it by a kernel.

* Max pooling keeps the largest value of each window and remembers where
  it was (``indices``, as positions in the input's flattened plane, as
  PyTorch returns them).  Its gradient sends each output gradient to that
  position only: a scatter, whose own gradient is the matching gather.
* Average pooling is linear: each output is a sum over its window divided
  by a count (which depends on the window's overlap with the padding and on
  ``count_include_pad``).  Its gradient spreads each output gradient evenly
  over the window; that spreading is the adjoint map, and the adjoint of the
  adjoint is average pooling again.
* Adaptive average pooling chooses the windows from the output size (window
  ``i`` of ``n`` over ``size`` entries runs from ``floor(i*size/n)`` to
  ``ceil((i+1)*size/n)``); it is a separable linear map, one averaging
  matrix per dimension.
"""

import math
from collections import namedtuple

import numpy as np

from ...ops._common import BuiltinFunction, wrap
from .conv import pad_array, windows
from .padding import SeparableLinearMap

__all__ = ["PoolGeometry", "pool_output_size", "MaxPool2d", "MaxPoolScatter", "MaxPoolGather",
           "AvgPool2d", "AvgPoolAdjoint", "AdaptiveAvgPool2d", "adaptive_matrix"]

PoolGeometry = namedtuple("PoolGeometry", ["kernel", "stride", "padding", "dilation", "ceil_mode"])


def pool_output_size(size, kernel, stride, pad, dilation, ceil_mode):
    """PyTorch's rule, including ``ceil_mode`` (a last, partial window counts if it starts
    inside the input or its left padding)."""
    span = size + 2 * pad - dilation * (kernel - 1) - 1
    out = (span + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _padded_windows(x, geometry, out, value):
    """The windows of ``x`` padded with ``value`` (also on the right, as far as the last
    window reaches in ceil mode): shape ``(..., *out, *kernel)``."""
    padding = []
    for size, k, s, p, d, o in zip(x.shape[-len(out):], geometry.kernel, geometry.stride,
                                   geometry.padding, geometry.dilation, out):
        reach = (o - 1) * s + d * (k - 1) + 1           # padded length the windows read
        padding.append((p, max(reach - size - p, p)))
    xp = pad_array(x, padding, value)
    return windows(xp, geometry.kernel, geometry.stride, geometry.dilation, out)


# ----- max pooling ------------------------------------------------------------------------------
def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else (np.iinfo(dtype).min if dtype.kind in "iu" else False)


def max_pool_arrays(x, geometry, out):
    """(values, indices) of the window maxima; indices are positions in each input plane
    (``h * width + w``).  The first maximum wins, and nan counts as the largest value.

    As in PyTorch, a window whose maximum is the lowest value (-inf), or that lies wholly
    in the padding, reports the first input position it reaches (which, for a window of
    padding only, is outside the plane and receives no gradient)."""
    n = len(out)
    lowest = _lowest(x.dtype)
    win = _padded_windows(x, geometry, out, lowest)
    flat = win.reshape(win.shape[:-n] + (-1,))
    best = flat.argmax(axis=-1)
    values = np.take_along_axis(flat, best[..., None], axis=-1)[..., 0]
    offsets = np.unravel_index(best, geometry.kernel)
    plane = x.shape[-n:]
    index = np.zeros(best.shape, dtype=np.int64)
    first = np.zeros(out, dtype=np.int64)
    for axis in range(n):
        start = np.arange(out[axis]) * geometry.stride[axis] - geometry.padding[axis]
        d = geometry.dilation[axis]
        reached = np.where(start < 0, start + (-start + d - 1) // d * d, start)
        shape = (-1,) + (1,) * (n - 1 - axis)
        index = index * plane[axis] + (start.reshape(shape) + offsets[axis] * d)
        first = first * plane[axis] + reached.reshape(shape)
    if values.size and (values == lowest).any():
        index = np.where(values == lowest, first, index)
    return values, index


def scatter_to_planes(grad, index, input_shape):
    """Add each ``grad`` value at its ``index`` in its plane: an array of ``input_shape``.
    (An index outside the plane, from a window of padding only, receives nothing.)"""
    n_planes = math.prod(input_shape[:-2]) if len(input_shape) > 2 else 1
    plane = math.prod(input_shape[-2:])
    lead = grad.ndim - 2
    planes = np.arange(n_planes).reshape(grad.shape[:lead] + (1, 1)) * plane
    inside = (index >= 0) & (index < plane)
    total = np.bincount((np.where(inside, index, 0) + planes).ravel(),
                        weights=np.where(inside, grad, 0).ravel(), minlength=n_planes * plane)
    return total.astype(grad.dtype, copy=False).reshape(input_shape)


def gather_from_planes(x, index):
    """``x``'s value at each ``index`` of its plane: the adjoint of ``scatter_to_planes``."""
    flat = x.reshape(x.shape[:-2] + (-1,))
    plane = flat.shape[-1]
    inside = (index >= 0) & (index < plane)
    picked = np.take_along_axis(flat, np.where(inside, index, 0).reshape(
        index.shape[:-2] + (-1,)), axis=-1).reshape(index.shape)
    return np.where(inside, picked, 0).astype(x.dtype, copy=False)


class MaxPool2d(BuiltinFunction):
    """The maximum of each window, and where it was (a second, non-differentiable output)."""
    _backward_name = "MaxPool2DWithIndicesBackward0"

    @staticmethod
    def forward(ctx, input, geometry, out):
        values, index = max_pool_arrays(input._data, geometry, out)
        ctx.index, ctx.input_shape = index, input.shape
        indices = wrap(index)
        ctx.mark_non_differentiable(indices)
        return wrap(values), indices

    @staticmethod
    def backward(ctx, grad, _grad_indices):
        return MaxPoolScatter.apply(grad, ctx.index, ctx.input_shape), None, None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        return scatter_to_planes(grad, ctx.index, ctx.input_shape), None, None


class MaxPoolScatter(BuiltinFunction):
    """The gradient of max pooling: each value added at its window's maximum."""
    _backward_name = "MaxPool2DWithIndicesBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, index, input_shape):
        ctx.index = index
        return scatter_to_planes(grad._data, index, tuple(input_shape))

    @staticmethod
    def backward(ctx, grad):
        return MaxPoolGather.apply(grad, ctx.index), None, None


class MaxPoolGather(BuiltinFunction):
    """Read each window's maximum position: the gradient of ``MaxPoolScatter``."""
    _backward_name = "MaxPoolGatherBackward0"

    @staticmethod
    def forward(ctx, x, index):
        ctx.index, ctx.input_shape = index, x.shape
        return gather_from_planes(x._data, index)

    @staticmethod
    def backward(ctx, grad):
        return MaxPoolScatter.apply(grad, ctx.index, ctx.input_shape), None


# ----- average pooling --------------------------------------------------------------------------
def _divisor(size, out, kernel, stride, pad, count_include_pad):
    """The count each window's sum is divided by, along one dimension."""
    start = np.arange(out) * stride - pad
    end = np.minimum(start + kernel, size + pad)
    if count_include_pad:
        return (end - start).astype(np.float64)
    return (np.minimum(end, size) - np.maximum(start, 0)).astype(np.float64)


def avg_divisors(spatial, out, geometry, count_include_pad, divisor_override):
    """One divisor per output position (shape ``out``)."""
    if divisor_override:
        return np.full(out, float(divisor_override))
    result = np.ones(out)
    for axis, (size, o, k, s, p) in enumerate(zip(spatial, out, geometry.kernel,
                                                  geometry.stride, geometry.padding)):
        shape = [1] * len(out)
        shape[axis] = o
        result = result * _divisor(size, o, k, s, p, count_include_pad).reshape(shape)
    return result


def avg_pool_array(x, geometry, out, divisors):
    n = len(out)
    win = _padded_windows(x, geometry, out, 0)
    sums = win.sum(axis=tuple(range(-n, 0)))
    if x.dtype.kind in "iu":                     # integers: PyTorch divides and truncates
        return (sums / divisors).astype(x.dtype)
    return (sums / divisors).astype(x.dtype, copy=False)


def avg_pool_adjoint_array(grad, input_shape, geometry, divisors):
    """Spread each ``grad / divisor`` evenly over its window (what the windows read).

    A window is a box, one interval per axis, so the spreading goes one axis at a time:
    along an axis, output position ``i`` hands its value to the ``k`` places ``i * s +
    t`` (``t < k``) of the padded input, and ``np.add.at`` sums what overlapping
    windows hand to the same place; the padding is cut off after each axis."""
    n = len(geometry.kernel)
    spread = grad / divisors.astype(grad.dtype, copy=False)
    for axis, (size, k, s, p) in enumerate(zip(input_shape[-n:], geometry.kernel,
                                                geometry.stride, geometry.padding)):
        axis += grad.ndim - n
        along = np.moveaxis(spread, axis, 0)
        o = along.shape[0]
        places = (np.arange(o)[:, None] * s + np.arange(k)).ravel()
        total = np.zeros((max(size + 2 * p, (o - 1) * s + k),) + along.shape[1:],
                         dtype=grad.dtype)
        np.add.at(total, places, np.repeat(along, k, axis=0))
        spread = np.moveaxis(total[p:p + size], 0, axis)
    return np.ascontiguousarray(spread)


class AvgPool2d(BuiltinFunction):
    """The average of each window (the count as PyTorch defines it)."""
    _backward_name = "AvgPool2DBackward0"

    @staticmethod
    def forward(ctx, input, geometry, out, divisors):
        ctx.geometry, ctx.divisors, ctx.input_shape = geometry, divisors, input.shape
        return avg_pool_array(input._data, geometry, out, divisors)

    @staticmethod
    def backward(ctx, grad):
        return AvgPoolAdjoint.apply(grad, ctx.input_shape, ctx.geometry, ctx.divisors), \
            None, None, None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        return avg_pool_adjoint_array(grad, ctx.input_shape, ctx.geometry, ctx.divisors), \
            None, None, None


class AvgPoolAdjoint(BuiltinFunction):
    """The gradient of average pooling, itself differentiable: its gradient is the pooling."""
    _backward_name = "AvgPool2DBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, input_shape, geometry, divisors):
        ctx.geometry, ctx.divisors, ctx.out = geometry, divisors, grad.shape[-2:]
        return avg_pool_adjoint_array(grad._data, tuple(input_shape), geometry, divisors)

    @staticmethod
    def backward(ctx, grad):
        return AvgPool2d.apply(grad, ctx.geometry, ctx.out, ctx.divisors), None, None, None


# ----- adaptive average pooling -----------------------------------------------------------------
def adaptive_matrix(size, out, dtype):
    """Row ``i`` averages entries ``floor(i*size/out)`` to ``ceil((i+1)*size/out)`` (excluded)."""
    m = np.zeros((out, size), dtype=dtype)
    for i in range(out):
        start, end = (i * size) // out, -((-(i + 1) * size) // out)
        m[i, start:end] = 1 / (end - start)
    return m


class AdaptiveAvgPool2d(SeparableLinearMap):
    _backward_name = "AdaptiveAvgPool2DBackward0"
