"""Trigonometric and hyperbolic functions: sin, cos, tan, their inverses, sinh, cosh, atan2.

Each is a Function whose backward is the derivative of calculus, written
with tensor ops (so it can be differentiated again):

    sin' = cos      cos' = -sin      tan' = 1 + tan^2
    asin' = 1/sqrt(1 - x^2)          acos' = -1/sqrt(1 - x^2)
    atan' = 1/(1 + x^2)              sinh' = cosh      cosh' = sinh

An integer tensor gives a floating point result, of the default dtype.
"""

import numpy as np

from ._common import BuiltinFunction, as_float, binary_operands, float_dtype_of, unbroadcast, wrap

__all__ = ["Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Atan2"]


class _SavesInput(BuiltinFunction):
    """A function of one input whose derivative is written in terms of that input."""
    _saved_names = ("self",)
    _numpy = None

    @classmethod
    def forward(cls, ctx, a):
        ctx.save_for_backward(a)
        return cls._numpy(as_float(a))


class Sin(_SavesInput):
    _backward_name = "SinBackward0"
    _numpy = staticmethod(np.sin)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad * a.cos()


class Cos(_SavesInput):
    _backward_name = "CosBackward0"
    _numpy = staticmethod(np.cos)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad * -a.sin()


class Tan(BuiltinFunction):
    _backward_name = "TanBackward0"
    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        result = wrap(np.tan(as_float(a)))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return grad * (result * result + 1)


class Asin(_SavesInput):
    _backward_name = "AsinBackward0"
    _numpy = staticmethod(np.arcsin)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad / (1 - a * a).sqrt()


class Acos(_SavesInput):
    _backward_name = "AcosBackward0"
    _numpy = staticmethod(np.arccos)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return -grad / (1 - a * a).sqrt()


class Atan(_SavesInput):
    _backward_name = "AtanBackward0"
    _numpy = staticmethod(np.arctan)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad / (a * a + 1)


class Sinh(_SavesInput):
    _backward_name = "SinhBackward0"
    _numpy = staticmethod(np.sinh)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad * a.cosh()


class Cosh(_SavesInput):
    _backward_name = "CoshBackward0"
    _numpy = staticmethod(np.cosh)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad * a.sinh()


class Atan2(BuiltinFunction):
    """The angle of the point ``(other, self)``: ``atan2(y, x)``."""
    _backward_name = "Atan2Backward0"
    _saved_names = ("other", "self")

    @staticmethod
    def forward(ctx, y, x):
        ctx.save_for_backward(x, y)
        a, b = binary_operands(y, x, float_dtype_of(y, x))
        return np.arctan2(a, b)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        need_y, need_x = ctx.needs_input_grad
        scale = grad / (x * x + y * y)
        return (unbroadcast(scale * x, y.shape) if need_y else None,
                unbroadcast(-scale * y, x.shape) if need_x else None)
