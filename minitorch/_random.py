"""The random number generator behind randn, rand, nn.init, Dropout and DataLoader shuffling.

One numpy ``Generator`` for the process; ``manual_seed`` replaces it, so a
seeded notebook gives the same numbers on every run (nbval compares them).
A :class:`Generator` object gives a stream of its own, for the functions
that take ``generator=``.  The numbers differ from PyTorch's for the same
seed: only the distributions match.  Every chapter seeds it in its first cell.
"""

import numpy as np

__all__ = ["manual_seed", "seed", "initial_seed", "Generator", "get_rng_state", "set_rng_state",
           "default_generator"]


def _checked_seed(value):
    """``int(value)``, as PyTorch takes it (so ``'3'`` and ``3.0`` are seeds too), if it fits
    in 64 bits."""
    value = int(value)
    if not -0x8000_0000_0000_0000 <= value <= 0xffff_ffff_ffff_ffff:
        raise ValueError("Overflow when unpacking long long: a seed must fit in 64 bits")
    return value % 2 ** 64


class Generator:
    """A random stream of its own: ``Generator().manual_seed(0)``."""

    def __init__(self, device="cpu"):
        if str(device) not in ("cpu", "device(type='cpu')"):
            from ._device import no_cuda_error
            raise no_cuda_error(str(device), error=RuntimeError)
        self._seed = 67280421310721
        self._rng = np.random.default_rng(self._seed)

    def manual_seed(self, seed):
        self._seed = _checked_seed(seed)
        self._rng = np.random.default_rng(self._seed)
        return self

    def seed(self):
        self.manual_seed(int(np.random.SeedSequence().entropy % (2 ** 63)))
        return self._seed

    def initial_seed(self):
        return self._seed

    def get_state(self):
        return self._rng.bit_generator.state

    def set_state(self, state):
        self._rng.bit_generator.state = state
        return self

    @property
    def device(self):
        return "cpu"


default_generator = Generator()
default_generator.manual_seed(0)


def manual_seed(seed):
    """Seed minitorch's random number generator.  Returns the default generator."""
    return default_generator.manual_seed(seed)


def seed():
    """Re-seed from fresh entropy and return the new seed."""
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(state):
    default_generator.set_state(state)


# Set while a vmap is live (chapter 13): called before every draw, it applies vmap's
# ``randomness`` rule.
draw_check = [None]


def generator():
    """The numpy Generator behind the default stream (for ops that draw random numbers)."""
    if draw_check[0] is not None:
        draw_check[0]()
    return default_generator._rng


def generator_of(gen):
    """The numpy Generator of ``gen`` (a minitorch Generator), or the default one."""
    if draw_check[0] is not None:
        draw_check[0]()
    return _numpy_generator(gen)


def _numpy_generator(gen):
    if gen is None:
        return default_generator._rng
    if not isinstance(gen, Generator):
        raise TypeError(f"generator must be a minitorch.Generator, not {type(gen).__name__}")
    return gen._rng


# ----- drawing under vmap (chapter 13) ----------------------------------------------------
# A random function inside ``vmap`` follows the vmap's ``randomness``: ``'error'``
# refuses; ``'same'`` draws once, and every example sees those numbers; ``'different'``
# draws for all the examples at once, with a leading dim per such vmap level, and hands
# the function the result as a batched tensor.  A draw whose distribution reads a
# tensor's values (``bernoulli(p)``, ``multinomial``, ``normal(mean, std)``) cannot be
# shared when those values differ per example: ``'same'`` refuses a batched input, as
# PyTorch does.  ``vmap_draws`` holds vmap's side of this while a vmap is live.
vmap_draws = [None]


class Draw:
    """One call's draw: ``sizes``, the batch sizes to put in front of the shape drawn
    (none outside vmap or under ``'same'``); ``rng``, the numpy Generator; ``values_of``
    and ``result`` move tensors between what the function sees and all examples."""

    def __init__(self, generator=None, inputs=()):
        hook = vmap_draws[0]
        self._levels = hook.draw_levels(inputs) if hook is not None else []
        self.sizes = hook.sizes(self._levels) if self._levels else ()
        self.rng = _numpy_generator(generator)

    def values_of(self, t):
        """``t``'s values for every example drawn: a plain tensor, batch dims first."""
        return vmap_draws[0].full(t, self._levels) if self._levels else t

    def result(self, t):
        """``t`` (batch dims first) as the tensor the function sees."""
        return vmap_draws[0].batched(t, self._levels) if self._levels else t
