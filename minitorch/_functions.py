"""Module-level versions of the tensor methods: ``minitorch.exp(x)``, ``minitorch.cat([...])``...

PyTorch offers most operations both as ``x.exp()`` and ``torch.exp(x)``; these
are the second spelling, each forwarding to the method or to the function in
``minitorch.ops`` (chapter 4 uses both spellings).
"""

import numbers
import warnings

import numpy as np

from ._dtype import result_type, can_cast
from ._tensor import Tensor, Size
from . import ops, _creation
from .autograd import grad_mode

__all__ = ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "arcsin", "arccos", "arctan", "log1p", "expm1", "log2", "log10", "exp2", "rsqrt", "square", "erf", "floor", "ceil", "trunc", "fix", "round", "frac", "var", "std", "norm", "prod", "cumsum", "cumprod", "logsumexp", "amax", "amin", "sort", "argsort", "topk", "kthvalue", "repeat", "tile", "split", "chunk", "unbind", "flip", "roll", "diagonal", "tril", "triu", "trace", "masked_select", "movedim", "moveaxis", "atan2", "arctan2", "lerp", "var_mean", "std_mean", "broadcast_shapes", "broadcast_tensors", "dist"] + ["maximum", "minimum", "cat", "concat", "concatenate", "stack", "where", "pow", "add", "sub", "subtract",
           "mul", "multiply", "div", "divide", "true_divide", "matmul", "mm", "mv", "dot", "bmm",
           "addmm", "clamp", "clip", "masked_fill", "gather", "scatter", "index_select",
           "narrow", "select", "argmax", "argmin", "equal", "allclose", "isclose", "flatten",
           "reshape", "transpose", "permute", "unsqueeze", "squeeze", "t", "softmax",
           "log_softmax", "sum", "mean", "max", "min", "exp", "log", "sqrt", "abs", "sign",
           "relu", "sigmoid", "tanh", "neg", "negative", "reciprocal", "clone", "detach",
           "numel", "isnan", "isinf", "isfinite", "logical_not", "logical_and", "logical_or",
           "logical_xor", "remainder", "floor_divide", "any", "all", "nonzero", "eq", "ne", "lt", "le",
           "gt", "ge", "unflatten", "swapaxes", "sum_to_size", "absolute", "relu_"]


def cat(tensors, dim=0, *, out=None):
    """Join tensors along an existing dimension."""
    return _write_out("cat", ops.cat(tensors, dim), out)


concat = concatenate = cat


def stack(tensors, dim=0, *, out=None):
    """Join same-shaped tensors along a new dimension."""
    return _write_out("stack", ops.stack(tensors, dim), out)


def where(condition, input=None, other=None):
    """Elementwise ``input if condition else other`` (differentiable in both);
    with the condition alone, the positions where it holds."""
    if input is None and other is None:
        return tuple(Tensor._wrap(i) for i in condition._data.nonzero())
    return ops.where(condition, input, other)


def pow(input, exponent):
    """``input ** exponent``; ``input`` may be a Python number."""
    if not isinstance(input, Tensor):
        if not isinstance(exponent, Tensor):
            raise ops.must_be_tensor(exponent, "pow", "exponent", 2)
        result = ops.rpow(exponent, input)
        if result is NotImplemented:
            raise TypeError(f"pow(): argument 'self' (position 1) must be Number or Tensor, "
                            f"not {ops.type_name_of(input)}")
        return result
    return input ** exponent


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    if beta != 1 or alpha != 1:
        return input * beta + mat1.mm(mat2) * alpha
    return ops.addmm(input, mat1, mat2)


def _write_out(name, result, out):
    """``torch.mul(a, b, out=c)``: the result written into ``c``, which is returned.

    As in PyTorch, ``out`` takes no part in autograd (refused when a gradient is
    being recorded), must be able to hold the result's dtype, and is resized to
    the result's shape (with PyTorch's warning when it held values already).
    """
    if out is None:
        return result
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if not isinstance(result, Tensor):
        raise NotImplementedError(f"{name}(): minitorch takes out= only for functions that "
                                  "return one tensor; assign the results instead")
    if grad_mode.is_grad_enabled() and (result.requires_grad or out.requires_grad):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad. Call it "
                           "without out= (or inside minitorch.no_grad()).")
    if not can_cast(result.dtype, out.dtype):
        raise RuntimeError(f"result type {result.dtype.type_name} can't be cast to the desired "
                           f"output type {out.dtype.type_name}")
    if out.shape != result.shape:
        if out.numel():
            warnings.warn(f"An output with one or more elements was resized since it had shape "
                          f"{list(out.shape)}, which does not match the required output shape "
                          f"{list(result.shape)}. This behavior is deprecated: pass an out "
                          "tensor of the result's shape, or one with zero elements.",
                          UserWarning, stacklevel=3)
        out.data = _creation.empty(*result.shape, dtype=out.dtype)
    with grad_mode.no_grad():
        out.copy_(result)
    return out


