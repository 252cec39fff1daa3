"""``F.scaled_dot_product_attention`` and ``F.multi_head_attention_forward`` (Part V, the
attention chapter): the checks and masks around the ``ScaledDotProductAttention``
Function, and multi-head attention written with ordinary tensor operations.
"""

import math

import numpy as np

from .._random import Draw
from .._tensor import Tensor
from ._functions.attention import ScaledDotProductAttention, ScaledDotProductAttentionMath

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """``softmax(query @ key^T * scale + mask) @ value`` over the last two dims.

    ``attn_mask``: True where a query may attend (boolean), or a float added to the
    scores; ``is_causal``: each query sees only keys at its position or before;
    ``scale`` defaults to ``1/sqrt(E)``; ``dropout_p`` drops attention weights (always,
    as in PyTorch: pass 0.0 when evaluating); ``enable_gqa``: key and value may have
    fewer heads (dim -3) than the query, each shared by a group of query heads.
    """
    _check_inputs(query, key, value)
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True: pass one of them")
    groups = _head_groups(query, key, value, enable_gqa)
    q, k = query._data, key._data
    length, source = q.shape[-2], k.shape[-2]
    bias = _mask_as_bias(attn_mask, query, length, source)
    if is_causal:
        allowed = np.tril(np.ones((length, source), dtype=bool))
        bias = np.where(allowed, 0, -np.inf).astype(q.dtype)
    if scale is None:
        scale = 1 / math.sqrt(q.shape[-1])
    keep = None
    if dropout_p > 0:
        batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2])
        keep = _dropout_keep(batch + (length, source), dropout_p, q.dtype)
    flash = q.ndim == 4 and keep is None and value._data.shape[-1] == q.shape[-1]
    function = ScaledDotProductAttention if flash else ScaledDotProductAttentionMath
    return function.apply(query, key, value, bias, keep, scale, groups)


def _check_inputs(query, key, value):
    for position, (name, t) in enumerate((("query", query), ("key", key), ("value", value))):
        if not isinstance(t, Tensor):
            raise TypeError(f"scaled_dot_product_attention(): argument '{name}' (position "
                            f"{position + 1}) must be Tensor, not {type(t).__name__}")
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {query.dtype.type_name} key.dtype: "
                           f"{key.dtype.type_name} and value.dtype: {value.dtype.type_name} "
                           "instead.")
    if min(query.ndim, key.ndim, value.ndim) < 2:
        raise RuntimeError(f"Expected query, key, and value to all be at least 2 dimensional, "
                           f"but got query.dim: {query.ndim} key.dim: {key.ndim} and "
                           f"value.dim: {value.ndim} instead.")
    if not query.is_floating_point():
        raise RuntimeError("scaled_dot_product_attention needs floating point query, key and "
                           f"value, not {query.dtype.type_name}: convert them with .float()")
    if key.shape[-1] != query.shape[-1]:
        raise RuntimeError(f"scaled_dot_product_attention: query and key must have the same "
                           f"last dimension (embedding size), but got {query.shape[-1]} and "
                           f"{key.shape[-1]}")
    if value.shape[-2] != key.shape[-2]:
        raise RuntimeError(f"scaled_dot_product_attention: key and value must have the same "
                           f"number of positions (dim -2), but got {key.shape[-2]} and "
                           f"{value.shape[-2]}")


def _head_groups(query, key, value, enable_gqa):
    """How many query heads share each key/value head (1 without grouped-query attention)."""
    if not enable_gqa or query.ndim < 3:
        return 1
    heads, kv_heads = query.shape[-3], key.shape[-3]
    if kv_heads != value.shape[-3] or kv_heads == 0 or heads % kv_heads:
        raise RuntimeError("Number of heads in key and value must divide the number of heads in "
                           f"query, but got query heads {heads}, key heads {kv_heads} and value "
                           f"heads {value.shape[-3]}")
    return heads // kv_heads


