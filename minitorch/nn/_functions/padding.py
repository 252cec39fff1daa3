"""Padding as built-in Functions (``F.pad``; chapter 11).

* ``ConstantPadNd`` writes the input into a larger tensor filled with a
  value; a negative amount crops instead.  Its gradient crops the padding
  away again, which is the same Function with the amounts negated.
* Reflection, replication and circular padding copy input values into the
  border.  Along each padded dimension, the output is the input read at a
  list of positions (for reflection of ``[a b c d]`` by 2: positions
  ``2 1 0 1 2 3 2 1``).  Reading positions is a linear map: a 0/1 matrix
  with one 1 per row.  ``SeparableLinearMap`` applies one such matrix per
  dimension; its gradient applies the transposed matrices.  Adaptive
  average pooling is the same kind of map, with averaging matrices.
"""

import numpy as np

from ...ops._common import BuiltinFunction

__all__ = ["ConstantPadNd", "SeparableLinearMap", "ReflectionPad1D", "ReflectionPad2D",
           "ReflectionPad3D", "ReplicationPad1D", "ReplicationPad2D", "ReplicationPad3D",
           "CircularPad", "positions_matrix"]


class ConstantPadNd(BuiltinFunction):
    """``pads[i] = (before, after)`` for each of the last ``len(pads)`` dimensions."""
    _backward_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx, input, pads, value):
        ctx.pads = pads
        x = input._data
        lead = x.ndim - len(pads)
        shape = x.shape[:lead] + tuple(n + b + a for n, (b, a) in zip(x.shape[lead:], pads))
        out = np.full(shape, value, dtype=x.dtype)
        # the part of the input that survives (a negative amount crops) and where it goes
        source = tuple(slice(max(-b, 0), n - max(-a, 0)) for n, (b, a) in zip(x.shape[lead:], pads))
        target = tuple(slice(max(b, 0), max(b, 0) + max(s.stop - s.start, 0))
                       for (b, _), s in zip(pads, source))
        out[(Ellipsis,) + target] = x[(Ellipsis,) + source]
        return out

    @staticmethod
    def backward(ctx, grad):
        return ConstantPadNd.apply(grad, tuple((-b, -a) for b, a in ctx.pads), 0), None, None


def positions_matrix(positions, size, dtype):
    """The 0/1 matrix that reads ``positions`` (one row each) out of ``size`` entries."""
    m = np.zeros((len(positions), size), dtype=dtype)
    m[np.arange(len(positions)), positions] = 1
    return m


class SeparableLinearMap(BuiltinFunction):
    """Multiply each of the last ``len(matrices)`` dimensions by a matrix:
    ``out[..., i, j] = sum over k, l of m0[i, k] * m1[j, l] * x[..., k, l]``."""

    @staticmethod
    def forward(ctx, input, matrices):
        ctx.matrices = matrices
        return _apply_maps(input._data, matrices)

    @classmethod
    def backward(cls, ctx, grad):
        """The transposed matrices: again a map of this kind, so differentiable again."""
        return cls.apply(grad, tuple(np.ascontiguousarray(m.T) for m in ctx.matrices)), None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        return _apply_maps(grad, tuple(m.T for m in ctx.matrices)), None


def _apply_maps(x, matrices):
    """``x`` with its last dimensions multiplied by ``matrices`` (first matrix, first of them)."""
    lead = x.ndim - len(matrices)
    for axis, m in enumerate(matrices, start=lead):
        x = np.moveaxis(np.moveaxis(x, axis, -1) @ m.T.astype(x.dtype, copy=False), -1, axis)
    return np.ascontiguousarray(x)


class ReflectionPad1D(SeparableLinearMap):
    _backward_name = "ReflectionPad1DBackward0"


class ReflectionPad2D(SeparableLinearMap):
    _backward_name = "ReflectionPad2DBackward0"


class ReflectionPad3D(SeparableLinearMap):
    _backward_name = "ReflectionPad3DBackward0"


class ReplicationPad1D(SeparableLinearMap):
    _backward_name = "ReplicationPad1DBackward0"


class ReplicationPad2D(SeparableLinearMap):
    _backward_name = "ReplicationPad2DBackward0"


class ReplicationPad3D(SeparableLinearMap):
    _backward_name = "ReplicationPad3DBackward0"


class CircularPad(SeparableLinearMap):
    """(PyTorch builds circular padding from slice copies: its node is ``CopySlices``.)"""
    _backward_name = "CircularPadBackward0"
