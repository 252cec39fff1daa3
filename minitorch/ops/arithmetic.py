"""Arithmetic with broadcasting: + - * / ** and unary minus (chapters 3 and 6).

Each operator is an ``autograd.Function``.  Two shapes that broadcast give a
result of the broadcast shape, so each input's gradient is summed back to
that input's own shape (``unbroadcast``, chapter 3).  The result's dtype
follows PyTorch's promotion rules (``minitorch._dtype.result_type``).

A Python number may stand on either side.  PyTorch treats it as an input
that needs no gradient, so ``(x + 2).grad_fn.next_functions`` shows
``(None, 0)`` for it; these ops say so with ``_wraps_numbers``.
"""

import math

import numpy as np

from .._tensor import Tensor
from ._common import (BuiltinFunction, unbroadcast, sum_to_shape, binary_operands,
                      broadcast_error, float_dtype_of, wrap)

__all__ = ["Add", "AddScalar", "Sub", "SubScalar", "RSub", "Mul", "MulScalar", "Div", "DivScalar",
           "Reciprocal", "Neg", "Pow", "PowScalar", "RPow", "Remainder", "FloorDivide",
           "add", "sub", "mul", "div", "rsub", "rdiv", "pow", "rpow", "remainder", "floor_divide",
           "operand"]


def _compute(op, x, y):
    """``op(x, y)`` on numpy values, with numpy's shape error restated as PyTorch's."""
    try:
        return op(x, y)
    except ValueError:
        raise broadcast_error(x, y) from None


def operand(x):
    """The other side of an operator as a tensor or a Python number, or NotImplemented
    (so Python can try the other operand's method) for anything else."""
    if type(x) is float or isinstance(x, (Tensor, int, float)):
        return x
    if isinstance(x, np.generic) and x.dtype.kind in "biuf":
        return x.item()
    if isinstance(x, np.ndarray):
        return Tensor._from_numpy_copy(x)
    return NotImplemented


# ----- + and - -------------------------------------------------------------------------------
class Add(BuiltinFunction):
    _backward_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.shapes = a._data.shape, b._data.shape
        x, y = binary_operands(a, b)
        return _compute(np.add, x, y)

    @staticmethod
    def backward(ctx, grad):
        shape_a, shape_b = ctx.shapes
        need_a, need_b = ctx.needs_input_grad
        return (unbroadcast(grad, shape_a) if need_a else None,
                unbroadcast(grad, shape_b) if need_b else None)

    @staticmethod
    def backward_on_arrays(ctx, grad):
        shape_a, shape_b = ctx.shapes
        need_a, need_b = ctx.needs_input_grad
        return (sum_to_shape(grad, shape_a) if need_a else None,
                sum_to_shape(grad, shape_b) if need_b else None)


class AddScalar(BuiltinFunction):
    """``a + number``: the number needs no gradient, and nothing is saved."""
    _backward_name = "AddBackward0"
    _wraps_numbers = True

    @staticmethod
    def forward(ctx, a, number):
        x, y = binary_operands(a, number)
        return np.add(x, y)

    @staticmethod
    def backward(ctx, grad):
        return grad, None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        return grad, None


class Sub(BuiltinFunction):
    _backward_name = "SubBackward0"

    @staticmethod
    def forward(ctx, a, b):
        _refuse_bool_subtraction(a, b)
        ctx.shapes = a._data.shape, b._data.shape
        x, y = binary_operands(a, b)
        return _compute(np.subtract, x, y)

    @staticmethod
    def backward(ctx, grad):
        shape_a, shape_b = ctx.shapes
        need_a, need_b = ctx.needs_input_grad
        return (unbroadcast(grad, shape_a) if need_a else None,
                unbroadcast(-grad, shape_b) if need_b else None)

    @staticmethod
    def backward_on_arrays(ctx, grad):
        shape_a, shape_b = ctx.shapes
        need_a, need_b = ctx.needs_input_grad
        return (sum_to_shape(grad, shape_a) if need_a else None,
                sum_to_shape(-grad, shape_b) if need_b else None)


class SubScalar(BuiltinFunction):
    _backward_name = "SubBackward0"
    _wraps_numbers = True

    @staticmethod
    def forward(ctx, a, number):
        _refuse_bool_subtraction(a, number)
        x, y = binary_operands(a, number)
        return np.subtract(x, y)

    @staticmethod
    def backward(ctx, grad):
        return grad, None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        return grad, None


class RSub(BuiltinFunction):
    """``number - a``."""
    _backward_name = "RsubBackward1"

    @staticmethod
    def forward(ctx, a, number):
        _refuse_bool_subtraction(a, number)
        x, y = binary_operands(a, number)
        return np.subtract(y, x)

    @staticmethod
    def backward(ctx, grad):
        return -grad, None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        return -grad, None


def _refuse_bool_subtraction(a, b):
    if a.dtype.name == "bool" and (isinstance(b, bool) or isinstance(b, Tensor) and
                                   b.dtype.name == "bool"):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")


