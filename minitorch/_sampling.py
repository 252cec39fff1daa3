"""``multinomial``: draw category indices from rows of weights (Part V, sampling text
from a language model).

With replacement each draw is independent: a uniform number located in the
running sum of the weights (inverse-CDF sampling).  Without replacement it uses
the exponential trick: divide each weight by an Exp(1) random number and take
the ``num_samples`` largest; that gives the same distribution as drawing one
category at a time and removing it.  minitorch's random stream is numpy's, so
the indices drawn differ from PyTorch's for the same seed (the book's page of
differences says so); their distribution is the same.
"""

import numpy as np

from ._random import generator_of
from ._tensor import Tensor

__all__ = ["multinomial"]


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Indices (int64) of ``num_samples`` categories drawn from each row of ``input``
    (non-negative weights, not necessarily summing to 1): shape ``(num_samples,)``
    for a vector, ``(rows, num_samples)`` for a matrix."""
    if not isinstance(input, Tensor):
        raise TypeError(f"multinomial(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if out is not None:
        raise NotImplementedError("multinomial(out=...): minitorch has no out= here; assign "
                                  "the result instead")
    _check(input, num_samples, replacement)
    rng = generator_of(generator)
    weights = input._data.reshape(-1, input._data.shape[-1]).astype(np.float64)
    draw = _with_replacement if replacement else _without_replacement
    indices = draw(weights, num_samples, rng)
    if input.ndim == 1:
        indices = indices[0]
    return Tensor._wrap(np.ascontiguousarray(indices, dtype=np.int64))


def _check(input, num_samples, replacement):
    x = input._data
    if x.dtype.kind != "f":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{input.dtype.type_name}")
    if x.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if isinstance(num_samples, bool) or not isinstance(num_samples, (int, np.integer)):
        raise TypeError(f"multinomial(): argument 'num_samples' (position 2) must be int, not "
                        f"{type(num_samples).__name__}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > x.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if x.size and (not np.isfinite(x).all() or (x < 0).any()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if x.shape[-1] == 0 or (x.reshape(-1, x.shape[-1]).sum(axis=1) <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


def _with_replacement(weights, n, rng):
    cumulative = np.cumsum(weights, axis=1)
    targets = rng.random((len(weights), n)) * cumulative[:, -1:]
    picks = np.stack([np.searchsorted(row, t, side="right")
                      for row, t in zip(cumulative, targets)])
    return np.minimum(picks, weights.shape[1] - 1)


def _without_replacement(weights, n, rng):
    keys = weights / rng.exponential(size=weights.shape)
    order = np.argsort(-keys, axis=1, kind="stable")
    return order[:, :n]
