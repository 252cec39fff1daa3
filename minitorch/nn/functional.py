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
from .._random import Draw
from ..autograd.function import once_differentiable
from .. import ops
from ..ops._common import BuiltinFunction, binary_operands, broadcast_error, wrap
from ..ops.inplace import check_in_place, record_change_in_base
from ..ops.linalg import Addmm
from ..autograd.grad_mode import is_grad_enabled, no_grad as _no_grad
from .. import _functions as torch_functions
from .._dtype import result_type
from .parameter import Parameter
from ._functions import activation as _act
from ._functions import conv as _conv_ops
from ._functions import loss as _loss
from ._functions import normalization as _norm_ops
from ._functions import padding as _pad
from ._functions import pooling as _pool_ops

__all__ = ["linear", "relu", "sigmoid", "tanh", "softmax", "log_softmax", "dropout",
           "mse_loss", "cross_entropy", "nll_loss", "batch_norm",
           "gelu", "elu", "leaky_relu", "softplus", "dropout2d", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "l1_loss", "smooth_l1_loss", "huber_loss",
           "one_hot", "pad", "conv1d", "conv2d", "max_pool2d", "avg_pool2d",
           "adaptive_avg_pool2d", "layer_norm", "embedding", "silu", "logsigmoid", "hardtanh",
           "hardtanh_", "relu_", "relu6", "normalize", "cosine_similarity", "kl_div", "group_norm"]


# ----- argument checks --------------------------------------------------------------------
def _check_tensor(function, name, position, value):
    """PyTorch's TypeError for an argument that must be a Tensor."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be Tensor, "
                        f"not {type(value).__name__}")


def _check_sized(function, *values):
    """The losses written in Python in PyTorch ask their arguments for ``.size()`` first, so
    a non-tensor gives an AttributeError there: the same type here, with advice."""
    for value in values:
        if not isinstance(value, Tensor):
            raise AttributeError(f"'{type(value).__name__}' object has no attribute 'size': "
                                 f"{function}() takes Tensors (make one with torch.tensor(...))")


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
        return ops.relu_(input)         # Tensor.relu_'s op (ops/inplace.py)
    return input.relu()


relu_ = torch_functions.relu_           # ``torch.relu_``, as in PyTorch


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
    mask = _dropout_mask(input._data.shape, p, input._data.dtype)
    if inplace:
        return input.mul_(mask)
    return input * mask


def _dropout_mask(shape, p, dtype):
    """Dropout's multiplier of ``shape``: 0 with probability ``p``, ``1/(1-p)`` otherwise.
    Inside vmap it follows the vmap's randomness: with ``'different'`` each example gets
    a mask of its own, with ``'same'`` all share one (chapter 13)."""
    drawn = Draw()
    if p == 1:
        return wrap(np.zeros(shape, dtype=dtype))
    keep = drawn.rng.random(drawn.sizes + tuple(shape)) >= p
    return drawn.result(wrap(keep.astype(dtype) / dtype.type(1 - p)))


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
    if input._data.dtype.kind != "f":
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
    """Mean (or sum, or none) of ``(input - target) ** 2``.  With ``weight`` (one per
    element), the weighted squares; their mean is divided by the sum of the weights."""
    _check_sized("mse_loss", target, input)
    if weight is not None:
        return _weighted(lambda a, b: (a - b) * (a - b), input, target, weight,
                         _legacy_or(reduction, size_average, reduce), by_weight_sum=True)
    reduction = _reduction(reduction, size_average, reduce)
    input, target = _matching_shapes(input, target, stacklevel=3)
    if not input.is_floating_point() and not target.is_floating_point():
        _check_float(input, "mse_cpu")
    return MseLoss.apply(input, target, reduction)


def _matching_shapes(input, target, stacklevel=4):
    """Broadcast ``input`` and ``target`` together, warning (as PyTorch) when they differ."""
    if target.shape == input.shape:
        return input, target
    warnings.warn(f"Using a target size ({target.shape}) that is different to the input "
                  f"size ({input.shape}). This will likely lead to incorrect results due "
                  "to broadcasting. Please ensure they have the same size.", UserWarning,
                  stacklevel=stacklevel)
    return _broadcast_pair(input, target)


def _legacy_or(reduction, size_average, reduce):
    if size_average is not None or reduce is not None:
        return _legacy_reduction(size_average, reduce, stacklevel=5)
    return reduction


def _weighted(elementwise, input, target, weight, reduction, by_weight_sum):
    """A loss with one weight per element: ``elementwise(input, target) * weight``, reduced;
    the mean divides by the weights' sum (``by_weight_sum``) or by the element count."""
    _check_tensor("loss", "weight", 6, weight)
    input, target = _matching_shapes(input, target, stacklevel=5)
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                         "'sum'.")
    losses = elementwise(input, target) * weight
    if reduction == "mean":
        return losses.sum() / weight.sum() if by_weight_sum else losses.mean()
    return _reduce(losses, reduction)


def _broadcast_pair(a, b):
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise broadcast_error(a._data, b._data) from None
    return a.expand(*shape), b.expand(*shape)