# ----- * and / -----------------------------------------------------------------------------
class Mul(BuiltinFunction):
    _backward_name = "MulBackward0"
    _saved_names = ("other", "self")

    @staticmethod
    def forward(ctx, a, b):
        # d(a*b)/da = b: each input is kept only if the *other* needs a gradient.
        # (PyTorch saves `other` first; saved-tensor hooks see them in that order.)
        need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(b if need_a else None, a if need_b else None)
        ctx.shapes = a._data.shape, b._data.shape
        x, y = binary_operands(a, b)
        return _compute(np.multiply, x, y)

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 6.2
        b, a = ctx.saved_tensors
        shape_a, shape_b = ctx.shapes
        grad_a = unbroadcast(grad * b, shape_a) if b is not None else None
        grad_b = unbroadcast(grad * a, shape_b) if a is not None else None
        ### END SOLUTION 6.2
        return grad_a, grad_b


class MulScalar(BuiltinFunction):
    """``a * number``."""
    _backward_name = "MulBackward0"
    _wraps_numbers = True

    @staticmethod
    def forward(ctx, a, number):
        ctx.number = number
        x, y = binary_operands(a, number)
        return np.multiply(x, y)

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.number, None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        return grad * ctx.number, None


class Div(BuiltinFunction):
    _backward_name = "DivBackward0"
    _saved_names = ("other", "self")

    @staticmethod
    def forward(ctx, a, b):
        # d(a/b)/da = 1/b needs b; d(a/b)/db = -a/b**2 needs both.
        need_b = ctx.needs_input_grad[1]
        ctx.save_for_backward(b, a if need_b else None)
        ctx.shapes = a._data.shape, b._data.shape
        x, y = binary_operands(a, b, float_dtype_of(a, b))
        return _compute(np.true_divide, x, y)

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 6.3
        b, a = ctx.saved_tensors
        shape_a, shape_b = ctx.shapes
        need_a, need_b = ctx.needs_input_grad
        grad_a = unbroadcast(grad / b, shape_a) if need_a else None
        grad_b = unbroadcast(-grad * a / (b * b), shape_b) if need_b else None
        ### END SOLUTION 6.3
        return grad_a, grad_b


class DivScalar(BuiltinFunction):
    """``a / number``."""
    _backward_name = "DivBackward0"
    _wraps_numbers = True

    @staticmethod
    def forward(ctx, a, number):
        ctx.number = number
        x, y = binary_operands(a, number, float_dtype_of(a, number))
        return np.true_divide(x, y)

    @staticmethod
    def backward(ctx, grad):
        return grad / ctx.number, None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        return grad / ctx.number, None


class Reciprocal(BuiltinFunction):
    """``1 / a``; ``number / a`` is ``reciprocal(a) * number``, as in PyTorch."""
    _backward_name = "ReciprocalBackward0"
    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        x, one = binary_operands(a, 1, float_dtype_of(a))
        result = wrap(np.true_divide(one, x))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return -grad * (result * result)


class Neg(BuiltinFunction):
    _backward_name = "NegBackward0"

    @staticmethod
    def forward(ctx, a):
        if a.dtype.name == "bool":
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                               "If you are trying to invert a mask, use the `~` or "
                               "`logical_not()` operator instead.")
        return np.negative(a._data)

    @staticmethod
    def backward(ctx, grad):
        return -grad

    @staticmethod
    def backward_on_arrays(ctx, grad):
        return -grad


# ----- picking the Function for a tensor or a number operand ---------------------------------
def _binary(tensor_fn, number_fn):
    def op(a, b):
        if type(b) is float or type(b) is int:
            return number_fn.apply(a, b)
        if isinstance(b, Tensor):
            return tensor_fn.apply(a, b)
        b = operand(b)
        if b is NotImplemented:
            return NotImplemented
        return tensor_fn.apply(a, b) if isinstance(b, Tensor) else number_fn.apply(a, b)
    op.__name__ = tensor_fn.__name__.lower()
    op.__doc__ = (f"``a {tensor_fn.__name__.lower()} b`` with ``{tensor_fn.__name__}`` for a "
                  f"tensor ``b`` and ``{number_fn.__name__}`` for a number.")
    return op


add = _binary(Add, AddScalar)
sub = _binary(Sub, SubScalar)
mul = _binary(Mul, MulScalar)
div = _binary(Div, DivScalar)


def rsub(a, number):
    """``number - a`` (Python calls ``a.__rsub__(number)``)."""
    number = operand(number)
    if number is NotImplemented:
        return NotImplemented
    return RSub.apply(a, number) if not isinstance(number, Tensor) else Sub.apply(number, a)


def rdiv(a, number):
    """``number / a``."""
    number = operand(number)
    if number is NotImplemented:
        return NotImplemented
    if isinstance(number, Tensor):
        return Div.apply(number, a)
    return MulScalar.apply(Reciprocal.apply(a), number)


