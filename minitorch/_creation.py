"""Making tensors: ``tensor``, ``zeros``, ``ones``, ``randn``, ``arange``... (chapter 3).

Python floats become float32 (the default dtype), Python ints int64, bools
bool, as in PyTorch.  A numpy array keeps its dtype when it is one minitorch
supports.  ``tensor()`` always copies its data; ``from_numpy`` shares it.
"""

import numbers

import numpy as np

from . import _dtype
from ._dtype import from_numpy_dtype, to_numpy_dtype
from ._random import generator
from ._tensor import Tensor
from .autograd.grad_mode import _state as _grad_state
from .ops._util import as_shape

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "randn", "rand",
           "randint", "arange", "linspace", "eye", "zeros_like", "ones_like", "empty_like", "full_like",
           "randn_like", "rand_like", "is_tensor"]


def _infer_array(data):
    """A numpy array for Python or numpy data, with PyTorch's default dtypes."""
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, np.ndarray):
        if data.dtype.kind == "f" and data.dtype not in (np.float32, np.float64):
            return data.astype(np.float32)
        if data.dtype.kind in "iu" and data.dtype != np.int64:
            return data.astype(np.int64)
        from_numpy_dtype(data.dtype)      # raises a TypeError for other dtypes
        return data
    if isinstance(data, np.generic):
        return _infer_array(np.asarray(data))
    if isinstance(data, bool):
        return np.asarray(data)
    if isinstance(data, numbers.Integral):
        return np.asarray(data, dtype=np.int64)
    if isinstance(data, numbers.Real):
        return np.asarray(data, dtype=_dtype.get_default_dtype().numpy_dtype)
    if isinstance(data, (list, tuple)):
        return _array_from_sequence(data)
    if isinstance(data, str):
        raise ValueError(f"too many dimensions 'str': cannot make a tensor from the string {data!r}")
    raise RuntimeError(f"Could not infer dtype of {type(data).__name__}: tensor() takes numbers, "
                       "(nested) lists or tuples of numbers, numpy arrays or tensors")


def _array_from_sequence(data):
    _check_rectangular(data, 0)
    flat = list(_flatten(data))
    if any(isinstance(v, Tensor) and v._data.size != 1 for v in flat):
        raise ValueError("only one element tensors can be converted to Python scalars")
    values = [v.item() if isinstance(v, (Tensor, np.generic)) else v for v in flat]
    for v in values:
        if not isinstance(v, numbers.Number) or isinstance(v, complex):
            if isinstance(v, str):
                raise ValueError(f"too many dimensions 'str': cannot make a tensor from the string {v!r}")
            raise TypeError(f"tensor() got an element of type {type(v).__name__}; expected numbers")
    if values and all(isinstance(v, bool) for v in values):
        dtype = np.bool_
    elif all(isinstance(v, (bool, numbers.Integral)) for v in values):
        dtype = np.int64
    else:
        dtype = _dtype.get_default_dtype().numpy_dtype
    return np.asarray(values, dtype=dtype).reshape(_shape_of(data))


def _check_rectangular(data, depth):
    if not isinstance(data, (list, tuple)) or not data:
        return
    lengths = [len(x) if isinstance(x, (list, tuple)) else None for x in data]
    first = lengths[0]
    for length in lengths:
        if length != first:
            raise ValueError(f"expected sequence of length {first} at dim {depth + 1} (got {length})")
    for x in data:
        _check_rectangular(x, depth + 1)


def _flatten(data):
    for x in data:
        if isinstance(x, (list, tuple)):
            yield from _flatten(x)
        else:
            yield x


def _shape_of(data):
    shape = []
    while isinstance(data, (list, tuple)):
        shape.append(len(data))
        if not data:
            break
        data = data[0]
    return tuple(shape)


def _finish(array, requires_grad):
    t = Tensor._wrap(array)
    if _grad_state.inference:
        t._is_inference = True
    if requires_grad:
        t.requires_grad_(True)
    return t


