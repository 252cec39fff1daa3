"""``nn.functional``: the layers' computations as plain functions (chapters 5 and 6).

Modules hold state (weights, the training flag); the functions here only
compute.  ``nn.Linear.forward`` is ``F.linear(input, self.weight, self.bias)``,
``nn.Dropout.forward`` is ``F.dropout(input, self.p, self.training)``, and so on.

Three of them are single fused ``autograd.Function``s instead of chains of
small ops, because a training step spends most of its time in them:

* ``linear`` on a batch of vectors: one matrix product plus the bias, with
  a backward made of three matrix products (with tensor ops under
  ``create_graph=True``, so it can itself be differentiated);
* ``cross_entropy`` with class indices: ``log_softmax`` and the negative
  log-likelihood in one pass, computed stably (the largest logit is
  subtracted first, so logits of 1000 give finite losses); its gradient is
  simply ``softmax - one_hot``;
* ``dropout``: one random mask, multiplied in.
"""

import warnings

import numpy as np

from .._tensor import Tensor
from .._random import generator
from ..autograd.function import Function, once_differentiable

__all__ = ["linear", "relu", "sigmoid", "tanh", "softmax", "log_softmax", "dropout",
           "mse_loss", "cross_entropy", "nll_loss"]


# ----- linear ----------------------------------------------------------------------------
class _Linear(Function):
    """``input @ weight.T + bias`` for a 2-D input, in one graph node."""

    _builtin = True
    _backward_name = "AddmmBackward0"

    @staticmethod
    def forward(ctx, bias, input, weight):
        x, w = input._data, weight._data
        if x.shape[1] != w.shape[1]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({x.shape[0]}x{x.shape[1]} and "
                               f"{w.shape[1]}x{w.shape[0]}): the input's last dim must equal in_features")
        ctx.save_for_backward(input, weight)
        out = x @ w.T
        if bias is not None:
            out += bias._data
        return out

    @staticmethod
    def backward(ctx, grad):
        input, weight = ctx.saved_tensors
        need_bias, need_input, need_weight = ctx.needs_input_grad
        if grad.requires_grad:      # create_graph=True: build the gradient from differentiable ops
            return (grad.sum(0) if need_bias else None,
                    grad.mm(weight) if need_input else None,
                    grad.t().mm(input) if need_weight else None)
        g = grad._data              # the usual case: the same three products, straight on the arrays
        return (Tensor._wrap(g.sum(0)) if need_bias else None,
                Tensor._wrap(g @ weight._data) if need_input else None,
                Tensor._wrap(g.T @ input._data) if need_weight else None)


def linear(input, weight, bias=None):
    """``y = input @ weight.T + bias``: the affine map of ``nn.Linear``.

    ``weight`` has shape ``(out_features, in_features)``; ``input`` may have
    any number of leading dims.
    """
    if input.ndim == 2 and weight.ndim == 2:
        return _Linear.apply(bias, input, weight)
    out = input.matmul(weight.t())
    return out if bias is None else out + bias


# ----- activations -----------------------------------------------------------------------
def relu(input, inplace=False):
    """``max(0, x)`` elementwise (its gradient at 0 is 0, as in PyTorch)."""
    if inplace:
        return input.copy_(input.relu())
    return input.relu()


def sigmoid(input):
    return input.sigmoid()


def tanh(input):
    return input.tanh()


