"""``DataLoader``: batches from a dataset, one epoch per iteration (chapter 10).

For a map-style dataset, each iteration asks the batch sampler for a list
of indices, fetches those samples and collates them:

    for indices in batch_sampler:            # BatchSampler(sampler, batch_size, drop_last)
        yield collate_fn([dataset[i] for i in indices])

``shuffle=True`` uses a ``RandomSampler``, so each epoch (each ``for``
loop over the loader) sees a new order, reproducible after
``minitorch.manual_seed``.  Every iteration, shuffled or not, also draws
one random number from the loader's generator or the global one, as
PyTorch does, so the random streams after it match PyTorch's pattern.
For an iterable dataset the loader just groups
what the dataset yields.  With ``batch_size=None`` nothing is batched:
each sample goes through ``default_convert`` on its own.

minitorch loads every batch in the main process: ``num_workers`` must be 0,
and the options that only matter to worker processes or to GPUs
(``pin_memory``, ``timeout``, ``worker_init_fn``...) are accepted and
have no effect.
"""

import itertools

from ... import empty, int64

from .collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader"]

# Attributes that fix how batches are made; PyTorch refuses to change them after __init__.
_FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")


def _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers):
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                         "multiprocessing.")
    if num_workers > 0:
        raise ValueError(f"num_workers={num_workers} is not supported: minitorch loads data in the "
                         "main process only, without worker processes. Use num_workers=0.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing. "
                         "minitorch has no worker processes: set prefetch_factor to None.")
    if persistent_workers:
        raise ValueError("persistent_workers option needs num_workers > 0, and minitorch has no "
                         "worker processes: leave persistent_workers=False.")


def _check_iterable_options(shuffle, sampler, batch_sampler):
    """An iterable dataset decides its own order: no shuffling, no samplers."""
    options = (("shuffle", shuffle), ("sampler", sampler), ("batch_sampler", batch_sampler))
    for name, value in options:
        unspecified = value in (None, False) if name == "shuffle" else value is None
        if not unspecified:
            raise ValueError("DataLoader with IterableDataset: expected unspecified "
                             f"{name} option, but got {name}={value}")


