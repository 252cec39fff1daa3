"""The random number generator behind randn, rand, nn.init and Dropout.

One numpy ``Generator`` for the process; ``manual_seed`` replaces it, so a
seeded notebook gives the same numbers on every run (nbval compares them).
The numbers differ from PyTorch's for the same seed: only the distributions
match.  Every chapter seeds it in its first cell.
"""

import numpy as np

_generator = np.random.default_rng(0)


def manual_seed(seed):
    """Seed minitorch's random number generator.  Returns the seed."""
    global _generator
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise TypeError(f"manual_seed expected an int, got {type(seed).__name__}")
    _generator = np.random.default_rng(int(seed))
    return seed


def seed():
    """Re-seed from fresh entropy and return the new seed."""
    s = int(np.random.SeedSequence().entropy % (2 ** 63))
    manual_seed(s)
    return s


def generator():
    """The current numpy Generator (internal: for ops that draw random numbers)."""
    return _generator


# PyTorch seeds a new Generator with this number until manual_seed is called.
_DEFAULT_GENERATOR_SEED = 67280421310721


class Generator:
    """A random number generator of its own, apart from the global one (chapter 10).

    ``random_split(data, [0.8, 0.2], generator=minitorch.Generator().manual_seed(42))``
    gives the same split whatever else the program draws.  Like the global
    generator, it produces numpy's numbers, not PyTorch's, for a given seed.
    """

    def __init__(self, device="cpu"):
        if str(getattr(device, "type", device)) != "cpu":
            raise RuntimeError(f"Generator(device={str(device)!r}): minitorch runs on the CPU "
                               "only, so cuda and other devices are not available. "
                               "Use device='cpu'.")
        self.device = "cpu"
        self.manual_seed(_DEFAULT_GENERATOR_SEED)

    def manual_seed(self, seed):
        """Seed this generator; returns it, so it can be made and seeded in one expression."""
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise TypeError(f"manual_seed expected an int, got {type(seed).__name__}")
        self._seed = int(seed)
        self._rng = np.random.default_rng(self._seed)
        return self

    def seed(self):
        """Re-seed from fresh entropy and return the new seed."""
        new_seed = int(np.random.SeedSequence().entropy % (2 ** 63))
        self.manual_seed(new_seed)
        return new_seed

    def initial_seed(self):
        """The seed this generator was last seeded with."""
        return self._seed
