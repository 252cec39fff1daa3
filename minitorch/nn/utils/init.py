"""``nn.utils.skip_init``: build a module without initializing its parameters (chapter 7).

Code that sets the parameters itself right after (``init.orthogonal_``, a
checkpoint) need not pay for the default initialization.  PyTorch builds the
module on its "meta" device and then allocates uninitialized memory; minitorch
builds it as usual, puts the global random stream back where it was (so the
module drew nothing, as with PyTorch) and leaves the parameters' values
unspecified, as PyTorch does.
"""

import inspect

import numpy as np

from ... import _random
from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` with parameters and buffers left uninitialized."""
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization: "
                           "add a device=None argument to its __init__.")
    state = _random.get_rng_state()
    try:
        module = module_cls(*args, **kwargs)
    finally:
        _random.set_rng_state(state)
    for tensor in list(module.parameters()) + list(module.buffers()):
        tensor._data[...] = np.empty_like(tensor._data)
    return module
