"""Collating: turning a list of samples into one batch (chapter 10, "Putting it together").

``default_collate`` looks at the first sample and works recursively:

* tensors are stacked along a new first dimension;
* numpy arrays and numpy scalars become tensors, then are stacked;
* Python ints (and bools) become a tensor of their type (``int64``,
  ``bool``), Python floats a ``float64`` tensor, as in PyTorch;
* strings and bytes are kept as they are, in the sequence that holds them: a
  batch of strings stays a list (so do the strings under a dict's key), while
  strings at one position of tuple or list samples come back as the tuple
  ``zip`` makes of that position, as in PyTorch;
* a dict is collated key by key, a namedtuple field by field, and a tuple or
  list position by position (so a batch of ``(x, y)`` pairs becomes
  ``[xs, ys]``, a list).

``default_convert`` is what a DataLoader with ``batch_size=None`` uses:
numpy arrays and scalars become tensors, nothing is stacked.  Arrays keep
their dtype (int32 stays int32, as in PyTorch).
"""

import collections.abc

import numpy as np

from ... import Tensor, as_tensor, from_numpy, stack, tensor

__all__ = ["default_collate", "default_convert"]

_UNSUPPORTED_NUMPY_KINDS = "USO"        # strings, bytes and Python objects


def _unsupported(kind_or_type):
    return TypeError("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                     f"lists; found {kind_or_type}")


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(value, "_fields")


def _is_numpy_value(value):
    """numpy arrays and scalars, but not numpy's string scalars (they are strings)."""
    return isinstance(value, (np.ndarray, np.generic)) and not isinstance(value, (str, bytes))


def _rebuild(template, items):
    """A container of ``template``'s type holding ``items``, or a list if that type cannot
    be built from a list (as PyTorch does)."""
    ### BEGIN SOLUTION 10.2
    try:
        return type(template)(items)
    except TypeError:
        return list(items)
    ### END SOLUTION 10.2


def default_collate(batch):
    """Merge a list of samples into a batch: stack tensors, arrays and numbers, recurse
    into dicts, tuples and lists, keep strings."""
    ### BEGIN SOLUTION 10.2
    first = batch[0]
    if isinstance(first, Tensor):
        return stack(batch, 0)
    if isinstance(first, (str, bytes)):
        return batch
    if _is_numpy_value(first):
        return _collate_numpy(batch, first)
    if isinstance(first, float):
        return from_numpy(np.array(batch, dtype=np.float64))
    if isinstance(first, int):
        return tensor(batch)
    if isinstance(first, collections.abc.Mapping):
        return _rebuild(first, {key: default_collate([sample[key] for sample in batch])
                                for key in first})
    if _is_namedtuple(first):
        return type(first)(*(default_collate(field) for field in zip(*batch)))
    if isinstance(first, collections.abc.Sequence):
        return _collate_sequences(batch, first)
    raise _unsupported(type(first))
    ### END SOLUTION 10.2


def _collate_numpy(batch, first):
    """A batch of numpy values: scalars become one tensor, arrays are stacked as tensors;
    strings, bytes and objects are refused (``_unsupported``)."""
    ### BEGIN SOLUTION 10.2
    if first.dtype.kind in _UNSUPPORTED_NUMPY_KINDS:
        raise _unsupported(first.dtype)
    if first.shape == ():
        return as_tensor(np.array(batch))
    return default_collate([as_tensor(array) for array in batch])
    ### END SOLUTION 10.2


def _collate_sequences(batch, first):
    """Position by position: a batch of ``(x, y)`` pairs becomes ``[xs, ys]``."""
    ### BEGIN SOLUTION 10.2
    if any(len(sample) != len(first) for sample in batch):
        raise RuntimeError("each element in list of batch should be of equal size")
    columns = [default_collate(column) for column in zip(*batch)]
    if isinstance(first, tuple):
        return columns
    return _rebuild(first, columns)
    ### END SOLUTION 10.2


def default_convert(data):
    """numpy arrays and scalars (also inside dicts, tuples and lists) to tensors; the rest
    unchanged.  The "collate" of a DataLoader that does not batch (``batch_size=None``)."""
    ### BEGIN SOLUTION 10.2
    if isinstance(data, Tensor) or isinstance(data, (str, bytes)):
        return data
    if _is_numpy_value(data):
        return data if data.dtype.kind in _UNSUPPORTED_NUMPY_KINDS else as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild(data, {key: default_convert(value) for key, value in data.items()})
    if _is_namedtuple(data):
        return type(data)(*(default_convert(value) for value in data))
    if isinstance(data, tuple):
        return [default_convert(value) for value in data]
    if isinstance(data, collections.abc.Sequence):
        return _rebuild(data, [default_convert(value) for value in data])
    return data
    ### END SOLUTION 10.2
