"""Reductions: sum, mean, max/min, sum_to_size, softmax and log_softmax (chapter 3).

A reduction's gradient is spread back over the elements it reduced: ``sum``
copies the incoming gradient to every element (``expand``), ``mean`` also
divides by the count, ``max`` sends it to the position of the maximum.
"""

import numpy as np

from .._tensor import Tensor
from .arithmetic import Builtin
from ._util import sum_to_shape

wrap = Tensor._wrap


def _keep_shape(shape, dims):
    """The shape a reduction over ``dims`` has with keepdim=True."""
    return tuple(1 if i in dims else s for i, s in enumerate(shape))


def _sum_dtype(x):
    """Sums of ints and bools are int64, as in PyTorch."""
    return np.int64 if x.dtype.kind in "biu" else None


class Sum(Builtin):
    _backward_name = "SumBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.shape = a.shape
        return np.asarray(a._data.sum(dtype=_sum_dtype(a._data)))

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.shape)


class SumDim(Builtin):
    _backward_name = "SumBackward1"

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx.shape = a.shape
        ctx.dims = dims
        ctx.keepdim = keepdim
        return np.asarray(a._data.sum(axis=dims, keepdims=keepdim, dtype=_sum_dtype(a._data)))

    @staticmethod
    def backward(ctx, grad):
        if not ctx.keepdim:
            grad = grad.reshape(_keep_shape(ctx.shape, ctx.dims))
        return grad.expand(ctx.shape), None, None


class SumToSize(Builtin):
    """Sum a broadcast result back to ``shape`` (the inverse of ``expand``)."""
    _backward_name = "SumBackward1"

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape = a.shape
        return sum_to_shape(a._data, shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.shape), None


class Mean(Builtin):
    _backward_name = "MeanBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.shape = a.shape
        return np.asarray(a._data.mean())

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.shape) / max(int(np.prod(ctx.shape)), 1)


class MeanDim(Builtin):
    _backward_name = "MeanBackward1"

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        return np.asarray(a._data.mean(axis=dims, keepdims=keepdim))

    @staticmethod
    def backward(ctx, grad):
        if not ctx.keepdim:
            grad = grad.reshape(_keep_shape(ctx.shape, ctx.dims))
        count = int(np.prod([ctx.shape[d] for d in ctx.dims]))
        return grad.expand(ctx.shape) / max(count, 1), None, None


class MaxAll(Builtin):
    """The largest element.  Ties share the gradient evenly, as in PyTorch."""
    _backward_name = "MaxBackward1"
    _saved_names = ("self", "result")

    @staticmethod
    def forward(ctx, a, largest):
        x = a._data
        if x.size == 0:
            raise RuntimeError("max(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        result = wrap(np.asarray(x.max() if largest else x.min()))
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        hits = (a._data == result._data)
        share = hits / hits.sum()
        return grad * wrap(share.astype(a._data.dtype)), None


class MaxDim(Builtin):
    """``max(dim)``: values and the indices where they were found."""
    _backward_name = "MaxBackward0"
    _saved_names = ("indices",)
    _multi_output = True

    @staticmethod
    def forward(ctx, a, dim, keepdim, largest):
        x = a._data
        pick = np.argmax if largest else np.argmin
        indices = np.expand_dims(pick(x, axis=dim), dim)
        values = np.take_along_axis(x, indices, axis=dim)
        if not keepdim:
            indices, values = indices.squeeze(dim), values.squeeze(dim)
        ctx.shape, ctx.dim, ctx.keepdim = a.shape, dim, keepdim
        ctx.indices = indices
        idx = wrap(indices.astype(np.int64))
        ctx.mark_non_differentiable(idx)
        return wrap(values), idx

    @staticmethod
    def backward(ctx, grad, grad_indices=None):
        idx = ctx.indices if ctx.keepdim else np.expand_dims(ctx.indices, ctx.dim)
        if not ctx.keepdim:
            grad = grad.unsqueeze(ctx.dim)
        return ScatterAlongDim.apply(grad, idx, ctx.dim, ctx.shape), None, None, None


class ScatterAlongDim(Builtin):
    """Zeros of ``shape`` with ``grad`` placed at ``indices`` along ``dim`` (max's backward)."""
    _backward_name = "ScatterBackward0"

    @staticmethod
    def forward(ctx, grad, indices, dim, shape):
        ctx.indices, ctx.dim = indices, dim
        out = np.zeros(shape, dtype=grad._data.dtype)
        np.put_along_axis(out, indices, grad._data, axis=dim)
        return out

    @staticmethod
    def backward(ctx, g):
        return GatherAlongDim.apply(g, ctx.indices, ctx.dim), None, None, None


class GatherAlongDim(Builtin):
    _backward_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, a, indices, dim):
        ctx.indices, ctx.dim, ctx.shape = indices, dim, a.shape
        return np.take_along_axis(a._data, indices, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        return ScatterAlongDim.apply(grad, ctx.indices, ctx.dim, ctx.shape), None, None


class Softmax(Builtin):
    _backward_name = "SoftmaxBackward0"
    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a, dim):
        x = a._data
        e = np.exp(x - x.max(axis=dim, keepdims=True))
        result = wrap(e / e.sum(axis=dim, keepdims=True))
        ctx.dim = dim
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        y, = ctx.saved_tensors
        return y * (grad - (grad * y).sum(ctx.dim, keepdim=True)), None


class LogSoftmax(Builtin):
    """log(softmax(x)) computed as x - max - log(sum(exp(x - max))): never overflows."""
    _backward_name = "LogSoftmaxBackward0"
    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a, dim):
        x = a._data
        shifted = x - x.max(axis=dim, keepdims=True)
        result = wrap(shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True)))
        ctx.dim = dim
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        y, = ctx.saved_tensors
        return grad - y.exp() * grad.sum(ctx.dim, keepdim=True), None


class MinAll(MaxAll):
    _backward_name = "MinBackward1"


class MinDim(MaxDim):
    _backward_name = "MinBackward0"
