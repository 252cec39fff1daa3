"""``nn.Flatten`` and ``nn.Unflatten``: reshape between layers (chapter 7, "Module internals I").

A convolutional stack gives ``(batch, channels, height, width)`` and a
``Linear`` layer wants ``(batch, features)``: ``Flatten()`` merges every
dimension after the batch one (``start_dim=1`` to ``end_dim=-1``), and
``Unflatten(dim, sizes)`` splits one dimension back into several.  Both
only reshape, so autograd sends the gradient back in the input's shape.
"""

import math

from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Merge dimensions ``start_dim`` to ``end_dim`` into one (all but the batch one by default)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return _flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


def _flatten(input, start_dim, end_dim):
    """``input.flatten(start_dim, end_dim)`` written with ``reshape``.

    To be replaced by the core's ``Tensor.flatten`` once it takes the two
    dimensions (it flattens everything for now).  A 0-d tensor counts as
    having one dimension, as in PyTorch.
    """
    ndim = max(input.dim(), 1)
    start, end = _normalized_dim(start_dim, ndim), _normalized_dim(end_dim, ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    shape = tuple(input.shape) or (1,)
    merged = math.prod(shape[start:end + 1])
    return input.reshape(*shape[:start], merged, *shape[end + 1:])


def _check_sizes(sizes):
    """``unflattened_size`` must be a tuple (or list, or Size) of ints, as in PyTorch."""
    if not isinstance(sizes, (tuple, list)):
        raise TypeError("unflattened_size must be a tuple of ints, but found type "
                        + type(sizes).__name__)
    for position, size in enumerate(sizes):
        if not isinstance(size, int):
            raise TypeError("unflattened_size must be tuple of ints, but found element of type "
                            f"{type(size).__name__} at pos {position}")


def _normalized_dim(dim, ndim):
    if not -ndim <= dim < ndim:
        raise IndexError("Dimension out of range (expected to be in range of "
                         f"[{-ndim}, {ndim - 1}], but got {dim})")
    return dim % ndim


def _unflatten(input, dim, sizes):
    """``input.unflatten(dim, sizes)`` written with ``reshape``.

    At most one size may be -1 (inferred).  To be replaced by the core's
    ``Tensor.unflatten`` once it exists.
    """
    dim = _normalized_dim(dim, input.dim())
    length = input.shape[dim]
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if list(sizes).count(-1) > 1:
        raise RuntimeError("unflatten: only one dimension can be inferred (one size may be -1)")
    known = math.prod(size for size in sizes if size != -1)
    if -1 in sizes:
        if known == 0:
            raise RuntimeError(f"unflatten: cannot infer the -1 in {list(sizes)}: the other sizes "
                               "multiply to 0")
        fits = length % known == 0
        new_sizes = [length // known if size == -1 else size for size in sizes]
    else:
        fits = known == length
        new_sizes = list(sizes)
    if not fits:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size "
                           f"of dim {dim} ({length}) in the input tensor")
    return input.reshape(*input.shape[:dim], *new_sizes, *input.shape[dim + 1:])


class Unflatten(Module):
    """Split dimension ``dim`` into ``unflattened_size`` (one entry may be -1)."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if isinstance(dim, str):
            raise TypeError(f"Unflatten(dim={dim!r}): minitorch has no named dimensions; give dim "
                            "as an int")
        _check_sizes(unflattened_size)
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        return _unflatten(input, self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
