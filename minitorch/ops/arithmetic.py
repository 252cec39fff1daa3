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

from .._dtype import result_type
from .._tensor import Tensor
from ..autograd.saved import FREED_MESSAGE
from ._common import (BuiltinBackward, BuiltinFunction, unbroadcast, unbroadcast_array,
                      binary_operands, number_operands, shapes_if_broadcast, number_like, broadcast_error,
                      float_dtype_of, node_attribute, type_name_of, wrap)

__all__ = ["Add", "AddScalar", "AddAlpha", "Sub", "SubScalar", "SubAlpha", "RSub", "Mul",
           "MulScalar", "MulByNumber", "Div", "DivScalar", "DivByNumber",
           "Reciprocal", "Neg", "Pow", "PowScalar", "RPow", "Remainder", "FloorDivide",
           "add", "sub", "mul", "div", "rsub", "rdiv", "pow", "rpow", "remainder", "floor_divide",
           "operand", "add_alpha", "sub_alpha", "check_alpha"]


def _compute(op, x, y):
    """``op(x, y)`` on numpy values, with numpy's shape error restated as PyTorch's."""
    try:
        return op(x, y)
    except ValueError:
        raise broadcast_error(x, y) from None


def operand(x):
    """The other side of an operator as a tensor or a Python number, or NotImplemented
    (so Python can try the other operand's method) for anything else.  A numpy scalar
    counts as the Python number it holds, a numpy array as a tensor (a copy)."""
    if type(x) is float or type(x) is int or isinstance(x, Tensor):
        return x
    if isinstance(x, np.generic):
        return x.item() if x.dtype.kind in "biuf" else NotImplemented
    if isinstance(x, (int, float)):
        return x
    if isinstance(x, np.ndarray):
        return Tensor._from_numpy_copy(x)
    return NotImplemented


# ----- + and - -------------------------------------------------------------------------------
class Add(BuiltinFunction):
    _backward_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.shapes = shapes_if_broadcast(a, b)
        x, y = binary_operands(a, b)
        return _compute(np.add, x, y)

    @staticmethod
    def backward(ctx, grad):
        shape_a, shape_b = ctx.shapes or (grad.shape, grad.shape)
        need_a, need_b = ctx.needs_input_grad
        return (unbroadcast(grad, shape_a) if need_a else None,
                unbroadcast(grad, shape_b) if need_b else None)

    @staticmethod
    def backward_on_arrays(ctx, grad):
        shape_a, shape_b = ctx.shapes or (grad.shape, grad.shape)
        need_a, need_b = ctx.needs_input_grad
        return (unbroadcast_array(grad, shape_a) if need_a else None,
                unbroadcast_array(grad, shape_b) if need_b else None)


class AddScalar(BuiltinFunction):
    """``a + number``: the number needs no gradient, and nothing is saved."""
    _backward_name = "AddBackward0"
    _wraps_numbers = True

    @staticmethod
    def forward(ctx, a, number):
        x, y = number_operands(a, number)
        return np.add(x, y)

    @staticmethod
    def backward(ctx, grad):
        return grad, None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        return grad, None


class AddAlpha(BuiltinFunction):
    """``a + alpha * b`` for two tensors, in one node (``a.add(b, alpha=2)``)."""
    _backward_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, b, alpha):
        ctx.shapes, ctx.alpha = (a._data.shape, b._data.shape), alpha
        x, y = binary_operands(a, b)
        return _compute(np.add, x, np.multiply(y, alpha, dtype=y.dtype))

    @staticmethod
    def backward(ctx, grad):
        shape_a, shape_b = ctx.shapes
        need_a, need_b = ctx.needs_input_grad[:2]
        return (unbroadcast(grad, shape_a) if need_a else None,
                unbroadcast(grad * ctx.alpha, shape_b) if need_b else None, None)

    @staticmethod
    def backward_on_arrays(ctx, grad):
        shape_a, shape_b = ctx.shapes
        need_a, need_b = ctx.needs_input_grad[:2]
        return (unbroadcast_array(grad, shape_a) if need_a else None,
                unbroadcast_array(grad * ctx.alpha, shape_b) if need_b else None, None)


class Sub(BuiltinFunction):
    _backward_name = "SubBackward0"

    @staticmethod
    def forward(ctx, a, b):
        if a._data.dtype.kind == "b" or b._data.dtype.kind == "b":
            _refuse_bool_subtraction(a, b)
        ctx.shapes = shapes_if_broadcast(a, b)
        x, y = binary_operands(a, b)
        return _compute(np.subtract, x, y)

    @staticmethod
    def backward(ctx, grad):
        shape_a, shape_b = ctx.shapes or (grad.shape, grad.shape)
        need_a, need_b = ctx.needs_input_grad
        return (unbroadcast(grad, shape_a) if need_a else None,
                unbroadcast(-grad, shape_b) if need_b else None)

    @staticmethod
    def backward_on_arrays(ctx, grad):
        shape_a, shape_b = ctx.shapes or (grad.shape, grad.shape)
        need_a, need_b = ctx.needs_input_grad
        return (unbroadcast_array(grad, shape_a) if need_a else None,
                unbroadcast_array(-grad, shape_b) if need_b else None)


