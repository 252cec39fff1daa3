"""Elementwise math: exp, log, sqrt, abs, relu, sigmoid, tanh, clamp, where (chapters 5 and 6).

Each saves what its derivative needs and nothing more.  ``exp``, ``sqrt``,
``sigmoid`` and ``tanh`` save their *result* (``grad_fn._saved_result``): the
derivative is cheapest written in terms of the output.  The others save their
input (``grad_fn._saved_self``).  At points where the function has no
derivative, the values follow PyTorch: relu'(0) = 0, abs'(0) = 0,
sqrt'(0) = inf.

Functions that are only defined on real numbers (exp, log, sigmoid...) give
a floating point result for an integer tensor, of the default dtype.
"""

import numpy as np

from .._dtype import result_type
from .._tensor import Tensor
from ._common import (BuiltinFunction, as_float, binary_operands, broadcast_error, unbroadcast,
                      broadcast_shapes, type_name_of, wrap)

__all__ = ["Exp", "Log", "Sqrt", "Abs", "Sign", "Relu", "Sigmoid", "Tanh", "Clamp", "ClampTensor",
           "MaskedFill",
           "Where", "Maximum", "Minimum", "masked_fill", "where", "clamp", "maximum", "minimum"]


class Exp(BuiltinFunction):
    _backward_name = "ExpBackward0"
    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        result = wrap(np.exp(as_float(a)))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return grad * result

    @staticmethod
    def backward_on_arrays(ctx, grad):
        result, = ctx.saved_arrays
        return grad * result


class Log(BuiltinFunction):
    _backward_name = "LogBackward0"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.log(as_float(a))

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad / a

    @staticmethod
    def backward_on_arrays(ctx, grad):
        a, = ctx.saved_arrays
        return grad / a


class Sqrt(BuiltinFunction):
    _backward_name = "SqrtBackward0"
    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        result = wrap(np.sqrt(as_float(a)))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return grad / (result * 2)


class Abs(BuiltinFunction):
    _backward_name = "AbsBackward0"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        if a._data.dtype.kind == "b":
            raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool': a bool is "
                                      "already non-negative; convert with .long() or .float() "
                                      "first if you need numbers")
        ctx.save_for_backward(a)
        return np.abs(a._data)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad * a.sign()


class Sign(BuiltinFunction):
    """-1, 0 or 1: flat everywhere, so its gradient is zero."""
    _backward_name = "SignBackward0"

    @staticmethod
    def forward(ctx, a):
        if a.dtype.name == "bool":
            return a._data.copy()
        return np.sign(a._data)

    @staticmethod
    def backward(ctx, grad):
        return grad * 0


class Relu(BuiltinFunction):
    _backward_name = "ReluBackward0"
    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        if a._data.dtype.kind == "b":
            raise RuntimeError("Boolean inputs not supported for relu; convert with .float() "
                               "first")
        result = wrap(np.maximum(a._data, 0, dtype=a._data.dtype))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return ReluGrad.apply(grad, result)

    @staticmethod
    def backward_on_arrays(ctx, grad):
        result, = ctx.saved_arrays
        return grad * (result > 0).astype(grad.dtype)    # float * bool is a slower loop


