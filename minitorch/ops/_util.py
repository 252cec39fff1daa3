"""Helpers shared by the op definitions (chapter 4): shapes, dims, dtype promotion, errors."""

import numpy as np

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)


def unbroadcast(grad, shape):
    """Sum ``grad`` (a tensor, or an array in array mode) down to ``shape``, undoing
    the broadcasting of the forward pass."""
    if grad.shape == shape:
        return grad
    if isinstance(grad, np.ndarray):
        return sum_to_shape(grad, shape)
    return grad.sum_to_size(shape)


def sum_to_shape(x, shape):
    """Sum the array ``x`` over the dims that broadcasting added or stretched, to get ``shape``."""
    lead = x.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and x.shape[lead + i] != 1)
    out = x.sum(axis=dims, keepdims=True) if dims else x
    return np.asarray(out.reshape(shape))


def promote(out, *arrays):
    """Apply PyTorch's rule that mixing ints (or float32) with Python floats gives float32,
    not numpy's float64: a float64 result is kept only if an input was float64."""
    if out.dtype == F64 and not any(getattr(a, "dtype", None) == F64 for a in arrays):
        return out.astype(F32)
    return out


def normalize_dim(dim, ndim):
    """A dim in ``[-ndim, ndim)`` as a non-negative index, or PyTorch's IndexError."""
    low, high = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"dim must be an int, not {type(dim).__name__}")
    if dim < low or dim > high:
        raise IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], "
                         f"but got {dim})")
    return dim % ndim if ndim else 0


def normalize_dims(dim, ndim):
    """``dim`` (None, an int, or a tuple of ints) as a sorted tuple of non-negative dims."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (tuple, list)):
        dims = tuple(normalize_dim(d, ndim) for d in dim)
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"dim {dim} appears multiple times in the list of dims")
        return tuple(sorted(dims))
    return (normalize_dim(dim, ndim),)


def broadcast_error(a, b):
    """numpy's broadcasting ValueError, restated as PyTorch's RuntimeError."""
    sa, sb = list(np.shape(a)), list(np.shape(b))
    for i in range(1, max(len(sa), len(sb)) + 1):
        da = sa[-i] if i <= len(sa) else 1
        db = sb[-i] if i <= len(sb) else 1
        if da != db and da != 1 and db != 1:
            dim = max(len(sa), len(sb)) - i
            return RuntimeError(
                f"The size of tensor a ({da}) must match the size of tensor b ({db}) at "
                f"non-singleton dimension {dim}: shapes {sa} and {sb} do not broadcast. "
                "Reshape one of them, or add a dimension with unsqueeze().")
    return RuntimeError(f"shapes {sa} and {sb} cannot be broadcast together")


def as_shape(size):
    """Accept ``f(2, 3)``, ``f((2, 3))`` or ``f([2, 3])`` and return ``(2, 3)``."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"sizes must be ints, got {type(s).__name__} ({s!r}) in {tuple(size)}")
    return tuple(int(s) for s in size)