def _softmax_dim(name, ndim):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to "
                  "include dim=X as an argument.", UserWarning, stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, dtype=None):
    """``exp(x) / exp(x).sum(dim)``, computed stably.  Pass ``dim``: which axis sums to 1."""
    if dim is None:
        dim = _softmax_dim("softmax", input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return input.softmax(dim)


def log_softmax(input, dim=None, dtype=None):
    """``log(softmax(x))`` without overflow: ``x - max - log(sum(exp(x - max)))``."""
    if dim is None:
        dim = _softmax_dim("log_softmax", input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return input.log_softmax(dim)


# ----- dropout ---------------------------------------------------------------------------
class _Dropout(Function):
    """Multiply by a random mask of 0 and ``1/(1-p)``: expected values are unchanged."""

    _builtin = True
    _backward_name = "NativeDropoutBackward0"

    @staticmethod
    def forward(ctx, input, p):
        x = input._data
        if p == 1:
            mask = np.zeros_like(x)
        else:
            keep = generator().random(x.shape) >= p
            mask = keep.astype(x.dtype) / x.dtype.type(1 - p)
        ctx.mask = Tensor._wrap(mask)
        return x * mask

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.mask, None


def _check_p(p):
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    """In training, zero each element with probability ``p`` and scale the rest by
    ``1/(1-p)``; otherwise return ``input`` unchanged."""
    _check_p(p)
    if not training:
        return input
    out = _Dropout.apply(input, p)
    return input.copy_(out) if inplace else out


# ----- losses ----------------------------------------------------------------------------
_REDUCTIONS = ("none", "mean", "sum")


def _check_reduction(reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def mse_loss(input, target, reduction="mean"):
    """Mean (or sum, or none) of ``(input - target) ** 2``."""
    _check_reduction(reduction)
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", UserWarning, stacklevel=2)
    diff = input - target
    return _reduce(diff * diff, reduction)


def _log_softmax_rows(x):
    """Stable log-softmax over the last axis, and the softmax itself (for backward)."""
    shifted = x - x.max(axis=-1, keepdims=True)
    exp = np.exp(shifted)
    total = exp.sum(axis=-1, keepdims=True)
    return shifted - np.log(total), exp / total


class _CrossEntropy(Function):
    """``log_softmax`` + negative log-likelihood for class-index targets, in one node.

    Per sample ``i`` with class ``t``: ``loss_i = w_t * (logsumexp(x_i) - x_i[t])``
    and ``d loss_i / d x_i = w_t * (softmax(x_i) - one_hot(t))``.  ``mean``
    divides by the summed weights of the samples that count.
    """

    _builtin = True
    _backward_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, logits, target, weight, ignore_index, reduction):
        x, t = logits._data, target._data
        n = x.shape[0]
        logp, probs = _log_softmax_rows(x)
        counted = t != ignore_index
        safe_t = np.where(counted, t, 0)
        w = weight._data[safe_t] if weight is not None else np.ones(n, dtype=x.dtype)
        w = np.where(counted, w, 0).astype(x.dtype, copy=False)
        losses = -w * logp[np.arange(n), safe_t]
        ctx.probs, ctx.target, ctx.weights, ctx.reduction = probs, safe_t, w, reduction
        if reduction == "none":
            return losses
        if reduction == "sum":
            return np.asarray(losses.sum(), dtype=x.dtype)
        ctx.total = w.sum()
        return np.asarray(losses.sum() / ctx.total, dtype=x.dtype)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        g = grad._data
        if ctx.reduction == "mean":
            g = g / ctx.total
        coeff = (ctx.weights * g)[:, None]
        d = ctx.probs.copy()
        d[np.arange(len(d)), ctx.target] -= 1
        return Tensor._wrap((d * coeff).astype(ctx.probs.dtype, copy=False)), None, None, None, None


def _check_class_targets(input, target):
    if target.dtype.is_floating_point or target.dtype.name == "bool":
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{'Float' if target.dtype.name == 'float32' else target.dtype.name.capitalize()}")
    if input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target.shape[0]}).")


def _check_targets_in_range(target, n_classes, ignore_index):
    t = target._data
    bad = (t != ignore_index) & ((t < 0) | (t >= n_classes))
    if bad.any():
        raise IndexError(f"Target {int(t[bad][0])} is out of bounds.")


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """The classification loss: ``-log softmax(input)[target]``, averaged over the batch.

    ``input``: logits of shape ``(N, C)`` (or ``(C,)`` for one sample).
    ``target``: class indices (int64) of shape ``(N,)``, or class
    probabilities of the same shape as ``input``.  ``weight`` rescales each
    class; targets equal to ``ignore_index`` do not count.
    """
    _check_reduction(reduction)
    if label_smoothing:
        raise NotImplementedError("minitorch's cross_entropy does not implement label_smoothing")
    if target.dtype.is_floating_point and target.shape == input.shape:
        return _cross_entropy_soft(input, target, weight, reduction)
    if input.ndim == 1:         # a single sample: logits (C,), target ()
        loss = cross_entropy(input.unsqueeze(0), target.reshape(1), weight, ignore_index=ignore_index,
                             reduction=reduction)
        return loss.reshape(()) if reduction == "none" else loss
    if input.ndim != 2:
        raise NotImplementedError(f"minitorch's cross_entropy takes (N, C) or (C,) logits, got "
                                  f"{input.ndim}-D: reshape to (N, C) first")
    _check_class_targets(input, target)
    _check_targets_in_range(target, input.shape[1], ignore_index)
    return _CrossEntropy.apply(input, target, weight, ignore_index, reduction)


def _cross_entropy_soft(input, target, weight, reduction):
    """Cross-entropy against class probabilities: ``-(target * log_softmax(input)).sum(class dim)``."""
    class_dim = 0 if input.ndim == 1 else 1
    logp = input.log_softmax(class_dim)
    if weight is not None:
        shape = [1] * input.ndim
        shape[class_dim] = -1
        logp = logp * weight.reshape(*shape)
    losses = -(target * logp).sum(class_dim)
    if reduction == "mean" and input.ndim > 1:
        return losses.sum() / input.shape[0]
    return _reduce(losses, reduction)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log-likelihood of ``target`` classes, given log-probabilities ``input`` (N, C)."""
    _check_reduction(reduction)
    _check_class_targets(input, target)
    _check_targets_in_range(target, input.shape[1], ignore_index)
    t = target._data
    counted = t != ignore_index
    safe_t = np.where(counted, t, 0)
    w = weight._data[safe_t] if weight is not None else np.ones(len(t), dtype=input._data.dtype)
    w = Tensor._wrap(np.where(counted, w, 0).astype(input._data.dtype, copy=False))
    picked = input[Tensor._wrap(np.arange(len(t))), Tensor._wrap(safe_t)]
    losses = -(picked * w)
    if reduction == "none":
        return losses
    if reduction == "sum":
        return losses.sum()
    return losses.sum() / w.sum()
