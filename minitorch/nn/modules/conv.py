"""``nn.Conv1d`` and ``nn.Conv2d`` (chapter 11, the capstone).

A convolution layer holds a weight of shape ``(out_channels, in_channels /
groups, *kernel_size)`` and a bias of ``out_channels`` values; ``forward``
is ``F.conv1d``/``F.conv2d``.  The computation itself, a Function on numpy
arrays, is in ``nn/_functions/conv.py``.

With ``padding_mode`` other than ``"zeros"`` the input is padded first with
``F.pad`` (reflected, replicated or wrapped around) and then convolved
without padding.
"""

import math

from ..._creation import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Conv1d", "Conv2d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _tuple(value, n):
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,) * n


class _ConvNd(Module):
    """What Conv1d and Conv2d share: the checks, the parameters, their initialisation."""

    _n = None               # spatial dimensions
    _function = None        # F.conv1d or F.conv2d

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        n = self._n
        if not isinstance(groups, int) or groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 "{'valid', 'same'}")
            if padding == "same" and any(s != 1 for s in _tuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError("padding_mode must be one of {'zeros', 'circular', 'reflect', "
                             f"'replicate'}}, but got padding_mode={padding_mode!r}")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _tuple(kernel_size, n)
        self.stride = _tuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _tuple(padding, n)
        self.dilation = _tuple(dilation, n)
        self.transposed = False
        self.output_padding = (0,) * n
        self.groups = groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = self._padding_for_f_pad()
        self.weight = Parameter(empty(out_channels, in_channels // groups, *self.kernel_size,
                                      dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _padding_for_f_pad(self):
        """The padding as ``F.pad`` takes it: last dimension first, (before, after) each."""
        pairs = []
        for k, d, p in zip(self.kernel_size, self.dilation,
                           self.padding if not isinstance(self.padding, str) else
                           (None,) * self._n):
            if self.padding == "valid":
                pairs.append((0, 0))
            elif self.padding == "same":
                total = d * (k - 1)
                pairs.append((total // 2, total - total // 2))
            else:
                pairs.append((p, p))
        return [amount for pair in reversed(pairs) for amount in pair]

    def reset_parameters(self):
        """PyTorch's default: ``kaiming_uniform_(a=sqrt(5))`` for the weight, and the bias
        uniform in ``+-1/sqrt(fan_in)``, fan_in = in_channels / groups * kernel area."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.in_channels // self.groups * math.prod(self.kernel_size)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return type(self)._function(padded, weight, bias, self.stride, 0, self.dilation,
                                        self.groups)
        return type(self)._function(input, weight, bias, self.stride, self.padding,
                                    self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)

    def extra_repr(self):
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * self._n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * self._n:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """1-D convolution over ``(N, C_in, L)`` (or ``(C_in, L)``) inputs."""

    _n = 1
    _function = staticmethod(F.conv1d)


class Conv2d(_ConvNd):
    """2-D convolution over ``(N, C_in, H, W)`` (or ``(C_in, H, W)``) inputs."""

    _n = 2
    _function = staticmethod(F.conv2d)