def _mask_as_bias(attn_mask, query, length, source):
    """The mask as an additive float array: 0 where allowed, -inf where not."""
    if attn_mask is None:
        return None
    if not isinstance(attn_mask, Tensor):
        raise TypeError(f"scaled_dot_product_attention(): argument 'attn_mask' must be Tensor, "
                        f"not {type(attn_mask).__name__}")
    m = attn_mask._data
    if m.dtype != np.bool_ and m.dtype != query._data.dtype:
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query "
                           f"dtype, but got attn_mask.dtype: {attn_mask.dtype.type_name} and "
                           f"query.dtype: {query.dtype.type_name} instead.")
    try:
        np.broadcast_shapes(m.shape, query._data.shape[:-2] + (length, source))
    except ValueError:
        raise RuntimeError(f"scaled_dot_product_attention: attn_mask of shape "
                           f"{list(m.shape)} does not broadcast to the scores' shape "
                           f"{list(query.shape[:-2]) + [length, source]}") from None
    if m.dtype == np.bool_:
        return np.where(m, 0, -np.inf).astype(query._data.dtype)
    return m


def _dropout_keep(shape, p, dtype):
    """Dropout's multiplier: 0 with probability ``p``, ``1/(1-p)`` otherwise.  An array;
    under vmap(randomness='different') a batched tensor, one mask per example."""
    drawn = Draw()
    if p >= 1:
        return np.zeros(shape, dtype=dtype)
    keep = drawn.rng.random(drawn.sizes + tuple(shape)) >= p
    keep = keep.astype(dtype) / dtype.type(1 - p)
    return drawn.result(Tensor._wrap(keep)) if drawn.sizes else keep


# ----- multi-head attention ----------------------------------------------------------------
def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """Multi-head attention on sequence-first inputs ``(L, N, E)`` (or unbatched ``(L, E)``):
    project, split into heads, attend, join the heads, project.  Returns
    ``(output, weights or None)``.  ``attn_mask`` and ``key_padding_mask`` are True (or
    -inf) where attention is NOT allowed: the opposite of ``scaled_dot_product_attention``.
    """
    from . import functional as F
    if static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward: minitorch has no static_k/"
                                  "static_v; pass the keys and values as key and value")
    unbatched = _check_ranks(query, key, value, key_padding_mask, attn_mask, num_heads)
    if unbatched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    length, batch, embed_dim = query.shape
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    head_dim = embed_dim // num_heads
    q, k, v = _project(F, query, key, value, in_proj_weight, in_proj_bias,
                       use_separate_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight)
    if bias_k is not None:
        k = _cat_seq(k, bias_k.expand(1, batch, embed_dim))
        v = _cat_seq(v, bias_v.expand(1, batch, embed_dim))
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)
    q = q.reshape(length, batch * num_heads, head_dim).transpose(0, 1)
    k = k.reshape(k.shape[0], batch * num_heads, head_dim).transpose(0, 1)
    v = v.reshape(v.shape[0], batch * num_heads, head_dim).transpose(0, 1)
    if add_zero_attn:
        k = _cat_seq(k.transpose(0, 1), k.new_zeros((1,) + tuple(k.shape[::2]))).transpose(0, 1)
        v = _cat_seq(v.transpose(0, 1), v.new_zeros((1,) + tuple(v.shape[::2]))).transpose(0, 1)
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)
    source = k.shape[1]
    bias = _merged_mask(attn_mask, key_padding_mask, q, batch, num_heads, length, source)
    if not training:
        dropout_p = 0.0
    if need_weights:
        scores = (q * (1 / math.sqrt(head_dim))) @ k.transpose(-2, -1)
        if bias is not None:
            scores = scores + bias
        weights = scores.softmax(-1)
        if dropout_p > 0:
            weights = F.dropout(weights, p=dropout_p)
        out = weights @ v
    else:
        mask = None if bias is None else \
            bias.expand(batch * num_heads, length, source).reshape(batch, num_heads, length,
                                                                   source)
        out = scaled_dot_product_attention(q.reshape(batch, num_heads, length, head_dim),
                                           k.reshape(batch, num_heads, source, head_dim),
                                           v.reshape(batch, num_heads, source, head_dim),
                                           mask, dropout_p)
        out = out.reshape(batch * num_heads, length, head_dim)
    out = out.transpose(0, 1).reshape(length * batch, embed_dim)
    out = F.linear(out, out_proj_weight, out_proj_bias).view(length, batch, embed_dim)
    if unbatched:
        out = out.squeeze(1)
    if not need_weights:
        return out, None
    weights = weights.view(batch, num_heads, length, source)
    if average_attn_weights:
        weights = weights.mean(dim=1)
    if unbatched:
        weights = weights.squeeze(0)
    return out, weights