class NllLoss(BuiltinFunction):
    """``-input[i, target_i] * weight[target_i]``, reduced: the negative log-likelihood of
    the target classes, given log-probabilities ``input`` of shape (N, C) or (C,).

    Only ``input`` is a graph input: the targets and class weights are passed as numpy
    arrays, so the node has one edge, as PyTorch's has (chapter 10)."""
    _backward_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, input, target, weight, ignore_index, reduction):
        """``ignore_index`` is None when no target equals it (``nll_loss`` checked)."""
        x = input._data
        rows = x.reshape(-1, x.shape[-1])       # one row per sample, classes last
        labels = target.reshape(-1)
        safe = labels if ignore_index is None else np.where(labels == ignore_index, 0, labels)
        picked = rows[np.arange(len(rows)), safe]
        w = _sample_weights(labels, weight, ignore_index, x.dtype)
        ctx.safe, ctx.w, ctx.reduction, ctx.dtype = safe, w, reduction, x.dtype
        ctx.input_shape, ctx.target_shape = x.shape, target.shape
        ctx.total = len(labels) if w is None else w.sum()
        losses = -picked if w is None else -w * picked
        if reduction == "none":
            return losses.reshape(target.shape)
        total = np.add.reduce(losses)
        return np.asarray(total / ctx.total if reduction == "mean" else total, dtype=x.dtype)

    @staticmethod
    def backward(ctx, grad):
        slope = wrap(_nll_slope(ctx))
        if ctx.reduction == "none":                 # one gradient per sample
            grad = grad.reshape(-1, 1)
        return (grad * slope).reshape(ctx.input_shape), None, None, None, None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        grad = grad.reshape(-1, 1) if ctx.reduction == "none" else grad
        return (grad * _nll_slope(ctx)).reshape(ctx.input_shape), None, None, None, None


class NllLoss2d(NllLoss):
    """``NllLoss`` for inputs (N, C, H, W): the per-pixel classification loss."""
    _backward_name = "NllLoss2DBackward0"

    @staticmethod
    def forward(ctx, input, target, weight, ignore_index, reduction):
        rows = Tensor._wrap(np.moveaxis(input._data, 1, -1))       # (N, H, W, C)
        return NllLoss.forward(ctx, rows, target, weight, ignore_index, reduction)

    @staticmethod
    def backward(ctx, grad):
        grad_rows = NllLoss.backward(ctx, grad)[0]
        return grad_rows.movedim(-1, 1), None, None, None, None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        grad_rows = NllLoss.backward_on_arrays(ctx, grad)[0]
        return np.moveaxis(grad_rows, -1, 1), None, None, None, None


def _sample_weights(labels, weight, ignore_index, dtype):
    """Each sample's weight: its class's weight, 0 for an ignored target; None when
    every sample counts once (no class weights, nothing ignored)."""
    if weight is None and ignore_index is None:
        return None
    counted = labels != ignore_index
    w = weight[np.where(counted, labels, 0)] if weight is not None else np.ones(len(labels))
    return np.where(counted, w, 0).astype(dtype)


def _nll_slope(ctx):
    """d loss / d input, one row per sample: minus the sample's weight (over the total,
    for the mean) at its target class, zero elsewhere."""
    ### BEGIN SOLUTION 10.1
    n = len(ctx.safe)
    weight = 1.0 if ctx.w is None else ctx.w
    slope = np.zeros((n, ctx.input_shape[-1]), dtype=ctx.dtype)
    slope[np.arange(n), ctx.safe] = -weight / ctx.total if ctx.reduction == "mean" else -weight
    return slope
    ### END SOLUTION 10.1


def _check_class_targets(input, target):
    """PyTorch's checks, in its order: batch sizes, one target per sample (for (N, C)
    inputs), integer classes."""
    x, t = input._data, target._data
    batch = t.shape[0] if t.ndim else 0
    if x.shape[0] != batch:
        raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target "
                         f"batch_size ({batch}).")
    if x.ndim == 2 and t.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    _check_target_dtype(target)


def _check_target_dtype(target):
    d = target._data.dtype
    if not (d.kind == "i" and d.itemsize == 8 or d.kind == "u" and d.itemsize == 1):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{target.dtype.type_name}")


def _targets_in_range(t, n_classes, ignore_index):
    """Refuse a target that is neither a class nor ``ignore_index``; return True if some
    target is ``ignore_index``."""
    if t.size == 0:
        return False
    low, high = np.minimum.reduce(t, axis=None), np.maximum.reduce(t, axis=None)
    if 0 <= low and high < n_classes:
        return low <= ignore_index <= high and bool((t == ignore_index).any())
    ignored = t == ignore_index
    bad = ~ignored & ((t < 0) | (t >= n_classes))
    if bad.any():
        raise IndexError(f"Target {int(t[bad][0])} is out of bounds.")
    return True


def _check_1d_target(target):
    """A single sample (C,) has one target class."""
    if target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if target.numel() != 1:
        raise RuntimeError(f"size mismatch (got input: [C], target: {list(target.shape)}): "
                           "a single sample of C class scores has one target class")
    _check_target_dtype(target)


def _check_spatial_target(input, target):
    expected = list(input.shape[:1] + input.shape[2:])
    if list(target.shape) != expected:
        raise RuntimeError(f"Expected target size {expected}, got {list(target.shape)}")


