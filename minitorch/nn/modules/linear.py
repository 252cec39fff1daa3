"""``nn.Linear`` and ``nn.Identity`` (chapter 7, "Module internals I").

``Linear`` is the smallest useful Module: two Parameters registered by
attribute assignment, an ``extra_repr`` for its one-line repr, and a
``forward`` that calls ``F.linear``.  One of the posts this book grew from builds
the same layer on its own ``LinearFunction``; chapter 7 puts the two side by side.
"""

import math

from ..._creation import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Linear", "Identity"]


class Linear(Module):
    """``y = x @ weight.T + bias``, with ``weight`` of shape ``(out_features, in_features)``."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty(out_features, in_features, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """PyTorch's default: weight and bias uniform in ``±1/sqrt(in_features)``."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Identity(Module):
    """Returns its input: a placeholder, e.g. to remove a layer from a model."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input
