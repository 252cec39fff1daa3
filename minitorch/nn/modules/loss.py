"""Loss modules: ``MSELoss`` and ``CrossEntropyLoss`` (chapter 6, "Putting it together").

Each stores its options and calls the matching ``nn.functional`` function.
``CrossEntropyLoss`` takes raw scores (logits) and integer class labels: it
applies ``log_softmax`` itself, so a model must not end with a softmax.
"""

from .. import functional as F
from .module import Module

__all__ = ["MSELoss", "CrossEntropyLoss"]


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
