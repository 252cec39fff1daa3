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
        """The generator's state as a uint8 tensor (PyTorch's ``ByteTensor``), which
        ``set_state`` takes back: see ``_pack_state``."""
        return _pack_state(self._seed, self._rng.bit_generator.state)

    def set_state(self, new_state):
        """Go back to a state that ``get_state`` (or ``get_rng_state``) returned."""
        self._seed, self._rng.bit_generator.state = _unpack_state(new_state)
        return self

    @property
    def device(self):
        return "cpu"


# ----- the state as bytes -------------------------------------------------------------------
# PyTorch hands out its generator's state as a uint8 tensor (5056 bytes of its Mersenne
# Twister).  minitorch's generator is numpy's PCG64, whose state is two 128-bit numbers and a
# cached half of a 64-bit draw; with the seed in front (``initial_seed`` comes back with the
# state, as in PyTorch) it packs into 48 bytes, little-endian:
#     seed (8) | state (16) | inc (16) | has_uint32 (4) | uinteger (4)
_STATE_FIELDS = (("seed", 8), ("state", 16), ("inc", 16), ("has_uint32", 4), ("uinteger", 4))
_STATE_SIZE = sum(size for _, size in _STATE_FIELDS)


def _pack_state(seed, numpy_state):
    values = {"seed": seed, "state": numpy_state["state"]["state"],
              "inc": numpy_state["state"]["inc"], "has_uint32": numpy_state["has_uint32"],
              "uinteger": numpy_state["uinteger"]}
    raw = b"".join(int(values[name]).to_bytes(size, "little") for name, size in _STATE_FIELDS)
    from ._tensor import Tensor
    return Tensor._wrap(np.frombuffer(raw, dtype=np.uint8).copy())


def _unpack_state(new_state):
    """``(seed, numpy state)`` from a tensor that ``_pack_state`` made, with PyTorch's
    errors for anything else."""
    from ._tensor import Tensor
    from .ops._common import type_name_of
    if not isinstance(new_state, Tensor):
        raise TypeError(f"expected a torch.ByteTensor, but got {type_name_of(new_state)}: pass "
                        "the uint8 tensor that get_rng_state() (or Generator.get_state()) "
                        "returned")
    if new_state._data.dtype != np.uint8:
        raise TypeError(f"RNG state must be a torch.ByteTensor, not a tensor of "
                        f"{new_state.dtype}: pass the uint8 tensor that get_rng_state() "
                        "returned, unconverted")
    raw = np.ascontiguousarray(new_state._data).reshape(-1).tobytes()
    if len(raw) != _STATE_SIZE:
        raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but found "
                           f"the input RNG state size to be {len(raw)}: pass a whole state "
                           "that minitorch's get_rng_state() returned (PyTorch's states do not "
                           "fit minitorch's generator)")
    values, start = {}, 0
    for name, size in _STATE_FIELDS:
        values[name] = int.from_bytes(raw[start:start + size], "little")
        start += size
    if values["inc"] % 2 == 0 or values["has_uint32"] > 1:     # PCG64's increment is odd
        raise RuntimeError("Invalid mt19937 state: these bytes are not a state that "
                           "get_rng_state() returned (minitorch's generator is numpy's "
                           "PCG64); pass one that it did")
    numpy_state = {"bit_generator": "PCG64",
                   "state": {"state": values["state"], "inc": values["inc"]},
                   "has_uint32": values["has_uint32"], "uinteger": values["uinteger"]}
    return values["seed"], numpy_state


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
    """The global generator's state, a uint8 tensor that ``set_rng_state`` takes back."""
    return default_generator.get_state()


def set_rng_state(new_state):
    """Put the global generator back in a state ``get_rng_state`` returned."""
    default_generator.set_state(new_state)


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
