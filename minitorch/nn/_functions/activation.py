"""Activation functions as built-in Functions (chapter 6's pattern, used by chapter 11's nets).

Each forward computes on numpy arrays.  Each ``backward`` is written with
tensor operations, so that it can itself be differentiated (``create_graph=True``,
``gradgradcheck``), and each ``backward_on_arrays`` is the same derivative on
arrays, the fast path when no graph of the gradient is wanted.

``Erf`` is here because GELU needs it; it is the ``torch.erf`` the tensor layer
does not have yet.
"""

import math

import numpy as np

from ...ops._common import BuiltinFunction, as_float, wrap

__all__ = ["Erf", "Log1p", "Gelu", "Elu", "EluInplace", "LeakyRelu", "LeakyReluInplace", "Softplus",
           "Silu", "LogSigmoid", "Hardtanh", "HardtanhInplace"]

_erf = np.frompyfunc(math.erf, 1, 1)        # numpy has no erf; math.erf is exact to the last bit
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_SQRT_HALF = math.sqrt(0.5)
_ONE_OVER_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_CUBIC = 0.044715            # the coefficient of the tanh approximation of GELU


def erf_array(x):
    """The error function of every element of a float array, in the array's dtype."""
    x = np.asarray(x)
    return np.asarray(_erf(x), dtype=x.dtype) if x.size else x.copy()


class Erf(BuiltinFunction):
    """``erf(x) = 2/sqrt(pi) * integral of exp(-t**2) from 0 to x``."""
    _backward_name = "ErfBackward0"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return erf_array(as_float(a))

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad * ((-(a * a)).exp() * _TWO_OVER_SQRT_PI)

    @staticmethod
    def backward_on_arrays(ctx, grad):
        a, = ctx.saved_arrays
        return grad * (np.exp(-(a * a)) * _TWO_OVER_SQRT_PI)


class Log1p(BuiltinFunction):
    """``log(1 + x)``, accurate for small ``x`` (the ``torch.log1p`` the tensor layer lacks)."""
    _backward_name = "Log1pBackward0"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.log1p(as_float(a))

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad / (a + 1)

    @staticmethod
    def backward_on_arrays(ctx, grad):
        a, = ctx.saved_arrays
        return grad / (a + 1)


# ----- GELU ---------------------------------------------------------------------------------
# erfc(z) = t * exp(-z**2) * Q(t) with t = 1 / (1 + z/2), for z >= 0: Q is smooth on
# (0, 1], and this degree-9 polynomial (least squares on Chebyshev nodes, fitted for this
# book to erfc(z) * exp(z**2) / t over z in [0, 9.5]) is within 1.7e-7 of it, relative,
# even evaluated in float32.  One exp serves both Phi and the density phi.
_ERFC_FIT = (0.282059442, 0.282958236, 0.237790242, 0.229544978, -0.109805344, 0.442269983,
             -0.694523976, 0.44657549, -0.130388215, 0.0135191183)
_HALF_FIT = tuple(c / 2 for c in _ERFC_FIT)     # Q(t) / 2: Phi(-|x|) = erfc(z) / 2


def gelu_and_slope_arrays(x):
    """GELU of ``x`` and its derivative ``Phi(x) + x * phi(x)`` (phi: the normal density),
    elementwise, in x's dtype.  The derivative is computed here because its pieces are.

    float64 uses the exact ``math.erf``, one Python call per element.  float32 uses a
    fit of erfc (relative error below 2e-7, float32's rounding) evaluated with numpy
    in blocks small enough to stay in the CPU's cache: GELU of a GPT's activations is
    then a few milliseconds instead of a Python loop (the performance appendix).
    Far left, where PyTorch's float32 GELU rounds ``1 + erf(x)``, this one keeps the
    tiny values; the two differ there by less than 2e-7."""
    if x.dtype == np.float64 or x.size == 0:
        cdf = 0.5 * (1 + erf_array(x * _SQRT_HALF))
        return x * cdf, cdf + _ONE_OVER_SQRT_2PI * x * np.exp(-0.5 * x * x)
    flat = np.ascontiguousarray(x).reshape(-1)
    out, slope = np.empty_like(flat), np.empty_like(flat)
    for i in range(0, flat.size, _BLOCK):
        _gelu_block(flat[i:i + _BLOCK], out[i:i + _BLOCK], slope[i:i + _BLOCK])
    return out.reshape(x.shape), slope.reshape(x.shape)


