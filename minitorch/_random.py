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