class SubAlpha(AddAlpha):
    """``a - alpha * b`` for two tensors, in one node."""
    _backward_name = "SubBackward0"

    @staticmethod
    def forward(ctx, a, b, alpha):
        return AddAlpha.forward(ctx, a, b, -alpha)


class SubScalar(BuiltinFunction):
    _backward_name = "SubBackward0"
    _wraps_numbers = True

    @staticmethod
    def forward(ctx, a, number):
        if type(number) is bool or a._data.dtype.kind == "b":
            _refuse_bool_subtraction(a, number)
        x, y = number_operands(a, number)
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
        if type(number) is bool or a._data.dtype.kind == "b":
            _refuse_bool_subtraction(a, number)
        x, y = number_operands(a, number)
        return np.subtract(y, x)

    @staticmethod
    def backward(ctx, grad):
        return -grad, None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        return -grad, None


def _is_bool(x):
    return x._data.dtype.kind == "b" if isinstance(x, Tensor) else isinstance(x, (bool, np.bool_))


def _refuse_bool_subtraction(a, b):
    """PyTorch refuses ``-`` when either side is a bool (a tensor or a Python bool)."""
    if _is_bool(a) and _is_bool(b):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if _is_bool(a) or _is_bool(b):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not "
                           "supported. If you are trying to invert a mask, use the `~` or "
                           "`logical_not()` operator instead.")


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
        b, a = ctx.saved_tensors
        shape_a, shape_b = ctx.shapes
        grad_a = unbroadcast(grad * b, shape_a) if b is not None else None
        grad_b = unbroadcast(grad * a, shape_b) if a is not None else None
        return grad_a, grad_b


class NumberSavingBackward(BuiltinBackward):
    """The node of ``a * number`` or ``a / number``.  As in PyTorch, the number counts as a
    saved value (``grad_fn._saved_other``, a 0-d tensor): backward frees it, so running
    the graph a second time fails as it does for saved tensors (unless retain_graph)."""

    __slots__ = ("number",)

    @property
    def _saved_other(self):
        number = saved_number(self)
        return wrap(np.asarray(number, dtype=np.bool_ if type(number) is bool else
                               np.int64 if type(number) is int else np.float64))

    _saved_self = None              # only kept when the number needs a gradient: never

    def _release_saved(self):
        self.number = None


def saved_number(ctx):
    """The number an op saved, unless backward has freed it."""
    number = ctx.number
    if number is None:
        raise RuntimeError(FREED_MESSAGE)
    return number


class MulScalar(BuiltinFunction):
    """``a * number``."""
    _backward_name = "MulBackward0"
    _wraps_numbers = True
    _node_base = NumberSavingBackward

    @staticmethod
    def forward(ctx, a, number):
        ctx.number = number
        x, y = number_operands(a, number)
        return np.multiply(x, y)

    @staticmethod
    def backward(ctx, grad):
        return grad * saved_number(ctx), None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        return grad * number_like(saved_number(ctx), grad), None


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
        """``grad / b`` for ``a`` and ``-grad * a / b**2`` for ``b``, each summed back to
        its input's shape (``unbroadcast``), None for an input that needs no gradient."""
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
    _node_base = NumberSavingBackward

    @staticmethod
    def forward(ctx, a, number):
        ctx.number = number
        x, y = binary_operands(a, number, float_dtype_of(a, number))
        return np.true_divide(x, y)

    @staticmethod
    def backward(ctx, grad):
        return grad / saved_number(ctx), None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        return grad / number_like(saved_number(ctx), grad), None


class MulByNumber(MulScalar):
    """``a * number`` where the number is a constant, not a graph input: what PyTorch's own
    C++ code records (``MulBackward1``, one edge) when it scales a tensor, as in the losses."""
    _backward_name = "MulBackward1"
    _wraps_numbers = False


class DivByNumber(DivScalar):
    """``a / number`` with a constant number (``DivBackward1``, one edge)."""
    _backward_name = "DivBackward1"
    _wraps_numbers = False


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

node_attribute(Add, "_saved_alpha", 1)
node_attribute(AddScalar, "_saved_alpha", 1)
node_attribute(Sub, "_saved_alpha", 1)
node_attribute(SubScalar, "_saved_alpha", 1)
node_attribute(RSub, "_saved_alpha", 1)
node_attribute(AddAlpha, "_saved_alpha", property(lambda node: node.alpha))
node_attribute(SubAlpha, "_saved_alpha", property(lambda node: -node.alpha))


def add_alpha(a, b, alpha, name="add"):
    """``a + alpha * b`` (``a.add(b, alpha=...)``); ``sub_alpha`` for ``a - alpha * b``."""
    return _with_alpha(a, b, alpha, name, add, AddAlpha)


def sub_alpha(a, b, alpha, name="sub"):
    return _with_alpha(a, b, alpha, name, sub, SubAlpha)