def _method(name):
    def call(input, *args, out=None, **kwargs):
        if not isinstance(input, Tensor):
            raise ops.must_be_tensor(input, name)
        return _write_out(name, getattr(input, name)(*args, **kwargs), out)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"``minitorch.{name}(x, ...)`` is ``x.{name}(...)``."
    return call


def _binary(name):
    def call(input, other, *args, out=None, **kwargs):
        if not isinstance(input, Tensor):
            input = _number_as_tensor(input, other, name)
        return _write_out(name, getattr(input, name)(other, *args, **kwargs), out)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"``minitorch.{name}(x, y)`` is ``x.{name}(y)``."
    return call


def _number_as_tensor(number, other, name):
    """``torch.add(2, t)``: the number as a 0-d tensor of the dtype the two would give
    (so it promotes as the number would), or PyTorch's TypeError for a non-number."""
    if isinstance(number, np.generic):
        number = number.item()
    if not isinstance(number, numbers.Real):
        raise ops.must_be_tensor(number, name)
    if isinstance(other, np.generic):
        other = other.item()
    other_ok = isinstance(other, (Tensor, numbers.Real))
    dtype = result_type(number, other) if other_ok else None
    return _creation.tensor(number, dtype=dtype)


for _name in ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "arcsin", "arccos", "arctan", "log1p", "expm1", "log2", "log10", "exp2", "rsqrt", "square", "erf", "floor", "ceil", "trunc", "fix", "round", "frac", "var", "std", "norm", "prod", "cumsum", "cumprod", "logsumexp", "amax", "amin", "sort", "argsort", "topk", "kthvalue", "repeat", "tile", "split", "chunk", "unbind", "flip", "roll", "diagonal", "tril", "triu", "trace", "masked_select", "movedim", "moveaxis"] + ["maximum", "minimum", "matmul", "mm", "mv", "dot", "bmm", "clamp", "clip", "masked_fill", "gather",
              "scatter", "index_select", "narrow", "select", "argmax", "argmin", "flatten",
              "reshape", "transpose", "permute", "unsqueeze", "squeeze", "t", "softmax",
              "log_softmax", "sum", "mean", "max", "min", "exp", "log", "sqrt", "abs", "sign",
              "relu", "sigmoid", "tanh", "neg", "negative", "reciprocal", "clone", "detach",
              "numel", "isnan", "isinf", "isfinite", "logical_not", "any", "all", "nonzero", "unflatten",
              "swapaxes", "sum_to_size", "absolute", "relu_"]:
    globals()[_name] = _method(_name)

for _name in ["atan2", "arctan2", "lerp"] + ["add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
              "equal", "allclose", "isclose", "logical_and", "logical_or", "logical_xor",
              "remainder", "floor_divide", "eq", "ne", "lt", "le", "gt", "ge"]:
    globals()[_name] = _binary(_name)

# In-place forms that PyTorch also offers as functions: ``torch.sin_(x)`` is ``x.sin_()``.
INPLACE_FUNCTIONS = ["abs_", "acos_", "asin_", "atan_", "ceil_", "clamp_", "clip_", "cos_",
                     "cosh_", "detach_", "erf_", "exp2_", "exp_", "expm1_", "fill_", "floor_",
                     "frac_", "log10_", "log1p_", "log2_", "log_", "neg_", "reciprocal_",
                     "round_", "rsqrt_", "sigmoid_", "sin_", "sinh_", "sqrt_", "square_", "tan_",
                     "tanh_", "trunc_", "zero_"]
for _name in INPLACE_FUNCTIONS:
    globals()[_name] = _method(_name)
__all__ += INPLACE_FUNCTIONS

del _name


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(var, mean)`` over ``dim``."""
    return ops.statistics.var_mean(input, dim, unbiased, keepdim, correction=correction)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(std, mean)`` over ``dim``."""
    return ops.statistics.std_mean(input, dim, unbiased, keepdim, correction=correction)


def broadcast_shapes(*shapes):
    """The shape that tensors of ``shapes`` broadcast to (chapter 3)."""
    try:
        return Size(np.broadcast_shapes(*[tuple(s) if not isinstance(s, int) else (s,)
                                          for s in shapes]))
    except ValueError:
        raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape: "
                           f"{[list(s) if not isinstance(s, int) else [s] for s in shapes]}") \
            from None


def broadcast_tensors(*tensors):
    """Views of ``tensors`` expanded to their common shape."""
    shape = broadcast_shapes(*[t.shape for t in tensors])
    return tuple(t.expand(*shape) for t in tensors)


def dist(input, other, p=2):
    """The ``p``-norm of ``input - other`` (how far apart two tensors are)."""
    return (input - other).norm(p)
