"""``optim.AdamW``: Adam with decoupled weight decay (chapter 9, "Optimizers").

Adam's ``weight_decay`` adds ``weight_decay * p`` to the gradient, which
Adam then divides by its running scale: parameters with large gradients
are barely decayed.  AdamW (Loshchilov & Hutter, 2019) shrinks the
parameter itself instead, ``p = p * (1 - lr * weight_decay)``, before the
Adam step, so every parameter decays at the same rate.  It is Adam with
``decoupled_weight_decay=True`` and a default ``weight_decay`` of 0.01.
"""

from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """Adam whose weight decay shrinks the parameters directly (default 1e-2)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable, differentiable=differentiable,
                         fused=fused, decoupled_weight_decay=True)