def _with_alpha(a, b, alpha, name, plain, with_alpha):
    if type(alpha) is not int and type(alpha) is not float:
        alpha = check_alpha(alpha, name, _is_bool(a) and _is_bool(b))
    if alpha == 1:
        return plain(a, b)
    b = operand(b)
    if b is NotImplemented:
        return NotImplemented
    if isinstance(alpha, float) and not (a._data.dtype.kind == "f" or isinstance(b, Tensor)
                                         and b._data.dtype.kind == "f" or type(b) is float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    if with_alpha is SubAlpha and (_is_bool(a) or _is_bool(b)):
        _refuse_bool_subtraction(a, b)
    if isinstance(b, Tensor):
        return with_alpha.apply(a, b, alpha)
    return plain(a, b * alpha)


def check_alpha(alpha, name, bool_result=False):
    """``alpha`` as a Python number: a number, a numpy scalar or a 0-d tensor (as an
    optimizer's tensor learning rate); a bool only for a bool result."""
    if isinstance(alpha, np.generic) or isinstance(alpha, Tensor) and alpha._data.ndim == 0:
        alpha = alpha.item()
    if not isinstance(alpha, (int, float)):
        raise TypeError(f"{name}(): argument 'alpha' must be Number, not {type_name_of(alpha)}")
    if type(alpha) is bool and not bool_result:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    return alpha


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
    """``x ** y`` on arrays of the result dtype.  Integers to negative powers give what
    PyTorch gives (0, except for bases 1 and -1); bools stay bools."""
    if x.dtype.kind == "b":
        return np.logical_or(x, np.logical_not(y))
    if x.dtype.kind in "iu" and np.any(np.asarray(y) < 0):
        return _integer_power(x, y)
    return np.power(x, y)


def _integer_power(x, y):
    x, y = np.broadcast_arrays(x, y)
    out = np.power(x, np.maximum(y, 0))
    negative = y < 0
    odd = (y % 2) != 0
    inverse = np.where(x == 1, 1, np.where(x == -1, np.where(odd, -1, 1), 0)).astype(x.dtype)
    out[negative] = inverse[negative]
    return out


def _refuse_negative_integer_power(a, exponent):
    if exponent < 0 and a._data.dtype.kind in "biu" and type(exponent) is not float:
        raise RuntimeError("Integers to negative integer powers are not allowed. Use a float "
                           "exponent (x ** -1.0) or convert the tensor first (x.float()).")


def _refuse_bool_powers():
    raise NotImplementedError("\"pow\" not implemented for 'Bool': convert the tensors first, "
                              "e.g. with .long() or .float()")


class PowScalar(BuiltinFunction):
    """``a ** exponent`` for a Python number exponent."""
    _backward_name = "PowBackward0"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, exponent):
        _refuse_negative_integer_power(a, exponent)
        ctx.save_for_backward(a)
        ctx._saved_exponent = exponent
        x, e = binary_operands(a, exponent)
        return _power(x, e)

    @staticmethod
    def backward(ctx, grad):
        """``grad * e * a**(e - 1)`` for ``a`` and None for the number ``e`` (an exponent of
        0 gives zeros: ``a**-1`` would divide by zero where ``a`` is 0)."""
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
        if a._data.dtype.kind == "b" and b._data.dtype.kind == "b":
            _refuse_bool_powers()
        x, y = binary_operands(a, b)
        result = wrap(_compute(_power, x, y))
        ctx.save_for_backward(b, a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        """The gradients of ``a ** b`` (chapter 6, "Every minitorch operation is a
        Function"): ``grad`` times ``b * a**(b-1)`` for ``a`` and times ``a**b * log(a)``
        (the saved ``result`` times the log) for ``b``, each summed back to its operand's
        shape with ``unbroadcast``, since ``**`` broadcasts; ``None`` for an operand that
        needs no gradient.  Two slopes are 0 by PyTorch's choice (``masked_fill``): ``a``'s
        where ``b == 0`` (so ``0 ** 0`` has gradient 0, not nan) and ``b``'s where
        ``a == 0`` and ``b >= 0``.  The slopes are taken in the result's dtype (``a_``,
        ``b_``): a float32 base with a float64 exponent gives float64 gradients."""
        b, a, result = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        grad_a = grad_b = None
        a_, b_ = a.to(result.dtype), b.to(result.dtype)
        ### BEGIN SOLUTION 6.2
        if need_a:
            slope = (b_ * a_ ** (b_ - 1)).masked_fill(b == 0, 0.0)
            grad_a = unbroadcast(grad * slope, a.shape)
        if need_b:
            slope = (result * a_.log()).masked_fill((a == 0) & (b >= 0), 0.0)
            grad_b = unbroadcast(grad * slope, b.shape)
        ### END SOLUTION 6.2
        return grad_a, grad_b


class RPow(BuiltinFunction):
    """``base ** a`` for a Python number ``base``."""
    _backward_name = "PowBackward2"
    _saved_names = ("exponent", "result")

    @staticmethod
    def forward(ctx, a, base):
        if type(base) is bool and a._data.dtype.kind == "b":
            _refuse_bool_powers()
        dtype = result_type(a, base).numpy_dtype
        e = a._data if a._data.dtype == dtype else a._data.astype(dtype)
        result = wrap(np.asarray(_power(np.asarray(base, dtype=dtype), e)))
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
