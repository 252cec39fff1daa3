"""Layer normalisation and embedding lookup as built-in Functions (chapter 11's layers).

``NativeLayerNorm`` normalises each sample over its last dimensions (the
``normalized_shape``), then scales and shifts elementwise.  ``NativeGroupNorm``
normalises each group of channels of each sample, then scales and shifts each
channel.  Unlike batch
normalisation it never mixes samples, so it behaves the same in training
and evaluation.

``Embedding`` is a table lookup, ``weight[indices]``; its gradient adds
each row's incoming gradients into that row of the table (a scatter-add),
and the gradient of that scatter is the lookup again.
"""

import numpy as np

from ...ops._common import BuiltinFunction, wrap

__all__ = ["NativeLayerNorm", "NativeGroupNorm", "Embedding", "EmbeddingDenseBackward"]


class NativeLayerNorm(BuiltinFunction):
    """``(x - mean) / sqrt(var + eps) * weight + bias`` over the last ``n_dims`` dims."""
    _backward_name = "NativeLayerNormBackward0"
    _graph_inputs = 3               # input, weight, bias (None without affine)
    _saved_names = ("input", "weight", "bias")

    @staticmethod
    def forward(ctx, input, weight, bias, n_dims, eps):
        x = input._data
        dims = tuple(range(x.ndim - n_dims, x.ndim))
        rows = _rows(x, n_dims)                 # one row per normalised sample
        n = rows.shape[1]
        centered = rows - (rows @ np.full(n, 1 / n, dtype=rows.dtype))[:, None]
        variance = np.einsum("ij,ij->i", centered, centered) / n
        rstd = (1 / np.sqrt(variance + eps)).astype(x.dtype, copy=False)[:, None]
        centered *= rstd                        # now normalized, in the same memory
        ctx.dims, ctx.eps, ctx.normalized, ctx.rstd = dims, eps, centered, rstd
        ctx.bias_shape = None if bias is None else bias._data.shape
        ctx.save_for_backward(input, weight, bias)
        if weight is None:
            out = centered if bias is None else centered + bias._data.reshape(-1)
        else:
            out = centered * weight._data.reshape(-1)
            if bias is not None:
                out += bias._data.reshape(-1)
        return out.astype(x.dtype, copy=False).reshape(x.shape)

    @staticmethod
    def backward(ctx, grad):
        """Written with tensor operations (the statistics recomputed from the input), so
        that the gradient can be differentiated again."""
        x, weight, bias = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        dims = ctx.dims
        lead = tuple(range(x.ndim - len(dims)))
        centered = x - x.mean(dims, keepdim=True)
        rstd = 1 / ((centered * centered).mean(dims, keepdim=True) + ctx.eps).sqrt()
        xhat = centered * rstd
        grad_x = grad_w = grad_b = None
        if need_x:
            gx = grad * weight if weight is not None else grad
            grad_x = rstd * (gx - gx.mean(dims, keepdim=True)
                             - xhat * (gx * xhat).mean(dims, keepdim=True))
        if need_w:
            grad_w = (grad * xhat).sum(lead) if lead else grad * xhat
        if need_b:
            grad_b = grad.sum(lead) if lead else grad * 1
        return grad_x, grad_w, grad_b, None, None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        """On rows (samples) of the normalised values ``xhat``: row means by matrix-vector
        products and row dot products by einsum, so no temporary but the result."""
        x, weight, _ = ctx.saved_arrays
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        xhat = ctx.normalized
        g = _rows(grad, len(ctx.dims))
        n = xhat.shape[1]
        grad_x = grad_w = grad_b = None
        if need_x:
            gx = g * weight.reshape(-1) if weight is not None else g.copy()
            along = np.einsum("ij,ij->i", gx, xhat) / n
            mean = gx @ np.full(n, 1 / n, dtype=gx.dtype)
            gx -= mean[:, None]
            gx -= xhat * along[:, None]
            gx *= ctx.rstd
            grad_x = gx.astype(grad.dtype, copy=False).reshape(x.shape)
        if need_w:
            grad_w = np.einsum("ij,ij->j", g, xhat).reshape(weight.shape)
        if need_b:
            grad_b = (np.ones(len(g), dtype=g.dtype) @ g).reshape(weight.shape if weight
                                                                  is not None else
                                                                  ctx.bias_shape)
        return grad_x, grad_w, grad_b, None, None


