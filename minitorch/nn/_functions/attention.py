"""Scaled dot-product attention as one built-in Function (Part V, the attention chapter).

For queries ``q`` (..., L, E), keys ``k`` (..., S, E) and values ``v`` (..., S, Ev):

    scores  = q @ k^T * scale + bias          (L x S: how well each query matches each key)
    weights = softmax(scores, over S)         (each query's weights sum to 1)
    out     = dropout(weights) @ v            (a weighted average of the values)

``bias`` holds the mask: 0 where a query may look, -inf where it may not (a
boolean mask becomes that; a float mask is added as it is).  A query that may
look nowhere gets zero weights, not NaN, as in PyTorch.

The backward pass (the gradients of q, k and v through the softmax) is derived
on page 15b, "Attention's backward, by hand" (chapter 15).  One Function instead
of six ops keeps one node, and the array path keeps each step one numpy pass.
"""

import numpy as np

from ..._tensor import Tensor
from ...ops._common import BuiltinFunction, sum_to_shape, unbroadcast

__all__ = ["ScaledDotProductAttention", "ScaledDotProductAttentionMath", "attention_weights"]


def attention_weights(q, k, bias, scale):
    """softmax(q @ k^T * scale + bias) over the last dim, on arrays; rows with every key
    masked get zeros."""
    ### BEGIN SOLUTION 15.2
    scores = np.matmul(q * q.dtype.type(scale), np.swapaxes(k, -1, -2))
    if bias is not None:
        scores += bias
    top = scores.max(axis=-1, keepdims=True)
    if bias is not None:
        top[~np.isfinite(top)] = 0          # a row masked everywhere stays -inf: exp gives 0
    np.subtract(scores, top, out=scores)
    np.exp(scores, out=scores)
    total = scores.sum(axis=-1, keepdims=True)
    if bias is not None:
        total[total == 0] = 1
    scores /= total
    return scores
    ### END SOLUTION 15.2


def _repeat_heads(x, groups):
    """Grouped-query attention: each key/value head serves ``groups`` consecutive query
    heads, so query head ``h`` uses key head ``h // groups`` (PyTorch repeats the heads with
    ``repeat_interleave``: heads 0, 0, 1, 1 for two groups, not 0, 1, 0, 1).  On arrays,
    along the heads dim (-3)."""
    ### BEGIN SOLUTION 15.2
    return x if groups == 1 else np.repeat(x, groups, axis=-3)
    ### END SOLUTION 15.2


