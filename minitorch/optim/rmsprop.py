"""``optim.RMSprop``: divide each gradient by a running root mean square (chapter 9).

RMSprop (Hinton's lecture notes, 2012) keeps ``square_avg``, a running
average of ``g * g``, and steps by ``g / (sqrt(square_avg) + eps)``: like
Adam without the momentum average and without bias correction.  Options:

* ``centered``: also keep ``grad_avg``, the running mean of ``g``, and divide
  by the running *variance* ``square_avg - grad_avg**2`` instead;
* ``momentum``: accumulate the scaled steps in a buffer, as SGD does;
* ``weight_decay``: L2 penalty added to the gradient.
"""

from .. import no_grad, tensor, zeros_like
from .optimizer import Optimizer, _check_implementation_flags, _check_non_negative, _evaluate

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """Steps scaled by a running RMS of the gradient; ``alpha`` is the averaging factor."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        _check_non_negative("learning rate", lr)
        _check_non_negative("epsilon value", eps)
        _check_non_negative("momentum value", momentum)
        _check_non_negative("weight_decay value", weight_decay)
        _check_non_negative("alpha value", alpha)
        _check_implementation_flags(foreach, None, differentiable)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def _state_of(self, p, group):
        """The parameter's state, created on its first step."""
        ### BEGIN SOLUTION 9.1
        state = self.state[p]
        if not state:
            state["step"] = tensor(0.0)
            state["square_avg"] = zeros_like(p)
            if group["momentum"] > 0:
                state["momentum_buffer"] = zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = zeros_like(p)
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
        """One RMSprop step for one parameter."""
        ### BEGIN SOLUTION 9.1
        alpha, lr = group["alpha"], group["lr"]
        state["step"] += 1
        if group["weight_decay"]:
            g = g.add(p, alpha=group["weight_decay"])
        square_avg = state["square_avg"].mul_(alpha).add_(g * g, alpha=1 - alpha)
        if group["centered"]:
            grad_avg = state["grad_avg"].mul_(alpha).add_(g, alpha=1 - alpha)
            rms = (square_avg - grad_avg * grad_avg).sqrt().add_(group["eps"])
        else:
            rms = square_avg.sqrt().add_(group["eps"])
        if group["momentum"] > 0:
            buf = state["momentum_buffer"].mul_(group["momentum"]).add_(g / rms)
            p.add_(buf, alpha=-lr)
        else:
            p.add_(g / rms, alpha=-lr)
        ### END SOLUTION 9.1
