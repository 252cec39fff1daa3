"""Losses as built-in Functions: binary cross-entropy (on probabilities and on logits),
smooth L1 and Huber (chapter 10's losses, one node each as in PyTorch).

Each Function computes the elementwise loss and reduces it (``"none"``,
``"mean"`` or ``"sum"``) inside the node, so the graph shows one
``...LossBackward0`` whatever the reduction.  Backward spreads the incoming
gradient back over the elements (divided by their number for the mean) and
multiplies by the elementwise derivative.
"""

import numpy as np

from ...ops._common import BuiltinFunction
from .activation import Log1p, Softplus, sigmoid_array

__all__ = ["BinaryCrossEntropy", "BinaryCrossEntropyWithLogits", "SmoothL1Loss", "HuberLoss"]

_LOG_FLOOR = -100.0          # PyTorch clamps log(p) and log(1 - p) here: the loss stays finite
_EPSILON = 1e-12             # and the derivative's denominator p (1 - p) stays above this


def reduce_array(loss, reduction):
    if reduction == "mean":
        return np.asarray(loss.mean(), dtype=loss.dtype)
    if reduction == "sum":
        return np.asarray(loss.sum(), dtype=loss.dtype)
    return loss


def spread(grad, ctx):
    """The incoming gradient per element: divided by the count for a mean (a 0-d
    gradient broadcasts over the elements by itself)."""
    return grad / max(ctx.count, 1) if ctx.reduction == "mean" else grad


# ----- binary cross-entropy on probabilities ---------------------------------------------------
class BinaryCrossEntropy(BuiltinFunction):
    """``-weight * (t log p + (1 - t) log(1 - p))``, the logs clamped at -100."""
    _backward_name = "BinaryCrossEntropyBackward0"
    _saved_names = ("self", "target", "weight")

    @staticmethod
    def forward(ctx, input, target, weight, reduction):
        ctx.save_for_backward(input, target, weight)
        ctx.reduction, ctx.count = reduction, input.numel()
        p, t = input._data, target._data
        with np.errstate(divide="ignore"):
            log_p = np.maximum(np.log(p), _LOG_FLOOR)
            log_q = np.maximum(np.log1p(-p), _LOG_FLOOR)
        loss = -(t * log_p + (1 - t) * log_q)
        if weight is not None:
            loss = loss * weight._data
        return reduce_array(loss.astype(p.dtype, copy=False), reduction)

    @staticmethod
    def backward(ctx, grad):
        p, t, w = ctx.saved_tensors
        need_p, need_t = ctx.needs_input_grad[:2]
        g = spread(grad, ctx) if w is None else spread(grad, ctx) * w
        grad_p = g * (p - t) / ((1 - p) * p).clamp(min=_EPSILON) if need_p else None
        grad_t = None
        if need_t:
            grad_t = g * (Log1p.apply(-p).clamp(min=_LOG_FLOOR) - p.log().clamp(min=_LOG_FLOOR))
        return grad_p, grad_t, None, None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        p, t, w = ctx.saved_arrays
        need_p, need_t = ctx.needs_input_grad[:2]
        g = spread(grad, ctx) if w is None else spread(grad, ctx) * w
        grad_p = grad_t = None
        if need_p:
            grad_p = (g * (p - t) / np.maximum((1 - p) * p, _EPSILON)).astype(p.dtype, copy=False)
        if need_t:
            with np.errstate(divide="ignore"):
                slope = np.maximum(np.log1p(-p), _LOG_FLOOR) - np.maximum(np.log(p), _LOG_FLOOR)
            grad_t = (g * slope).astype(t.dtype, copy=False)
        return grad_p, grad_t, None, None


# ----- binary cross-entropy on logits -----------------------------------------------------------
def _softplus_of_minus(x):
    """``log(1 + exp(-x))``, stable for any ``x``."""
    return np.logaddexp(0, -x)