def _check_nll_weight(weight, n_classes):
    if weight is None:
        return None
    if tuple(weight.shape) != (n_classes,):
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} "
                           f"classes or no classes but got weight tensor of shape: "
                           f"{list(weight.shape)}")
    if weight.requires_grad and is_grad_enabled():
        raise RuntimeError("The function 'nll_loss_forward' is not differentiable with "
                           "respect to argument 'weight'. This input cannot have "
                           "requires_grad True: pass weight.detach().")
    return weight._data


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log-likelihood of ``target`` classes, given log-probabilities ``input``
    of shape (N, C), (C,) or (N, C, d1, ...)."""
    _check_tensor("nll_loss_nd", "input", 1, input)
    _check_tensor("nll_loss_nd", "target", 2, target)
    reduction = _reduction(reduction, size_average, reduce)
    if input.ndim == 0:
        raise ValueError("Expected 1 or more dimensions (got 0)")
    _check_float(input, "nll_loss_out_frame")
    return _nll(input, target, weight, ignore_index, reduction)


def _nll(input, target, weight, ignore_index, reduction):
    """``nll_loss`` once its arguments' types are checked: the layout checks, then the
    node for the layout."""
    ndim = input._data.ndim
    if ndim == 1:
        _check_1d_target(target)
    else:
        _check_class_targets(input, target)
        if ndim > 2:
            _check_spatial_target(input, target)
    n_classes = input._data.shape[0 if ndim == 1 else 1]
    if not _targets_in_range(target._data, n_classes, ignore_index):
        ignore_index = None                 # no target is ignored: the simple case
    w = _check_nll_weight(weight, n_classes)
    if ndim <= 2:
        return NllLoss.apply(input, target._data, w, ignore_index, reduction)
    if ndim == 4:
        return NllLoss2d.apply(input, target._data, w, ignore_index, reduction)
    # other spatial layouts go through the 2-d loss, as (N, C, d1, rest) images
    n, c, d1 = input.shape[:3]
    images = input.reshape(n, c, d1, -1)
    loss = NllLoss2d.apply(images, target._data.reshape(n, d1, -1), w, ignore_index,
                           reduction)
    return loss.reshape(*target.shape) if reduction == "none" else loss


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
    class_dim = 0 if input._data.ndim <= 1 else 1
    if target._data.shape == input._data.shape:         # one probability per class
        if not target.is_floating_point():
            raise RuntimeError("Expected floating point type for target with class "
                               f"probabilities, got {target.dtype.type_name}: give class "
                               "indices one dimension less than the input, or probabilities "
                               "as floats")
        logp = input.log_softmax(class_dim)
        return _soft_cross_entropy(logp, target, weight, reduction, label_smoothing, class_dim)
    if input._data.ndim == 0:
        raise ValueError("Expected 1 or more dimensions (got 0)")
    logp = ops.LogSoftmax.apply(input, class_dim)           # the input was checked above
    loss = _nll(logp, target, weight, ignore_index, reduction)
    if not label_smoothing:
        return loss
    return _smoothed(loss, logp, target, weight, ignore_index, reduction, label_smoothing,
                     class_dim)


def _class_weights(weight, logp, class_dim):
    shape = [1] * logp.ndim
    shape[class_dim] = -1
    return weight.reshape(*shape)


def _soft_cross_entropy(logp, target, weight, reduction, smoothing, class_dim):
    """Cross-entropy against class probabilities: ``-(logp * target).sum(class dim)``."""
    if target.shape != logp.shape:
        raise RuntimeError(f"Expected target size {list(logp.shape)}, got {list(target.shape)}")
    n_classes = logp.shape[class_dim]
    if smoothing:
        target = target * (1 - smoothing) + smoothing / n_classes
    if weight is not None:
        logp = logp * _class_weights(weight, logp, class_dim)
    product = logp * target
    if reduction == "none":
        return -product.sum(class_dim)
    total = -product.sum()
    if reduction == "sum":
        return total
    return ops.DivByNumber.apply(total, logp.numel() // n_classes)    # per sample


def _smoothed(nll, logp, target, weight, ignore_index, reduction, smoothing, class_dim):
    """``(1 - s) * nll + s/C * (the loss against the uniform distribution)``."""
    n_classes = logp.shape[class_dim]
    weighted = logp * _class_weights(weight, logp, class_dim) if weight is not None else logp
    counted = target != ignore_index
    uniform = (-weighted.sum(class_dim)).masked_fill(~counted, 0.0)
    if reduction == "mean":
        if weight is not None:
            denominator = weight[target.masked_fill(~counted, 0)].masked_fill(~counted, 0).sum()
        else:
            denominator = counted.sum()
        uniform = uniform.sum() / denominator
    elif reduction == "sum":
        uniform = uniform.sum()
    return (ops.MulByNumber.apply(nll, 1 - smoothing)
            + ops.MulByNumber.apply(uniform, smoothing / n_classes))


# ----- batch normalisation ----------------------------------------------------------------
class NativeBatchNorm(BuiltinFunction):
    """Normalise each channel (dim 1) with the given statistics, then scale by ``weight``
    and shift by ``bias``: one node, as in PyTorch.  In training the statistics are the
    batch's own, so the gradient also flows through them."""
    _backward_name = "NativeBatchNormBackward0"
    _saved_names = ("input", "weight")
    _graph_inputs = 3               # input, weight, bias: (None, 0) edges without affine

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


# =============================================================================================
# Chapter 11 and the tutorials: more activations, losses, convolution, pooling, padding,
# normalisation, embeddings.  The computations are Functions in ``nn/_functions``.
# =============================================================================================

# ----- activations ---------------------------------------------------------------------------
def _float_input(function, kernel, input):
    if type(input) is not Tensor:
        _check_tensor(function, "input", 1, input)
    if not input.is_floating_point():
        raise NotImplementedError(f'"{kernel}" not implemented for \'{input.dtype.type_name}\': '
                                  f"{function} needs a floating point tensor (use .float())")


def gelu(input, approximate="none"):
    """``x * Phi(x)`` (Phi: the standard normal CDF), or its tanh approximation."""
    _float_input("gelu", "GeluKernelImpl", input)
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _act.Gelu.apply(input, approximate)


