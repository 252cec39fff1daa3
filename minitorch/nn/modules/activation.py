"""Activation layers: ``ReLU``, ``Sigmoid``, ``Tanh``, ``Softmax``, ``LogSoftmax`` (chapter 5).

Modules without parameters: each ``forward`` is one call into
``nn.functional``.  They exist so that a network can be written as a
``Sequential`` and printed.
"""

from .. import functional as F
from .module import Module

__all__ = ["ReLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax"]


class ReLU(Module):
    """``max(0, x)`` elementwise."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    """``1 / (1 + exp(-x))`` elementwise."""

    def forward(self, input):
        return F.sigmoid(input)


class Tanh(Module):
    """``tanh(x)`` elementwise."""

    def forward(self, input):
        return F.tanh(input)


class Softmax(Module):
    """Softmax along ``dim``: values in (0, 1) that sum to 1 along it."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """Log of the softmax along ``dim``, computed stably."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.log_softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"
