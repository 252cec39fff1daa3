"""``multinomial`` and ``bernoulli``: draw category indices from rows of weights (Part V,
sampling text from a language model), and zeros and ones from probabilities.

With replacement each draw is independent: a uniform number located in the
running sum of the weights (inverse-CDF sampling).  Without replacement it uses
the exponential trick: divide each weight by an Exp(1) random number and take
the ``num_samples`` largest; that gives the same distribution as drawing one
category at a time and removing it.  minitorch's random stream is numpy's, so
the indices drawn differ from PyTorch's for the same seed (the book's page of
differences says so); their distribution is the same.
"""

import numpy as np

from ._random import Draw
from ._tensor import Tensor
from .ops._common import BuiltinFunction

__all__ = ["multinomial", "bernoulli"]


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
    drawn = Draw(generator, (input,))           # inside vmap: per example, or refused
    values = drawn.values_of(input)._data
    _check(values, input.ndim, input.dtype, num_samples, replacement)
    weights = values.reshape(-1, values.shape[-1]).astype(np.float64)
    draw = _with_replacement if replacement else _without_replacement
    indices = draw(weights, num_samples, drawn.rng)
    indices = indices.reshape(values.shape[:-1] + (num_samples,))
    return drawn.result(Tensor._wrap(np.ascontiguousarray(indices, dtype=np.int64)))


def _check(x, ndim, dtype, num_samples, replacement):
    if x.dtype.kind != "f":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{dtype.type_name}")
    if ndim not in (1, 2):
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


def bernoulli(input, p=None, *, generator=None, out=None):
    """Zeros and ones, each 1 with probability ``input`` (elementwise), or with the one
    probability ``p`` when it is given; the dtype of ``input``.  Its gradient is zero
    (``BernoulliBackward0``); with ``p`` it has none (PyTorch's ``NotImplemented``)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"bernoulli(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if out is not None:
        raise NotImplementedError("bernoulli(out=...): minitorch has no out= here; assign "
                                  "the result instead")
    if p is not None:
        from .ops.random import bernoulli_
        from ._creation import empty_like
        Draw(generator, (input,))       # vmap's checks: PyTorch's rule reads input here
        drawn = bernoulli_(empty_like(input), p, generator=generator)
        return _recorded(BernoulliWithP, input, drawn)
    if not input.is_floating_point():
        raise NotImplementedError(f'"bernoulli_tensor_cpu_p_" not implemented for '
                                  f"'{input.dtype.type_name}'")
    drawn = Draw(generator, (input,))
    probabilities = drawn.values_of(input)._data
    if probabilities.size and not ((probabilities >= 0) & (probabilities <= 1)).all():
        raise RuntimeError(OUT_OF_RANGE)
    ones = drawn.rng.random(probabilities.shape) < probabilities
    return _recorded(Bernoulli, input, drawn.result(Tensor._wrap(
        ones.astype(probabilities.dtype))))


OUT_OF_RANGE = ("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this "
                "error message be improved?  If so, please report an enhancement request "
                "to PyTorch.)")


def _recorded(function, input, drawn):
    """``drawn`` as the result of ``function`` of ``input``, when ``input`` is recorded or
    carries a tangent (outside vmap, where the draw is a plain tensor)."""
    from .autograd import grad_mode
    recorded = (input.requires_grad and grad_mode.is_grad_enabled()) or input._fw_grads
    if recorded and getattr(drawn, "_value", None) is None:
        return function.apply(input, drawn)
    return drawn


class Bernoulli(BuiltinFunction):
    """The node of ``bernoulli(probabilities)``: the draw does not move with the
    probabilities, so their gradient is zero."""
    _backward_name = "BernoulliBackward0"

    @staticmethod
    def forward(ctx, probabilities, drawn):
        return drawn._data

    @staticmethod
    def backward(ctx, grad):
        return grad * 0, None


class BernoulliWithP(BuiltinFunction):
    """The node of ``bernoulli(input, p)``: PyTorch records one that refuses backward."""
    _backward_name = "NotImplemented"
    _node_name = "torch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx, input, drawn):
        return drawn._data

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::bernoulli is not implemented")


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