class Sigmoid(BuiltinFunction):
    _backward_name = "SigmoidBackward0"
    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        x = as_float(a)
        # Two branches so that neither exp can overflow.
        e = np.exp(-np.abs(x))
        result = wrap(np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 6.1
        result, = ctx.saved_tensors
        return SigmoidGrad.apply(grad, result)
        ### END SOLUTION 6.1


class Tanh(BuiltinFunction):
    _backward_name = "TanhBackward0"
    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        result = wrap(np.tanh(as_float(a)))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return TanhGrad.apply(grad, result)


# ----- the derivatives of relu, sigmoid and tanh as ops of their own ----------------------------
# With create_graph=True their results are differentiated again; PyTorch records these
# nodes for them (``SigmoidBackwardBackward0``...), which compute a derivative of the
# derivative in terms of the saved output ``y``.
class OutputDerivative(BuiltinFunction):
    """``grad * f'`` written with ``f``'s output ``y``; the base of the three below."""
    _saved_names = ("grad_output", "output")

    @classmethod
    def forward(cls, ctx, grad, y):
        ctx.save_for_backward(grad, y)
        return grad._data * cls.slope(y._data)

    @classmethod
    def backward(cls, ctx, g):
        # ``grad`` and ``y`` broadcast against each other when vmap's rule gives one of
        # them a batch dim the other lacks (jacrev of jacrev): each input's gradient is
        # summed back to its own shape, as for any broadcasting op (chapter 3).
        # ``slope`` and ``curvature`` are applied to the tensor ``y``, not to its array,
        # so that with create_graph=True a third derivative sees how they depend on y.
        grad, y = ctx.saved_tensors
        need_grad, need_y = ctx.needs_input_grad
        return (unbroadcast(g * cls.slope(y), grad.shape) if need_grad else None,
                unbroadcast(g * grad * cls.curvature(y), y.shape) if need_y else None)


def _positive(y):
    """1 where ``y`` > 0, else 0, in ``y``'s dtype: for an array or a tensor (a constant)."""
    if isinstance(y, np.ndarray):
        return (y > 0).astype(y.dtype)
    return wrap((y._data > 0).astype(y._data.dtype))


class ReluGrad(OutputDerivative):
    """relu' is 1 where the output is positive, 0 elsewhere; its own derivative is 0."""
    _backward_name = "ThresholdBackwardBackward0"
    slope = staticmethod(_positive)
    curvature = staticmethod(lambda y: _positive(y) * 0)


class SigmoidGrad(OutputDerivative):
    """sigmoid' = y (1 - y), whose derivative in y is 1 - 2y."""
    _backward_name = "SigmoidBackwardBackward0"
    slope = staticmethod(lambda y: y * (1 - y))
    curvature = staticmethod(lambda y: 1 - 2 * y)


class TanhGrad(OutputDerivative):
    """tanh' = 1 - y**2, whose derivative in y is -2y."""
    _backward_name = "TanhBackwardBackward0"
    slope = staticmethod(lambda y: 1 - y * y)
    curvature = staticmethod(lambda y: -2 * y)


class Clamp(BuiltinFunction):
    """Values below ``min`` become ``min``, above ``max`` become ``max``; the gradient
    flows only where the value was kept."""
    _backward_name = "ClampBackward1"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, low, high):
        ctx.save_for_backward(a)
        ctx._saved_min, ctx._saved_max = low, high
        dtype = result_type(a, *[b for b in (low, high) if b is not None]).numpy_dtype
        bound = (lambda b: None if b is None else np.asarray(b).astype(dtype))
        return np.clip(a._data.astype(dtype, copy=False), bound(low), bound(high))

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        kept = np.ones(a.shape, dtype=bool)
        if ctx._saved_min is not None:
            kept &= a._data >= ctx._saved_min
        if ctx._saved_max is not None:
            kept &= a._data <= ctx._saved_max
        return grad * wrap(kept), None, None


class ClampTensor(BuiltinFunction):
    """``clamp`` with tensor bounds (broadcast against ``a``); a bound that is not given is
    ``NO_BOUND``, an input that needs no gradient, as PyTorch's undefined tensor."""
    _backward_name = "ClampBackward0"
    _saved_names = ("self", "min", "max")

    @staticmethod
    def forward(ctx, a, low, high):
        bounds = [b for b in (low, high) if b is not NO_BOUND]
        dtype = result_type(a, *bounds).numpy_dtype
        low_, high_ = (None if b is NO_BOUND else b._data.astype(dtype, copy=False)
                       for b in (low, high))
        broadcast_shapes(a._data, *[b._data for b in bounds])
        ctx.save_for_backward(a, None if low is NO_BOUND else low,
                              None if high is NO_BOUND else high)
        return np.clip(a._data.astype(dtype, copy=False), low_, high_)

    @staticmethod
    def backward(ctx, grad):
        a, low, high = ctx.saved_tensors
        x = a._data
        kept = np.ones(np.broadcast_shapes(*[t.shape for t in (grad, low, high)
                                               if t is not None]), dtype=bool)
        below = above = None
        if low is not None:
            below = x < low._data
            kept &= ~below
        if high is not None:
            above = x > high._data
            kept &= ~above
        if low is not None and high is not None:
            below &= ~above            # where min > max, max wins (as the forward)
        need_a, need_low, need_high = ctx.needs_input_grad
        zero = np.zeros((), dtype=grad._data.dtype)
        return (unbroadcast(grad * wrap(kept), a.shape) if need_a else None,
                unbroadcast(grad * wrap(below.astype(zero.dtype)), low.shape)
                if need_low else None,
                unbroadcast(grad * wrap(above.astype(zero.dtype)), high.shape)
                if need_high else None)


NO_BOUND = wrap(np.zeros(()))       # a missing bound of ClampTensor


