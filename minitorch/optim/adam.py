"""``optim.Adam``: adaptive moment estimation (chapter 9, "Optimizers").

Adam keeps two running averages per parameter, of the gradient (``exp_avg``,
the direction) and of its square (``exp_avg_sq``, the scale), corrects
both for starting at zero, and steps by their ratio:

    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    p = p - lr * (m / (1 - beta1**t)) / (sqrt(v / (1 - beta2**t)) + eps)

Each parameter therefore gets its own step size, about ``lr`` whatever
the gradient's magnitude.  Weight decay is either added to the gradient
(L2, Adam's default) or, with ``decoupled_weight_decay=True`` (what AdamW
is), applied to the parameter directly: ``p = p * (1 - lr * weight_decay)``.
"""

import math

from .. import maximum, no_grad, tensor, zeros_like
from .optimizer import Optimizer, _check_implementation_flags, _check_non_negative, _evaluate

__all__ = ["Adam"]


def _check_betas(betas):
    for i, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")


class Adam(Optimizer):
    """Adam (Kingma & Ba, 2015), with optional L2 or decoupled weight decay and AMSGrad."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _check_non_negative("learning rate", lr)
        _check_non_negative("epsilon value", eps)
        _check_betas(betas)
        _check_non_negative("weight_decay value", weight_decay)
        _check_implementation_flags(foreach, fused, differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def _state_of(self, p, group):
        """The parameter's state, created on its first step: a step count and the averages."""
        ### BEGIN SOLUTION 9.1
        state = self.state[p]
        if not state:
            state["step"] = tensor(0.0)
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = zeros_like(p)
        return state
        ### END SOLUTION 9.1

    @no_grad()
    def step(self, closure=None):
        """Update every parameter that has a gradient; returns ``closure()`` if given."""
        ### BEGIN SOLUTION 9.1
        loss = _evaluate(closure)
        for group in self.param_groups:
            for p in self._params_with_grad(group):
                g = -p.grad if group["maximize"] else p.grad
                self._update(p, g, self._state_of(p, group), group)
        return loss
        ### END SOLUTION 9.1

    @staticmethod
    def _update(p, g, state, group):
        """One Adam step for one parameter (the formulas of the module docstring)."""
        ### BEGIN SOLUTION 9.1
        lr, weight_decay = group["lr"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        state["step"] += 1
        t = state["step"].item()
        if weight_decay and group["decoupled_weight_decay"]:
            p.mul_(1 - lr * weight_decay)
        elif weight_decay:
            g = g.add(p, alpha=weight_decay)
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m.mul_(beta1).add_(g, alpha=1 - beta1)
        v.mul_(beta2).add_(g * g, alpha=1 - beta2)
        if group["amsgrad"]:
            v = state["max_exp_avg_sq"].copy_(maximum(state["max_exp_avg_sq"], v))
        denom = (v.sqrt() / math.sqrt(1 - beta2 ** t)).add_(group["eps"])
        p.add_(m / denom, alpha=-lr / (1 - beta1 ** t))
        ### END SOLUTION 9.1
