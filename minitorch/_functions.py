"""Module-level versions of the tensor methods: ``minitorch.exp(x)``, ``minitorch.cat([...])``...

PyTorch offers most operations both as ``x.exp()`` and ``torch.exp(x)``; these
are the second spelling, each forwarding to the method or to its Function
(chapter 3 uses both spellings).
"""

from ._tensor import Tensor
from .ops import shape as _shape
from .ops._util import normalize_dim

__all__ = ["cat", "concat", "stack", "exp", "log", "sqrt", "abs", "relu", "sigmoid", "tanh", "matmul",
           "mm", "sum", "mean", "max", "min", "pow", "reshape", "transpose", "unsqueeze", "squeeze",
           "flatten", "softmax", "log_softmax", "clamp", "argmax", "argmin", "equal", "allclose", "where",
           "maximum", "clone", "detach", "t", "numel", "add", "sub", "mul", "div", "neg"]


def _tensors_arg(tensors, name):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}() expects a list or tuple of tensors, got {type(tensors).__name__}")
    if not tensors:
        raise RuntimeError(f"{name}() expects a non-empty list of tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}(): expected Tensor as element {i} in argument 0, "
                            f"but got {type(t).__name__}")
    return tuple(tensors)


def cat(tensors, dim=0):
    """Join tensors along an existing dimension."""
    tensors = _tensors_arg(tensors, "cat")
    ref = next((t for t in tensors if t.ndim > 0), tensors[0])
    return _shape.Cat.apply(normalize_dim(dim, ref.ndim), *tensors)


concat = cat


def stack(tensors, dim=0):
    """Join same-shaped tensors along a new dimension."""
    tensors = _tensors_arg(tensors, "stack")
    return _shape.Stack.apply(normalize_dim(dim, tensors[0].ndim + 1), *tensors)


def where(condition, input, other):
    """Elementwise ``input if condition else other`` (differentiable in input and other)."""
    from ._creation import as_tensor
    cond = condition._data if isinstance(condition, Tensor) else condition
    a = input if isinstance(input, Tensor) else as_tensor(input)
    b = other if isinstance(other, Tensor) else as_tensor(other)
    return a.masked_fill(~cond, 0.0) + b.masked_fill(cond, 0.0)


def maximum(input, other):
    return where(input >= other, input, other)


def _forward(name):
    def fn(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)
    fn.__name__ = name
    fn.__doc__ = f"``minitorch.{name}(x, ...)`` is ``x.{name}(...)``."
    return fn


exp, log, sqrt, abs, relu, sigmoid, tanh = map(_forward, ["exp", "log", "sqrt", "abs", "relu", "sigmoid",
                                                          "tanh"])
matmul, mm, sum, mean, max, min, pow = map(_forward, ["matmul", "mm", "sum", "mean", "max", "min", "pow"])
reshape, transpose, unsqueeze, squeeze, flatten = map(_forward, ["reshape", "transpose", "unsqueeze",
                                                                 "squeeze", "flatten"])
softmax, log_softmax, clamp, argmax, argmin = map(_forward, ["softmax", "log_softmax", "clamp", "argmax",
                                                             "argmin"])
equal, allclose, clone, detach, t, numel = map(_forward, ["equal", "allclose", "clone", "detach", "t",
                                                          "numel"])
add, sub, mul, div, neg = map(_forward, ["add", "sub", "mul", "div", "neg"])