class DataLoader:
    """Iterate over ``dataset`` in batches of ``batch_size``, collated with ``collate_fn``.

    How the options combine (chapter 10), checked by ``_check_batching``: without a
    ``sampler``, a ``RandomSampler`` (drawing from ``generator``) when ``shuffle``,
    else a ``SequentialSampler``; with a ``batch_size`` (not None) and no
    ``batch_sampler``, a ``BatchSampler(sampler, batch_size, drop_last)``.  An
    ``IterableDataset`` takes no sampler, shuffle or batch sampler (its own order),
    and is batched by ``batch_size`` directly.  Without a ``collate_fn``:
    ``default_collate`` when batching (``_auto_collation``), ``default_convert``
    when not.  The batching options cannot be changed after ``__init__``.
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers)
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        self.generator = generator
        ### BEGIN SOLUTION 10.2
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            _check_iterable_options(shuffle, sampler, batch_sampler)
        batch_size, drop_last = _check_batching(batch_size, shuffle, sampler, batch_sampler,
                                                drop_last)
        if sampler is None and not iterable:
            sampler = (RandomSampler(dataset, generator=generator) if shuffle
                       else SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None and not iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        if iterable and batch_size is not None:
            BatchSampler([], batch_size, drop_last)          # the same checks of batch_size
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        ### END SOLUTION 10.2
        self.__initialized = True

    def __setattr__(self, name, value):
        if self.__dict__.get("_DataLoader__initialized") and name in _FROZEN:
            raise ValueError(f"{name} attribute should not be set after {type(self).__name__} is "
                             "initialized; build a new DataLoader instead.")
        super().__setattr__(name, value)

    @property
    def _auto_collation(self):
        """True when samples are grouped into batches (``batch_size`` or a batch sampler)."""
        ### BEGIN SOLUTION 10.2
        return self.batch_size is not None or self.batch_sampler is not None
        ### END SOLUTION 10.2

    @property
    def _index_sampler(self):
        """What an epoch iterates: the batch sampler when batching, else the sampler."""
        ### BEGIN SOLUTION 10.2
        return self.batch_sampler if self.batch_sampler is not None else self.sampler
        ### END SOLUTION 10.2

    def __iter__(self):
        """One epoch: a generator of batches.

        Like PyTorch 2.13, starting an epoch draws one random int64 (the seed PyTorch
        hands its worker processes) from ``generator``, or else from the global
        generator, shuffled or not: evaluating on a loader between training epochs
        shifts the random numbers drawn after it, Dropout's masks among them."""
        ### BEGIN SOLUTION 10.2
        self._draw_base_seed()
        if isinstance(self.dataset, IterableDataset):
            return self._iterable_batches()
        return self._map_batches()
        ### END SOLUTION 10.2

    def _draw_base_seed(self):
        """The draw every ``iter(loader)`` makes in PyTorch: unused here (no workers),
        but the random numbers that follow it must be the ones that follow it there."""
        return empty((), dtype=int64).random_(generator=self.generator).item()

    def _map_batches(self):
        """The batches of a map-style dataset: for each item of ``_index_sampler``, the
        samples fetched (``_fetch``) and collated (``collate_fn``)."""
        ### BEGIN SOLUTION 10.2
        for indices in self._index_sampler:
            yield self.collate_fn(self._fetch(indices))
        ### END SOLUTION 10.2

    def _fetch(self, indices):
        """The samples at ``indices`` (one index when not batching)."""
        ### BEGIN SOLUTION 10.2
        if not self._auto_collation:
            return self.dataset[indices]
        get_many = getattr(self.dataset, "__getitems__", None)
        if callable(get_many):
            return get_many(indices)
        return [self.dataset[i] for i in indices]
        ### END SOLUTION 10.2

    def _iterable_batches(self):
        """The batches of an ``IterableDataset``: each sample through ``collate_fn`` when not
        batching; else lists of ``batch_size`` samples in the dataset's order, collated (the
        last shorter one dropped with ``drop_last``)."""
        ### BEGIN SOLUTION 10.2
        samples = iter(self.dataset)
        if not self._auto_collation:
            yield from (self.collate_fn(sample) for sample in samples)
            return
        while True:
            batch = list(itertools.islice(samples, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield self.collate_fn(batch)
        ### END SOLUTION 10.2

    def __len__(self):
        """The number of batches in an epoch: the length of ``_index_sampler``; for an
        ``IterableDataset``, ``len(dataset)`` divided by ``batch_size``, rounded down with
        ``drop_last`` and up without (the dataset's length when not batching)."""
        ### BEGIN SOLUTION 10.2
        if isinstance(self.dataset, IterableDataset):
            length = len(self.dataset)
            if self.batch_size is None:
                return length
            if self.drop_last:
                return length // self.batch_size
            return -(-length // self.batch_size)
        return len(self._index_sampler)
        ### END SOLUTION 10.2


def _check_batching(batch_size, shuffle, sampler, batch_sampler, drop_last):
    """PyTorch's rules for combining the batching options; returns ``(batch_size,
    drop_last)``: ``(None, False)`` with a ``batch_sampler`` (it makes the batches), else
    the two as given.  Each broken rule is a ValueError with PyTorch's message:

    - a ``sampler`` with ``shuffle``: "sampler option is mutually exclusive with shuffle";
    - a ``batch_sampler`` with a ``batch_size`` other than 1, ``shuffle``, a ``sampler`` or
      ``drop_last``: "batch_sampler option is mutually exclusive with batch_size, shuffle,
      sampler, and drop_last";
    - ``batch_size=None`` with ``drop_last``: "batch_size=None option disables
      auto-batching and is mutually exclusive with drop_last".
    """
    ### BEGIN SOLUTION 10.2
    if sampler is not None and shuffle:
        raise ValueError("sampler option is mutually exclusive with shuffle")
    if batch_sampler is not None:
        if batch_size != 1 or shuffle or sampler is not None or drop_last:
            raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, "
                             "sampler, and drop_last")
        return None, False
    if batch_size is None and drop_last:
        raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive "
                         "with drop_last")
    return batch_size, drop_last
    ### END SOLUTION 10.2
