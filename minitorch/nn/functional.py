"""``nn.functional``: the layers' computations as plain functions (chapters 7 and 10).

Modules hold state (weights, the training flag); the functions here only
compute.  ``nn.Linear.forward`` is ``F.linear(input, self.weight, self.bias)``,
``nn.Dropout.forward`` is ``F.dropout(input, self.p, self.training)``, and so on.

They record the graph PyTorch records: ``linear`` is an ``AddmmBackward0``
(input, and the weight through a ``TBackward0``), ``cross_entropy`` is a
``log_softmax`` followed by ``nll_loss``, ``mse_loss`` is one
``MseLossBackward0``, batch normalisation one ``NativeBatchNormBackward0``.
"""

import math
import warnings

import numpy as np

from .._tensor import Tensor
from .._random import generator
from ..autograd.function import once_differentiable
from ..ops._common import BuiltinFunction, binary_operands, wrap
from ..ops.inplace import check_in_place
from ..ops.linalg import Addmm
from .modules._backward_hook import BackwardHookFunction
from .parameter import Parameter

__all__ = ["linear", "relu", "sigmoid", "tanh", "softmax", "log_softmax", "dropout",
           "mse_loss", "cross_entropy", "nll_loss", "batch_norm"]


# ----- argument checks --------------------------------------------------------------------
def _check_tensor(function, name, position, value):
    """PyTorch's TypeError for an argument that must be a Tensor."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be Tensor, "
                        f"not {type(value).__name__}")


def _check_bool(function, name, position, value):
    if not isinstance(value, bool):
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be bool, "
                        f"not {type(value).__name__}")


# ----- linear ----------------------------------------------------------------------------
def linear(input, weight, bias=None):
    """``y = input @ weight.T + bias``: the affine map of ``nn.Linear``.

    ``weight`` has shape ``(out_features, in_features)``; ``input`` may have
    any number of leading dims (they are folded into rows, as PyTorch does).
    """
    if type(input) is not Tensor or type(weight) is not Parameter:     # the usual case passes
        _check_tensor("linear", "input", 1, input)
        _check_tensor("linear", "weight", 2, weight)
    if bias is not None and not isinstance(bias, Tensor):
        _check_tensor("linear", "bias", 3, bias)
    if input.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are 0D "
                           f"and {weight.ndim}D")
    if bias is None:
        return input.matmul(weight.t())
    if input._data.dtype != weight._data.dtype or bias._data.dtype != weight._data.dtype:
        _linear_dtype_error(input, weight, bias)
    if input.ndim == 2:
        return Addmm.apply(bias, input, weight.t())
    rows = input.reshape(-1, input.shape[-1])
    return Addmm.apply(bias, rows, weight.t()).view(*input.shape[:-1], weight.shape[0])


def _linear_dtype_error(input, weight, bias):
    """PyTorch's addmm messages: input and weight first, then the bias ("self")."""
    if input.dtype != weight.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                           f"{input.dtype.type_name} and {weight.dtype.type_name}: convert the "
                           f"input with .to({weight.dtype}) (or the layer with .to({input.dtype}))")
    raise RuntimeError(f"self and mat2 must have the same dtype, but got {bias.dtype.type_name} "
                       f"and {weight.dtype.type_name}: the bias and the weight need one dtype")


# ----- activations -----------------------------------------------------------------------
def relu(input, inplace=False):
    """``max(0, x)`` elementwise (its gradient at 0 is 0, as in PyTorch)."""
    if type(input) is not Tensor:
        _check_tensor("relu", "input", 1, input)
    if input._data.dtype == np.bool_:
        raise RuntimeError("Boolean inputs not supported for relu: convert the tensor with "
                           ".float() first")
    if inplace:
        _check_in_place_target(input)
        return ReluInplace.apply(input)
    return input.relu()


def _check_in_place_target(input):
    """Refuse, before any memory is touched, an in-place change autograd could not follow."""
    node = input._grad_fn
    if node is not None and getattr(node, "_forward_cls", None) is BackwardHookFunction:
        raise RuntimeError(
            f"Output {input._output_nr} of BackwardHookFunction is a view and is being modified "
            "inplace. This view was created inside a custom Function (or because an input was "
            "returned as-is) and the autograd logic to handle view+inplace would override the "
            "custom backward associated with the custom Function, leading to incorrect "
            "gradients. This behavior is forbidden. You can fix this by cloning the output of "
            "the custom Function.")
    check_in_place(input)