def elu(input, alpha=1.0, inplace=False):
    """``x`` if ``x > 0``, else ``alpha * (exp(x) - 1)``."""
    _float_input("elu", "elu_cpu", input)
    if inplace:
        check_in_place(input)
        return record_change_in_base(_act.EluInplace.apply(input, alpha))
    return _act.Elu.apply(input, alpha)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``x`` if ``x > 0``, else ``negative_slope * x``."""
    _float_input("leaky_relu", "leaky_relu_cpu", input)
    if inplace:
        check_in_place(input)
        return record_change_in_base(_act.LeakyReluInplace.apply(input, negative_slope))
    return _act.LeakyRelu.apply(input, negative_slope)


def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta * x)) / beta``: a smooth ReLU (``x`` itself past ``threshold``)."""
    _float_input("softplus", "softplus_cpu", input)
    return _act.Softplus.apply(input, beta, threshold)


def silu(input, inplace=False):
    """``x * sigmoid(x)`` (swish).  ``inplace=True`` writes the result into ``input``."""
    _float_input("silu", "silu_cpu", input)
    if inplace:
        check_in_place(input)
        source = input.clone() if input.requires_grad and is_grad_enabled() else input
        return input.copy_(_act.Silu.apply(source))     # backward needs the values before
    return _act.Silu.apply(input)


def logsigmoid(input):
    """``log(sigmoid(x))``, without overflow for large ``|x|``."""
    _float_input("logsigmoid", "log_sigmoid_cpu", input)
    return _act.LogSigmoid.apply(input)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """``x`` clipped to ``[min_val, max_val]``; gradient 1 strictly inside, 0 elsewhere."""
    _check_tensor("hardtanh", "input", 1, input)
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        check_in_place(input)
        return record_change_in_base(_act.HardtanhInplace.apply(input, min_val, max_val))
    return _act.Hardtanh.apply(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """``hardtanh`` written into ``input``."""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):
    """``min(max(0, x), 6)``: ``hardtanh(x, 0, 6)``, as PyTorch computes it."""
    return hardtanh(input, 0.0, 6.0, inplace)


# ----- normalize, cosine_similarity, kl_div: compositions, as in PyTorch -------------------------
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input`` divided by its ``p``-norm along ``dim`` (at least ``eps``), so each slice
    has norm 1; written with differentiable ops, the graph PyTorch records too."""
    denom = input.norm(p, dim, keepdim=True).clamp(min=eps).expand_as(input)
    if out is None:
        return input / denom
    return torch_functions.div(input, denom, out=out)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``x1 . x2 / (|x1| |x2|)`` along ``dim`` (after broadcasting).  Each input is divided
    by its norm first (which keeps the result within [-1, 1]); the norms are raised to
    ``eps`` outside the graph, as PyTorch does, so the gradient treats them as plain norms."""
    _check_tensor("cosine_similarity", "x1", 1, x1)
    _check_tensor("cosine_similarity", "x2", 2, x2)
    dtype = result_type(x1, x2)
    if not dtype.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{dtype.type_name}. Convert the inputs with .float().")
    x1, x2 = (x.to(dtype) if x.dtype != dtype else x for x in (x1, x2))
    try:
        x1, x2 = torch_functions.broadcast_tensors(x1, x2)
    except RuntimeError:
        raise broadcast_error(x1._data, x2._data) from None
    n1 = x1.norm(2, dim, keepdim=True).clone()
    n2 = x2.norm(2, dim, keepdim=True).clone()
    with _no_grad():
        n1.clamp_(min=eps)
        n2.clamp_(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """``target * (log(target) - input)`` summed as ``reduction`` says, with ``input`` given
    as log-probabilities (and ``target`` too if ``log_target``).  ``batchmean`` divides the
    sum by the batch size, which is the mathematical KL divergence; ``mean`` divides by
    every element and warns, as PyTorch does."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, stacklevel=3)
    if reduction not in _REDUCTIONS + ("batchmean",):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                      "support size.'batchmean' divides only by the batch size, and aligns with "
                      "the KL div math definition.'mean' will be changed to behave the same as "
                      "'batchmean' in the next major release.", UserWarning, stacklevel=2)
    if log_target:
        pointwise = target.exp() * (target - input)
    else:
        plogp = ops.where(target > 0, target * target.log(), 0.0)      # 0 log 0 = 0
        pointwise = plogp - target * input
    if reduction == "batchmean" and input.ndim != 0:
        return pointwise.sum() / input.shape[0]
    return _reduce(pointwise, "sum" if reduction == "batchmean" else reduction)


# ----- dropout2d -----------------------------------------------------------------------------
def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels: each ``(sample, channel)`` plane of an ``(N, C, H, W)`` input is
    dropped with probability ``p`` (the rest scaled by ``1/(1-p)``)."""
    _check_p(p)
    _check_tensor("dropout2d", "input", 1, input)
    if input.ndim not in (3, 4):
        warnings.warn(_DROPOUT2D_NOT_3D_OR_4D.format(input.ndim), UserWarning, stacklevel=2)
    elif input.ndim == 3:
        warnings.warn(_DROPOUT2D_3D, UserWarning, stacklevel=2)
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if not training or p == 0:
        return input
    if not input.is_floating_point():
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{input.dtype.type_name}: dropout2d needs a floating point tensor")
    x = input._data
    mask = _dropout_mask(x.shape[:2] + (1,) * (x.ndim - 2), p, x.dtype)
    return input.mul_(mask) if inplace else input * mask


_DROPOUT2D_NOT_3D_OR_4D = (
    "dropout2d: Received a {}-D input to dropout2d, which is deprecated and will result in an "
    "error in a future release. To retain the behavior and silence this warning, please use "
    "dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with "
    "2 spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D "
    "inputs).")
_DROPOUT2D_3D = ("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
                 "dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
                 "is the channel dim. This behavior will change in a future release to interpret "
                 "the input as one without a batch dimension, i.e. shape (C, H, W). To maintain "
                 "the 1D channel-wise dropout behavior, please switch to using dropout1d instead.")


# ----- more losses ---------------------------------------------------------------------------
def _refuse_grad_for(function, name, tensor):
    if tensor is not None and tensor.requires_grad and is_grad_enabled():
        raise RuntimeError(f"The function '{function}' is not differentiable with respect to "
                           f"argument '{name}'. This input cannot have requires_grad True.")


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """``-(t log p + (1 - t) log(1 - p))`` for probabilities ``p`` (e.g. after a sigmoid);
    each log is clamped at -100, so a certain wrong answer costs 100, not infinity."""
    _check_sized("binary_cross_entropy", target, input)
    reduction = _reduction(reduction, size_average, reduce)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input "
                         f"size ({input.shape}) is deprecated. Please ensure they have the "
                         "same size.")
    _check_float(input, "binary_cross_entropy")
    if target.dtype != input.dtype:
        raise RuntimeError(f"Found dtype {target.dtype.type_name} but expected "
                           f"{input.dtype.type_name}: convert the target with "
                           f".to({input.dtype})")
    _check_unit_interval(input, "input")
    _check_unit_interval(target, "target")
    if weight is not None:
        _refuse_grad_for("binary_cross_entropy", "weight", weight)
        weight = _broadcast_weight(weight, input.shape)
    return _loss.BinaryCrossEntropy.apply(input, target, weight, reduction)


