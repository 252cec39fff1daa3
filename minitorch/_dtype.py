"""Data types: minitorch's names for the numpy dtypes a Tensor can hold.

PyTorch exposes its scalar types as module attributes (``torch.float32``,
``torch.long``...).  minitorch does the same with small :class:`dtype` objects
that wrap a numpy dtype, so code like ``x.dtype == torch.float64`` or
``torch.zeros(3, dtype=torch.long)`` runs unchanged.  Chapter 3 ("Autograd
mechanics") explains why only floating point tensors can require gradients.
"""

import numpy as np

__all__ = ["dtype", "float32", "float", "float64", "double", "int64", "long", "bool",
           "get_default_dtype", "set_default_dtype"]


class dtype:
    """A tensor element type.  Compare with ``==``; print as ``minitorch.float32``."""

    __slots__ = ("name", "numpy_dtype", "is_floating_point", "itemsize")

    def __init__(self, name, numpy_dtype):
        self.name = name
        self.numpy_dtype = np.dtype(numpy_dtype)
        self.is_floating_point = self.numpy_dtype.kind == "f"
        self.itemsize = self.numpy_dtype.itemsize

    def __repr__(self):
        return f"minitorch.{self.name}"

    def __reduce__(self):
        return self.name  # pickled by name, like a module-level singleton


float32 = float = dtype("float32", np.float32)
float64 = double = dtype("float64", np.float64)
int64 = long = dtype("int64", np.int64)
bool = dtype("bool", np.bool_)  # noqa: A001  (PyTorch's name)

_BY_NUMPY = {d.numpy_dtype: d for d in (float32, float64, int64, bool)}
_default_float = float32


def from_numpy_dtype(np_dtype):
    """The minitorch dtype for a numpy dtype, or a TypeError naming the supported ones."""
    found = _BY_NUMPY.get(np_dtype)
    if found is None:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).name}. "
            "The only supported types are: float64, float32, int64 and bool.")
    return found


def to_numpy_dtype(d):
    """Accept a minitorch dtype (or None) and return the numpy dtype it wraps."""
    if isinstance(d, dtype):
        return d.numpy_dtype
    raise TypeError(f"dtype must be a minitorch dtype such as minitorch.float32, not {d!r}")


def get_default_dtype():
    """The dtype given to Python floats when a tensor is created (float32 unless changed)."""
    return _default_float


def set_default_dtype(d):
    """Make ``d`` (float32 or float64) the dtype of new floating point tensors."""
    global _default_float
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default_float = d
