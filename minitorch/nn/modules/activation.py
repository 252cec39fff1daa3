"""Activation layers: ``ReLU``, ``Sigmoid``, ``Tanh``, ``Softmax``, ``LogSoftmax``
(chapter 7), and ``LeakyReLU``, ``GELU``, ``ELU``, ``Softplus``, ``SiLU``, ``LogSigmoid``,
``Hardtanh``, ``ReLU6`` (chapter 11 and the tutorials).

Modules without parameters: each ``forward`` is one call into
``nn.functional``.  They exist so that a network can be written as a
``Sequential`` and printed.
"""

from .. import functional as F
from .module import Module

__all__ = ["ReLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "LeakyReLU", "GELU", "ELU",
           "Softplus", "SiLU", "LogSigmoid", "Hardtanh", "ReLU6"]


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


def _inplace_text(inplace):
    return ", inplace=True" if inplace else ""


class LeakyReLU(Module):
    """``x`` for ``x > 0``, ``negative_slope * x`` otherwise: a ReLU that lets a little
    gradient through for negative inputs."""

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}{_inplace_text(self.inplace)}"


class GELU(Module):
    """``x * Phi(x)``, Phi the standard normal CDF (``approximate="tanh"``: its tanh
    approximation): the activation of transformers."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class ELU(Module):
    """``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}{_inplace_text(self.inplace)}"


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta``: a smooth approximation of ReLU."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class SiLU(Module):
    """``x * sigmoid(x)`` (swish)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class LogSigmoid(Module):
    """``log(sigmoid(x))``, stable for large ``|x|``."""

    def forward(self, input):
        return F.logsigmoid(input)


class Hardtanh(Module):
    """``x`` clipped to ``[min_val, max_val]``."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        if max_val <= min_val:
            raise AssertionError(f"max_val ({max_val}) must be greater than min_val ({min_val})")
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_text(self.inplace)}"


class ReLU6(Hardtanh):
    """``min(max(0, x), 6)``: a ``Hardtanh`` from 0 to 6."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""
