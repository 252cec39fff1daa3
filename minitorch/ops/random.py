"""In-place random fills: ``uniform_``, ``normal_``, ``random_``, ``exponential_``, ``bernoulli_``.

They overwrite a tensor with fresh random numbers from minitorch's generator
(``minitorch.manual_seed`` makes them repeatable).  Like every in-place op
they bump the version counter and refuse a leaf that requires grad outside
``no_grad`` (which is why ``nn.init`` works under ``no_grad``).  The new
values do not depend on the old ones, so their gradient is zero.
"""

import numpy as np

from .._random import generator_of
from .._tensor import Tensor
from ._common import BuiltinFunction
from .inplace import check_in_place, record_change_in_base

__all__ = ["Uniform", "Normal", "RandomIntegers", "Exponential", "Bernoulli", "uniform_",
           "normal_", "random_", "exponential_", "bernoulli_"]


class _RandomFill(BuiltinFunction):
    """Overwrite ``a`` with ``draw(rng, shape)``; gradient zero."""

    @staticmethod
    def forward(ctx, a, draw, rng):
        a._data[...] = draw(rng, a._data.shape)
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        return grad * 0, None, None


class Uniform(_RandomFill):
    _backward_name = "UniformBackward0"


class Normal(_RandomFill):
    _backward_name = "NormalBackward0"


class RandomIntegers(_RandomFill):
    _backward_name = "RandomBackward2"


class Exponential(_RandomFill):
    _backward_name = "ExponentialBackward0"


class Bernoulli(_RandomFill):
    _backward_name = "BernoulliBackward2"


def _floating(t, kernel):
    if not t.is_floating_point():
        raise NotImplementedError(f'"{kernel}" not implemented for \'{t.dtype.type_name}\': '
                                  "random floats need a floating point tensor")


def _fill(fn, t, draw, generator):
    check_in_place(t)
    return record_change_in_base(fn.apply(t, draw, generator_of(generator)))


def uniform_(t, a=0.0, b=1.0, *, generator=None):
    _floating(t, "check_uniform_bounds")
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a} "
                           f"> to={b}")
    return _fill(Uniform, t, lambda rng, shape: rng.uniform(a, b, shape), generator)


def normal_(t, mean=0.0, std=1.0, *, generator=None):
    _floating(t, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return _fill(Normal, t, lambda rng, shape: rng.normal(mean, std, shape), generator)


def exponential_(t, lambd=1.0, *, generator=None):
    _floating(t, "exponential_cpu")
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    return _fill(Exponential, t, lambda rng, shape: rng.exponential(1.0 / lambd, shape),
                 generator)


def bernoulli_(t, p=0.5, *, generator=None):
    """Ones with probability ``p``: a number, or a tensor of probabilities that expands
    to ``t``'s shape."""
    if isinstance(p, Tensor):
        return _bernoulli_from_tensor_(t, p, generator)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    return _fill(Bernoulli, t, lambda rng, shape: rng.random(shape) < p, generator)


def _bernoulli_from_tensor_(t, p, generator):
    """``t.bernoulli_(p)`` with a tensor ``p``: the draw of ``bernoulli(p)`` written into
    ``t``.  Under vmap(randomness='different') ``t`` must be batched (each example gets
    its own draw, which an unbatched ``t`` cannot hold)."""
    from .._sampling import bernoulli
    from .. import _random
    check_in_place(t)
    hook = _random.vmap_draws[0]
    if hook is not None:
        hook.check_in_place_draw(t)
    from ..autograd.grad_mode import no_grad
    with no_grad():
        drawn = bernoulli(p.expand_as(t).to(t.dtype if t.is_floating_point() else p.dtype),
                          generator=generator)
        return t.copy_(drawn)


def random_(t, low=None, high=None, *, generator=None):
    """Integers: in ``[0, low)`` with one bound, ``[low, high)`` with two; without bounds,
    any integer the dtype holds exactly (up to 2**24 for float32, as in PyTorch)."""
    if low is not None and high is None:
        low, high = 0, low
    if low is None:
        low, high = 0, _largest_exact(t)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    return _fill(RandomIntegers, t, lambda rng, shape: rng.integers(low, high, shape), generator)


def _largest_exact(t):
    kind, size = t._data.dtype.kind, t._data.dtype.itemsize
    if kind == "f":
        return 2 ** {2: 11, 4: 24, 8: 53}[size]
    if kind == "b":
        return 2
    return int(np.iinfo(t._data.dtype).max)
