"""``optim.SGD``: stochastic gradient descent with momentum and weight decay (chapter 9).

For each parameter ``p`` with gradient ``g``:

    g = g + weight_decay * p                  (L2 penalty, if weight_decay)
    buf = g                   on the first step (if momentum)
    buf = momentum * buf + (1 - dampening) * g        afterwards
    g = g + momentum * buf if nesterov else buf
    p = p - lr * g

The momentum buffer is the per-parameter state kept between steps.
"""

from .. import no_grad
from .optimizer import Optimizer, _check_implementation_flags, _check_non_negative, _evaluate

__all__ = ["SGD"]


class SGD(Optimizer):
    """Gradient descent: ``p -= lr * grad``, optionally with momentum and weight decay."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        _check_non_negative("learning rate", lr)
        _check_non_negative("momentum value", momentum)
        _check_non_negative("weight_decay value", weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        _check_implementation_flags(foreach, fused, differentiable)
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure=None):
        """Update every parameter that has a gradient, in place and unrecorded.
        ``closure`` (optional) re-computes and returns the loss; its value is returned."""
        ### BEGIN SOLUTION 9.1
        loss = _evaluate(closure)
        for group in self.param_groups:
            momentum, weight_decay = group["momentum"], group["weight_decay"]
            for p in self._params_with_grad(group):
                g = -p.grad if group["maximize"] else p.grad
                if weight_decay:
                    g = g.add(p, alpha=weight_decay)
                if momentum:
                    buf = self.state[p].get("momentum_buffer")
                    if buf is None:
                        buf = self.state[p]["momentum_buffer"] = g.clone()
                    else:
                        buf.mul_(momentum).add_(g, alpha=1 - group["dampening"])
                    g = g.add(buf, alpha=momentum) if group["nesterov"] else buf
                p.add_(g, alpha=-group["lr"])
        return loss
        ### END SOLUTION 9.1
