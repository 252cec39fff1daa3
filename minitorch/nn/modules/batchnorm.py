"""``nn.BatchNorm1d`` and ``nn.BatchNorm2d``: parameters, buffers and the training flag in
one layer (chapters 5, 6 and 11).

In training mode it normalises each feature with the batch's own mean and
(biased) variance, then updates its running estimates, which are *buffers*
(state saved in ``state_dict`` but not trained):

    running_mean = (1 - momentum) * running_mean + momentum * batch_mean
    running_var  = (1 - momentum) * running_var  + momentum * unbiased_batch_var

and counts batches in ``num_batches_tracked`` (with ``momentum=None`` the
running values are plain averages over all batches seen).  After
``model.eval()`` it normalises with the running estimates instead, so one
sample's output no longer depends on the rest of its batch.
"""

from ..._creation import ones, zeros, tensor
from ..._dtype import int64
from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d"]


class _BatchNorm(Module):
    """What BatchNorm1d and BatchNorm2d share; they differ only in the inputs they accept."""

    _version = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.use_bias = bias and affine
        self.track_running_stats = track_running_stats
        weight = Parameter(ones(num_features, dtype=dtype)) if affine else None
        bias = Parameter(zeros(num_features, dtype=dtype)) if self.use_bias else None
        self.register_parameter("weight", weight)
        self.register_parameter("bias", bias)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self):
        if self.track_running_stats:
            init.zeros_(self.running_mean)
            init.ones_(self.running_var)
            init.zeros_(self.num_batches_tracked)

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input(self, input):
        self._check_input_dim(input)
        if input.shape[1] != self.num_features:
            raise RuntimeError(f"running_mean should contain {input.shape[1]} elements not "
                               f"{self.num_features}")

    def forward(self, input):
        self._check_input(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:       # a plain average over every batch seen
                factor = 1.0 / float(self.num_batches_tracked)
        use_batch_stats = self.training or not self.track_running_stats
        return F.batch_norm(input,
                            self.running_mean if not self.training or self.track_running_stats
                            else None,
                            self.running_var if not self.training or self.track_running_stats
                            else None,
                            self.weight, self.bias, use_batch_stats, factor, self.eps)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                              missing_keys, unexpected_keys, error_msgs):
        # Checkpoints older than version 2 of this layer have no num_batches_tracked:
        # keep the current count instead of reporting the key as missing.
        version = local_metadata.get("version")
        key = prefix + "num_batches_tracked"
        old = version is None or version < 2
        if old and self.track_running_stats and key not in state_dict:
            count = self.num_batches_tracked
            state_dict[key] = count if count is not None else tensor(0, dtype=int64)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)

    def extra_repr(self):
        return ("{num_features}, eps={eps}, momentum={momentum}, affine={affine}, bias={use_bias}, "
                "track_running_stats={track_running_stats}".format(**self.__dict__))


class BatchNorm1d(_BatchNorm):
    """Batch normalisation over the feature dim of ``(N, C)`` or ``(N, C, L)`` inputs."""

    def _check_input_dim(self, input):
        if input.ndim not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalisation over the channels of ``(N, C, H, W)`` images: one mean and
    variance per channel, over the batch and every position."""

    def _check_input_dim(self, input):
        if input.ndim != 4:
            raise ValueError(f"expected 4D input (got {input.ndim}D input)")
