"""Convolution as a built-in Function (chapter 11, the capstone).

A convolution slides a kernel over the input.  Written out, every output
value is a dot product between the kernel and one *window* of the padded
input.  numpy can show all the windows at once without copying anything:
``as_strided`` gives a view of shape ``(batch, channels, *out, *kernel)``
whose strides step by ``stride`` along the output axes and by ``dilation``
along the kernel axes.  Copied into a matrix with one row per window
("im2col"), the convolution is one matrix product with the weight.

The backward needs two more maps, and the three are bilinear, each the
other's derivative:

* ``conv(x, w)``: the forward;
* ``input_grad(g, w)``: the gradient for ``x``, each output gradient
  scattered back over the window it came from ("col2im": one matrix product,
  then one strided addition per kernel offset);
* ``weight_grad(x, g)``: the gradient for ``w``, the output gradient
  (one row per window) times the im2col matrix.

Each is a Function whose backward calls the other two, so gradients of
gradients (``create_graph=True``, ``gradgradcheck``) work to any order.
The same code serves 1, 2 (and 3) spatial dimensions.
"""

import math
from collections import namedtuple

import numpy as np

from ...ops._common import BuiltinFunction

__all__ = ["Geometry", "Convolution", "ConvolutionBackwardInput", "ConvolutionBackwardWeight",
           "output_size", "windows", "pad_array"]

# stride, dilation: ints per spatial dim; padding: (before, after) per spatial dim.
Geometry = namedtuple("Geometry", ["stride", "padding", "dilation", "groups"])


def output_size(size, kernel, stride, pad_before, pad_after, dilation):
    """How many windows fit along one dimension."""
    return (size + pad_before + pad_after - dilation * (kernel - 1) - 1) // stride + 1


def pad_array(x, padding, value=0):
    """``x`` with ``(before, after)`` entries of ``value`` around each trailing dimension."""
    if not any(before or after for before, after in padding):
        return x
    lead = x.ndim - len(padding)
    shape = x.shape[:lead] + tuple(n + b + a for n, (b, a) in zip(x.shape[lead:], padding))
    out = np.full(shape, value, dtype=x.dtype)
    inner = (slice(None),) * lead + tuple(slice(b, b + n) for n, (b, _) in
                                          zip(x.shape[lead:], padding))
    out[inner] = x
    return out


def windows(xp, kernel, stride, dilation, out):
    """A read-only view of every window of ``xp`` (already padded), of shape
    ``(batch, channels, *out, *kernel)``: nothing is copied."""
    ### BEGIN SOLUTION 11.3
    lead = xp.ndim - len(kernel)
    steps = xp.strides[lead:]
    shape = xp.shape[:lead] + tuple(out) + tuple(kernel)
    strides = (xp.strides[:lead] + tuple(st * s for st, s in zip(steps, stride))
               + tuple(st * d for st, d in zip(steps, dilation)))
    return np.lib.stride_tricks.as_strided(xp, shape, strides, writeable=False)
    ### END SOLUTION 11.3


def _out_shape(spatial, kernel, geometry):
    return tuple(output_size(n, k, s, b, a, d) for n, k, s, (b, a), d in
                 zip(spatial, kernel, geometry.stride, geometry.padding, geometry.dilation))


def _groups(channels, groups):
    size = channels // groups
    return [slice(i * size, (i + 1) * size) for i in range(groups)]


# ----- the three maps, on arrays -------------------------------------------------------------
def im2col(win):
    """The windows ``(batch, C, *out, *kernel)`` as a matrix with one row per (sample,
    output position) and one column per (channel, kernel offset): the one copy made."""
    ### BEGIN SOLUTION 11.3
    n = (win.ndim - 2) // 2
    order = (0,) + tuple(range(2, 2 + n)) + (1,) + tuple(range(2 + n, 2 + 2 * n))
    rows = win.shape[0] * math.prod(win.shape[2:2 + n])
    columns = win.shape[1] * math.prod(win.shape[2 + n:])
    return np.ascontiguousarray(win.transpose(order)).reshape(rows, columns)
    ### END SOLUTION 11.3


def _as_rows(g):
    """``(batch, C, *out)`` as a matrix with one row per (sample, output position)."""
    ### BEGIN SOLUTION 11.3
    return np.moveaxis(g, 1, -1).reshape(-1, g.shape[1])
    ### END SOLUTION 11.3