_BLOCK = 1 << 16


def _gelu_block(x, out, slope):
    """``gelu_and_slope_arrays`` on one block, every step in place."""
    f = x.dtype.type
    t = np.abs(x)
    t *= f(0.5 * _SQRT_HALF)
    t += 1
    np.reciprocal(t, out=t)                     # t = 1 / (1 + z/2), z = |x| / sqrt(2)
    z = np.square(x)
    z *= f(-0.5)
    np.exp(z, out=z)                            # exp(-z**2) = exp(-x**2 / 2)
    cdf = np.multiply(t, f(_HALF_FIT[-1]), out=out)     # built in ``out``
    for c in _HALF_FIT[-2:0:-1]:
        cdf += f(c)
        cdf *= t
    cdf += f(_HALF_FIT[0])
    cdf *= z
    cdf *= t                                    # Phi(-|x|) = erfc(z) / 2
    flip = cdf * f(-2)                          # Phi(x) = Phi(-|x|) for x < 0,
    flip += 1                                   # Phi(-|x|) + (1 - 2 Phi(-|x|)) for x >= 0
    flip *= x >= 0
    cdf += flip                                 # Phi(x)
    z *= x
    z *= f(_ONE_OVER_SQRT_2PI)                  # x * phi(x)
    np.add(cdf, z, out=slope)
    cdf *= x                                    # x * Phi(x)


class Gelu(BuiltinFunction):
    """``x * Phi(x)``, Phi the standard normal distribution function; with
    ``approximate="tanh"``, ``x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x**3)))``."""
    _backward_name = "GeluBackward0"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, approximate):
        ctx.save_for_backward(a)
        ctx.approximate = approximate
        x = a._data
        if approximate == "tanh":
            ctx.tanh = _tanh_of_gelu(x)         # backward needs it too
            out = np.multiply(x, 0.5)
            out *= np.add(ctx.tanh, 1)          # 0.5 x (1 + tanh(...))
            return out
        out, ctx.slope = gelu_and_slope_arrays(x)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        if ctx.approximate == "tanh":
            t = ((a + a * a * a * _CUBIC) * _SQRT_2_OVER_PI).tanh()
            slope = (t + 1) * 0.5 + a * (1 - t * t) * (a * a * (3 * _CUBIC) + 1) * (
                0.5 * _SQRT_2_OVER_PI)
        else:
            cdf = (Erf.apply(a * _SQRT_HALF) + 1) * 0.5
            slope = cdf + a * (a * a * -0.5).exp() * _ONE_OVER_SQRT_2PI
        return grad * slope, None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        x, = ctx.saved_arrays
        if ctx.approximate == "tanh":
            slope = _tanh_gelu_slope(x, ctx.tanh)
        else:
            slope = ctx.slope
        return grad * slope, None


def _tanh_of_gelu(x):
    """``tanh(sqrt(2/pi) * (x + 0.044715 x**3))``, each step in one buffer (the same
    operations, in the same order, as that expression)."""
    t = np.multiply(x, _CUBIC, out=np.empty_like(x))
    t *= x
    t *= x
    np.add(x, t, out=t)
    t *= _SQRT_2_OVER_PI
    return np.tanh(t, out=t)