def _project(F, query, key, value, in_proj_weight, in_proj_bias, separate, wq, wk, wv):
    """The three input projections; one matrix product when query, key and value are one
    tensor (self-attention), as PyTorch does."""
    embed_dim = query.shape[-1]
    if separate:
        bq = bk = bv = None
        if in_proj_bias is not None:
            bq, bk, bv = in_proj_bias.chunk(3)
        return F.linear(query, wq, bq), F.linear(key, wk, bk), F.linear(value, wv, bv)
    if query is key and key is value:
        return F.linear(query, in_proj_weight, in_proj_bias).chunk(3, dim=-1)
    wq, wk, wv = in_proj_weight.split(embed_dim)
    bq = bk = bv = None
    if in_proj_bias is not None:
        bq, bk, bv = in_proj_bias.split(embed_dim)
    return F.linear(query, wq, bq), F.linear(key, wk, bk), F.linear(value, wv, bv)


def _cat_seq(x, extra):
    from .. import _functions as torch_functions
    return torch_functions.cat([x, extra.to(x.dtype)], 0)


def _pad_last(mask):
    """A mask with one more (allowed) key at the end: for ``bias_k`` or ``add_zero_attn``."""
    if mask is None:
        return None
    from . import functional as F
    return F.pad(mask, (0, 1))


def _as_bias(mask, dtype, name):
    """A boolean mask (True: not allowed) or a float mask, as an additive float tensor."""
    if mask.dtype.name == "bool":
        zeros = np.zeros(mask.shape, dtype=dtype.numpy_dtype)
        return Tensor._wrap(np.where(mask._data, -np.inf, zeros).astype(zeros.dtype))
    if not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask.to(dtype)


def _check_ranks(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether the call is unbatched (a 2-D ``query``), after checking that the other
    inputs have the ranks that go with it, with PyTorch's messages."""
    if query.ndim not in (2, 3):
        raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.ndim}-D query tensor")
    unbatched = query.ndim == 2
    kind, rank = ("unbatched (2-D)", 2) if unbatched else ("batched (3-D)", 3)
    if key.ndim != rank or value.ndim != rank:
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {rank}-D "
                             f"but found {key.ndim}-D and {value.ndim}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.ndim != rank - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` "
                             f"or {rank - 1}-D but found {key_padding_mask.ndim}-D tensor "
                             "instead")
    if attn_mask is not None:
        if attn_mask.ndim not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D "
                                 f"or 3-D but found {attn_mask.ndim}-D tensor instead")
        expected = (num_heads, query.shape[0], key.shape[0])
        if unbatched and attn_mask.ndim == 3 and tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                 f"{attn_mask.shape}")
    return unbatched


def _merged_mask(attn_mask, key_padding_mask, q, batch, heads, length, source):
    """``attn_mask`` ((L, S) or (N*H, L, S)) and ``key_padding_mask`` ((N, S)) as one additive
    mask broadcastable to the scores ``(N*H, L, S)``, or None."""
    bias = None
    if attn_mask is not None:
        bias = _as_bias(attn_mask, q.dtype, "attn_mask")
        if bias.ndim == 2:
            if tuple(bias.shape) != (length, source):
                raise RuntimeError(f"The shape of the 2D attn_mask is {bias.shape}, but "
                                   f"should be {(length, source)}.")
            bias = bias.unsqueeze(0)
        elif bias.ndim == 3:
            if tuple(bias.shape) != (batch * heads, length, source):
                raise RuntimeError(f"The shape of the 3D attn_mask is {bias.shape}, but "
                                   f"should be {(batch * heads, length, source)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {bias.ndim} is not supported")
    if key_padding_mask is not None:
        for dim, expected in enumerate((batch, source)):
            if key_padding_mask.shape[dim] != expected:
                raise AssertionError(f"Expected key_padded_mask.shape[{dim}] to be {expected}, "
                                     f"but got {key_padding_mask.shape[dim]}")
        padding = _as_bias(key_padding_mask, q.dtype, "key_padding_mask")
        padding = padding.view(batch, 1, 1, source).expand(batch, heads, 1, source) \
            .reshape(batch * heads, 1, source)
        bias = padding if bias is None else bias + padding
    return bias
