"""Module-level versions of the tensor methods: ``minitorch.exp(x)``, ``minitorch.cat([...])``...

PyTorch offers most operations both as ``x.exp()`` and ``torch.exp(x)``; these
are the second spelling, each forwarding to the method or to the function in
``minitorch.ops`` (chapter 4 uses both spellings).
"""

import numbers

import numpy as np

from ._dtype import result_type
from ._tensor import Tensor, Size
from . import ops, _creation

__all__ = ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "arcsin", "arccos", "arctan", "log1p", "expm1", "log2", "log10", "exp2", "rsqrt", "square", "erf", "floor", "ceil", "trunc", "fix", "round", "frac", "var", "std", "norm", "prod", "cumsum", "cumprod", "logsumexp", "amax", "amin", "sort", "argsort", "topk", "repeat", "tile", "split", "chunk", "unbind", "flip", "roll", "diagonal", "tril", "triu", "trace", "masked_select", "movedim", "moveaxis", "atan2", "arctan2", "lerp", "var_mean", "std_mean", "broadcast_shapes", "broadcast_tensors"] + ["maximum", "minimum", "cat", "concat", "concatenate", "stack", "where", "pow", "add", "sub", "subtract",
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
    return ops.cat(tensors, dim)


concat = concatenate = cat


def stack(tensors, dim=0, *, out=None):
    """Join same-shaped tensors along a new dimension."""
    return ops.stack(tensors, dim)


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


def _method(name):
    def call(input, *args, **kwargs):
        if not isinstance(input, Tensor):
            raise ops.must_be_tensor(input, name)
        return getattr(input, name)(*args, **kwargs)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"``minitorch.{name}(x, ...)`` is ``x.{name}(...)``."
    return call


def _binary(name):
    def call(input, other, *args, **kwargs):
        if not isinstance(input, Tensor):
            input = _number_as_tensor(input, other, name)
        return getattr(input, name)(other, *args, **kwargs)
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


for _name in ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "arcsin", "arccos", "arctan", "log1p", "expm1", "log2", "log10", "exp2", "rsqrt", "square", "erf", "floor", "ceil", "trunc", "fix", "round", "frac", "var", "std", "norm", "prod", "cumsum", "cumprod", "logsumexp", "amax", "amin", "sort", "argsort", "topk", "repeat", "tile", "split", "chunk", "unbind", "flip", "roll", "diagonal", "tril", "triu", "trace", "masked_select", "movedim", "moveaxis"] + ["maximum", "minimum", "matmul", "mm", "mv", "dot", "bmm", "clamp", "clip", "masked_fill", "gather",
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
