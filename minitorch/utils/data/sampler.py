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
        """``0, 1, ..., len(data_source) - 1``."""
        ### BEGIN SOLUTION 10.2
        return iter(range(len(self.data_source)))
        ### END SOLUTION 10.2

    def __len__(self):
        """``len(data_source)``."""
        ### BEGIN SOLUTION 10.2
        return len(self.data_source)
        ### END SOLUTION 10.2


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
        """How many indices an epoch yields: ``num_samples`` if given, else the dataset's
        length."""
        ### BEGIN SOLUTION 10.2
        return len(self.data_source) if self._num_samples is None else self._num_samples
        ### END SOLUTION 10.2

    def __iter__(self):
        """``num_samples`` indices: with replacement, drawn independently (``_randint``);
        without, one permutation (``_randperm``) for each whole pass over the data
        (``num_samples // n`` of them), then one more, of which the first ``num_samples %
        n`` are taken.  That last one is drawn even when none of it is taken (``num_samples``
        a multiple of ``n``, the default): PyTorch does so, and the next epoch's order, the
        book's printed shuffles among them, depends on how many numbers were drawn before.
        The random numbers come from ``generator``, else from the global generator."""
        ### BEGIN SOLUTION 10.2
        n = len(self.data_source)
        if self.replacement:
            yield from _randint(n, self.num_samples, self.generator)
            return
        full_passes, rest = divmod(self.num_samples, n)
        for _ in range(full_passes):
            yield from _randperm(n, self.generator)
        yield from _randperm(n, self.generator)[:rest]
        ### END SOLUTION 10.2

    def __len__(self):
        """``num_samples``."""
        ### BEGIN SOLUTION 10.2
        return self.num_samples
        ### END SOLUTION 10.2


class SubsetRandomSampler(Sampler):
    """The given indices, in a random order each time."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        """``indices`` in the order of one new permutation (``_randperm``)."""
        ### BEGIN SOLUTION 10.2
        for i in _randperm(len(self.indices), self.generator):
            yield self.indices[i]
        ### END SOLUTION 10.2

    def __len__(self):
        """``len(indices)``."""
        ### BEGIN SOLUTION 10.2
        return len(self.indices)
        ### END SOLUTION 10.2


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler``; the last one is shorter unless
    ``drop_last``."""

    def __init__(self, sampler, batch_size, drop_last):
        """Refused: a ``batch_size`` that is not a positive int (ValueError "batch_size should
        be a positive integer value, but got batch_size=<value>"; a bool is not an int here), a
        ``drop_last`` that is not a bool (ValueError "drop_last should be a boolean value, but
        got drop_last=<value>")."""
        ### BEGIN SOLUTION 10.2
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last
        ### END SOLUTION 10.2

    def __iter__(self):
        """Lists of ``batch_size`` indices in ``sampler``'s order; the last, shorter one too
        unless ``drop_last``."""
        ### BEGIN SOLUTION 10.2
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch
        ### END SOLUTION 10.2

    def __len__(self):
        """The number of batches: rounded down with ``drop_last``, up without."""
        ### BEGIN SOLUTION 10.2
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
        ### END SOLUTION 10.2