def _check_unit_interval(t, name):
    x = t._data
    if not ((x >= 0) & (x <= 1)).all():
        raise RuntimeError(f"all elements of {name} should be between 0 and 1")


def _broadcast_weight(weight, shape):
    """``weight`` expanded to ``shape``, which it must broadcast to (as PyTorch requires)."""
    try:
        broadcast = np.broadcast_shapes(tuple(weight.shape), tuple(shape))
    except ValueError:
        raise broadcast_error(weight._data, np.empty(shape)) from None
    if broadcast != tuple(shape):
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape "
                           f"{list(broadcast)}: the weight must broadcast to the input's shape")
    return weight.expand(*shape)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """Binary cross-entropy of ``sigmoid(input)``, computed from the logits directly (stable
    for any logit).  ``pos_weight`` multiplies the loss of the positive class."""
    _check_sized("binary_cross_entropy_with_logits", target, input)
    reduction = _reduction(reduction, size_average, reduce)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    _check_float(input, "log_sigmoid_cpu")
    if not target.is_floating_point():
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{target.dtype.type_name}: the target holds probabilities (floats)")
    for name, extra in (("weight", weight), ("pos_weight", pos_weight)):
        _refuse_grad_for("binary_cross_entropy_with_logits", name, extra)
    weight = None if weight is None else _broadcast_weight(weight, input.shape)
    pos_weight = None if pos_weight is None else _broadcast_weight(pos_weight, input.shape)
    return _loss.BinaryCrossEntropyWithLogits.apply(input, target, weight, pos_weight, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean (or sum, or none) of ``|input - target|``; with ``weight``, the weighted values,
    whose mean is divided by the sum of the weights."""
    _check_sized("l1_loss", target, input)
    if weight is not None:
        return _weighted(lambda a, b: (a - b).abs(), input, target, weight,
                         _legacy_or(reduction, size_average, reduce), by_weight_sum=True)
    reduction = _reduction(reduction, size_average, reduce)
    input, target = _matching_shapes(input, target)
    return _reduce((input - target).abs(), reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Quadratic (``0.5 d**2 / beta``) for ``|d| < beta``, linear (``|d| - beta/2``) beyond."""
    _check_sized("smooth_l1_loss", target, input)
    reduction = _reduction(reduction, size_average, reduce)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)
    input, target = _matching_shapes(input, target)
    _check_float(input, "smooth_l1_cpu")
    return _loss.SmoothL1Loss.apply(input, target, reduction, beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Quadratic (``0.5 d**2``) for ``|d| < delta``, linear (``delta (|d| - delta/2)``)
    beyond.  With ``weight``, the weighted values (their mean divides by the count)."""
    _check_sized("huber_loss", target, input)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if weight is not None:
        return _weighted(lambda a, b: huber_loss(a, b, "none", delta), input, target, weight,
                         reduction, by_weight_sum=False)
    reduction = _reduction(reduction)
    input, target = _matching_shapes(input, target)
    _check_float(input, "huber_cpu")
    return _loss.HuberLoss.apply(input, target, reduction, delta)


def one_hot(tensor, num_classes=-1):
    """Class indices (int64) to rows of 0s with a 1 at the index: shape ``(*, num_classes)``;
    ``num_classes=-1`` takes the largest index plus one."""
    _check_tensor("one_hot", "self", 1, tensor)
    if tensor.dtype.name != "int64":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    x = tensor._data
    if num_classes == -1:
        if x.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(x.max()) + 1
    if x.size and x.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if x.size and x.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return wrap((x[..., None] == np.arange(num_classes)).astype(np.int64))


# ----- padding -------------------------------------------------------------------------------
_PAD_FUNCTIONS = {("reflect", 1): _pad.ReflectionPad1D, ("reflect", 2): _pad.ReflectionPad2D,
                  ("reflect", 3): _pad.ReflectionPad3D, ("replicate", 1): _pad.ReplicationPad1D,
                  ("replicate", 2): _pad.ReplicationPad2D, ("replicate", 3): _pad.ReplicationPad3D}


def pad(input, pad, mode="constant", value=None):
    """Pad the last dimensions: ``pad = (left, right)`` for the last one, then
    ``(top, bottom)`` for the one before, and so on.  ``mode``: ``"constant"`` (with
    ``value``, 0 by default; negative amounts crop), ``"reflect"``, ``"replicate"``,
    ``"circular"``."""
    _check_tensor("pad", "input", 1, input)
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{input.ndim}")
    pairs = tuple((pad[2 * i], pad[2 * i + 1]) for i in reversed(range(len(pad) // 2)))
    if mode == "constant":
        return _constant_pad(input, pairs, 0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    n = len(pairs)
    if input.ndim not in (n + 1, n + 2) or n > 3:
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    if mode != "circular" and 0 in input.shape[input.ndim - n - 1:]:
        raise RuntimeError(f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with possibly 0 "
                           f"batch size and other non-zero dimensions for input, but got: "
                           f"{list(input.shape)}. {mode.capitalize()} padding reads the "
                           "entries at the edges, so only the batch dimension may be empty "
                           "(mode='constant' pads an empty tensor).")
    spatial = input.shape[-n:]
    matrices = tuple(_pad_positions(mode, size, before, after, input.ndim - n + i, input.shape)
                     for i, (size, (before, after)) in enumerate(zip(spatial, pairs)))
    matrices = tuple(_pad.positions_matrix(m, size, input._data.dtype)
                     for m, size in zip(matrices, spatial))
    function = _pad.CircularPad if mode == "circular" else _PAD_FUNCTIONS[mode, n]
    return function.apply(input, matrices)


def _constant_pad(input, pairs, value):
    for size, (before, after) in zip(input.shape[-len(pairs):], pairs):
        if size + before + after < 0 or -before > size or -after > size:
            raise RuntimeError(f"narrow(): length must be non-negative. (Padding {before, after} "
                               f"would remove more than the {size} entries of a dimension.)")
    if not input.is_floating_point() and isinstance(value, float):
        value = int(value)
    return _pad.ConstantPadNd.apply(input, pairs, value)


def _pad_positions(mode, size, before, after, dim, shape):
    """Which input entry each padded position reads, along one dimension."""
    if before < 0 or after < 0:
        raise RuntimeError(f"{mode} padding needs non-negative amounts, but got ({before}, "
                           f"{after}); crop with slicing (or constant padding) instead")
    if mode == "reflect" and (before >= size or after >= size):
        raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding "
                           f"input dimension, but got: padding ({before}, {after}) at dimension "
                           f"{dim} of input {list(shape)}")
    if mode == "circular" and (before > size or after > size):
        raise RuntimeError("Padding value causes wrapping around more than once.")
    positions = np.arange(-before, size + after)
    if mode == "replicate":
        return np.clip(positions, 0, size - 1)
    if mode == "circular":
        return positions % size
    positions = np.abs(positions)                           # reflect at the start...
    return np.where(positions >= size, 2 * (size - 1) - positions, positions)   # ...and the end


# ----- convolution ---------------------------------------------------------------------------
def _expand_param(value, n, name, function="convolution", single_only=False):
    """An int, or a sequence of 1 or ``n`` ints, as a tuple of ``n`` ints."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int(value),) * n
    values = tuple(value)
    if len(values) == 1 and not single_only:
        return values * n
    if len(values) != n or not all(isinstance(v, (int, np.integer)) for v in values):
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} "
                           f"values to match the convolution dimensions, but got "
                           f"{name}={list(values)}")
    return tuple(int(v) for v in values)


