"""More exponentials and logarithms: log1p, expm1, log2, log10, exp2, rsqrt, erf, lerp.

``log1p(x) = log(1 + x)`` and ``expm1(x) = exp(x) - 1`` exist because they stay
accurate for tiny ``x``, where ``1 + x`` rounds to 1.  Their derivatives:

    log1p' = 1/(1 + x)      expm1' = expm1(x) + 1     log2' = 1/(x ln 2)
    log10' = 1/(x ln 10)    exp2' = exp2(x) ln 2      rsqrt' = -rsqrt(x)^3 / 2
    erf' = 2/sqrt(pi) exp(-x^2)
"""

import math

import numpy as np

from .._tensor import Tensor
from ._common import BuiltinFunction, as_float, binary_operands, unbroadcast, wrap

__all__ = ["Log1p", "Expm1", "Log2", "Log10", "Exp2", "Rsqrt", "Erf", "Lerp", "lerp"]

_LN2, _LN10 = math.log(2.0), math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


class _OfInput(BuiltinFunction):
    """One input, derivative written with the input."""
    _saved_names = ("self",)
    _numpy = None

    @classmethod
    def forward(cls, ctx, a):
        ctx.save_for_backward(a)
        return cls._numpy(as_float(a))


class _OfResult(BuiltinFunction):
    """One input, derivative written with the result."""
    _saved_names = ("result",)
    _numpy = None

    @classmethod
    def forward(cls, ctx, a):
        result = wrap(np.asarray(cls._numpy(as_float(a))))
        ctx.save_for_backward(result)
        return result


class Log1p(_OfInput):
    _backward_name = "Log1PBackward0"
    _numpy = staticmethod(np.log1p)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad / (a + 1)


class Expm1(_OfResult):
    _backward_name = "Expm1Backward0"
    _numpy = staticmethod(np.expm1)

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return grad * (result + 1)


class Log2(_OfInput):
    _backward_name = "Log2Backward0"
    _numpy = staticmethod(np.log2)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad / (a * _LN2)


class Log10(_OfInput):
    _backward_name = "Log10Backward0"
    _numpy = staticmethod(np.log10)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad / (a * _LN10)


class Exp2(_OfResult):
    _backward_name = "Exp2Backward0"
    _numpy = staticmethod(np.exp2)

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return grad * (result * _LN2)


class Rsqrt(_OfResult):
    _backward_name = "RsqrtBackward0"

    @staticmethod
    def _numpy(x):
        return 1 / np.sqrt(x)

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return grad * (result * result * result * -0.5)


def _erf(x):
    """The error function, elementwise (numpy has none; ``math.erf`` is exact)."""
    values = np.frompyfunc(math.erf, 1, 1)(x)
    return np.asarray(values, dtype=x.dtype).reshape(x.shape)


class Erf(_OfInput):
    _backward_name = "ErfBackward0"
    _numpy = staticmethod(_erf)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad * ((-(a * a)).exp() * _TWO_OVER_SQRT_PI)


class Lerp(BuiltinFunction):
    """``start + weight * (end - start)``; ``weight`` a number or a tensor."""
    _backward_name = "LerpBackward0"

    @staticmethod
    def forward(ctx, start, end, weight):
        w_is_tensor = isinstance(weight, Tensor)
        ctx.save_for_backward(start, end, weight if w_is_tensor else None)
        ctx.number = None if w_is_tensor else weight
        ctx.shapes = start._data.shape, end._data.shape
        a, b = binary_operands(start, end)
        w = weight._data.astype(a.dtype, copy=False) if w_is_tensor else weight
        return a + w * (b - a)

    @staticmethod
    def backward(ctx, grad):
        start, end, weight = ctx.saved_tensors
        need_start, need_end, need_weight = ctx.needs_input_grad
        w = weight if weight is not None else ctx.number
        grad_start = unbroadcast(grad * (1 - w), ctx.shapes[0]) if need_start else None
        grad_end = unbroadcast(grad * w, ctx.shapes[1]) if need_end else None
        grad_weight = unbroadcast(grad * (end - start), weight.shape) if need_weight else None
        return grad_start, grad_end, grad_weight


def lerp(start, end, weight):
    """``start + weight * (end - start)``, elementwise."""
    if not isinstance(end, Tensor):
        raise TypeError(f"lerp(): argument 'end' (position 1) must be Tensor, not "
                        f"{type(end).__name__}")
    if not isinstance(weight, (Tensor, int, float)):
        raise TypeError(f"lerp(): argument 'weight' (position 2) must be Tensor or Number, "
                        f"not {type(weight).__name__}")
    if start.dtype != end.dtype:
        raise RuntimeError(f"expected dtype {start.dtype.type_name} for `end` but got dtype "
                           f"{end.dtype.type_name}")
    return Lerp.apply(start, end, weight)