class BinaryCrossEntropyWithLogits(BuiltinFunction):
    """``weight * ((1 - t) x + (1 + (pos_weight - 1) t) log(1 + exp(-x)))``: the binary
    cross-entropy of ``sigmoid(x)``, computed without ever forming ``sigmoid(x)``."""
    _backward_name = "BinaryCrossEntropyWithLogitsBackward0"
    _saved_names = ("self", "target", "weight", "pos_weight")

    @staticmethod
    def forward(ctx, input, target, weight, pos_weight, reduction):
        ctx.save_for_backward(input, target, weight, pos_weight)
        ctx.reduction, ctx.count = reduction, input.numel()
        x, t = input._data, target._data
        log_weight = 1 if pos_weight is None else 1 + (pos_weight._data - 1) * t
        loss = (1 - t) * x + log_weight * _softplus_of_minus(x)
        if weight is not None:
            loss = loss * weight._data
        return reduce_array(loss.astype(x.dtype, copy=False), reduction)

    @staticmethod
    def backward(ctx, grad):
        x, t, w, pw = ctx.saved_tensors
        need_x, need_t = ctx.needs_input_grad[:2]
        g = spread(grad, ctx) if w is None else spread(grad, ctx) * w
        grad_x = grad_t = None
        if need_x:
            if pw is None:
                grad_x = g * (x.sigmoid() - t)
            else:
                grad_x = g * ((1 + (pw - 1) * t) * x.sigmoid() - pw * t)
        if need_t:
            grad_t = -g * x if pw is None else g * ((pw - 1) * Softplus.apply(-x, 1.0, 20.0) - x)
        return grad_x, grad_t, None, None, None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        x, t, w, pw = ctx.saved_arrays
        need_x, need_t = ctx.needs_input_grad[:2]
        g = spread(grad, ctx) if w is None else spread(grad, ctx) * w
        grad_x = grad_t = None
        if need_x:
            s = sigmoid_array(x)
            slope = s - t if pw is None else (1 + (pw - 1) * t) * s - pw * t
            grad_x = (g * slope).astype(x.dtype, copy=False)
        if need_t:
            slope = -x if pw is None else (pw - 1) * _softplus_of_minus(x) - x
            grad_t = (g * slope).astype(t.dtype, copy=False)
        return grad_x, grad_t, None, None, None


# ----- smooth L1 and Huber ------------------------------------------------------------------
class SmoothL1Loss(BuiltinFunction):
    """``0.5 d**2 / beta`` where ``|d| < beta``, ``|d| - beta / 2`` elsewhere (``d = x - t``):
    quadratic near 0, linear (like L1) far from it."""
    _backward_name = "SmoothL1LossBackward0"
    _saved_names = ("self", "target")

    @staticmethod
    def forward(ctx, input, target, reduction, beta):
        ctx.save_for_backward(input, target)
        ctx.reduction, ctx.count, ctx.beta = reduction, input.numel(), beta
        d = input._data - target._data
        a = np.abs(d)
        loss = np.where(a < beta, 0.5 * d * d / beta, a - 0.5 * beta)
        return reduce_array(loss.astype(d.dtype, copy=False), reduction)

    @staticmethod
    def backward(ctx, grad):
        x, t = ctx.saved_tensors
        slope = spread(grad, ctx) * ((x - t) / ctx.beta).clamp(-1, 1)
        need_x, need_t = ctx.needs_input_grad[:2]
        return slope if need_x else None, -slope if need_t else None, None, None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        x, t = ctx.saved_arrays
        slope = spread(grad, ctx) * np.clip((x - t) / ctx.beta, -1, 1)
        need_x, need_t = ctx.needs_input_grad[:2]
        return slope if need_x else None, -slope if need_t else None, None, None


class HuberLoss(BuiltinFunction):
    """``0.5 d**2`` where ``|d| < delta``, ``delta (|d| - delta / 2)`` elsewhere: smooth L1
    times ``delta`` (with ``beta = delta``)."""
    _backward_name = "HuberLossBackward0"
    _saved_names = ("self", "target")

    @staticmethod
    def forward(ctx, input, target, reduction, delta):
        ctx.save_for_backward(input, target)
        ctx.reduction, ctx.count, ctx.delta = reduction, input.numel(), delta
        d = input._data - target._data
        a = np.abs(d)
        loss = np.where(a < delta, 0.5 * d * d, delta * (a - 0.5 * delta))
        return reduce_array(loss.astype(d.dtype, copy=False), reduction)

    @staticmethod
    def backward(ctx, grad):
        x, t = ctx.saved_tensors
        slope = spread(grad, ctx) * (x - t).clamp(-ctx.delta, ctx.delta)
        need_x, need_t = ctx.needs_input_grad[:2]
        return slope if need_x else None, -slope if need_t else None, None, None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        x, t = ctx.saved_arrays
        slope = spread(grad, ctx) * np.clip(x - t, -ctx.delta, ctx.delta)
        need_x, need_t = ctx.needs_input_grad[:2]
        return slope if need_x else None, -slope if need_t else None, None, None