class ReluInplace(BuiltinFunction):
    """``relu_``: negative values set to 0 in the input's own memory."""
    _backward_name = "ReluBackward0"
    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        np.maximum(a._data, 0, out=a._data)
        ctx.mark_dirty(a)
        ctx.save_for_backward(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return grad * (result > 0)

    @staticmethod
    def backward_on_arrays(ctx, grad):
        result, = ctx.saved_arrays
        return grad * (result > 0)


def sigmoid(input):
    return input.sigmoid()


def tanh(input):
    return input.tanh()


def _softmax_dim(name, ndim):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", UserWarning, stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``exp(x) / exp(x).sum(dim)``, computed stably.  Pass ``dim``: the axis that sums to 1."""
    if dim is None:
        dim = _softmax_dim("softmax", input.ndim)
    return input.softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``log(softmax(x))`` without overflow: ``x - max - log(sum(exp(x - max)))``."""
    if dim is None:
        dim = _softmax_dim("log_softmax", input.ndim)
    return input.log_softmax(dim, dtype=dtype)


# ----- dropout ---------------------------------------------------------------------------
def _check_p(p):
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    """In training, zero each element with probability ``p`` and scale the rest by
    ``1/(1-p)`` (expected values unchanged); otherwise return ``input`` unchanged."""
    _check_p(p)
    _check_tensor("dropout", "input", 1, input)
    _check_bool("dropout", "train", 3, training)
    if not training or p == 0:
        return input
    if not input.is_floating_point():
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{input.dtype.type_name}: dropout scales its input, so it needs a "
                           "floating point tensor (convert it with .float())")
    x = input._data
    if p == 1:
        mask = np.zeros_like(x)
    else:
        keep = generator().random(x.shape) >= p
        mask = keep.astype(x.dtype) / x.dtype.type(1 - p)
    if inplace:
        return input.mul_(wrap(mask))
    return input * wrap(mask)


# ----- losses ----------------------------------------------------------------------------
_REDUCTIONS = ("none", "mean", "sum")


def _legacy_reduction(size_average, reduce, stacklevel=4):
    """The reduction that PyTorch's deprecated ``size_average``/``reduce`` flags ask for."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "none" if not reduce else ("mean" if size_average else "sum")
    warnings.warn("size_average and reduce args will be deprecated, please use "
                  f"reduction='{reduction}' instead.", UserWarning, stacklevel=stacklevel)
    return reduction


def _reduction(reduction, size_average=None, reduce=None):
    """The reduction, also from the deprecated flags; checked when the loss is computed."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _check_float(input, kernel):
    if not input.is_floating_point():
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{input.dtype.type_name}': the input must be a floating "
                                  "point tensor (convert it with .float())")


class MseLoss(BuiltinFunction):
    """``(input - target) ** 2``, reduced, in one node."""
    _backward_name = "MseLossBackward0"
    _saved_names = ("self", "target")

    @staticmethod
    def forward(ctx, input, target, reduction):
        ctx.save_for_backward(input, target)
        ctx.reduction = reduction
        x, t = binary_operands(input, target)
        diff = x - t
        loss = diff * diff
        if reduction == "mean":
            return np.asarray(loss.mean(), dtype=loss.dtype)
        if reduction == "sum":
            return np.asarray(loss.sum(), dtype=loss.dtype)
        return loss

    @staticmethod
    def backward(ctx, grad):
        input, target = ctx.saved_tensors
        slope = (input - target) * 2
        if ctx.reduction == "mean":
            slope = slope / max(input.numel(), 1)
        g = slope * grad
        need_input, need_target = ctx.needs_input_grad[:2]
        return g if need_input else None, -g if need_target else None, None


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean (or sum, or none) of ``(input - target) ** 2``."""
    _check_tensor("mse_loss", "input", 1, input)
    _check_tensor("mse_loss", "target", 2, target)
    reduction = _reduction(reduction, size_average, reduce)
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input "
                      f"size ({input.shape}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.", UserWarning,
                      stacklevel=2)
        input, target = _broadcast_pair(input, target)
    if not input.is_floating_point() and not target.is_floating_point():
        _check_float(input, "mse_cpu")
    return MseLoss.apply(input, target, reduction)