def _conv(function, n, input, weight, bias, stride, padding, dilation, groups):
    """``conv1d``/``conv2d``: PyTorch's checks, then one ``Convolution`` node."""
    _check_tensor(function, "input", 1, input)
    _check_tensor(function, "weight", 2, weight)
    if bias is not None:
        _check_tensor(function, "bias", 3, bias)
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                           f"{function}, but got input of size: {list(input.shape)}")
    stride = _expand_param(stride, n, "stride")
    dilation = _expand_param(dilation, n, "dilation")
    if weight.ndim - 2 != n:
        raise RuntimeError(f"expected stride to be a single integer value or a list of "
                           f"{weight.ndim - 2} values to match the convolution dimensions, but "
                           f"got stride={list(stride)}")
    if isinstance(padding, str):
        padding = _padding_from_string(padding, weight.shape[2:], stride, dilation)
    else:
        padding = tuple((p, p) for p in _expand_param(padding, n, "padding"))
    if min(stride) <= 0:
        raise RuntimeError("non-positive stride is not supported")
    if min(min(p) for p in padding) < 0:
        raise RuntimeError("negative padding is not supported")
    if min(dilation) <= 0:
        raise RuntimeError("non-positive dilation is not supported")
    batched = input.ndim == n + 2
    x = input if batched else input.unsqueeze(0)
    _check_conv_shapes(x, weight, bias, padding, dilation, groups)
    geometry = _conv_ops.Geometry(stride, padding, dilation, groups)
    function = _ConvolutionOfNoChannels if x.shape[1] == 0 else _conv_ops.Convolution
    out = function.apply(x, weight, bias, geometry)
    return out if batched else out.squeeze(0)


class _ConvolutionOfNoChannels(BuiltinFunction):
    """A convolution of an input with no channels, as PyTorch 2.13 computes it: the
    result has no channels either, whatever the weight's output channels, so the bias is
    not added (``conv2d(ones(1, 0, 5, 5), ones(4, 0, 3, 3), ones(4))`` has shape
    ``(1, 0, 3, 3)``), and every gradient is zeros."""
    _backward_name = "ConvolutionBackward0"
    _graph_inputs = 3               # input, weight, bias (None when the layer has none)

    @staticmethod
    def forward(ctx, input, weight, bias, geometry):
        ctx.shapes = [None if t is None else (t.shape, t._data.dtype)
                      for t in (input, weight, bias)]
        out = _conv_ops._out_shape(input.shape[2:], weight.shape[2:], geometry)
        return np.zeros((input.shape[0], 0) + tuple(out), dtype=input._data.dtype)

    @staticmethod
    def backward(ctx, grad):
        return tuple(wrap(np.zeros(shape[0], dtype=shape[1])) if need else None
                     for need, shape in zip(ctx.needs_input_grad[:3], ctx.shapes)) + (None,)


