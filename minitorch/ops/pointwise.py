"""Elementwise math: exp, log, sqrt, abs, relu, sigmoid, tanh, clamp, masked_fill (chapters 3 and 4).

Each saves what its derivative needs and nothing more.  ``exp``, ``sqrt``,
``sigmoid`` and ``tanh`` save their *result* (``grad_fn._saved_result``): the
derivative is cheapest written in terms of the output.  The others save their
input (``grad_fn._saved_self``).  At points where the function has no
derivative, the values follow PyTorch: relu'(0) = 0, abs'(0) = 0,
sqrt'(0) = inf.
"""

import numpy as np

from .._tensor import Tensor
from .arithmetic import Builtin, Elementwise

wrap = Tensor._wrap


class Exp(Elementwise):
    _backward_name = "ExpBackward0"
    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        result = wrap(np.exp(a._data))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return grad * result


class Log(Elementwise):
    _backward_name = "LogBackward0"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.log(a._data)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad / a


class Sqrt(Elementwise):
    _backward_name = "SqrtBackward0"
    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        result = wrap(np.sqrt(a._data))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return grad / (result * 2)


class Abs(Builtin):
    _backward_name = "AbsBackward0"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.abs(a._data)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad * a.sign()


class Sign(Builtin):
    _backward_name = "SignBackward0"

    @staticmethod
    def forward(ctx, a):
        return np.sign(a._data)

    @staticmethod
    def backward(ctx, grad):
        return grad * 0


class Relu(Elementwise):
    _backward_name = "ReluBackward0"
    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        result = wrap(np.maximum(a._data, 0, dtype=a._data.dtype))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return grad * (result > 0)


class Sigmoid(Elementwise):
    _backward_name = "SigmoidBackward0"
    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        x = a._data
        # Two branches so that neither exp can overflow.
        e = np.exp(-np.abs(x))
        out = np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)
        result = wrap(out)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return grad * result * (1 - result)


class Tanh(Elementwise):
    _backward_name = "TanhBackward0"
    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        result = wrap(np.tanh(a._data))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return grad * (1 - result * result)


class Clamp(Builtin):
    _backward_name = "ClampBackward1"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, low, high):
        ctx.save_for_backward(a)
        ctx._saved_min, ctx._saved_max = low, high
        return np.clip(a._data, low, high).astype(a._data.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        x = a._data
        outside = np.zeros(x.shape, dtype=bool)
        if ctx._saved_min is not None:
            outside |= x < ctx._saved_min
        if ctx._saved_max is not None:
            outside |= x > ctx._saved_max
        return grad.masked_fill(outside, 0.0), None, None


class MaskedFill(Builtin):
    """``a`` with the positions where ``mask`` (a bool array) is True set to ``value``."""
    _backward_name = "MaskedFillBackward0"

    @staticmethod
    def forward(ctx, a, mask, value):
        ctx.mask = mask
        out = a._data.copy()
        out[np.broadcast_to(mask, out.shape)] = value
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad.masked_fill(ctx.mask, 0.0), None, None
