"""``optim.Adagrad``: per-parameter steps that shrink with the gradients seen (chapter 9).

Adagrad (Duchi, Hazan & Singer, 2011) adds every squared gradient to a
running ``sum`` and steps by ``g / (sqrt(sum) + eps)``.  Parameters that
have had large gradients slow down for good; rarely-updated ones keep
large steps, which suits sparse features.  ``lr_decay`` also shrinks the
rate with the step count ``t``: ``lr / (1 + (t - 1) * lr_decay)``.

Unlike the other optimizers, Adagrad creates its state when it is built:
``sum`` starts at ``initial_accumulator_value``, the step count at 0.
"""

from .. import full_like, no_grad, tensor
from .optimizer import Optimizer, _check_implementation_flags, _check_non_negative, _evaluate

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Steps divided by the root of the sum of all squared gradients so far."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check_non_negative("learning rate", lr)
        _check_non_negative("lr_decay value", lr_decay)
        _check_non_negative("weight_decay value", weight_decay)
        _check_non_negative("initial_accumulator_value value", initial_accumulator_value)
        _check_non_negative("epsilon value", eps)
        _check_implementation_flags(foreach, fused, differentiable)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._state_of(p, group)

    def _state_of(self, p, group):
        """The parameter's state: made in ``__init__``, or on the first step of a
        parameter added later with ``add_param_group``."""
        ### BEGIN SOLUTION 9.1
        state = self.state[p]
        if not state:
            state["step"] = tensor(0.0)
            state["sum"] = full_like(p, group["initial_accumulator_value"])
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
        """One Adagrad step for one parameter."""
        ### BEGIN SOLUTION 9.1
        state["step"] += 1
        t = state["step"].item()
        if group["weight_decay"]:
            g = g.add(p, alpha=group["weight_decay"])
        lr = group["lr"] / (1 + (t - 1) * group["lr_decay"])
        state["sum"].add_(g * g)
        std = state["sum"].sqrt().add_(group["eps"])
        p.add_(g / std, alpha=-lr)
        ### END SOLUTION 9.1