def conv_array(x, w, geometry):
    """The convolution of ``x`` (batch, C_in, *spatial) with ``w`` (C_out, C_in/groups,
    *kernel), without bias: (batch, C_out, *out)."""
    ### BEGIN SOLUTION 11.3
    kernel = w.shape[2:]
    out = _out_shape(x.shape[2:], kernel, geometry)
    win = windows(pad_array(x, geometry.padding), kernel, geometry.stride, geometry.dilation, out)
    parts = [im2col(win[:, cin]) @ w[cout].reshape(w[cout].shape[0], -1).T for cin, cout in
             zip(_groups(x.shape[1], geometry.groups), _groups(w.shape[0], geometry.groups))]
    result = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=-1)
    result = result.reshape((x.shape[0],) + tuple(out) + (w.shape[0],))
    return np.ascontiguousarray(np.moveaxis(result, -1, 1))        # (batch, C_out, *out)
    ### END SOLUTION 11.3


def input_grad_array(g, w, input_shape, geometry):
    """The gradient for the input: each window's share of ``g`` (batch, C_out, *out)
    added back where the window was read ("col2im")."""
    ### BEGIN SOLUTION 11.3
    n = w.ndim - 2
    kernel = w.shape[2:]
    padded = input_shape[:2] + tuple(size + b + a for size, (b, a) in
                                     zip(input_shape[2:], geometry.padding))
    gxp = np.zeros(padded, dtype=np.result_type(g, w))
    out = g.shape[2:]
    for cin, cout in zip(_groups(input_shape[1], geometry.groups),
                         _groups(w.shape[0], geometry.groups)):
        wg = w[cout]
        # cols[b, *o, c, *k] = sum over output channels of g[b, o_c, *o] * w[o_c, c, *k]
        cols = (_as_rows(g[:, cout]) @ wg.reshape(wg.shape[0], -1)).reshape(
            (g.shape[0],) + tuple(out) + wg.shape[1:])
        cols = np.moveaxis(cols, 1 + n, 1)                  # (batch, c, *out, *kernel)
        for k in np.ndindex(*kernel):
            # kernel offset k read o places per dim, s apart, from i * d on
            where = tuple(slice(i * d, i * d + s * o, s) for i, d, s, o in
                          zip(k, geometry.dilation, geometry.stride, out))
            gxp[(slice(None), cin) + where] += cols[(Ellipsis,) + k]
    crop = tuple(slice(b, -a or None) for b, a in geometry.padding)
    return gxp[(slice(None), slice(None)) + crop].copy()
    ### END SOLUTION 11.3


def weight_grad_array(x, g, weight_shape, geometry):
    """The gradient for the weight: each window times the gradient of its output."""
    ### BEGIN SOLUTION 11.3
    kernel = weight_shape[2:]
    out = g.shape[2:]
    win = windows(pad_array(x, geometry.padding), kernel, geometry.stride, geometry.dilation, out)
    parts = [(_as_rows(g[:, cout]).T @ im2col(win[:, cin])) for cin, cout in
             zip(_groups(x.shape[1], geometry.groups), _groups(weight_shape[0], geometry.groups))]
    result = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)
    return result.reshape(weight_shape)
    ### END SOLUTION 11.3


def _bias_dims(ndim):
    return (0,) + tuple(range(2, ndim))


