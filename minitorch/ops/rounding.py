"""Rounding: floor, ceil, round, trunc, frac.

A rounded value is flat between integers, so floor, ceil, round and trunc
have gradient zero everywhere (PyTorch's choice at the jumps too); frac,
``x - trunc(x)``, has gradient one.  On integer tensors they return the
tensor's values unchanged.
"""

import numpy as np

from ._common import BuiltinFunction

__all__ = ["Floor", "Ceil", "Round", "Trunc", "Frac"]


class _Step(BuiltinFunction):
    """A step function: its value moves only at jumps, so its gradient is zero."""
    _numpy = None

    @classmethod
    def forward(cls, ctx, a):
        x = a._data
        return x.copy() if x.dtype.kind in "biu" else cls._numpy(x)

    @staticmethod
    def backward(ctx, grad):
        return grad * 0

    @staticmethod
    def backward_on_arrays(ctx, grad):
        return np.zeros_like(grad)


class Floor(_Step):
    _backward_name = "FloorBackward0"
    _numpy = staticmethod(np.floor)


class Ceil(_Step):
    _backward_name = "CeilBackward0"
    _numpy = staticmethod(np.ceil)


class Trunc(_Step):
    _backward_name = "TruncBackward0"
    _numpy = staticmethod(np.trunc)


class Round(BuiltinFunction):
    """Round half to even, as PyTorch (and numpy) do; ``decimals`` digits after the point."""
    _backward_name = "RoundBackward0"

    @staticmethod
    def forward(ctx, a, decimals):
        x = a._data
        if x.dtype.kind in "biu":
            return x.copy()
        return np.round(x, decimals)

    @staticmethod
    def backward(ctx, grad):
        return grad * 0, None


class Frac(BuiltinFunction):
    """``x - trunc(x)``: the fractional part, with the sign of ``x``."""
    _backward_name = "FracBackward0"

    @staticmethod
    def forward(ctx, a):
        x = a._data
        if x.dtype.kind != "f":
            raise RuntimeError(f'"frac_cpu" not implemented for \'{a.dtype.type_name}\': frac '
                               "needs a floating point tensor")
        return x - np.trunc(x)

    @staticmethod
    def backward(ctx, grad):
        return grad