def _tanh_gelu_slope(x, t):
    """The derivative of the tanh form, ``t`` its tanh (saved by forward):
    ``0.5 (1 + t) + 0.5 sqrt(2/pi) x (1 - t**2) (1 + 3 * 0.044715 x**2)``, the same
    operations in the same order as that line computes them, but into three buffers
    instead of a new array for each."""
    slope, tail, scaled = np.empty_like(x), np.empty_like(x), np.empty_like(x)
    np.add(t, 1, out=slope)
    slope *= 0.5
    np.multiply(t, t, out=tail)
    np.subtract(1, tail, out=tail)
    np.multiply(x, 0.5 * _SQRT_2_OVER_PI, out=scaled)
    scaled *= tail                              # 0.5 sqrt(2/pi) x (1 - t**2)
    np.multiply(x, 3 * _CUBIC, out=tail)
    tail *= x
    tail += 1                                   # 1 + 3 * 0.044715 x**2
    scaled *= tail
    slope += scaled
    return slope


# ----- ELU ----------------------------------------------------------------------------------
def _elu_array(x, alpha):
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0))).astype(x.dtype, copy=False)


class Elu(BuiltinFunction):
    """``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise."""
    _backward_name = "EluBackward0"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, alpha):
        ctx.save_for_backward(a)
        ctx.alpha = alpha
        return _elu_array(a._data, alpha)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        slope = (a.clamp(max=0).exp() * ctx.alpha).masked_fill(a > 0, 1.0)
        return grad * slope, None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        x, = ctx.saved_arrays
        return grad * np.where(x > 0, 1, ctx.alpha * np.exp(np.minimum(x, 0))).astype(
            grad.dtype, copy=False), None


class EluInplace(BuiltinFunction):
    """``elu_``: the result written into the input; its derivative read from the result
    (``result + alpha`` where ``x <= 0``), as PyTorch's ``EluBackward1``."""
    _backward_name = "EluBackward1"
    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a, alpha):
        a._data[...] = _elu_array(a._data, alpha)
        ctx.mark_dirty(a)
        ctx.save_for_backward(a)
        ctx.alpha = alpha
        return a

    @staticmethod
    def backward(ctx, grad):
        _refuse_negative_in_place(ctx.alpha, "elu")
        result, = ctx.saved_tensors
        return grad * (result + ctx.alpha).masked_fill(result > 0, 1.0), None


def _refuse_negative_in_place(slope, name):
    if slope < 0:
        raise RuntimeError(f"In-place {name} backward calculation is triggered with a negative "
                           "slope which is not supported. This is caused by calling in-place "
                           "forward function with a negative slope, please call out-of-place "
                           "version instead.")


# ----- LeakyReLU ----------------------------------------------------------------------------
def _leaky_array(x, slope):
    return np.where(x > 0, x, x * slope).astype(x.dtype, copy=False)


def _leaky_slope(positive, slope, dtype):
    """1 where ``positive``, ``slope`` elsewhere: the derivative, a constant array."""
    return np.where(positive, 1, slope).astype(dtype, copy=False)


class LeakyRelu(BuiltinFunction):
    """``x`` for ``x > 0``, ``negative_slope * x`` otherwise."""
    _backward_name = "LeakyReluBackward0"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, slope):
        ctx.save_for_backward(a)
        ctx.slope = slope
        return _leaky_array(a._data, slope)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad * wrap(_leaky_slope(a._data > 0, ctx.slope, grad._data.dtype)), None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        x, = ctx.saved_arrays
        return grad * _leaky_slope(x > 0, ctx.slope, grad.dtype), None


class LeakyReluInplace(BuiltinFunction):
    """``leaky_relu_``: the result written into the input (``LeakyReluBackward1``)."""
    _backward_name = "LeakyReluBackward1"
    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a, slope):
        np.copyto(a._data, _leaky_array(a._data, slope))
        ctx.mark_dirty(a)
        ctx.save_for_backward(a)
        ctx.slope = slope
        return a

    @staticmethod
    def backward(ctx, grad):
        _refuse_negative_in_place(ctx.slope, "leakyReLu")
        result, = ctx.saved_tensors
        return grad * wrap(_leaky_slope(result._data > 0, ctx.slope, grad._data.dtype)), None


