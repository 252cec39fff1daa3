"""``nn.init``: fill a weight tensor in place with starting values
(chapter 10, "Putting it together").

Every function writes into the tensor it is given (hence the trailing
``_``), under ``no_grad`` so that autograd does not record it, and returns
it.  Each fill is one in-place ``copy_`` (the tensor's version goes up by
one).  Random values come from minitorch's global generator, so
``minitorch.manual_seed`` makes them reproducible, or from a
``generator=minitorch.Generator()`` given to the function.

The initialisations keep the variance of a layer's outputs (or of its
gradients) from growing or shrinking with the layer's width:

* ``xavier_uniform_`` / ``xavier_normal_`` (Glorot & Bengio, 2010): variance
  ``gain**2 * 2 / (fan_in + fan_out)``;
* ``kaiming_uniform_`` / ``kaiming_normal_`` (He et al., 2015): variance
  ``gain**2 / fan``, with ``fan`` the inputs (``mode="fan_in"``) or the
  outputs (``"fan_out"``) of each unit;
* ``orthogonal_`` (Saxe et al., 2014): a (semi-)orthogonal matrix.

``nn.Linear`` starts from ``kaiming_uniform_(weight, a=math.sqrt(5))``, which
works out to ``uniform(-1/sqrt(in_features), 1/sqrt(in_features))``.
"""

import math
import warnings

import numpy as np

from .. import float64, from_numpy, no_grad, rand, randn

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "zeros_", "ones_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
           "orthogonal_"]


# ----- random draws (float64, then cast by copy_) -------------------------------------------
def _standard_uniform(shape, generator):
    """Uniform [0, 1) numbers of ``shape`` in float64, from ``generator`` or the global one."""
    if generator is not None:
        return from_numpy(generator._rng.random(shape))
    return rand(*shape, dtype=float64)


def _standard_normal(shape, generator):
    if generator is not None:
        return from_numpy(generator._rng.standard_normal(shape))
    return randn(*shape, dtype=float64)


def _check_floating(tensor, kernel):
    """Random fills are for floating point tensors, as in PyTorch."""
    if not tensor.is_floating_point():
        raise NotImplementedError(f'"{kernel}" not implemented for \'{tensor.dtype.type_name}\': '
                                  "random initialisation needs a floating point tensor")


# ----- the plain fills ------------------------------------------------------------------------
@no_grad()
def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with numbers drawn uniformly from ``[a, b)``."""
    _check_floating(tensor, "check_uniform_bounds")
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={a:g} > to={b:g}: give the lower bound first")
    return tensor.copy_(_standard_uniform(tuple(tensor.shape), generator) * (b - a) + a)


@no_grad()
def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with numbers drawn from a normal distribution ``N(mean, std**2)``."""
    _check_floating(tensor, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    return tensor.copy_(_standard_normal(tuple(tensor.shape), generator) * std + mean)


@no_grad()
def constant_(tensor, val):
    """Fill with ``val``."""
    return tensor.fill_(val)


@no_grad()
def zeros_(tensor):
    return tensor.zero_()


@no_grad()
def ones_(tensor):
    return tensor.fill_(1.0)


# ----- gains and fans --------------------------------------------------------------------------
_LINEAR_LIKE = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                "conv_transpose3d", "sigmoid")


def calculate_gain(nonlinearity, param=None):
    """The factor that keeps activations' variance steady through ``nonlinearity``:
    1 for linear/sigmoid, 5/3 for tanh, sqrt(2) for relu, sqrt(2/(1+a^2)) for leaky_relu
    (slope ``a = param``, 0.01 by default), 3/4 for selu."""
    if nonlinearity in _LINEAR_LIKE:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """Inputs and outputs each unit sees: ``(size(1), size(0))`` times the kernel size, if any."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive_field = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive_field, tensor.shape[0] * receptive_field


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


# ----- variance-keeping initialisations ------------------------------------------------------
def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Uniform in ``±gain * sqrt(6 / (fan_in + fan_out))`` (Glorot & Bengio, 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Normal with standard deviation ``gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """Uniform in ``±gain * sqrt(3 / fan)`` (He et al., 2015): keeps the variance of
    activations (``fan_in``) or of gradients (``fan_out``) steady through the layer."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """Normal with standard deviation ``gain / sqrt(fan)``."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


@no_grad()
def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix times ``gain``: rows (or columns, whichever are fewer)
    orthonormal.  Dimensions after the first are flattened into columns.

    Made from the QR decomposition of a normal random matrix, with the signs
    of R's diagonal moved into Q so that the result is uniformly distributed.
    """
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    draws = _standard_normal((rows, cols), generator).numpy()
    if rows < cols:
        draws = draws.T
    q, r = np.linalg.qr(draws)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    tensor.copy_(from_numpy(np.ascontiguousarray(q)).reshape(tensor.shape))
    return tensor.mul_(gain)
