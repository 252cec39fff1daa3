"""``minitorch.utils.data``: datasets, samplers and the DataLoader
(chapter 10, "Putting it together").

Training code rarely indexes its tensors by hand: a *dataset* says how to
get sample ``i`` (``dataset[i]``) and how many there are (``len``); a
*sampler* says in which order to visit them (in order, shuffled, a subset);
a *batch sampler* groups those indices into batches; and the *DataLoader*
fetches each batch's samples and *collates* them, stacking the tensors,
numpy arrays and numbers of many samples into batch tensors.

    loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True)
    for xb, yb in loader:
        ...

Everything runs in the main process: ``num_workers`` must be 0.
"""

from .dataset import (Dataset, IterableDataset, TensorDataset, Subset, ConcatDataset, ChainDataset,
                      random_split)
from .sampler import (Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler, BatchSampler)
from .collate import default_collate, default_convert
from .dataloader import DataLoader

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset", "ChainDataset",
           "random_split", "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "BatchSampler", "default_collate", "default_convert", "DataLoader"]
