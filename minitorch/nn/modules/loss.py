"""Loss modules: ``MSELoss``, ``CrossEntropyLoss``, ``NLLLoss``, ``L1Loss``,
``SmoothL1Loss``, ``HuberLoss``, ``BCELoss``, ``BCEWithLogitsLoss``, ``KLDivLoss`` (chapters 6
and 10).

Each stores its options and calls the matching ``nn.functional`` function.
``CrossEntropyLoss`` takes raw scores (logits) and integer class labels: it
applies ``log_softmax`` itself, so a model must not end with a softmax.
"""

from .. import functional as F
from .module import Module

__all__ = ["MSELoss", "CrossEntropyLoss", "NLLLoss", "L1Loss", "SmoothL1Loss", "HuberLoss",
           "BCELoss", "BCEWithLogitsLoss", "KLDivLoss"]


class _Loss(Module):
    """Stores ``reduction`` (also from the deprecated ``size_average``/``reduce`` flags).
    As in PyTorch, an unknown reduction is refused when the loss is computed."""

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = F._legacy_reduction(size_average, reduce, stacklevel=3)
        self.reduction = reduction


class MSELoss(_Loss):
    """Mean squared error between input and target."""

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(_Loss):
    """``-log softmax(logits)[label]``, averaged over the batch."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class _WeightedLoss(_Loss):
    """A loss with an optional ``weight`` tensor, kept as a buffer (saved in state_dict)."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of the target classes, given log-probabilities (after
    ``LogSoftmax``); ``LogSoftmax`` + ``NLLLoss`` is ``CrossEntropyLoss``."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class L1Loss(_Loss):
    """Mean absolute error between input and target."""

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Quadratic for errors below ``beta``, linear above: less sensitive to outliers than
    ``MSELoss``."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Quadratic for errors below ``delta``, linear (slope ``delta``) above."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class BCELoss(_WeightedLoss):
    """Binary cross-entropy between probabilities (e.g. after a ``Sigmoid``) and targets."""

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight,
                                      reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """``Sigmoid`` + ``BCELoss`` in one stable step, taking logits."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence from ``target`` to the distribution whose
    log-probabilities are ``input``; use ``reduction="batchmean"`` for the true KL."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)
