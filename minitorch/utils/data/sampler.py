"""Samplers: the order in which a DataLoader visits a dataset (chapter 10).

A sampler is an iterable of indices.  ``SequentialSampler`` gives
``0, 1, ..., n-1``; ``RandomSampler`` a fresh permutation each time it is
iterated (each epoch), drawn from ``generator`` if one is given, otherwise
from minitorch's global generator, so ``minitorch.manual_seed`` makes
shuffling reproducible; ``BatchSampler`` groups another sampler's indices
into lists of ``batch_size``.
"""

import numpy as np

from ... import float64, rand

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "BatchSampler"]


def _rng_of(generator):
    """The numpy generator behind a ``minitorch.Generator``."""
    return generator._rng


def _randperm(n, generator=None):
    """A random permutation of ``range(n)``, as a list of ints.

    From ``generator`` if given, else from the global generator (through
    ``minitorch.rand``, so ``minitorch.manual_seed`` controls it).  To be
    replaced by ``minitorch.randperm(n, generator=generator).tolist()`` once
    the core's ``randperm`` is public and takes a generator.
    """
    if generator is not None:
        return _rng_of(generator).permutation(n).tolist()
    return np.argsort(rand(n, dtype=float64).numpy(), kind="stable").tolist()


def _randint(high, size, generator=None):
    """``size`` integers drawn uniformly from ``range(high)``, as a list."""
    if generator is not None:
        return _rng_of(generator).integers(0, high, size).tolist()
    return np.floor(rand(size, dtype=float64).numpy() * high).astype(np.int64).tolist()


class Sampler:
    """Base class: an iterable of dataset indices (subclasses define ``__iter__``)."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError("Subclasses of Sampler should implement __iter__.")


class SequentialSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``, in order."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """Indices in a random order: a new permutation on every iteration (every epoch).

    With ``replacement=True``, ``num_samples`` indices drawn independently
    (repeats allowed); without, ``num_samples`` (default: all) indices taken
    from as many permutations as needed.
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        if self.replacement:
            yield from _randint(n, self.num_samples, self.generator)
            return
        full_passes, rest = divmod(self.num_samples, n)
        for _ in range(full_passes):
            yield from _randperm(n, self.generator)
        yield from _randperm(n, self.generator)[:rest]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices, in a random order each time."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in _randperm(len(self.indices), self.generator):
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler``; the last one is shorter unless
    ``drop_last``."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
