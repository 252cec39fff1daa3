"""``nn.utils.rnn.pad_sequence`` (Part V, the recurrent-layers chapter): sequences of
different lengths as one padded batch, the form ``nn.RNN``/``GRU``/``LSTM`` read."""

from ..._creation import full
from ..._tensor import Tensor

__all__ = ["pad_sequence"]


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack ``sequences`` (each ``(L_i, *)``) into ``(L_max, B, *)`` (``(B, L_max, *)``
    with ``batch_first``), filling the missing positions with ``padding_value`` on
    the right (or on the left with ``padding_side="left"``)."""
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    trailing = tuple(sequences[0].shape[1:])
    for s in sequences:
        if tuple(s.shape[1:]) != trailing:
            raise RuntimeError(f"pad_sequence: every sequence must have the same shape after "
                               f"its first dim, but got {list(trailing)} and "
                               f"{list(s.shape[1:])}")
    longest = max(s.shape[0] for s in sequences)
    batch = len(sequences)
    shape = (batch, longest) if batch_first else (longest, batch)
    out = full(shape + trailing, padding_value, dtype=sequences[0].dtype)
    for i, s in enumerate(sequences):
        n = s.shape[0]
        where = slice(0, n) if padding_side == "right" else slice(longest - n, longest)
        if batch_first:
            out[i, where] = s
        else:
            out[where, i] = s
    return out