# ----- the Functions --------------------------------------------------------------------------
class Convolution(BuiltinFunction):
    """``conv(input, weight) + bias``: one ``ConvolutionBackward0`` node, as in PyTorch."""
    _backward_name = "ConvolutionBackward0"
    _graph_inputs = 3               # input, weight, bias (None when the layer has none)
    _saved_names = ("input", "weight")

    @staticmethod
    def forward(ctx, input, weight, bias, geometry):
        """``conv(input, weight)`` (``conv_array``) plus ``bias`` (None or one value per
        output channel), on arrays.  Saves ``input`` when the weight needs a gradient and
        ``weight`` when the input does (each gradient needs the other one), and the shapes and
        ``geometry`` for backward."""
        ### BEGIN SOLUTION 11.3
        need_input, need_weight = ctx.needs_input_grad[:2]
        ctx.save_for_backward(input if need_weight else None, weight if need_input else None)
        ctx.geometry, ctx.input_shape, ctx.weight_shape = geometry, input.shape, weight.shape
        out = conv_array(input._data, weight._data, geometry)
        if bias is not None:
            out += bias._data.reshape((-1,) + (1,) * (out.ndim - 2))
        return out
        ### END SOLUTION 11.3

    @staticmethod
    def backward(ctx, grad):
        """The gradients of input, weight and bias (None for each that needs none, and for
        ``geometry``), written with Functions (``ConvolutionBackwardInput``,
        ``ConvolutionBackwardWeight``) so that they can be differentiated again; the bias
        gradient sums ``grad`` over every dim but the channels'."""
        ### BEGIN SOLUTION 11.3
        input, weight = ctx.saved_tensors
        need_input, need_weight, need_bias = ctx.needs_input_grad[:3]
        g = ctx.geometry
        return (ConvolutionBackwardInput.apply(grad, weight, ctx.input_shape, g)
                if need_input else None,
                ConvolutionBackwardWeight.apply(input, grad, ctx.weight_shape, g)
                if need_weight else None,
                grad.sum(_bias_dims(grad.ndim)) if need_bias else None,
                None)
        ### END SOLUTION 11.3

    @staticmethod
    def backward_on_arrays(ctx, grad):
        """The same gradients on arrays (``input_grad_array``, ``weight_grad_array``): the
        path backward takes when no graph of the gradients is needed."""
        ### BEGIN SOLUTION 11.3
        x, w = ctx.saved_arrays
        need_input, need_weight, need_bias = ctx.needs_input_grad[:3]
        g = ctx.geometry
        return (input_grad_array(grad, w, ctx.input_shape, g) if need_input else None,
                weight_grad_array(x, grad, ctx.weight_shape, g) if need_weight else None,
                grad.sum(axis=_bias_dims(grad.ndim)) if need_bias else None,
                None)
        ### END SOLUTION 11.3


class ConvolutionBackwardInput(BuiltinFunction):
    """The input gradient of a convolution, as a function of the output gradient and the
    weight (a "transposed convolution"), so that it can be differentiated again."""
    _backward_name = "ConvolutionBackwardBackward0"
    _saved_names = ("grad_output", "weight")

    @staticmethod
    def forward(ctx, grad_output, weight, input_shape, geometry):
        """``input_grad_array(grad_output, weight)``, saving both for backward."""
        ### BEGIN SOLUTION 11.3
        ctx.save_for_backward(grad_output, weight)
        ctx.geometry = geometry
        return input_grad_array(grad_output._data, weight._data, tuple(input_shape), geometry)
        ### END SOLUTION 11.3

    @staticmethod
    def backward(ctx, grad):
        """It is bilinear in (grad_output, weight): its gradient for grad_output is the
        convolution of ``grad`` with the weight, for the weight ``ConvolutionBackwardWeight`` of
        ``grad`` and grad_output."""
        ### BEGIN SOLUTION 11.3
        grad_output, weight = ctx.saved_tensors
        need_g, need_w = ctx.needs_input_grad[:2]
        return (Convolution.apply(grad, weight, None, ctx.geometry) if need_g else None,
                ConvolutionBackwardWeight.apply(grad, grad_output, tuple(weight.shape),
                                                ctx.geometry) if need_w else None,
                None, None)
        ### END SOLUTION 11.3


class ConvolutionBackwardWeight(BuiltinFunction):
    """The weight gradient of a convolution, as a function of the input and the output
    gradient, so that it can be differentiated again."""
    _backward_name = "ConvolutionBackwardBackward0"
    _saved_names = ("input", "grad_output")

    @staticmethod
    def forward(ctx, input, grad_output, weight_shape, geometry):
        """``weight_grad_array(input, grad_output)``, saving both for backward."""
        ### BEGIN SOLUTION 11.3
        ctx.save_for_backward(input, grad_output)
        ctx.geometry = geometry
        return weight_grad_array(input._data, grad_output._data, tuple(weight_shape), geometry)
        ### END SOLUTION 11.3

    @staticmethod
    def backward(ctx, grad):
        """Bilinear in (input, grad_output): its gradient for the input is
        ``ConvolutionBackwardInput`` of grad_output and ``grad``, for grad_output the
        convolution of the input with ``grad``."""
        ### BEGIN SOLUTION 11.3
        input, grad_output = ctx.saved_tensors
        need_x, need_g = ctx.needs_input_grad[:2]
        return (ConvolutionBackwardInput.apply(grad_output, grad, tuple(input.shape),
                                               ctx.geometry) if need_x else None,
                Convolution.apply(input, grad, None, ctx.geometry) if need_g else None,
                None, None)
        ### END SOLUTION 11.3