def _broadcast_pair(a, b):
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({a.shape[-1]}) must match the size of tensor "
                           f"b ({b.shape[-1]}): input and target shapes {list(a.shape)} and "
                           f"{list(b.shape)} do not broadcast") from None
    return a.expand(*shape), b.expand(*shape)


class NllLoss(BuiltinFunction):
    """``-input[i, target_i] * weight[target_i]``, reduced: the negative log-likelihood of
    the target classes, given log-probabilities ``input`` of shape (N, C)."""
    _backward_name = "NllLossBackward0"
    _saved_names = ("self", "target")

    @staticmethod
    def forward(ctx, input, target, weight, ignore_index, reduction):
        x, t = input._data, target._data
        rows = np.arange(x.shape[0])
        counted = t != ignore_index
        safe = np.where(counted, t, 0)
        w = weight._data[safe] if weight is not None else np.ones(len(t), dtype=x.dtype)
        w = np.where(counted, w, 0).astype(x.dtype)
        ctx.rows, ctx.safe, ctx.w, ctx.reduction = rows, safe, w, reduction
        ctx.shape, ctx.total = x.shape, w.sum()
        losses = -w * x[rows, safe]
        if reduction == "none":
            return losses
        total = losses.sum()
        return np.asarray(total / ctx.total if reduction == "mean" else total, dtype=x.dtype)

    @staticmethod
    def backward(ctx, grad):
        slope = wrap(_nll_slope(ctx))
        grad = grad.unsqueeze(1) if ctx.reduction == "none" else grad
        return grad * slope, None, None, None, None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        grad = grad[:, None] if ctx.reduction == "none" else grad
        return grad * _nll_slope(ctx), None, None, None, None


def _nll_slope(ctx):
    """d loss / d input: minus the weight (over the total, for the mean) at each
    sample's target class, zero elsewhere."""
    scale = ctx.w / ctx.total if ctx.reduction == "mean" else ctx.w
    slope = np.zeros(ctx.shape, dtype=ctx.w.dtype)
    slope[ctx.rows, ctx.safe] = -scale
    return slope


def _check_class_targets(input, target):
    """PyTorch's checks, in its order: batch sizes, one target per sample (for (N, C)
    inputs), integer classes."""
    batch = target.shape[0] if target.ndim else 0
    if input.shape[0] != batch:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({batch}).")
    if input.ndim == 2 and target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    _check_target_dtype(target)


def _check_target_dtype(target):
    if target.dtype.name not in ("int64", "uint8"):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{target.dtype.type_name}")


def _check_targets_in_range(target, n_classes, ignore_index):
    t = target._data
    bad = (t != ignore_index) & ((t < 0) | (t >= n_classes))
    if bad.any():
        raise IndexError(f"Target {int(t[bad][0])} is out of bounds.")