# ----- powers ------------------------------------------------------------------------------
def _power(x, y):
    if x.dtype.kind in "iub" and np.any(np.asarray(y) < 0):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return np.power(x, y)


class PowScalar(BuiltinFunction):
    """``a ** exponent`` for a Python number exponent."""
    _backward_name = "PowBackward0"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, exponent):
        ctx.save_for_backward(a)
        ctx._saved_exponent = exponent
        x, e = binary_operands(a, exponent)
        return _power(x, e)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        e = ctx._saved_exponent
        if e == 0:
            return grad * 0, None
        ### BEGIN SOLUTION 6.4
        # The factor first: one temporary fewer is alive at a time.
        return grad * (a ** (e - 1) * e), None
        ### END SOLUTION 6.4


class Pow(BuiltinFunction):
    """``a ** b`` for two tensors."""
    _backward_name = "PowBackward1"
    _saved_names = ("exponent", "self", "result")

    @staticmethod
    def forward(ctx, a, b):
        x, y = binary_operands(a, b)
        result = wrap(_compute(_power, x, y))
        ctx.save_for_backward(b, a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        b, a, result = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        grad_a = grad_b = None
        if need_a:
            # b * a**(b-1), taken as 0 where b == 0 (so 0 ** 0 has gradient 0, not nan)
            slope = (b * a ** (b - 1)).masked_fill(b == 0, 0.0)
            grad_a = unbroadcast(grad * slope, a.shape)
        if need_b:
            # a**b * log(a), taken as 0 where a == 0 and b >= 0 (PyTorch's choice)
            slope = (result * a.log()).masked_fill((a == 0) & (b >= 0), 0.0)
            grad_b = unbroadcast(grad * slope, b.shape)
        return grad_a, grad_b


class RPow(BuiltinFunction):
    """``base ** a`` for a Python number ``base``."""
    _backward_name = "PowBackward2"
    _saved_names = ("exponent", "result")

    @staticmethod
    def forward(ctx, a, base):
        e, s = binary_operands(a, base)
        result = wrap(_power(np.asarray(s), e))
        ctx.save_for_backward(a, result)
        ctx._saved_self = base
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        base = ctx._saved_self
        if base == 0:     # 0 ** a: no slope where a >= 0, -inf (times 0 ** a) elsewhere
            return grad * (result * -math.inf).masked_fill(a >= 0, 0.0), None
        return grad * (result * float(np.log(base))), None


def pow(a, exponent):
    """``a ** exponent``: ``Pow`` for a tensor exponent, ``PowScalar`` for a number."""
    exponent = operand(exponent)
    if exponent is NotImplemented:
        return NotImplemented
    if isinstance(exponent, Tensor):
        return Pow.apply(a, exponent)
    return PowScalar.apply(a, exponent)


def rpow(a, base):
    """``base ** a`` for a number ``base``."""
    base = operand(base)
    if base is NotImplemented:
        return NotImplemented
    return Pow.apply(base, a) if isinstance(base, Tensor) else RPow.apply(a, base)


# ----- remainders: their gradient is 1 almost everywhere -----------------------------------
class Remainder(BuiltinFunction):
    """``a % b``, with the sign of ``b`` as Python's ``%``; ``b`` a tensor or a number."""
    _backward_name = "RemainderBackward1"

    @staticmethod
    def forward(ctx, a, b):
        x, y = binary_operands(a, b)
        if x.dtype.kind in "iu" and np.any(np.asarray(y) == 0):
            raise RuntimeError("ZeroDivisionError: the divisor of % is 0 in an integer tensor")
        ctx.save_for_backward(a, b if isinstance(b, Tensor) else None)
        ctx.shapes = a._data.shape, (b._data.shape if isinstance(b, Tensor) else ())
        return _compute(np.remainder, x, y)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        grad_a = unbroadcast(grad, ctx.shapes[0]) if need_a else None
        grad_b = unbroadcast(-grad * (a / b).floor(), ctx.shapes[1]) if need_b else None
        return grad_a, grad_b


class RemainderScalar(Remainder):
    _backward_name = "RemainderBackward0"


def remainder(a, b):
    b = operand(b)
    if b is NotImplemented:
        return NotImplemented
    return (Remainder if isinstance(b, Tensor) else RemainderScalar).apply(a, b)


class FloorDivide(BuiltinFunction):
    """``a // b``: a step function, whose derivative PyTorch does not implement."""
    _backward_name = "torch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx, a, b):
        x, y = binary_operands(a, b)
        if x.dtype.kind in "iu" and np.any(np.asarray(y) == 0):
            raise RuntimeError("ZeroDivisionError: the divisor of // is 0 in an integer tensor")
        return _compute(np.floor_divide, x, y)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::floor_divide is not implemented")


def floor_divide(a, b):
    b = operand(b)
    return NotImplemented if b is NotImplemented else FloorDivide.apply(a, b)
