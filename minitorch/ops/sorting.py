"""Sorting and selecting: sort, argsort, topk, and the indices they return.

The values are differentiable: each output value's gradient goes back to
the position it came from (a scatter by the indices).  The indices are
integers, marked non-differentiable, exactly as in PyTorch.
"""

import numpy as np

from ._common import BuiltinFunction, normalize_dim, wrap
from .reduction import MinMax

__all__ = ["Sort", "Topk", "sort", "argsort", "topk", "kthvalue"]


def _gather_back(grad, indices, dim, shape):
    """Zeros of ``shape`` with ``grad`` put back where ``indices`` took each value from."""
    zeros = wrap(np.zeros(shape, dtype=grad._data.dtype))
    return zeros.scatter(dim, indices, grad)


class Sort(BuiltinFunction):
    _backward_name = "SortBackward0"

    @staticmethod
    def forward(ctx, a, dim, descending, stable):
        x = a._data
        if x.ndim == 0:
            order = np.zeros((), dtype=np.int64)
            values = x.copy()
        else:
            key = -x if descending and x.dtype.kind != "b" else x
            order = np.argsort(key, axis=dim, kind="stable" if stable or descending else None)
            if descending and x.dtype.kind == "b":
                order = np.flip(np.argsort(x, axis=dim, kind="stable"), axis=dim)
            values = np.take_along_axis(x, order, axis=dim)
        indices = wrap(order.astype(np.int64))
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.dim, ctx.shape = dim, a.shape
        return wrap(values), indices

    @staticmethod
    def backward(ctx, grad, grad_indices):
        indices, = ctx.saved_tensors
        if grad.ndim == 0:
            return grad, None, None, None
        return _gather_back(grad, indices, ctx.dim, ctx.shape), None, None, None


def sort(a, dim=-1, descending=False, stable=False):
    d = normalize_dim(dim, a.ndim)
    values, indices = Sort.apply(a, d, descending, stable)
    return MinMax(values, indices, "sort")


def argsort(a, dim=-1, descending=False, stable=False):
    return sort(a, dim, descending, stable)[1]


class Topk(BuiltinFunction):
    _backward_name = "TopkBackward0"

    @staticmethod
    def forward(ctx, a, k, dim, largest, sorted_):
        x = a._data
        key = -x if largest else x
        order = np.argsort(key, axis=dim, kind="stable")
        order = np.take(order, np.arange(k), axis=dim)
        values = np.take_along_axis(x, order, axis=dim)
        indices = wrap(order.astype(np.int64))
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.dim, ctx.shape = dim, a.shape
        return wrap(values), indices

    @staticmethod
    def backward(ctx, grad, grad_indices):
        indices, = ctx.saved_tensors
        return _gather_back(grad, indices, ctx.dim, ctx.shape), None, None, None, None


def topk(a, k, dim=-1, largest=True, sorted=True):
    d = normalize_dim(dim, a.ndim)
    size = a.shape[d] if a.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError(f"selected index k out of range: k={k} must be in [0, {size}] for "
                           "the dim being selected")
    values, indices = Topk.apply(a, k, d, largest, sorted)
    return MinMax(values, indices, "topk")


def kthvalue(a, k, dim=-1, keepdim=False):
    """The ``k``-th smallest value along ``dim`` (k counts from 1) and where it is: the
    ``k-1``-th entry of a stable sort, so its gradient goes back to that position
    (``prune.random_structured`` uses it as a threshold)."""
    d = normalize_dim(dim, a.ndim)
    size = a.shape[d] if a.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    values, indices = sort(a, d, stable=True)
    if a.ndim:
        values, indices = values.narrow(d, k - 1, 1), indices.narrow(d, k - 1, 1)
        if not keepdim:
            values, indices = values.squeeze(d), indices.squeeze(d)
    return MinMax(values, indices, "kthvalue")