def _as_rows(input, target):
    """(N, C) inputs with (N,) targets: a single sample (C,) becomes one row, and
    (N, C, d1, ...) inputs become rows of C with their (N, d1, ...) targets flattened.
    Returns the rows, their targets, and the shape to give a per-element loss back."""
    if input.ndim == 1:
        if target.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if target.numel() != 1:
            raise RuntimeError(f"size mismatch (got input: {list(input.shape)}, target: "
                               f"{list(target.shape)})")
        _check_target_dtype(target)
        return input.unsqueeze(0), target.reshape(1), tuple(target.shape)
    if input.ndim == 2:
        _check_class_targets(input, target)
        return input, target, None
    _check_class_targets(input, target)
    if tuple(target.shape) != tuple(input.shape[:1] + input.shape[2:]):
        raise RuntimeError(f"Expected target size {list(input.shape[:1] + input.shape[2:])}, "
                           f"got {list(target.shape)}")
    rows = input.permute(0, *range(2, input.ndim), 1).reshape(-1, input.shape[1])
    return rows, target.reshape(-1), tuple(target.shape)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log-likelihood of ``target`` classes, given log-probabilities ``input``."""
    _check_tensor("nll_loss_nd", "input", 1, input)
    _check_tensor("nll_loss_nd", "target", 2, target)
    reduction = _reduction(reduction, size_average, reduce)
    if input.ndim == 0:
        raise ValueError("Expected 1 or more dimensions (got 0)")
    _check_float(input, "nll_loss_out_frame")
    rows, labels, layout = _as_rows(input, target)
    _check_targets_in_range(labels, rows.shape[1], ignore_index)
    if weight is not None and tuple(weight.shape) != (rows.shape[1],):
        raise RuntimeError(f"weight tensor should be defined either for all {rows.shape[1]} "
                           f"classes or no classes but got weight tensor of shape: "
                           f"{list(weight.shape)}")
    loss = NllLoss.apply(rows, labels, weight, ignore_index, reduction)
    if reduction == "none" and layout is not None:
        return loss.reshape(*layout)
    return loss


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """The classification loss: ``-log softmax(input)[target]``, averaged over the batch.

    ``input``: logits of shape ``(N, C)`` (or ``(C,)``, or ``(N, C, d1, ...)``).
    ``target``: class indices (int64) of shape ``(N,)``, or class probabilities
    of the same shape as ``input``.  ``weight`` rescales each class; targets
    equal to ``ignore_index`` do not count; ``label_smoothing`` mixes the target
    with the uniform distribution.
    """
    _check_tensor("cross_entropy_loss", "input", 1, input)
    _check_tensor("cross_entropy_loss", "target", 2, target)
    reduction = _reduction(reduction, size_average, reduce)
    _check_float(input, "log_softmax_lastdim_kernel_impl")
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing}")
    class_dim = 0 if input.ndim <= 1 else 1
    if target.shape == input.shape:         # one probability per class
        if not target.is_floating_point():
            raise RuntimeError("Expected floating point type for target with class "
                               f"probabilities, got {target.dtype.type_name}: give class "
                               "indices one dimension less than the input, or probabilities "
                               "as floats")
        logp = input.log_softmax(class_dim)
        return _soft_cross_entropy(logp, target, weight, reduction, label_smoothing, class_dim)
    if input.ndim == 0:
        raise ValueError("Expected 1 or more dimensions (got 0)")
    logp = input.log_softmax(class_dim)
    loss = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if not label_smoothing:
        return loss
    return _smoothed(loss, logp, target, weight, ignore_index, reduction, label_smoothing,
                     class_dim)


def _class_weights(weight, logp, class_dim):
    shape = [1] * logp.ndim
    shape[class_dim] = -1
    return weight.reshape(*shape)


def _soft_cross_entropy(logp, target, weight, reduction, smoothing, class_dim):
    """Cross-entropy against class probabilities: ``-(target * logp).sum(class dim)``."""
    if target.shape != logp.shape:
        raise RuntimeError(f"Expected target size {list(logp.shape)}, got {list(target.shape)}")
    n_classes = logp.shape[class_dim]
    if smoothing:
        target = target * (1 - smoothing) + smoothing / n_classes
    if weight is not None:
        logp = logp * _class_weights(weight, logp, class_dim)
    losses = -(target * logp).sum(class_dim)
    if reduction == "mean":
        return losses.sum() / (logp.shape[0] if logp.ndim > 1 else 1) if logp.ndim > 1 \
            else losses
    return _reduce(losses, reduction)


def _smoothed(nll, logp, target, weight, ignore_index, reduction, smoothing, class_dim):
    """``(1 - s) * nll + s * (the loss against the uniform distribution)``."""
    n_classes = logp.shape[class_dim]
    weighted = logp * _class_weights(weight, logp, class_dim) if weight is not None else logp
    uniform = -weighted.sum(class_dim) / n_classes
    counted = (target != ignore_index)
    uniform = uniform.masked_fill(~counted, 0.0)
    if reduction == "mean":
        if weight is not None:
            denominator = weight[target.masked_fill(~counted, 0)].masked_fill(~counted, 0).sum()
        else:
            denominator = counted.sum()
        uniform = uniform.sum() / denominator
    elif reduction == "sum":
        uniform = uniform.sum()
    return nll * (1 - smoothing) + uniform * smoothing


# ----- batch normalisation ----------------------------------------------------------------
class NativeBatchNorm(BuiltinFunction):
    """Normalise each channel (dim 1) with the given statistics, then scale by ``weight``
    and shift by ``bias``: one node, as in PyTorch.  In training the statistics are the
    batch's own, so the gradient also flows through them."""
    _backward_name = "NativeBatchNormBackward0"
    _saved_names = ("input", "weight")

    @staticmethod
    def forward(ctx, input, weight, bias, mean, var, eps, training):
        x = input._data
        ctx.dims = (0,) + tuple(range(2, x.ndim))
        ctx.shape = (1, -1) + (1,) * (x.ndim - 2)
        ctx.inv_std = (1 / np.sqrt(var + eps)).reshape(ctx.shape)
        ctx.normalized = (x - mean.reshape(ctx.shape)) * ctx.inv_std
        ctx.training = training
        ctx.save_for_backward(input, weight)
        out = ctx.normalized
        if weight is not None:
            out = out * weight._data.reshape(ctx.shape)
        if bias is not None:
            out = out + bias._data.reshape(ctx.shape)
        return out.astype(x.dtype, copy=False)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        input, weight = ctx.saved_tensors
        need_input, need_weight, need_bias = ctx.needs_input_grad[:3]
        g, dims, xhat = grad._data, ctx.dims, ctx.normalized
        grad_input = grad_weight = grad_bias = None
        if need_input:
            gx = g * weight._data.reshape(ctx.shape) if weight is not None else g
            if ctx.training:        # the batch's mean and variance depend on the input too
                gx = (gx - gx.mean(axis=dims, keepdims=True)
                      - xhat * (gx * xhat).mean(axis=dims, keepdims=True))
            grad_input = wrap((gx * ctx.inv_std).astype(g.dtype, copy=False))
        if need_weight:
            grad_weight = wrap((g * xhat).sum(axis=dims).astype(g.dtype, copy=False))
        if need_bias:
            grad_bias = wrap(g.sum(axis=dims).astype(g.dtype, copy=False))
        return grad_input, grad_weight, grad_bias, None, None, None, None


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Batch normalisation over dim 1 of ``(N, C, ...)``: with the batch's statistics in
    training (also blending them into ``running_mean``/``running_var`` when given), with
    the running ones otherwise."""
    _check_float(input, "batch_norm")
    if input.ndim < 2:
        raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")
    _check_same_dtype(input, weight, bias, running_mean, running_var)
    x = input._data
    if training:
        dims = (0,) + tuple(range(2, x.ndim))
        count = x.size // max(x.shape[1], 1)
        if count <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {input.shape}")
        mean, var = x.mean(axis=dims), x.var(axis=dims)
        if running_mean is not None:
            _blend(running_mean, mean, momentum)
            _blend(running_var, var * (count / (count - 1)), momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("running_mean and running_var must be defined in evaluation "
                               "mode")
        mean, var = running_mean._data, running_var._data
    if mean.shape != (x.shape[1],):
        raise RuntimeError(f"running_mean should contain {x.shape[1]} elements not "
                           f"{mean.shape[0] if mean.ndim else 1}")
    return NativeBatchNorm.apply(input, weight, bias, mean, var, eps, training)


def _check_same_dtype(input, *parameters):
    """Normalisation layers refuse parameters of another dtype than the input (CPU rules)."""
    for p in parameters:
        if p is not None and p.dtype != input.dtype:
            if input.dtype.name == "float64":
                raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype. "
                                   f"The input is float64 and a parameter is {p.dtype.name}: "
                                   "convert the layer with .double() or the input with .float()")
            raise RuntimeError(f"mixed dtype (CPU): expect parameter to have scalar type of "
                               f"{input.dtype.type_name}: convert the layer with "
                               f".to({input.dtype}) or the input with .to({p.dtype})")


def _blend(running, batch_value, momentum):
    """``running = (1 - momentum) * running + momentum * batch_value``, in place."""
    running._data *= 1 - momentum
    running._data += momentum * batch_value.astype(running._data.dtype)
    running._version_counter.bump()
