"""``optim.Adam``: adaptive moment estimation (chapter 6, "Putting it together").

Adam keeps two running averages per parameter, of the gradient (``exp_avg``,
the direction) and of its square (``exp_avg_sq``, the scale), corrects
both for starting at zero, and steps by their ratio:

    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    p = p - lr * (m / (1 - beta1**t)) / (sqrt(v / (1 - beta2**t)) + eps)

Each parameter therefore gets its own step size, about ``lr`` whatever
the gradient's magnitude.
"""

import math

import numpy as np

from .._tensor import Tensor
from .optimizer import Optimizer

__all__ = ["Adam"]


class Adam(Optimizer):
    """Adam (Kingma & Ba, 2015), with optional L2 weight decay and AMSGrad."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 maximize=False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize)
        super().__init__(params, defaults)

    def _state_of(self, p, amsgrad):
        state = self.state[p]
        if not state:
            state["step"] = Tensor._wrap(np.array(0.0, dtype=np.float32))
            state["exp_avg"] = Tensor._wrap(np.zeros_like(p._data))
            state["exp_avg_sq"] = Tensor._wrap(np.zeros_like(p._data))
            if amsgrad:
                state["max_exp_avg_sq"] = Tensor._wrap(np.zeros_like(p._data))
        return state

    def step(self, closure=None):
        """Update every parameter that has a gradient; returns ``closure()`` if given."""
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            weight_decay, amsgrad = group["weight_decay"], group["amsgrad"]
            for p in self._params_with_grad(group):
                g = p.grad._data
                if group["maximize"]:
                    g = -g
                if weight_decay:
                    g = g + weight_decay * p._data
                state = self._state_of(p, amsgrad)
                state["step"]._data += 1
                t = float(state["step"]._data)
                m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
                m *= beta1
                m += (1 - beta1) * g
                v *= beta2
                v += (1 - beta2) * (g * g)
                if amsgrad:
                    v_max = state["max_exp_avg_sq"]._data
                    np.maximum(v_max, v, out=v_max)
                    v = v_max
                step_size = lr / (1 - beta1 ** t)
                denom = np.sqrt(v) / math.sqrt(1 - beta2 ** t) + eps
                p._data -= (step_size * m / denom).astype(p._data.dtype, copy=False)
                p._version_counter.bump()
        return loss