def clamp(a, min=None, max=None):
    """``a`` limited to ``[min, max]`` (either may be None, not both)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        low, high = (NO_BOUND if b is None else b if isinstance(b, Tensor) else
                     _bound_tensor(b) for b in (min, max))
        return ClampTensor.apply(a, low, high)
    for name, bound in (("min", min), ("max", max)):
        if bound is not None and not isinstance(bound, (int, float, np.generic)):
            raise TypeError(f"clamp(): argument '{name}' must be Number, not "
                            f"{type_name_of(bound)}")
    return Clamp.apply(a, min, max)


def _bound_tensor(number):
    if not isinstance(number, (int, float, np.generic)):
        raise TypeError(f"clamp(): a bound must be a Number or a Tensor, not "
                        f"{type_name_of(number)}")
    return wrap(np.asarray(number, dtype=result_type(number).numpy_dtype))


class MaskedFill(BuiltinFunction):
    """``a`` with ``value`` where ``mask`` is True; no gradient flows there to ``a``."""
    _backward_name = "MaskedFillBackward0"

    @staticmethod
    def forward(ctx, a, mask, value):
        # ``mask`` arrives as an array: PyTorch's node has no edge for it.  The result has
        # the shape ``a`` and ``mask`` broadcast to.
        x = a._data
        fill = value._data if isinstance(value, Tensor) else value
        shape = broadcast_shapes(mask, x)
        ctx.mask, ctx.shape = mask, x.shape
        out = np.array(np.broadcast_to(x, shape))
        out[np.broadcast_to(mask, shape)] = np.asarray(fill).astype(x.dtype)
        return out

    @staticmethod
    def backward(ctx, grad):
        grad_value = None
        if ctx.needs_input_grad[2]:
            grad_value = MaskedFill.apply(grad, ~ctx.mask, 0.0).sum()
        return unbroadcast(MaskedFill.apply(grad, ctx.mask, 0.0), ctx.shape), None, grad_value


def masked_fill(a, mask, value):
    """A copy of ``a`` with ``value`` (a number or a 0-d tensor) where ``mask`` is True."""
    if not isinstance(mask, Tensor) or mask.dtype.name != "bool":
        if not isinstance(mask, Tensor):
            raise TypeError(f"masked_fill(): argument 'mask' (position 1) must be Tensor, not "
                            f"{type_name_of(mask)}")
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with "
                           f"dtype {mask.dtype.type_name}; make one with a comparison, e.g. "
                           "x > 0")
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")
    if not isinstance(value, (Tensor, int, float)):
        raise TypeError(f"masked_fill(): argument 'value' must be a number or a 0-d Tensor, "
                        f"not {type(value).__name__}")
    return MaskedFill.apply(a, mask._data, value)


class Where(BuiltinFunction):
    """``a`` where ``condition`` holds, ``b`` elsewhere; each gets the gradient of its places."""
    _backward_name = "WhereBackward0"

    @staticmethod
    def forward(ctx, condition, a, b):
        # ``condition`` arrives as an array: PyTorch's node has no edge for it
        x, y = binary_operands(a, b)
        broadcast_shapes(x, y, condition)
        ctx.condition = condition
        ctx.shapes = a.shape, b.shape
        return np.where(condition, x, y)

    @staticmethod
    def backward(ctx, grad):
        need_a, need_b = ctx.needs_input_grad[1:]
        zero = grad * 0
        grad_a = unbroadcast(Where.apply(ctx.condition, grad, zero), ctx.shapes[0]) \
            if need_a else None
        grad_b = unbroadcast(Where.apply(ctx.condition, zero, grad), ctx.shapes[1]) \
            if need_b else None
        return None, grad_a, grad_b


def where(condition, a, b):
    """Elementwise ``a if condition else b``; numbers are accepted for ``a`` and ``b``."""
    if not isinstance(condition, Tensor):
        raise TypeError(f"where(): argument 'condition' (position 1) must be Tensor, not "
                        f"{type_name_of(condition)}")
    if condition._data.dtype.kind != "b":
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a "
                           f"tensor with dtype {condition.dtype.type_name}; make one with a "
                           "comparison, e.g. x > 0")
    return Where.apply(condition._data, _as_tensor_operand(a), _as_tensor_operand(b))


def _as_tensor_operand(x):
    """A Python number as a 0-d tensor of its natural dtype (bool, int64, default float)."""
    if isinstance(x, Tensor):
        return x
    if not isinstance(x, (bool, int, float)):
        raise TypeError(f"where(): expected a Tensor or a number, got {type_name_of(x)}")
    return wrap(np.asarray(x, dtype=result_type(x).numpy_dtype))


class Maximum(BuiltinFunction):
    """The larger of two tensors, elementwise; where they tie, each gets half the gradient."""
    _backward_name = "MaximumBackward0"
    _saved_names = ("other", "self")
    _pick = staticmethod(np.maximum)

    @classmethod
    def forward(cls, ctx, a, b):
        ctx.save_for_backward(b, a)
        x, y = binary_operands(a, b)
        try:
            return cls._pick(x, y)
        except ValueError:
            raise broadcast_error(x, y) from None

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        first = wrap(_share_of_first(a._data, b._data, ctx._forward_cls._pick,
                                     grad._data.dtype))
        grad_a = unbroadcast(grad * first, a.shape) if need_a else None
        grad_b = unbroadcast(grad * (1 - first), b.shape) if need_b else None
        return grad_a, grad_b


class Minimum(Maximum):
    _backward_name = "MinimumBackward0"
    _pick = staticmethod(np.minimum)


def _share_of_first(x, y, pick, dtype):
    """1 where ``x`` was picked, 0 where ``y`` was, 0.5 where they tie (in ``dtype``, the
    result's: numpy would make float32 with int64 float64)."""
    won = pick(x, y) == x
    lost = pick(x, y) == y
    return np.where(won & lost, 0.5, won).astype(dtype)


def maximum(a, b):
    if not isinstance(b, Tensor):
        raise TypeError(f"maximum(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(b).__name__}")
    return Maximum.apply(a, b)


def minimum(a, b):
    if not isinstance(b, Tensor):
        raise TypeError(f"minimum(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(b).__name__}")
    return Minimum.apply(a, b)