def _rows(x, n_dims):
    """``x`` as a matrix with the last ``n_dims`` dims flattened into each row."""
    n = int(np.prod(x.shape[x.ndim - n_dims:]))
    return x.reshape(-1, n)


# ----- group norm -------------------------------------------------------------------------------
class NativeGroupNorm(BuiltinFunction):
    """Each sample's channels split into ``group`` groups, each normalised over its channels
    and positions; then ``* weight + bias`` per channel.  Input ``(N, C, *)``."""
    _backward_name = "NativeGroupNormBackward0"
    _graph_inputs = 3               # input, weight, bias (None without affine)
    _saved_names = ("input", "weight", "bias")

    @staticmethod
    def forward(ctx, input, weight, bias, group, eps):
        x = input._data
        n, c = x.shape[0], x.shape[1]
        xg = x.reshape(n, group, -1)
        centered = xg - xg.mean(axis=2, keepdims=True)
        rstd = 1 / np.sqrt((centered * centered).mean(axis=2, keepdims=True) + eps)
        ctx.normalized = (centered * rstd).reshape(x.shape).astype(x.dtype, copy=False)
        ctx.rstd, ctx.group, ctx.eps = rstd.astype(x.dtype), group, eps
        ctx._saved_N, ctx._saved_C, ctx._saved_group, ctx._saved_eps = n, c, group, eps
        ctx._saved_HxW = x.size // max(n * c, 1)
        ctx.save_for_backward(input, weight, bias)
        out = ctx.normalized
        if weight is not None:
            out = out * _per_channel(weight._data, x.ndim)
        if bias is not None:
            out = out + _per_channel(bias._data, x.ndim)
        return out.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        """Written with tensor operations (the statistics recomputed from the input), so
        that the gradient can be differentiated again."""
        x, weight, bias = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        n, shape, others = x.shape[0], x.shape, _all_but_channels(x.ndim)
        xg = x.reshape(n, ctx.group, -1)
        centered = xg - xg.mean(2, keepdim=True)
        rstd = 1 / ((centered * centered).mean(2, keepdim=True) + ctx.eps).sqrt()
        xhat = centered * rstd
        grad_x = grad_w = grad_b = None
        if need_x:
            gx = grad * weight.reshape(_channel_shape(x.ndim)) if weight is not None else grad
            gx = gx.reshape(n, ctx.group, -1)
            grad_x = (rstd * (gx - gx.mean(2, keepdim=True)
                              - xhat * (gx * xhat).mean(2, keepdim=True))).reshape(shape)
        if need_w:
            grad_w = (grad * xhat.reshape(shape)).sum(others)
        if need_b:
            grad_b = grad.sum(others)
        return grad_x, grad_w, grad_b, None, None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        x, weight, _ = ctx.saved_arrays
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        n, others, xhat = x.shape[0], _all_but_channels(x.ndim), ctx.normalized
        grad_x = grad_w = grad_b = None
        if need_x:
            gx = grad * _per_channel(weight, x.ndim) if weight is not None else grad
            gx = gx.reshape(n, ctx.group, -1)
            xhat_g = xhat.reshape(n, ctx.group, -1)
            grad_x = ctx.rstd * (gx - gx.mean(axis=2, keepdims=True)
                                 - xhat_g * (gx * xhat_g).mean(axis=2, keepdims=True))
            grad_x = grad_x.reshape(x.shape).astype(grad.dtype, copy=False)
        if need_w:
            grad_w = (grad * xhat).sum(axis=others)
        if need_b:
            grad_b = grad.sum(axis=others)
        return grad_x, grad_w, grad_b, None, None


def _channel_shape(ndim):
    return (1, -1) + (1,) * (ndim - 2)


def _per_channel(values, ndim):
    """A ``(C,)`` array shaped to broadcast along dimension 1 of an ``ndim``-d input."""
    return values.reshape(_channel_shape(ndim))


def _all_but_channels(ndim):
    return (0,) + tuple(range(2, ndim))


