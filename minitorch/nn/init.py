"""``nn.init``: fill a weight tensor in place with starting values (chapter 5, "Module internals").

Every function writes into the tensor it is given (hence the trailing ``_``),
outside autograd, and returns it.  Random values come from minitorch's one
generator, so ``minitorch.manual_seed`` makes them reproducible.

``nn.Linear`` starts from ``kaiming_uniform_(weight, a=math.sqrt(5))``, which
works out to ``uniform(-1/sqrt(in_features), 1/sqrt(in_features))``: each
output then starts with a variance that does not grow with the number of
inputs.
"""

import math
import warnings

import numpy as np

from .._random import generator

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "zeros_", "ones_",
           "xavier_uniform_", "kaiming_uniform_", "kaiming_normal_"]


def _fill(tensor, values):
    """Write ``values`` into ``tensor``'s memory and count it as an in-place change."""
    tensor._data[...] = values
    tensor._version_counter.bump()
    return tensor


def uniform_(tensor, a=0.0, b=1.0):
    """Fill with numbers drawn uniformly from ``[a, b)``."""
    return _fill(tensor, generator().uniform(a, b, tensor.shape))


def normal_(tensor, mean=0.0, std=1.0):
    """Fill with numbers drawn from a normal distribution."""
    return _fill(tensor, generator().normal(mean, std, tensor.shape))


def constant_(tensor, val):
    return _fill(tensor, val)


def zeros_(tensor):
    return _fill(tensor, 0)


def ones_(tensor):
    return _fill(tensor, 1)


def calculate_gain(nonlinearity, param=None):
    """The factor that keeps activations' variance steady through ``nonlinearity``:
    1 for linear/sigmoid, 5/3 for tanh, sqrt(2) for relu, sqrt(2/(1+a^2)) for leaky_relu."""
    if nonlinearity in ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                        "conv_transpose2d", "conv_transpose3d", "sigmoid"):
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
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = int(np.prod(tensor.shape[2:])) if tensor.ndim > 2 else 1
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor, mode):
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor, gain=1.0):
    """Uniform in ``±gain * sqrt(6 / (fan_in + fan_out))`` (Glorot & Bengio, 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -bound, bound)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    """Uniform in ``±gain * sqrt(3 / fan)`` (He et al., 2015): keeps the variance of
    activations (``fan_in``) or of gradients (``fan_out``) steady through the layer."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    """Normal with standard deviation ``gain / sqrt(fan)``."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std)
