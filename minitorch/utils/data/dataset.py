"""Datasets: what a DataLoader reads from (chapter 10, "Putting it together").

A map-style ``Dataset`` answers ``dataset[i]`` and ``len(dataset)``; an
``IterableDataset`` is read with ``iter(dataset)`` (a stream, or data too
large to index).  ``TensorDataset`` pairs up tensors row by row,
``Subset`` selects some indices of another dataset, ``ConcatDataset``
puts datasets end to end, and ``random_split`` cuts a dataset into
random, non-overlapping subsets (a training and a validation set).
"""

import bisect
import itertools
import math
import warnings

from .sampler import _randperm

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset", "ChainDataset",
           "random_split"]


class Dataset:
    """Base class of map-style datasets: subclasses define ``__getitem__`` and ``__len__``."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """Base class of datasets read by iterating: subclasses define ``__iter__``."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Sample ``i`` is ``tuple(t[i] for t in tensors)``: ``TensorDataset(x, y)[i]`` is
    ``(x[i], y[i])``."""

    def __init__(self, *tensors):
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors: every tensor must have one row "
                                 "per sample (the same size in dimension 0)")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        """Several samples at once (the DataLoader uses this when it exists)."""
        wanted = [self.indices[i] for i in indices]
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__(wanted)
        return [self.dataset[i] for i in wanted]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    """Several map-style datasets end to end; ``cumulative_sizes[k]`` is where dataset
    ``k`` ends."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        if any(isinstance(d, IterableDataset) for d in self.datasets):
            raise AssertionError("ConcatDataset does not support IterableDataset; use ChainDataset "
                                 "(or `+` between IterableDatasets) to chain them")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][idx - start]


class ChainDataset(IterableDataset):
    """Several iterable datasets one after the other."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for dataset in self.datasets:
            if not isinstance(dataset, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from dataset

    def __len__(self):
        return sum(len(d) for d in self.datasets)


def _lengths_from_fractions(fractions, total):
    """Sizes for fractions summing to 1: each ``floor(total * fraction)``, then the few
    samples left over handed out one by one from the first split on (as PyTorch does)."""
    for i, fraction in enumerate(fractions):
        if not 0 <= fraction <= 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
    lengths = [math.floor(total * fraction) for fraction in fractions]
    for i in range(total - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty "
                          "dataset.")
    return lengths


def random_split(dataset, lengths, generator=None):
    """Cut ``dataset`` into non-overlapping random ``Subset``s of the given ``lengths``.

    ``lengths`` are sizes that add up to ``len(dataset)``, or fractions that
    add up to 1 (``[0.8, 0.2]``).  The permutation comes from ``generator``
    (``minitorch.Generator().manual_seed(42)``), or else from the global
    generator that ``minitorch.manual_seed`` seeds.
    """
    total = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(lengths, total)
    if sum(lengths) != total:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = _randperm(total, generator)
    ends = itertools.accumulate(lengths)
    return [Subset(dataset, indices[end - length:end]) for end, length in zip(ends, lengths)]