# ----- embedding --------------------------------------------------------------------------------
def _row_scale(indices, n_rows, padding_idx, scale_grad_by_freq, dtype):
    """What each table row's gradient is multiplied by: 0 for the padding row, and
    1 / (how often the row was looked up) with ``scale_grad_by_freq``; None if all 1."""
    if padding_idx is None and not scale_grad_by_freq:
        return None
    scale = np.ones(n_rows, dtype=dtype)
    if scale_grad_by_freq:
        counts = np.bincount(indices.ravel(), minlength=n_rows)
        scale = scale / np.maximum(counts, 1).astype(dtype)
    if padding_idx is not None:
        scale[padding_idx] = 0
    return scale


class Embedding(BuiltinFunction):
    """``weight[indices]``: row ``i`` of the table for each index ``i``."""
    _backward_name = "EmbeddingBackward0"
    _saved_names = ("indices",)
    _graph_inputs = 1               # the table; the indices are no graph input

    @staticmethod
    def forward(ctx, weight, indices, padding_idx, scale_grad_by_freq):
        ctx.save_for_backward(indices)
        ctx.n_rows, ctx.padding_idx, ctx.by_freq = weight.shape[0], padding_idx, scale_grad_by_freq
        return weight._data[indices._data]

    @staticmethod
    def backward(ctx, grad):
        indices, = ctx.saved_tensors
        return EmbeddingDenseBackward.apply(grad, indices, ctx.n_rows, ctx.padding_idx,
                                            ctx.by_freq), None, None, None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        indices, = ctx.saved_arrays
        return _scatter_rows(grad, indices, ctx.n_rows, ctx.padding_idx, ctx.by_freq), \
            None, None, None


def _scatter_rows(grad, indices, n_rows, padding_idx, by_freq):
    table = np.zeros((n_rows,) + grad.shape[indices.ndim:], dtype=grad.dtype)
    add_rows(table, indices.ravel(), grad.reshape((indices.size,) + table.shape[1:]))
    scale = _row_scale(indices, n_rows, padding_idx, by_freq, grad.dtype)
    if scale is not None:
        table *= scale.reshape((-1,) + (1,) * (table.ndim - 1))
    return table


def add_rows(table, index, rows):
    """``np.add.at(table, index, rows)``: ``rows[k]`` added into ``table[index[k]]``, in
    the order of ``k``, with the same bits, but in rounds instead of one row at a time
    (``np.add.at`` takes about 2 µs a row: 4 ms for a GPT batch's 2,048 tokens).

    Round ``r`` adds the ``r``-th occurrence of every index that has one, all at once:
    within a round no index repeats, so ``table[which] += ...`` is exact, and each row
    of the table still receives its additions in their original order.  The rounds are
    as many as the most repeated index has occurrences, so when one index takes up much
    of ``index``, for narrow rows (``np.add.at`` is quick on those), or for a negative
    index, ``np.add.at`` itself runs."""
    if index.size == 0:
        return
    wide = rows.size >= _WIDE_ROW * index.size and index.min() >= 0
    counts = np.bincount(index, minlength=len(table)) if wide else None
    if counts is None or counts.max() * _ROUNDS_PER_ROW > index.size:
        np.add.at(table, index, rows)
        return
    order = np.argsort(index, kind="stable")    # each index's occurrences, in order
    which = np.flatnonzero(counts)              # the rows that receive something
    left, first = counts[which], np.cumsum(counts)[which] - counts[which]
    for r in range(int(left.max())):
        if r:
            more = left > r
            which, left, first = which[more], left[more], first[more]
        table[which] += rows[order[first + r]]


_ROUNDS_PER_ROW = 8     # a round costs about as much as np.add.at's work on 8 wide rows
_WIDE_ROW = 64          # elements in a row


class EmbeddingDenseBackward(BuiltinFunction):
    """The embedding's gradient for the table: each looked-up row's gradients added
    into that row (the padding row left at zero)."""
    _backward_name = "EmbeddingDenseBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, indices, n_rows, padding_idx, by_freq):
        ctx.indices, ctx.n_rows = indices, n_rows
        ctx.padding_idx, ctx.by_freq = padding_idx, by_freq
        return _scatter_rows(grad._data, indices._data, n_rows, padding_idx, by_freq)

    @staticmethod
    def backward(ctx, grad):
        scale = _row_scale(ctx.indices._data, ctx.n_rows, ctx.padding_idx, ctx.by_freq,
                           grad._data.dtype)
        if scale is not None:
            grad = grad * wrap(scale.reshape((-1,) + (1,) * (grad.ndim - 1)))
        return Embedding.apply(grad, ctx.indices, None, False), None, None, None, None
