"""Data types, and PyTorch's rules for the dtype of a result (chapter 3, "Tensors").

PyTorch exposes its element types as module attributes (``torch.float32``,
``torch.long``...).  minitorch does the same with small :class:`dtype` objects
that wrap a numpy dtype, so ``x.dtype == torch.float64`` or
``torch.zeros(3, dtype=torch.long)`` run unchanged.

The interesting part is *promotion*: which dtype ``a + b`` has when ``a`` and
``b`` differ.  numpy and PyTorch answer differently, so minitorch never lets
numpy decide.  PyTorch's rule (:func:`result_type`) sorts the operands into
three ranks, dimensioned tensors above 0-d tensors above Python numbers, and
into three categories, bool below integer below floating point.  An operand
of a lower rank changes the result only if its category is higher:

* ``int64 tensor + 2.5`` is float32: a Python float has the default dtype;
* ``float32 tensor + float64 0-d tensor`` stays float32: same category;
* ``float32 tensor + float64 tensor`` is float64: same rank, the wider wins.

Chapter 4 explains why only floating point tensors can require gradients.
"""

import builtins

import numpy as np

__all__ = ["dtype", "float32", "float", "float64", "double", "float16", "half", "int64", "long",
           "int32", "int", "int16", "short", "int8", "uint8", "bool",
           "get_default_dtype", "set_default_dtype", "promote_types", "result_type", "can_cast"]


class dtype:
    """A tensor element type.  Compare with ``==``; print as ``minitorch.float32``."""

    __slots__ = ("name", "numpy_dtype", "is_floating_point", "is_complex", "is_signed", "itemsize",
                 "type_name")

    def __init__(self, name, numpy_dtype, type_name):
        self.name = name
        self.numpy_dtype = np.dtype(numpy_dtype)
        self.is_floating_point = self.numpy_dtype.kind == "f"
        self.is_complex = False
        self.is_signed = self.numpy_dtype.kind in "fi"
        self.itemsize = self.numpy_dtype.itemsize
        self.type_name = type_name          # PyTorch's legacy name, as in "FloatTensor"

    def __repr__(self):
        return f"minitorch.{self.name}"

    def __reduce__(self):
        return self.name  # pickled by name, like a module-level singleton

    def to_real(self):
        return self

    def to_complex(self):
        raise TypeError(f"minitorch has no complex dtypes (asked for the complex form of {self})")


float32 = float = dtype("float32", np.float32, "Float")
float64 = double = dtype("float64", np.float64, "Double")
float16 = half = dtype("float16", np.float16, "Half")
int64 = long = dtype("int64", np.int64, "Long")
int32 = int = dtype("int32", np.int32, "Int")    # noqa: A001  (PyTorch's name)
int16 = short = dtype("int16", np.int16, "Short")
int8 = dtype("int8", np.int8, "Char")
uint8 = dtype("uint8", np.uint8, "Byte")
bool = dtype("bool", np.bool_, "Bool")  # noqa: A001  (PyTorch's name)

_ALL = (float32, float64, float16, int64, int32, int16, int8, uint8, bool)
_BY_NUMPY = {d.numpy_dtype: d for d in _ALL}
_default_float = float32


def from_numpy_dtype(np_dtype):
    """The minitorch dtype for a numpy dtype, or a TypeError naming the supported ones."""
    found = _BY_NUMPY.get(np_dtype)
    if found is None:
        found = _BY_NUMPY.get(np.dtype(np_dtype).newbyteorder("="))
    if found is None:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).type.__name__}. The "
            "only "
            "supported types are: float64, float32, float16, int64, int32, int16, int8, uint8, "
            "and bool.")
    return found


def to_numpy_dtype(d):
    """The numpy dtype a minitorch dtype wraps; a TypeError for anything else."""
    if isinstance(d, dtype):
        return d.numpy_dtype
    raise TypeError(f"dtype must be a minitorch dtype such as minitorch.float32, not {d!r}")


# Python's own types stand for dtypes, as in PyTorch: dtype=float is float64.
_PYTHON_TYPES = {builtins.float: float64, builtins.int: int64, builtins.bool: bool}


def as_dtype(value, name="tensor"):
    """``value`` as a dtype: a dtype, or Python's ``float``/``int``/``bool``; anything else
    is PyTorch's TypeError for the ``dtype`` argument of ``name``."""
    if isinstance(value, dtype):
        return value
    if type(value) is type and value in _PYTHON_TYPES:
        return _PYTHON_TYPES[value]
    kind = "numpy.ndarray" if isinstance(value, np.ndarray) else type(value).__name__
    raise TypeError(f"{name}(): argument 'dtype' must be torch.dtype, not {kind}; use a dtype "
                    "such as minitorch.float32")


def get_default_dtype():
    """The dtype given to Python floats when a tensor is created (float32 unless changed)."""
    return _default_float


def set_default_dtype(d):
    """Make ``d`` (float32 or float64) the dtype of new floating point tensors."""
    global _default_float
    if not isinstance(d, dtype) or d not in (float32, float64):
        raise TypeError(f"only floating-point types are supported as the default type, "
                        f"got {d!r}; use minitorch.float32 or minitorch.float64")
    _default_float = d


# ----- promotion ---------------------------------------------------------------------
def _category(d):
    """0 for bool, 1 for integers, 2 for floating point."""
    return 0 if d is bool else 2 if d.is_floating_point else 1


def promote_types(a, b):
    """The smallest dtype both ``a`` and ``b`` convert to without losing their kind.

    Unlike numpy, an integer and a float give that float (``int64`` and
    ``float32`` give ``float32``, not ``float64``).
    """
    if a is b:
        return a
    ca, cb = _category(a), _category(b)
    if ca != cb:
        return a if ca > cb else b
    if ca == 2:
        return a if a.itemsize > b.itemsize else b
    return from_numpy_dtype(np.promote_types(a.numpy_dtype, b.numpy_dtype))


def _number_dtype(value):
    """The dtype a Python number stands for in promotion."""
    if isinstance(value, builtins.bool):
        return bool
    if isinstance(value, builtins.int):
        return int64
    if isinstance(value, builtins.float):
        return _default_float
    raise TypeError(f"expected a tensor or a Python number, got {type(value).__name__}")


def result_type(*operands):
    """The dtype of an op's result, by PyTorch's rule (see the module docstring).

    ``operands`` are tensors (anything with ``dtype`` and ``ndim``) and Python
    numbers (bool, int, float).
    """
    ranked = [None, None, None]     # dimensioned tensors, 0-d tensors, Python numbers
    for operand in operands:
        if hasattr(operand, "dtype") and hasattr(operand, "ndim"):
            rank, d = (0 if operand.ndim else 1), operand.dtype
        else:
            rank, d = 2, _number_dtype(operand)
        ranked[rank] = d if ranked[rank] is None else promote_types(ranked[rank], d)
    result = None
    for d in ranked:            # from the highest rank down
        if d is None:
            continue
        if result is None:
            result = d
        elif _category(d) > _category(result):
            result = promote_types(result, d) if _category(result) else d
    return result


def can_cast(from_, to):
    """True if a value of dtype ``from_`` may be written into a tensor of dtype ``to``
    by an in-place op: never a float into an integer, never a number into bool."""
    return _category(from_) <= _category(to)


def float_result(d):
    """The dtype of a floating point function (exp, sqrt, mean...) of a ``d`` tensor:
    ``d`` itself if it is floating point, the default dtype otherwise."""
    return d if d.is_floating_point else _default_float
