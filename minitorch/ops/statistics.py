"""Statistics over dims: var, std, norm, prod, cumsum, cumprod, logsumexp, amax, amin.

Their backwards spread the incoming gradient back over the reduced
elements, each with its share:

* ``var`` (with ``correction`` c, over N elements): ``2 (x - mean) / (N - c)``;
* ``std = sqrt(var)``: ``(x - mean) / ((N - c) std)``;
* ``norm`` of order p: ``x |x|^(p-2) / norm^(p-1)`` (for p = 2: ``x / norm``);
* ``prod``: the product of the *other* elements;
* ``cumsum``: the sum of the gradients at and after each position;
* ``logsumexp``: ``exp(x - logsumexp)``, a softmax;
* ``amax``/``amin``: the gradient shared evenly among the elements that tie.
"""

import builtins
import math

import numpy as np

from ._common import BuiltinFunction, as_float, normalize_dim, normalize_dims, wrap

__all__ = ["Var", "Std", "VectorNorm", "Prod", "ProdDim", "Cumsum", "Cumprod", "Logsumexp",
           "Amax", "Amin", "var", "std", "norm", "prod", "cumsum", "cumprod", "logsumexp",
           "amax", "amin", "var_mean", "std_mean"]


def _keep(shape, dims):
    return tuple(1 if i in dims else s for i, s in enumerate(shape))


def _spread(grad, shape, dims, keepdim):
    """An incoming gradient of a reduction, reshaped to broadcast against the input."""
    return grad if keepdim else grad.reshape(_keep(shape, dims))


def _count(shape, dims):
    return int(np.prod([shape[d] for d in dims])) if dims else 1


def _float_input(a, name):
    if not a.dtype.is_floating_point:
        raise RuntimeError(f"{name}(): could not infer output dtype. Input dtype must be either "
                           f"a floating point or complex dtype. Got: {a.dtype.type_name}")


# ----- var and std ---------------------------------------------------------------------------
class Var(BuiltinFunction):
    _backward_name = "VarBackward0"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, dims, correction, keepdim):
        x = a._data
        ctx.save_for_backward(a)
        ctx.dims, ctx.correction, ctx.keepdim = dims, correction, keepdim
        ctx.divisor = builtins.max(_count(x.shape, dims) - correction, 0)
        return np.asarray(x.var(axis=dims, ddof=correction, keepdims=keepdim), dtype=x.dtype)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        centered = a - a.mean(ctx.dims, keepdim=True)
        grad = _spread(grad, a.shape, ctx.dims, ctx.keepdim)
        return grad * centered * (2.0 / ctx.divisor), None, None, None


class Std(BuiltinFunction):
    _backward_name = "StdBackward0"
    _saved_names = ("self", "result")

    @staticmethod
    def forward(ctx, a, dims, correction, keepdim):
        x = a._data
        result = wrap(np.asarray(x.std(axis=dims, ddof=correction, keepdims=keepdim),
                                 dtype=x.dtype))
        ctx.save_for_backward(a, result)
        ctx.dims, ctx.keepdim = dims, keepdim
        ctx.divisor = builtins.max(_count(x.shape, dims) - correction, 0)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        centered = a - a.mean(ctx.dims, keepdim=True)
        scale = _spread(grad / result, a.shape, ctx.dims, ctx.keepdim) / ctx.divisor
        return scale * centered, None, None, None


def _correction(unbiased, correction):
    if unbiased is not None and correction is not None:
        raise RuntimeError("var(): cannot pass both unbiased and correction")
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def _var_args(a, dim, unbiased, keepdim, correction, name):
    _float_input(a, name)
    if isinstance(dim, bool):           # var(x, False): the old positional unbiased flag
        dim, unbiased = None, dim
    dims = normalize_dims(dim, a.ndim) if dim is not None else tuple(range(a.ndim))
    return dims, _correction(unbiased, correction), keepdim


