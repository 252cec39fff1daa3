"""Arithmetic with broadcasting: + - * / ** and unary minus (chapters 3 and 4).

Each operator is an ``autograd.Function``.  Two shapes that broadcast give
a result of the broadcast shape, so each input's gradient is summed back to
that input's own shape (``unbroadcast``).  A Python number as second operand
gets its own small Function: it needs no gradient and saves nothing.
"""

import math

import numpy as np

from ..autograd.function import Function
from ._util import unbroadcast, promote, broadcast_error


class Builtin(Function):
    """Base of minitorch's own ops: trusted backward, PyTorch's node names."""
    _builtin = True


class Elementwise(Builtin):
    """An op whose backward uses only arithmetic operators (and ``unbroadcast``).

    Such a formula means the same on numpy arrays as on tensors, so when no
    graph of the gradient is wanted (no ``create_graph``) the engine runs it on
    the arrays directly, skipping the tensor machinery (``_array_backward``).
    """
    _array_backward = True


def _binary(op, a, b):
    try:
        out = op(a._data, b._data)
    except ValueError:
        raise broadcast_error(a._data, b._data) from None
    if out.dtype != a._data.dtype:
        out = promote(out, a._data, b._data)
    return out


def _with_scalar(op, a, s):
    out = op(a._data, s)
    if out.dtype is not a._data.dtype:
        out = promote(out, a._data)
    return out


class Add(Elementwise):
    _backward_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, b):
        if a._data.shape != b._data.shape:
            ctx.shapes = (a._data.shape, b._data.shape)
        return _binary(np.add, a, b)

    @staticmethod
    def backward(ctx, grad):
        shapes = ctx.__dict__.get("shapes")
        if shapes is None:
            return grad, grad
        return unbroadcast(grad, shapes[0]), unbroadcast(grad, shapes[1])


class AddScalar(Elementwise):
    _backward_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, s):
        return _with_scalar(np.add, a, s)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class SubScalar(Elementwise):
    _backward_name = "SubBackward0"

    @staticmethod
    def forward(ctx, a, s):
        return _with_scalar(np.subtract, a, s)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class Sub(Elementwise):
    _backward_name = "SubBackward0"

    @staticmethod
    def forward(ctx, a, b):
        if a._data.shape != b._data.shape:
            ctx.shapes = (a._data.shape, b._data.shape)
        return _binary(np.subtract, a, b)

    @staticmethod
    def backward(ctx, grad):
        shapes = ctx.__dict__.get("shapes")
        if shapes is None:
            return grad, -grad if ctx.needs_input_grad[1] else None
        gb = unbroadcast(-grad, shapes[1]) if ctx.needs_input_grad[1] else None
        return unbroadcast(grad, shapes[0]), gb


class RSubScalar(Elementwise):
    """``s - a`` for a Python number ``s``."""
    _backward_name = "RsubBackward1"

    @staticmethod
    def forward(ctx, a, s):
        return _with_scalar(lambda x, y: y - x, a, s)

    @staticmethod
    def backward(ctx, grad):
        return -grad, None


class Neg(Elementwise):
    _backward_name = "NegBackward0"

    @staticmethod
    def forward(ctx, a):
        return np.negative(a._data)

    @staticmethod
    def backward(ctx, grad):
        return -grad


class Mul(Elementwise):
    _backward_name = "MulBackward0"
    _saved_names = ("self", "other")

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _binary(np.multiply, a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        ga = unbroadcast(grad * b, a.shape) if need_a else None
        gb = unbroadcast(grad * a, b.shape) if need_b else None
        return ga, gb


class MulScalar(Elementwise):
    _backward_name = "MulBackward0"

    @staticmethod
    def forward(ctx, a, s):
        ctx._saved_other = s
        return _with_scalar(np.multiply, a, s)

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx._saved_other, None


class Div(Elementwise):
    _backward_name = "DivBackward0"
    _saved_names = ("self", "other")

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _binary(np.true_divide, a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        ga = unbroadcast(grad / b, a.shape) if need_a else None
        gb = unbroadcast(-grad * a / (b * b), b.shape) if need_b else None
        return ga, gb


class DivScalar(Elementwise):
    _backward_name = "DivBackward0"

    @staticmethod
    def forward(ctx, a, s):
        ctx._saved_other = s
        return _with_scalar(np.true_divide, a, s)

    @staticmethod
    def backward(ctx, grad):
        return grad / ctx._saved_other, None


class RDivScalar(Elementwise):
    """``s / a`` for a Python number ``s``."""
    _backward_name = "DivBackward0"
    _saved_names = ("other",)

    @staticmethod
    def forward(ctx, a, s):
        ctx.save_for_backward(a)
        ctx._saved_self = s
        return _with_scalar(lambda x, y: y / x, a, s)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return -grad * ctx._saved_self / (a * a), None


class PowScalar(Elementwise):
    """``a ** exponent`` for a Python number exponent; saves ``a`` (``_saved_self``)."""
    _backward_name = "PowBackward0"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, exponent):
        ctx.save_for_backward(a)
        ctx._saved_exponent = exponent
        return _with_scalar(np.power, a, exponent)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        e = ctx._saved_exponent
        if e == 0:
            return grad * 0.0, None
        return grad * e * a ** (e - 1), None


class Pow(Builtin):
    """``a ** b`` for two tensors."""
    _backward_name = "PowBackward1"
    _saved_names = ("self", "exponent")

    @staticmethod
    def forward(ctx, a, b):
        out = _binary(np.power, a, b)
        ctx.save_for_backward(a, b)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        ga = unbroadcast(grad * b * a ** (b - 1), a.shape) if need_a else None
        if need_b:
            # d(a**b)/db = a**b * log(a), taken as 0 where a == 0 (PyTorch's choice)
            gb = grad * a ** b * a.log().masked_fill(a == 0, 0.0)
            gb = unbroadcast(gb, b.shape)
        else:
            gb = None
        return ga, gb


class RPowScalar(Elementwise):
    """``s ** a`` for a Python number base ``s``."""
    _backward_name = "PowBackward2"
    _saved_names = ("exponent",)

    @staticmethod
    def forward(ctx, a, base):
        ctx.save_for_backward(a)
        ctx._saved_self = base
        return _with_scalar(lambda x, y: np.power(y, x), a, base)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        base = ctx._saved_self
        if base <= 0:
            return grad * 0.0, None
        return grad * (base ** a) * math.log(base), None