def _padding_from_string(padding, kernel, stride, dilation):
    if padding == "valid":
        return tuple((0, 0) for _ in kernel)
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    pairs = []
    for k, d in zip(kernel, dilation):       # the total d * (k - 1), the extra one at the end
        total = d * (k - 1)
        pairs.append((total // 2, total - total // 2))
    return tuple(pairs)


def _check_conv_shapes(x, weight, bias, padding, dilation, groups):
    w_shape, x_shape = list(weight.shape), list(x.shape)
    if not isinstance(groups, int) or groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if weight.shape[0] == 0:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least 1 at "
                           f"dimension 0, but got weight of size {w_shape} instead")
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{w_shape}] instead")
    if x.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {w_shape}, expected input"
                           f"{x_shape} to have {weight.shape[1] * groups} channels, but got "
                           f"{x.shape[1]} channels instead")
    if bias is not None and tuple(bias.shape) != (weight.shape[0],):
        raise RuntimeError(f"Given weight of size {w_shape}, expected bias to be 1-dimensional "
                           f"with {weight.shape[0]} elements, but got bias of size "
                           f"{list(bias.shape)} instead")
    if bias is not None and bias.dtype != x.dtype:
        raise RuntimeError(f"Input type ({_c_type(x.dtype)}) and bias type "
                           f"({_c_type(bias.dtype)}) should be the same")
    if x.dtype != weight.dtype:
        raise RuntimeError(f"expected scalar type {x.dtype.type_name} but found "
                           f"{weight.dtype.type_name}: the input and the weight need one dtype "
                           f"(convert the input with .to({weight.dtype}))")
    padded = [size + b + a for size, (b, a) in zip(x.shape[2:], padding)]
    extent = [d * (k - 1) + 1 for k, d in zip(weight.shape[2:], dilation)]
    if any(p < e for p, e in zip(padded, extent)):
        raise RuntimeError(f"Calculated padded input size per channel: "
                           f"({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, extent))}). Kernel size can't be greater than "
                           "actual input size")


def _c_type(dtype):
    return {"float32": "float", "float64": "double", "int64": "long int"}.get(dtype.name,
                                                                             dtype.name)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution (a cross-correlation, as in every deep learning library) of
    ``(N, C_in, L)`` with ``(C_out, C_in / groups, k)``; ``padding`` may be ``"same"``
    or ``"valid"``."""
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution of ``(N, C_in, H, W)`` with ``(C_out, C_in / groups, kH, kW)``;
    ``padding`` may be ``"same"`` or ``"valid"``."""
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


# ----- pooling -------------------------------------------------------------------------------
def _pool_param(value, name, function, default=None):
    if value is None or (isinstance(value, (tuple, list)) and len(value) == 0):
        return default
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int(value),) * 2
    values = tuple(value)
    if len(values) == 1:
        return values * 2
    if len(values) != 2:
        kinds = {"kernel_size": "kernel_size must either be a single int, or a tuple of two ints",
                 "stride": "stride must either be omitted, a single int, or a tuple of two ints",
                 "padding": "padding must either be a single int, or a tuple of two ints",
                 "dilation": "dilation must be either a single int, or a tuple of two ints"}
        raise RuntimeError(f"{function}: {kinds[name]}")
    return tuple(int(v) for v in values)


def _pool_geometry(function, input, kernel_size, stride, padding, dilation, ceil_mode):
    kernel = _pool_param(kernel_size, "kernel_size", function)
    stride = _pool_param(stride, "stride", function, default=kernel)
    padding = _pool_param(padding, "padding", function)
    dilation = _pool_param(dilation, "dilation", function)
    if min(stride) == 0:
        raise RuntimeError("stride should not be zero")
    if min(kernel) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kernel[0]} "
                           f"kW: {kernel[1]}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: "
                           f"{dilation[0]} dilationW: {dilation[1]}")
    for k, p, d in zip(kernel, padding, dilation):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    geometry = _pool_ops.PoolGeometry(kernel, stride, padding, dilation, bool(ceil_mode))
    out = tuple(_pool_ops.pool_output_size(size, k, s, p, d, ceil_mode) for size, k, s, p, d in
                zip(input.shape[-2:], kernel, stride, padding, dilation))
    if min(out) < 1:
        sizes = "x".join(str(n) for n in input.shape[-3:])
        outs = "x".join(str(n) for n in (input.shape[-3],) + out)
        raise RuntimeError(f"Given input size: ({sizes}). Calculated output size: ({outs}). "
                           "Output size is too small")
    return geometry, out


