"""``optim.SGD``: stochastic gradient descent with momentum and weight decay (chapter 6).

For each parameter ``p`` with gradient ``g``:

    g = g + weight_decay * p                  (L2 penalty, if weight_decay)
    buf = g                   on the first step (if momentum)
    buf = momentum * buf + (1 - dampening) * g        afterwards
    g = g + momentum * buf if nesterov else buf
    p = p - lr * g

The momentum buffer is the per-parameter state kept between steps.
"""

import numpy as np

from .._tensor import Tensor
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """Gradient descent: ``p -= lr * grad``, optionally with momentum and weight decay."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """Update every parameter that has a gradient.  ``closure`` (optional) re-computes
        and returns the loss; its value is returned."""
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
            weight_decay, nesterov = group["weight_decay"], group["nesterov"]
            for p in self._params_with_grad(group):
                g = p.grad._data
                if group["maximize"]:
                    g = -g
                if weight_decay:
                    g = g + weight_decay * p._data
                if momentum:
                    state = self.state[p]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = state["momentum_buffer"] = Tensor._wrap(np.array(g, dtype=p._data.dtype))
                    else:
                        buf._data *= momentum
                        buf._data += (1 - dampening) * g
                    g = g + momentum * buf._data if nesterov else buf._data
                p._data -= (lr * g).astype(p._data.dtype, copy=False)
                p._version_counter.bump()
        return loss
