"""``Variable``: the wrapper that tensors needed before PyTorch 0.4 (chapter 4).

Old tutorials write ``Variable(torch.ones(2, 2), requires_grad=True)``.  Since
tensors record their own graph, the name survives only so that such code runs:
calling it returns a plain tensor that shares the memory (and the version
counter) of the one given, as a new leaf, and every tensor counts as a
``Variable`` for ``isinstance``.
"""

import warnings

from .._tensor import Tensor

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(tensor, requires_grad=False, volatile=False)``: ``tensor`` as a new leaf."""

    def __new__(cls, data, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with "
                          "torch.no_grad():` instead.", UserWarning, stacklevel=2)
            if requires_grad:
                raise ValueError("Variable can't be volatile and require_grad at the same time!")
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(bool(requires_grad))