def var(a, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """The variance over ``dim``, divided by ``N - correction`` (``correction=1`` by default)."""
    dims, c, keepdim = _var_args(a, dim, unbiased, keepdim, correction, "var")
    return Var.apply(a, dims, c, keepdim)


def std(a, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """The standard deviation: the square root of ``var``."""
    dims, c, keepdim = _var_args(a, dim, unbiased, keepdim, correction, "std")
    return Std.apply(a, dims, c, keepdim)


def var_mean(a, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return var(a, dim, unbiased, keepdim, correction=correction), a.mean(dim, keepdim)


def std_mean(a, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return std(a, dim, unbiased, keepdim, correction=correction), a.mean(dim, keepdim)


# ----- norms ---------------------------------------------------------------------------------
class VectorNorm(BuiltinFunction):
    """``(sum |x|^p)^(1/p)`` over dims; p may be inf, -inf or 0."""
    _backward_name = "LinalgVectorNormBackward0"
    _saved_names = ("self", "result")

    @staticmethod
    def forward(ctx, a, p, dims, keepdim):
        x = np.abs(as_float(a))
        if p == math.inf:
            out = x.max(axis=dims, keepdims=keepdim) if x.size else np.zeros(())
        elif p == -math.inf:
            out = x.min(axis=dims, keepdims=keepdim)
        elif p == 0:
            out = (x != 0).sum(axis=dims, keepdims=keepdim).astype(x.dtype)
        elif p == 1:
            out = x.sum(axis=dims, keepdims=keepdim)
        elif p == 2:
            out = np.sqrt((x * x).sum(axis=dims, keepdims=keepdim))
        else:
            out = (x ** p).sum(axis=dims, keepdims=keepdim) ** (1.0 / p)
        result = wrap(np.asarray(out, dtype=x.dtype))
        ctx.save_for_backward(a, result)
        ctx.p, ctx.dims, ctx.keepdim = p, dims, keepdim
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        p = ctx.p
        norm = _spread(result, a.shape, ctx.dims, ctx.keepdim)
        grad = _spread(grad, a.shape, ctx.dims, ctx.keepdim)
        if p == 0:
            return grad * 0, None, None, None
        if p == 1:
            return grad * a.sign(), None, None, None
        if p in (math.inf, -math.inf):
            hits = (a.abs() == norm)
            share = hits / hits.sum(ctx.dims, keepdim=True)
            return grad * a.sign() * share, None, None, None
        if p == 2:
            slope = (a / norm).masked_fill(norm == 0, 0.0)
        else:
            slope = (a * a.abs() ** (p - 2) / norm ** (p - 1)).masked_fill(norm == 0, 0.0)
        return grad * slope, None, None, None


def norm(a, p="fro", dim=None, keepdim=False, dtype=None):
    """The vector norm of order ``p`` over ``dim`` (all elements by default).

    ``"fro"`` and 2 are the square root of the sum of squares; 1 the sum of
    absolute values; ``inf`` the largest absolute value.
    """
    if dtype is not None:
        a = a.to(dtype)
    if p == "fro" or p is None:
        p = 2
    if isinstance(p, str):
        raise RuntimeError(f"norm: order {p!r} is not supported for vectors; use a number, "
                           "inf, or 'fro'")
    if not a.dtype.is_floating_point:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {a.dtype.type_name}")
    dims = normalize_dims(dim, a.ndim) if dim is not None else tuple(range(a.ndim))
    if a.numel() == 0 and p in (math.inf, -math.inf) and not dim:
        raise RuntimeError("linalg.vector_norm cannot compute the inf norm on an empty tensor "
                           "because the operation does not have an identity")
    return VectorNorm.apply(a, float(p), dims, keepdim)


# ----- products and running sums ------------------------------------------------------------
def _others_product(x, axis):
    """For each element, the product of the other elements along ``axis`` (zeros handled)."""
    x = np.moveaxis(x, axis, -1)
    n = x.shape[-1]
    ones = np.ones(x.shape[:-1] + (1,), dtype=x.dtype)
    left = np.concatenate([ones, np.cumprod(x, axis=-1)[..., :n - 1]], axis=-1)
    right = np.concatenate([np.cumprod(x[..., ::-1], axis=-1)[..., :n - 1][..., ::-1], ones],
                           axis=-1)
    return np.moveaxis(left * right, -1, axis)


class Prod(BuiltinFunction):
    """The product of every element."""
    _backward_name = "ProdBackward0"
    _saved_names = ("self", "result")

    @staticmethod
    def forward(ctx, a):
        x = a._data
        dtype = np.int64 if x.dtype.kind in "biu" else x.dtype
        result = wrap(np.asarray(x.prod(dtype=dtype)))
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        if not (a == 0).any():
            return grad * (result / a)
        flat = a._data.reshape(-1)
        others = wrap(_others_product(flat, 0).reshape(a.shape))
        return grad * others


class ProdDim(BuiltinFunction):
    """The product along one dim."""
    _backward_name = "ProdBackward1"
    _saved_names = ("self", "result")

    @staticmethod
    def forward(ctx, a, dim, keepdim):
        x = a._data
        dtype = np.int64 if x.dtype.kind in "biu" else x.dtype
        result = wrap(np.asarray(x.prod(axis=dim, keepdims=keepdim, dtype=dtype)))
        ctx.save_for_backward(a, result)
        ctx.dim, ctx.keepdim = dim, keepdim
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        grad = grad if ctx.keepdim else grad.unsqueeze(ctx.dim)
        if not (a == 0).any():
            full = result if ctx.keepdim else result.unsqueeze(ctx.dim)
            return grad * (full / a), None, None
        others = wrap(_others_product(a._data, ctx.dim))
        return grad * others, None, None


def prod(a, dim=None, keepdim=False, *, dtype=None):
    if dtype is not None:
        a = a.to(dtype)
    if dim is None:
        return Prod.apply(a)
    return ProdDim.apply(a, normalize_dim(dim, a.ndim), keepdim)


class Cumsum(BuiltinFunction):
    _backward_name = "CumsumBackward0"

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        x = a._data
        dtype = np.int64 if x.dtype.kind in "biu" else x.dtype
        return np.cumsum(x, axis=dim, dtype=dtype) if x.ndim else x.astype(dtype)

    @staticmethod
    def backward(ctx, grad):
        if grad.ndim == 0:
            return grad, None
        return grad.flip(ctx.dim).cumsum(ctx.dim).flip(ctx.dim), None


def cumsum(a, dim, *, dtype=None):
    if dtype is not None:
        a = a.to(dtype)
    return Cumsum.apply(a, normalize_dim(dim, a.ndim))


class Cumprod(BuiltinFunction):
    _backward_name = "CumprodBackward0"
    _saved_names = ("self", "result")

    @staticmethod
    def forward(ctx, a, dim):
        x = a._data
        dtype = np.int64 if x.dtype.kind in "biu" else x.dtype
        result = wrap(np.cumprod(x, axis=dim, dtype=dtype) if x.ndim else x.astype(dtype))
        ctx.save_for_backward(a, result)
        ctx.dim = dim
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        if a.ndim == 0:
            return grad, None
        d = ctx.dim
        if not (a == 0).any():
            # d y_j / d x_i = y_j / x_i for j >= i: a reversed running sum of grad * y
            return (grad * result).flip(d).cumsum(d).flip(d) / a, None
        return _cumprod_grad_with_zeros(a, grad, d), None


def _cumprod_grad_with_zeros(a, grad, axis):
    """The cumprod gradient by its definition, ``sum_j grad_j * prod_{k<=j, k!=i} x_k``,
    quadratic in the length but exact with zeros (and still differentiable in ``grad``)."""
    x = np.moveaxis(a._data, axis, -1)
    n = x.shape[-1]
    partials = np.zeros(x.shape[:-1] + (n, n), dtype=x.dtype)      # [..., i, j]
    for i in range(n):
        without_i = x.copy()
        without_i[..., i] = 1
        partials[..., i, i:] = np.cumprod(without_i, axis=-1)[..., i:]
    g = grad.movedim(axis, -1).unsqueeze(-2)                         # [..., 1, j]
    return (g * wrap(partials)).sum(-1).movedim(-1, axis)


def cumprod(a, dim, *, dtype=None):
    if dtype is not None:
        a = a.to(dtype)
    return Cumprod.apply(a, normalize_dim(dim, a.ndim))


class Logsumexp(BuiltinFunction):
    """``log(sum(exp(x)))`` over dims, computed stably (the largest value subtracted first)."""
    _backward_name = "LogsumexpBackward0"
    _saved_names = ("self", "result")

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        x = as_float(a)
        top = np.max(x, axis=dims, keepdims=True) if x.size else np.zeros((1,) * x.ndim, x.dtype)
        top = np.where(np.isfinite(top), top, 0)
        out = np.log(np.exp(x - top).sum(axis=dims, keepdims=True)) + top
        if not keepdim:
            out = out.squeeze(axis=dims) if dims else out
        result = wrap(np.asarray(out, dtype=x.dtype))
        ctx.save_for_backward(a, result)
        ctx.dims, ctx.keepdim = dims, keepdim
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        full = _spread(result, a.shape, ctx.dims, ctx.keepdim)
        return _spread(grad, a.shape, ctx.dims, ctx.keepdim) * (a - full).exp(), None, None


def logsumexp(a, dim, keepdim=False):
    return Logsumexp.apply(a, normalize_dims(dim, a.ndim), keepdim)


class Amax(BuiltinFunction):
    """The largest element over dims; ties share the gradient evenly."""
    _backward_name = "AmaxBackward0"
    _saved_names = ("self", "result")
    _pick = staticmethod(np.max)

    @classmethod
    def forward(cls, ctx, a, dims, keepdim):
        x = a._data
        result = wrap(np.asarray(cls._pick(x, axis=dims, keepdims=keepdim)))
        ctx.save_for_backward(a, result)
        ctx.dims, ctx.keepdim = dims, keepdim
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        full = _spread(result, a.shape, ctx.dims, ctx.keepdim)
        hits = (a == full)
        share = hits / hits.sum(ctx.dims, keepdim=True)
        return _spread(grad, a.shape, ctx.dims, ctx.keepdim) * share, None, None


class Amin(Amax):
    _backward_name = "AminBackward0"
    _pick = staticmethod(np.min)


def _extreme_dims(a, dim, name):
    dims = normalize_dims(dim, a.ndim) if dim not in (None, ()) else tuple(range(a.ndim))
    for d in dims:
        if a.shape and a.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    if a.numel() == 0 and not dims:
        raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                         "input.numel() == 0.")
    return dims


def amax(a, dim=(), keepdim=False):
    return Amax.apply(a, _extreme_dims(a, dim, "amax"), keepdim)


def amin(a, dim=(), keepdim=False):
    return Amin.apply(a, _extreme_dims(a, dim, "amin"), keepdim)