def tensor(data, *, dtype=None, device=None, requires_grad=False):
    """A new leaf tensor holding a copy of ``data``."""
    array = _infer_array(data)
    array = np.array(array, dtype=to_numpy_dtype(dtype) if dtype is not None else None, copy=True)
    return _finish(array, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """Like ``tensor`` but without copying when ``data`` already fits."""
    if isinstance(data, Tensor) and (dtype is None or data.dtype == dtype):
        return data
    array = _infer_array(data)
    if dtype is not None:
        array = array.astype(to_numpy_dtype(dtype), copy=False)
    return _finish(array, False)


def from_numpy(array):
    """A tensor sharing memory with a numpy array (changes show in both)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    from_numpy_dtype(array.dtype)
    return _finish(array, False)


def _filled(size, fill, dtype, requires_grad):
    shape = as_shape(size)
    np_dtype = to_numpy_dtype(dtype) if dtype is not None else _dtype.get_default_dtype().numpy_dtype
    if any(s < 0 for s in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {list(shape)}")
    return _finish(np.full(shape, fill, dtype=np_dtype), requires_grad)


def zeros(*size, dtype=None, device=None, requires_grad=False):
    return _filled(size, 0, dtype, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False):
    return _filled(size, 1, dtype, requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False):
    """Uninitialised in PyTorch; zeros here, so results never depend on leftover memory."""
    return _filled(size, 0, dtype, requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False):
    if dtype is None:
        dtype = (_dtype.bool if isinstance(fill_value, bool) else
                 _dtype.int64 if isinstance(fill_value, numbers.Integral) else None)
    return _filled((size,) if isinstance(size, int) else tuple(size), fill_value, dtype, requires_grad)


def _random(size, draw, dtype, requires_grad):
    shape = as_shape(size)
    np_dtype = to_numpy_dtype(dtype) if dtype is not None else _dtype.get_default_dtype().numpy_dtype
    if np.dtype(np_dtype).kind != "f":
        raise RuntimeError(f"random floats cannot be made with dtype {dtype}; use a floating dtype")
    return _finish(draw(shape).astype(np_dtype, copy=False), requires_grad)


def randn(*size, dtype=None, device=None, requires_grad=False):
    """Samples of the standard normal distribution."""
    return _random(size, lambda s: generator().standard_normal(s), dtype, requires_grad)


def rand(*size, dtype=None, device=None, requires_grad=False):
    """Samples of the uniform distribution on [0, 1)."""
    return _random(size, lambda s: generator().random(s), dtype, requires_grad)


def randint(low, high=None, size=None, *, dtype=None, device=None):
    if high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    values = generator().integers(low, high, size=as_shape((size,)))
    return _finish(values.astype(to_numpy_dtype(dtype) if dtype else np.int64), False)


def randperm(n, *, dtype=None, device=None):
    return _finish(generator().permutation(n).astype(np.int64), False)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    is_int = all(isinstance(v, numbers.Integral) for v in (start, end, step))
    np_dtype = (to_numpy_dtype(dtype) if dtype is not None else
                np.int64 if is_int else _dtype.get_default_dtype().numpy_dtype)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    return _finish(np.arange(start, end, step).astype(np_dtype), requires_grad)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    np_dtype = to_numpy_dtype(dtype) if dtype is not None else _dtype.get_default_dtype().numpy_dtype
    return _finish(np.linspace(start, end, steps).astype(np_dtype), requires_grad)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    np_dtype = to_numpy_dtype(dtype) if dtype is not None else _dtype.get_default_dtype().numpy_dtype
    return _finish(np.eye(n, m, dtype=np_dtype), requires_grad)


def _like(fill):
    def make(input, *, dtype=None, device=None, requires_grad=False):
        d = dtype if dtype is not None else input.dtype
        return _filled(input._data.shape, fill, d, requires_grad)
    return make


zeros_like = _like(0)
ones_like = _like(1)
empty_like = _like(0)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False):
    return _filled(input._data.shape, fill_value, dtype if dtype is not None else input.dtype, requires_grad)


def randn_like(input, *, dtype=None, device=None, requires_grad=False):
    return randn(*input._data.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def rand_like(input, *, dtype=None, device=None, requires_grad=False):
    return rand(*input._data.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def is_tensor(obj):
    return isinstance(obj, Tensor)
