"""``nn.utils.rnn``: a batch of sequences of different lengths, padded or packed (Part V,
the recurrent-layers chapter and the page on packed sequences).

* ``pad_sequence`` stacks sequences into one padded batch ``(L_max, B, *)``;
  ``unpad_sequence`` cuts the padding off again.
* ``pack_padded_sequence`` keeps only the real steps of a padded batch, time step
  by time step, in a ``PackedSequence``: ``data`` (the steps), ``batch_sizes``
  (how many sequences are still running at each step), and, when the batch was
  not sorted longest first, ``sorted_indices``/``unsorted_indices`` (the order it
  was sorted into, and the way back).  ``nn.RNN``/``GRU``/``LSTM`` read it and
  run each sequence exactly as long as it is: no step sees padding, and the final
  hidden state of each sequence is the one after its own last step.
* ``pad_packed_sequence`` turns a ``PackedSequence`` back into a padded batch and
  the lengths, in the batch's original order; ``pack_sequence`` and
  ``unpack_sequence`` go between a list of sequences and a ``PackedSequence``.
"""

import collections

import numpy as np

from ... import _dtype
from ..._creation import arange, full, tensor
from ..._tensor import Tensor
from .._functions.packing import PackPaddedSequence, PadPackedSequence

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]


class PackedSequence(collections.namedtuple(
        "PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """A batch of sequences with the padding left out (see the module).  Build it with
    ``pack_padded_sequence`` or ``pack_sequence``, not by hand."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not isinstance(data, (list, tuple)) or len(data) != 2:
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """The same sequences with ``data`` converted (``.to(torch.float64)``); itself
        when nothing changes, as ``Tensor.to``."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self):
        return self.to("cpu")

    def cuda(self, *args, **kwargs):
        return self.to("cuda")

    def double(self):
        return self.to(dtype=_dtype.float64)

    def float(self):
        return self.to(dtype=_dtype.float32)

    def half(self):
        return self.to(dtype=_dtype.float16)

    def long(self):
        return self.to(dtype=_dtype.int64)

    def int(self):
        return self.to(dtype=_dtype.int32)

    def short(self):
        return self.to(dtype=_dtype.int16)

    def char(self):
        return self.to(dtype=_dtype.int8)

    def byte(self):
        return self.to(dtype=_dtype.uint8)

    @property
    def is_cuda(self):
        return False

    def is_pinned(self):
        return False


def invert_permutation(permutation):
    """The permutation that undoes ``permutation`` (None for None)."""
    if permutation is None:
        return None
    order = permutation._data
    inverse = np.empty_like(order)
    inverse[order] = np.arange(order.size, dtype=order.dtype)
    return Tensor._wrap(inverse)


def _lengths_tensor(lengths):
    if isinstance(lengths, Tensor):
        if lengths.ndim != 1:
            raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got "
                               f"{lengths.ndim}D cpu {lengths.dtype.type_name} tensor")
        return lengths.to(_dtype.int64)
    result = tensor(lengths, dtype=_dtype.int64)
    if result.ndim != 1:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{result.ndim}D cpu Long tensor")
    return result


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch (``(L, B, *)``, or ``(B, L, *)`` with ``batch_first``) whose
    sequence ``b`` is ``lengths[b]`` steps long.  With ``enforce_sorted=False`` the
    sequences may come in any order: they are sorted longest first, and the packed
    sequence remembers how."""
    lengths = _lengths_tensor(lengths)
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = lengths.sort(descending=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    batch_sizes = _batch_sizes(input, lengths.tolist(), batch_first)
    data = PackPaddedSequence.apply(input, batch_sizes, batch_first)
    return PackedSequence(data, tensor(batch_sizes, dtype=_dtype.int64), sorted_indices, None)


def _batch_sizes(input, lengths, batch_first):
    """How many sequences run at each time step, after PyTorch's checks of ``lengths``
    (longest first, none empty) and a check of our own: no length beyond the padding."""
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    batch, steps = (input.shape[0], input.shape[1]) if batch_first else \
        (input.shape[1], input.shape[0])
    if len(lengths) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(lengths)} (batch_size={batch})")
    if lengths[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if any(a < b for a, b in zip(lengths, lengths[1:])):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
            "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
            "pack_sequence to sidestep this requirement if you do not need ONNX "
            "exportability.")
    if lengths[0] > steps:
        raise RuntimeError(f"pack_padded_sequence: a sequence is {lengths[0]} steps long but "
                           f"the padded batch holds only {steps}; check `lengths` (PyTorch "
                           "reads past the end of the batch here)")
    counts = np.bincount(np.asarray(lengths), minlength=lengths[0] + 1)
    return tuple(int(n) for n in (batch - np.cumsum(counts))[:lengths[0]])


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """A padded batch from a ``PackedSequence``, and each sequence's length, in the
    order the sequences had before packing.  ``total_length`` pads to that many steps
    (at least the longest sequence's)."""
    batch_sizes = tuple(sequence.batch_sizes.tolist())
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(f"Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and "
                             f"max sequence length being {steps}")
        steps = total_length
    padded = PadPackedSequence.apply(sequence.data, batch_sizes, steps, batch_sizes[0],
                                     padding_value)
    if batch_first:
        padded = padded.transpose(0, 1)
    sizes = np.asarray(batch_sizes)
    lengths = Tensor._wrap((sizes[None, :] > np.arange(batch_sizes[0])[:, None])
                           .sum(axis=1).astype(np.int64))
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices]
    return padded, lengths


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


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences in a padded batch: sequence ``b`` cut to ``lengths[b]``."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[arange(int(n))] for seq, n in zip(padded_sequences, _lengths_tensor(lengths))]


def pack_sequence(sequences, enforce_sorted=True):
    """A ``PackedSequence`` from a list of sequences (each ``(L_i, *)``), longest first
    unless ``enforce_sorted=False``."""
    lengths = tensor([v.size(0) for v in sequences], dtype=_dtype.int64)
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences in a ``PackedSequence``, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
