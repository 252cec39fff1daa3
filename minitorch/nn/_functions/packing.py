"""Packing a padded batch of sequences, and padding it again, as built-in Functions
(``nn.utils.rnn``; the chapter on packed sequences).

A padded batch ``(L, B, *)`` holds sequences of different lengths, longest
first, with padding after each.  Its *packed* form keeps only the real steps,
time step by time step: the ``batch_sizes[0]`` first steps, then the
``batch_sizes[1]`` second steps, ...  (``batch_sizes[t]`` is how many sequences
are longer than ``t``).  Both maps only move values, so each one's gradient is
the other: packing's gradient pads, padding's gradient packs.
"""

import numpy as np

from ...ops._common import BuiltinFunction

__all__ = ["PackPaddedSequence", "PadPackedSequence"]


def _starts(batch_sizes):
    """Where each time step begins in the packed rows."""
    return np.concatenate(([0], np.cumsum(batch_sizes)))


class PackPaddedSequence(BuiltinFunction):
    """``(L, B, *)`` padded (``(B, L, *)`` with ``batch_first``), longest sequence first
    -> ``(sum(batch_sizes), *)`` packed."""
    _backward_name = "PackPaddedSequenceBackward0"

    @staticmethod
    def forward(ctx, padded, batch_sizes, batch_first=False):
        x = padded._data.swapaxes(0, 1) if batch_first else padded._data
        ctx.batch_sizes, ctx.batch_first, ctx.steps = batch_sizes, batch_first, x.shape[:2]
        return np.concatenate([x[t, :n] for t, n in enumerate(batch_sizes)], axis=0)

    @staticmethod
    def backward(ctx, grad):
        length, batch = ctx.steps
        padded = PadPackedSequence.apply(grad, ctx.batch_sizes, length, batch)
        return (padded.transpose(0, 1) if ctx.batch_first else padded), None, None


class PadPackedSequence(BuiltinFunction):
    """Packed rows -> ``(length, batch, *)``, ``padding_value`` where a sequence has
    ended (the gradient there is dropped).  PyTorch
    builds it from slice copies, so its node prints as ``CopySlices``."""
    _backward_name = "CopySlices"

    @staticmethod
    def forward(ctx, packed, batch_sizes, length, batch, padding_value=0.0):
        ctx.batch_sizes = batch_sizes
        data = packed._data
        out = np.full((length, batch) + data.shape[1:], padding_value, dtype=data.dtype)
        starts = _starts(batch_sizes)
        for t, n in enumerate(batch_sizes):
            out[t, :n] = data[starts[t]:starts[t + 1]]
        return out

    @staticmethod
    def backward(ctx, grad):
        return PackPaddedSequence.apply(grad, ctx.batch_sizes), None, None, None, None