def _sum_heads(grad, groups):
    """The gradient of ``_repeat_heads``: the copies of each head summed back."""
    ### BEGIN SOLUTION 15.2
    if groups == 1:
        return grad
    shape = grad.shape
    return grad.reshape(shape[:-3] + (shape[-3] // groups, groups) + shape[-2:]).sum(axis=-3)
    ### END SOLUTION 15.2


class ScaledDotProductAttention(BuiltinFunction):
    """``softmax(q k^T * scale + bias) @ v``, with an optional dropout of the weights.

    ``bias`` (an array or None) and ``keep`` (dropout's mask already divided by 1 - p,
    or None) are constants, not graph inputs.  The node is named as PyTorch's CPU
    kernel names it (its "flash attention for CPU").

    As a ``BuiltinFunction`` (``minitorch/ops/_common.py``), it has two backwards that
    must agree: ``backward_on_arrays`` runs in an ordinary ``.backward()`` (the gradient
    needs no graph of its own) and reads the inputs with ``ctx.saved_arrays``;
    ``backward`` runs when the gradient is itself recorded (``create_graph=True``, as in
    gradgradcheck) and reads them with ``ctx.saved_tensors``.  Both multiply by dropout's
    mask where the forward did, sum the repeated heads back, and give each input a
    gradient of its own shape (batch dims may have broadcast)."""
    _backward_name = "ScaledDotProductFlashAttentionForCpuBackward0"
    _saved_names = ("query", "key", "value")

    @staticmethod
    def forward(ctx, query, key, value, bias, keep, scale, groups):
        """``softmax(q k^T * scale + bias) @ v`` (``attention_weights``), with the
        weights multiplied by ``keep`` (dropout's mask, already divided by 1 - p) when given;
        key and value heads repeated ``groups`` times for grouped-query attention.

        ``query``, ``key`` and ``value`` arrive as Tensors; compute on their arrays
        (``query._data``...) and return the output as an array, which ``apply`` wraps.
        ``bias`` and ``keep`` are arrays or None.  Saves the query, key and value tensors
        with ``ctx.save_for_backward`` (in that order: ``_saved_names``), and the weights,
        bias, keep, scale and groups as attributes of ``ctx``."""
        ### BEGIN SOLUTION 15.2
        q, k, v = _dense(query._data), _dense(_repeat_heads(key._data, groups)), \
            _dense(_repeat_heads(value._data, groups))
        weights = attention_weights(q, k, bias, scale)
        ctx.weights, ctx.bias, ctx.keep, ctx.scale, ctx.groups = weights, bias, keep, scale, groups
        ctx.save_for_backward(query, key, value)
        dropped = weights if keep is None else weights * keep
        return np.matmul(dropped, v)
        ### END SOLUTION 15.2

    @staticmethod
    def backward(ctx, grad):
        """The gradients of query, key and value (and None for the four constants),
        written with tensor operations on ``ctx.saved_tensors`` so that they can be
        differentiated again: the weights are recomputed from q and k, not read from ctx.

        A row (a query) with every key masked must stay finite here too, and so must its
        derivative: softmax over a row of -inf gives nan, so give such a row a bias that
        is not -inf and multiply its weights by 0 (``bias`` is a constant: which rows
        they are can be found on the array).  The double backward of such a row is then
        0, as in PyTorch."""
        ### BEGIN SOLUTION 15.2
        query, key, value = ctx.saved_tensors
        k, v = _repeat_tensor_heads(key, ctx.groups), _repeat_tensor_heads(value, ctx.groups)
        scores = (query @ k.transpose(-1, -2)) * ctx.scale
        if ctx.bias is None:
            weights = scores.softmax(-1)
        else:
            # A row with every key masked: softmax of all -inf is nan, and so would be its
            # derivative.  Such a row gets bias 0 and its weights are multiplied by 0.
            dead = np.isneginf(ctx.bias).all(axis=-1, keepdims=True)
            bias = np.where(dead, 0, ctx.bias).astype(ctx.bias.dtype)
            weights = (scores + _constant(bias, scores)).softmax(-1)
            if dead.any():
                weights = weights * _constant((~dead).astype(bias.dtype), scores)
        keep = None if ctx.keep is None else _constant(ctx.keep, scores)
        dropped = weights if keep is None else weights * keep
        grad_v = dropped.transpose(-1, -2) @ grad
        d_weights = grad @ v.transpose(-1, -2)
        if keep is not None:
            d_weights = d_weights * keep
        d_scores = weights * (d_weights - (d_weights * weights).sum(-1, keepdim=True))
        grad_q = (d_scores @ k) * ctx.scale
        grad_k = (d_scores.transpose(-1, -2) @ query) * ctx.scale
        if ctx.groups > 1:
            grad_k, grad_v = _sum_tensor_heads(grad_k, ctx.groups), \
                _sum_tensor_heads(grad_v, ctx.groups)
        return (unbroadcast(grad_q, query.shape), unbroadcast(grad_k, key.shape),
                unbroadcast(grad_v, value.shape), None, None, None, None)
        ### END SOLUTION 15.2

    @staticmethod
    def backward_on_arrays(ctx, grad):
        """The gradients of query, key and value on arrays (``ctx.saved_arrays``), from
        the weights saved by ``forward`` (the softmax's backward of chapter 15), the same
        dropout mask, the repeated heads summed back and broadcast batch dims summed away;
        None for what needs no gradient (``ctx.needs_input_grad``) and for the four
        constants."""
        ### BEGIN SOLUTION 15.2
        q, key, value = ctx.saved_arrays
        q, grad = _dense(q), _dense(grad)
        k, v = _dense(_repeat_heads(key, ctx.groups)), _dense(_repeat_heads(value, ctx.groups))
        weights, keep = ctx.weights, ctx.keep
        need_q, need_k, need_v = ctx.needs_input_grad[:3]
        grad_q = grad_k = grad_v = None
        if need_v:
            dropped = weights if keep is None else weights * keep
            grad_v = _fit(_sum_heads(np.matmul(np.swapaxes(dropped, -1, -2), grad),
                                     ctx.groups), value.shape)
        if need_q or need_k:
            d = np.matmul(grad, np.swapaxes(v, -1, -2))
            if keep is not None:
                d *= keep
            d -= (d * weights).sum(axis=-1, keepdims=True)
            d *= weights
            d *= d.dtype.type(ctx.scale)
            if need_q:
                grad_q = _fit(np.matmul(d, k), q.shape)
            if need_k:
                grad_k = _fit(_sum_heads(np.matmul(np.swapaxes(d, -1, -2), q), ctx.groups),
                              key.shape)
        return grad_q, grad_k, grad_v, None, None, None, None
        ### END SOLUTION 15.2


    @classmethod
    def apply(cls, query, key, value, bias, keep, scale, groups):
        """Under vmap(randomness='different') dropout's mask is a batched tensor, one mask
        per example (chapter 13); the loop over the examples hands each call its own,
        which ``forward`` takes as the array it always gets."""
        if isinstance(keep, Tensor) and getattr(keep, "_value", None) is None:
            keep = keep._data
        return super().apply(query, key, value, bias, keep, scale, groups)


class ScaledDotProductAttentionMath(ScaledDotProductAttention):
    """The same computation where PyTorch's CPU dispatch takes its "math" path (3-d
    inputs, dropout, values of another width): there it is several ops, and the node
    a reader sees last is the one of matmul's final reshape."""
    _backward_name = "UnsafeViewBackward0"


def _dense(x):
    """``x`` stored row by row: numpy multiplies stacks of matrices several times faster
    then than through the strided views that splitting heads makes."""
    return x if x.flags.c_contiguous else np.ascontiguousarray(x)


def _fit(grad, shape):
    """A gradient summed back to its input's shape (batch dims may have broadcast)."""
    return grad if grad.shape == shape else sum_to_shape(grad, shape)


def _constant(array, like):
    return like.new_tensor(array) if hasattr(like, "new_tensor") else _wrap(array)


def _wrap(array):
    from ..._tensor import Tensor
    return Tensor._wrap(array)


def _repeat_tensor_heads(x, groups):
    """``_repeat_heads`` on tensors (recorded, for the double backward), in the same
    order.  minitorch has no ``repeat_interleave``: a new dim after the heads, expanded to
    ``groups`` and merged with the heads dim by a reshape, gives that order."""
    ### BEGIN SOLUTION 15.2
    if groups == 1:
        return x
    shape = tuple(x.shape)
    wide = x.unsqueeze(-3).expand(*shape[:-2], groups, *shape[-2:])
    return wide.reshape(*shape[:-3], shape[-3] * groups, *shape[-2:])
    ### END SOLUTION 15.2


def _sum_tensor_heads(grad, groups):
    """``_sum_heads`` on tensors (recorded, for the double backward)."""
    ### BEGIN SOLUTION 15.2
    shape = tuple(grad.shape)
    return grad.reshape(*shape[:-3], shape[-3] // groups, groups, *shape[-2:]).sum(-3)
    ### END SOLUTION 15.2
