"""``nn.LayerNorm`` (chapter 11): normalise each sample over its last dimensions;
``nn.GroupNorm``: over each group of its channels.

Unlike BatchNorm it has no running statistics and does the same in training
and evaluation: every sample is normalised with its own mean and variance,
then scaled by ``weight`` and shifted by ``bias`` (one value per element of
``normalized_shape``).
"""

from ..._creation import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["LayerNorm", "GroupNorm"]


class LayerNorm(Module):
    """Layer normalisation over the trailing ``normalized_shape`` dimensions."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(*self.normalized_shape, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(*self.normalized_shape, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Group normalisation: ``num_channels`` split into ``num_groups`` groups, each
    normalised per sample; then one scale and shift per channel (if ``affine``)."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None,
                 *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        for name, wanted in (("weight", affine), ("bias", affine and bias)):
            value = Parameter(empty(num_channels, dtype=dtype)) if wanted else None
            self.register_parameter(name, value)
        self.reset_parameters()

    def reset_parameters(self):
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")