# ----- Softplus -----------------------------------------------------------------------------
class Softplus(BuiltinFunction):
    """``log(1 + exp(beta * x)) / beta``, and ``x`` itself where ``beta * x > threshold``
    (where the two agree to within float precision)."""
    _backward_name = "SoftplusBackward0"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, beta, threshold):
        ctx.save_for_backward(a)
        ctx.beta, ctx.threshold = beta, threshold
        x = a._data
        bx = x * beta
        smooth = np.logaddexp(0, bx) / beta
        return np.where(bx > threshold, x, smooth).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        bx = a * ctx.beta
        return grad * bx.sigmoid().masked_fill(bx > ctx.threshold, 1.0), None, None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        x, = ctx.saved_arrays
        bx = x * ctx.beta
        slope = np.where(bx > ctx.threshold, 1, sigmoid_array(bx))
        return grad * slope.astype(grad.dtype, copy=False), None, None


def sigmoid_array(z):
    """``1 / (1 + exp(-z))`` without overflow for any ``z``: ``exp(-log(1 + exp(-z)))``."""
    return np.exp(-np.logaddexp(0, -z))


# ----- SiLU, LogSigmoid, Hardtanh -----------------------------------------------------------
class Silu(BuiltinFunction):
    """``x * sigmoid(x)`` (also called swish); derivative ``s * (1 + x * (1 - s))``."""
    _backward_name = "SiluBackward0"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        x = a._data
        return (x * sigmoid_array(x)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        s = a.sigmoid()
        return grad * (s * (a * (1 - s) + 1))

    @staticmethod
    def backward_on_arrays(ctx, grad):
        x, = ctx.saved_arrays
        s = sigmoid_array(x)
        return grad * (s * (1 + x * (1 - s))).astype(grad.dtype, copy=False)


class LogSigmoid(BuiltinFunction):
    """``log(sigmoid(x)) = -log(1 + exp(-x))``, computed without overflow; derivative
    ``sigmoid(-x)``."""
    _backward_name = "LogSigmoidBackward0"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        x = a._data
        return (np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad * (-a).sigmoid()

    @staticmethod
    def backward_on_arrays(ctx, grad):
        x, = ctx.saved_arrays
        return grad * sigmoid_array(-x).astype(grad.dtype, copy=False)


def _inside(values, low, high, dtype):
    """1 strictly between ``low`` and ``high``, 0 elsewhere (at the bounds too, as PyTorch)."""
    return ((values > low) & (values < high)).astype(dtype, copy=False)


class Hardtanh(BuiltinFunction):
    """``x`` clipped to ``[min_val, max_val]``; ``relu6`` is ``hardtanh(x, 0, 6)``."""
    _backward_name = "HardtanhBackward0"
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, low, high):
        ctx.save_for_backward(a)
        ctx.low, ctx.high = low, high
        x = a._data
        return np.clip(x, low, high).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad * wrap(_inside(a._data, ctx.low, ctx.high, grad._data.dtype)), None, None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        x, = ctx.saved_arrays
        return grad * _inside(x, ctx.low, ctx.high, grad.dtype), None, None


class HardtanhInplace(BuiltinFunction):
    """``hardtanh_``: the result written into the input.  The result lies strictly inside
    the bounds exactly where the input did, so backward reads it instead of the input."""
    _backward_name = "HardtanhBackward0"
    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a, low, high):
        np.clip(a._data, low, high, out=a._data)
        ctx.mark_dirty(a)
        ctx.save_for_backward(a)
        ctx.low, ctx.high = low, high
        return a

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return grad * wrap(_inside(result._data, ctx.low, ctx.high, grad._data.dtype)), None, None