def _pool_input(function, input):
    _check_tensor(function, "input", 1, input)
    if input.ndim not in (3, 4) or input.numel() == 0 and input.shape[0] != 0:
        if input.ndim in (3, 4):
            raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                               f"size for input, but got:{list(input.shape)}")
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The maximum of each ``kernel_size`` window (moving by ``stride``, ``kernel_size`` by
    default).  With ``return_indices``, also where each maximum was (``h * W + w``)."""
    _pool_input("max_pool2d", input)
    geometry, out = _pool_geometry("max_pool2d", input, kernel_size, stride, padding,
                                   dilation, ceil_mode)
    values, indices = _pool_ops.MaxPool2d.apply(input, geometry, out)
    return (values, indices) if return_indices else values


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """The mean of each window.  Windows overlapping the padding divide by their full size
    (``count_include_pad=True``) or by the input entries they cover."""
    _check_tensor("avg_pool2d", "input", 1, input)
    if input.ndim < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-input.ndim}, {input.ndim - 1}], but got -3)")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    geometry, out = _pool_geometry("avg_pool2d", input, kernel_size, stride, padding, 1,
                                   ceil_mode)
    divisors = _pool_ops.avg_divisors(input.shape[-2:], out, geometry, count_include_pad,
                                      divisor_override)
    return _pool_ops.AvgPool2d.apply(input, geometry, out, divisors)


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a given output size (``None`` keeps that input size): windows
    chosen to cover the input as evenly as possible."""
    _check_tensor("adaptive_avg_pool2d", "input", 1, input)
    sizes = (output_size,) * 2 if isinstance(output_size, int) else tuple(output_size)
    if len(sizes) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                           f"{list(input.shape)}")
    sizes = tuple(n if s is None else s for s, n in zip(sizes, input.shape[-2:]))
    if min(sizes) < 0:
        raise RuntimeError(f"adaptive_avg_pool2d: elements of output_size must be greater than "
                           f"or equal to 0 but received {{{sizes[0]}, {sizes[1]}}}")
    for dim in range(1, input.ndim):
        if input.shape[dim] == 0 and (input.ndim == 3 or dim > 0):
            raise RuntimeError(f"adaptive_avg_pool2d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {list(input.shape)} "
                               f"with dimension {dim} being empty")
    _check_float(input, "adaptive_avg_pool2d")
    if sizes == (1, 1):
        return input.mean((-1, -2), keepdim=True)
    dtype = input._data.dtype
    matrices = tuple(_pool_ops.adaptive_matrix(size, o, dtype)
                     for size, o in zip(input.shape[-2:], sizes))
    return _pool_ops.AdaptiveAvgPool2d.apply(input, matrices)


# ----- normalisation and embeddings -----------------------------------------------------------
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise each sample over its last ``len(normalized_shape)`` dims (mean 0, variance
    1), then scale by ``weight`` and shift by ``bias`` elementwise."""
    _check_tensor("layer_norm", "input", 1, input)
    if isinstance(normalized_shape, int) or not isinstance(normalized_shape, (tuple, list)):
        raise TypeError(f"layer_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        f"of ints, not {type(normalized_shape).__name__}")
    shape = tuple(normalized_shape)
    n = len(shape)
    if n == 0 or input.ndim < n or tuple(input.shape[input.ndim - n:]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and tuple(p.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(p.shape)} and normalized_shape = "
                               f"{list(shape)}")
    _check_float(input, "LayerNormKernelImpl")
    _check_same_dtype(input, weight, bias)
    return _norm_ops.NativeLayerNorm.apply(input, weight, bias, n, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise each group of ``num_groups`` consecutive channels of each sample over its
    channels and positions, then scale and shift each channel.  Input ``(N, C, *)``."""
    _check_tensor("group_norm", "input", 1, input)
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.ndim}")
    channels = input.shape[1]
    if channels % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and (p.ndim != 1 or p.shape[0] != channels):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape {list(p.shape)} "
                               f"and input of shape {list(input.shape)}")
    _float_input("group_norm", "GroupNormKernelImpl", input)
    _check_same_dtype(input, weight, bias)
    return _norm_ops.NativeGroupNorm.apply(input, weight, bias, num_groups, eps)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of the table ``weight`` (num_embeddings x embedding_dim) picked by the integer
    ``input``: output shape ``input.shape + (embedding_dim,)``.  The ``padding_idx`` row
    gets no gradient; ``max_norm`` first rescales (in place) the rows used that are longer."""
    _check_tensor("embedding", "weight", 1, weight)        # PyTorch calls embedding(weight,
    _check_tensor("embedding", "indices", 2, input)        # indices): that is its order
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if input.dtype.name not in ("int64", "int32"):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got "
                           f"minitorch.{input.dtype.type_name}Tensor instead (while checking "
                           "arguments for embedding)")
    n_rows = weight.shape[0]
    if padding_idx is not None:
        if not -n_rows <= padding_idx < n_rows:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= n_rows
    if sparse:
        raise NotImplementedError("embedding(sparse=True): minitorch has no sparse gradients; "
                                  "use sparse=False (the gradient is then a dense tensor)")
    idx = input._data
    if idx.size and (idx.min() < 0 or idx.max() >= n_rows):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _renorm_rows(weight, np.unique(idx), max_norm, norm_type)
    return _norm_ops.Embedding.apply(weight, input.long() if input.dtype.name != "int64"
                                     else input, padding_idx, scale_grad_by_freq)


def _renorm_rows(weight, rows, max_norm, norm_type):
    """Scale the rows longer than ``max_norm`` (in the ``norm_type`` norm) down to it, in
    place and outside autograd, as PyTorch's ``embedding_renorm_``."""
    table = weight._data
    norms = np.linalg.norm(table[rows], ord=norm_type, axis=1)
    long_rows = norms > max_norm
    if long_rows.any():
        scale = (max_norm / (norms[long_rows] + 1e-7)).astype(table.dtype)
        table[rows[long_rows]] *= scale[:, None]
        weight._version_counter.bump()


# ----- attention (Part V): in their own module -------------------------------------------------
from ._attention_functional import (scaled_dot_product_attention,  # noqa: E402
                                    multi_head_attention_forward)
__all__ += ["scaled_dot_product_attention", "multi_head_attention_forward"]
