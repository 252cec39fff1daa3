"""Making tensors: ``tensor``, ``zeros``, ``ones``, ``randn``, ``arange``... (chapter 3).

Python floats become the default dtype (float32), Python ints int64, bools
bool, as in PyTorch; a numpy array or numpy scalar keeps its dtype.  When you
pass ``dtype=``, the values are converted from the Python numbers straight to
that dtype, so ``tensor(0.1, dtype=float64)`` holds exactly the double 0.1.
``tensor()`` always copies its data; ``from_numpy`` and ``as_tensor`` share it.
"""

import math
import numbers
import warnings

import numpy as np

from . import _dtype
from ._device import check_device
from ._dtype import from_numpy_dtype, promote_types
from ._random import generator, generator_of
from ._tensor import Tensor
from .autograd import grad_mode
from .ops._common import as_shape

__all__ = ["tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones", "empty", "full",
           "randn", "rand", "randint", "randperm", "normal", "arange", "range", "linspace",
           "logspace", "eye", "zeros_like", "ones_like", "empty_like", "full_like", "randn_like",
           "rand_like", "randint_like", "is_tensor", "is_floating_point", "numel",
           "scalar_tensor"]

# ----- tensor(data) ------------------------------------------------------------------------
def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new leaf tensor holding a copy of ``data`` (numbers, nested lists, arrays, tensors)."""
    check_device(device)
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.clone().detach() or sourceTensor.clone().detach()."
                      "requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
    array = array_from_data(data, dtype, copy=True)
    return _finish(array, requires_grad)


def array_from_data(data, dtype=None, copy=True):
    """A numpy array for ``data``, of ``dtype`` or of the dtype PyTorch would infer."""
    target = None if dtype is None else _checked_dtype(dtype).numpy_dtype
    if isinstance(data, Tensor):
        array = data._data
    elif isinstance(data, np.ndarray):
        array = _supported_array(data)
    elif isinstance(data, (np.generic, bool, numbers.Number)):
        array = _array_from_number(data, target)
    elif isinstance(data, (list, tuple)):
        array = _array_from_sequence(data, target)
    elif isinstance(data, str):
        raise TypeError(f"new(): invalid data type 'str': a tensor holds numbers, not the "
                        f"string {data!r}")
    else:
        raise RuntimeError(f"Could not infer dtype of {type(data).__name__}: tensor() takes "
                           "numbers, (nested) lists or tuples of numbers, numpy arrays or "
                           "tensors")
    if target is not None and array.dtype != target:
        return _converted(array, target)
    return np.array(array, copy=True) if copy else array


def _checked_dtype(dtype):
    if not isinstance(dtype, _dtype.dtype):
        raise TypeError(f"dtype must be a minitorch dtype such as minitorch.float32, "
                        f"not {dtype!r}")
    return dtype


def _supported_array(array):
    """A numpy array of a dtype minitorch has, in native byte order."""
    from_numpy_dtype(array.dtype)
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    return array


def _number_dtype(value):
    """The dtype PyTorch infers for one number."""
    if isinstance(value, np.generic):
        return from_numpy_dtype(value.dtype)
    if isinstance(value, bool):
        return _dtype.bool
    if isinstance(value, numbers.Integral):
        return _dtype.int64
    if isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real):
        raise TypeError("minitorch has no complex dtypes: a complex number cannot be stored "
                        "in a tensor")
    return _dtype.get_default_dtype()


def _array_from_number(value, target):
    d = _number_dtype(value)
    if isinstance(value, np.generic):
        value = value.item()
    return _array_of(value, target or d.numpy_dtype)


def _array_of(values, np_dtype):
    """``np.array(values, np_dtype)`` with PyTorch's overflow rules for integers."""
    if np_dtype.kind in "iu" or np_dtype.kind == "b":
        for v in (values if isinstance(values, list) else [values]):
            _check_integer(v, np_dtype)
    return np.array(values, dtype=np_dtype)


def _check_integer(v, np_dtype):
    if isinstance(v, float) and np_dtype.kind != "b":
        if math.isnan(v) or math.isinf(v):
            raise RuntimeError(f"value cannot be converted to type {np_dtype.name} without "
                               "overflow")
    elif isinstance(v, int) and not isinstance(v, bool) and np_dtype.kind in "iu":
        if not -2 ** 63 <= v < 2 ** 63:
            raise ValueError("Overflow when unpacking long long")
        info = np.iinfo(np_dtype)
        if not info.min <= v <= info.max and np_dtype != np.uint8:
            raise RuntimeError(f"value cannot be converted to type {np_dtype.name} without "
                               "overflow")


def _array_from_sequence(data, target):
    shape = _shape_of(data)
    values, dtype = [], None
    for v in _flatten(data, 0, shape):
        if isinstance(v, Tensor):
            if v.numel() != 1:
                raise ValueError("only one element tensors can be converted to Python scalars")
            d = v.dtype
            v = v.item()
        elif isinstance(v, (np.generic, bool, numbers.Number)):
            d = _number_dtype(v)
            v = v.item() if isinstance(v, np.generic) else v
        elif isinstance(v, np.ndarray):
            raise ValueError("only one element tensors can be converted to Python scalars")
        elif isinstance(v, str):
            raise ValueError(f"too many dimensions 'str': a tensor holds numbers, not the "
                             f"string {v!r}")
        else:
            raise RuntimeError(f"Could not infer dtype of {type(v).__name__}")
        dtype = d if dtype is None else promote_types(dtype, d)
        values.append(v)
    if target is None:
        target = (dtype or _dtype.get_default_dtype()).numpy_dtype
    return _array_of(values, target).reshape(shape)


def _shape_of(data):
    shape = []
    while isinstance(data, (list, tuple)):
        shape.append(len(data))
        if not data:
            break
        data = data[0]
    return tuple(shape)


def _flatten(data, depth, shape):
    """The leaves of a nested list, checking that every level has the expected length."""
    stack = [(data, depth)]
    while stack:
        item, level = stack.pop()
        if level == len(shape):
            if isinstance(item, (list, tuple)):
                raise ValueError(f"expected sequence of length {0} at dim {level} (got "
                                 f"{len(item)})")
            yield item
            continue
        if not isinstance(item, (list, tuple)):
            raise ValueError(f"expected sequence of length {shape[level]} at dim {level} "
                             f"(got {type(item).__name__})")
        if len(item) != shape[level]:
            raise ValueError(f"expected sequence of length {shape[level]} at dim {level} "
                             f"(got {len(item)})")
        stack.extend((x, level + 1) for x in reversed(item))


def _converted(array, target):
    """``array`` as ``target``, refusing nan/inf into integers as PyTorch does."""
    if target.kind in "iu" and array.dtype.kind == "f" and array.size and \
            not np.isfinite(array).all():
        raise RuntimeError(f"value cannot be converted to type {target.name} without overflow")
    return array.astype(target)


def _finish(array, requires_grad):
    t = Tensor._wrap(array)
    if grad_mode.is_inference_mode_enabled():
        t._is_inference = True
    if requires_grad:
        t._set_requires_grad(True, "Only Tensors of floating point and complex dtype")
    return t


def as_tensor(data, dtype=None, device=None):
    """Like ``tensor`` but without copying when ``data`` (a tensor or array) already fits."""
    check_device(device)
    if isinstance(data, Tensor):
        return data if dtype is None or data.dtype == dtype else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or data.dtype == dtype.numpy_dtype):
        return _finish(_supported_array(data), False)
    return _finish(array_from_data(data, dtype, copy=False), False)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    t = as_tensor(obj, dtype, device) if not copy else tensor(obj, dtype=dtype)
    return t.requires_grad_(requires_grad) if requires_grad else t


def from_numpy(array):
    """A tensor sharing memory with a numpy array (changes show in both)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    from_numpy_dtype(array.dtype)
    if not array.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte "
                         "order. Conversion between byte orders is currently not supported.")
    return _finish(array, False)


def scalar_tensor(value, *, dtype=None, device=None, requires_grad=False):
    return tensor(value, dtype=dtype or _dtype.get_default_dtype(), device=device,
                  requires_grad=requires_grad)


# ----- filled tensors ----------------------------------------------------------------------
def _shape_from(size, name):
    shape = as_shape(size)
    if any(s < 0 for s in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{min(shape)}: {list(shape)}")
    return shape


def _dtype_or_default(dtype):
    return (_checked_dtype(dtype) if dtype is not None else _dtype.get_default_dtype())


def _filled(size, fill, dtype, device, requires_grad, name):
    check_device(device)
    shape = _shape_from(size, name)
    np_dtype = _dtype_or_default(dtype).numpy_dtype
    return _finish(np.full(shape, fill, dtype=np_dtype), requires_grad)


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    return _filled(size, 0, dtype, device, requires_grad, "zeros")


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    return _filled(size, 1, dtype, device, requires_grad, "ones")


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None):
    """Uninitialised in PyTorch; zeros here, so results never depend on leftover memory."""
    return _filled(size, 0, dtype, device, requires_grad, "empty")


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False):
    if dtype is None:
        dtype = _number_dtype(fill_value) if not isinstance(fill_value, Tensor) else \
            fill_value.dtype
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    size = (size,) if isinstance(size, numbers.Integral) else tuple(size)
    return _filled(size, fill_value, dtype, device, requires_grad, "full")


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    check_device(device)
    if n < 0 or (m is not None and m < 0):
        raise RuntimeError(f"n must be greater or equal to 0, got {n if n < 0 else m}")
    np_dtype = _dtype_or_default(dtype).numpy_dtype
    return _finish(np.eye(n, m, dtype=np_dtype), requires_grad)


def arange(start, end=None, step=1, *, out=None, dtype=None, device=None, requires_grad=False):
    """``start, start + step, ...`` up to (not including) ``end``."""
    check_device(device)
    if end is None:
        start, end = 0, start
    start, end, step = (v.item() if isinstance(v, Tensor) else v for v in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    is_int = all(isinstance(v, numbers.Integral) for v in (start, end, step))
    np_dtype = (_checked_dtype(dtype).numpy_dtype if dtype is not None else
                np.dtype(np.int64) if is_int else _dtype.get_default_dtype().numpy_dtype)
    count = max(math.ceil((end - start) / step), 0)
    values = start + np.arange(count, dtype=np.float64 if not is_int else np.int64) * step
    return _finish(values.astype(np_dtype), requires_grad)


def range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    """Deprecated in PyTorch: like arange, but includes ``end``, and floating point."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    if end is None:
        start, end = 0, start
    count = int(math.floor((end - start) / step)) + 1
    values = start + np.arange(count, dtype=np.float64) * step
    return _finish(values.astype(_dtype_or_default(dtype).numpy_dtype), requires_grad)


def linspace(start, end, steps, *, out=None, dtype=None, device=None, requires_grad=False):
    check_device(device)
    if not isinstance(steps, numbers.Integral) or steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    np_dtype = _dtype_or_default(dtype).numpy_dtype
    return _finish(np.linspace(start, end, steps).astype(np_dtype), requires_grad)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, device=None,
             requires_grad=False):
    check_device(device)
    if not isinstance(steps, numbers.Integral) or steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    np_dtype = _dtype_or_default(dtype).numpy_dtype
    return _finish(np.logspace(start, end, steps, base=base).astype(np_dtype), requires_grad)


# ----- random tensors ----------------------------------------------------------------------
def _random(size, draw, dtype, device, requires_grad, generator=None):
    check_device(device)
    shape = _shape_from(size, "random")
    d = _dtype_or_default(dtype)
    if not d.is_floating_point:
        raise RuntimeError(f"\"normal_kernel_cpu\" not implemented for '{d.type_name}': random "
                           "floats need a floating point dtype")
    return _finish(draw(generator_of(generator), shape).astype(d.numpy_dtype, copy=False),
                   requires_grad)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False):
    """Samples of the standard normal distribution."""
    return _random(size, lambda g, s: g.standard_normal(s), dtype, device, requires_grad,
                   generator)


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False):
    """Samples of the uniform distribution on [0, 1)."""
    return _random(size, lambda g, s: g.random(s), dtype, device, requires_grad, generator)


def randint(*args, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    """``randint(high, size)`` or ``randint(low, high, size)``: integers in [low, high)."""
    check_device(device)
    args = list(args)
    if size is None and args and isinstance(args[-1], (tuple, list)):
        size = args.pop()
    if size is None:
        raise TypeError("randint() missing required argument 'size' (a tuple such as (3,))")
    if len(args) == 1:
        low, high = 0, args[0]
    elif len(args) == 2:
        low, high = args
    else:
        raise TypeError("randint() takes (high, size) or (low, high, size)")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    d = _checked_dtype(dtype) if dtype is not None else _dtype.int64
    values = generator_of(generator).integers(low, high, size=_shape_from(size, "randint"))
    return _finish(values.astype(d.numpy_dtype), requires_grad)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    check_device(device)
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    d = _checked_dtype(dtype) if dtype is not None else _dtype.int64
    return _finish(generator_of(generator).permutation(n).astype(d.numpy_dtype), requires_grad)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad=False):
    """Samples of a normal distribution: ``mean`` and ``std`` numbers (with ``size``)
    or tensors (their broadcast shape)."""
    check_device(device)
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        m = mean._data if isinstance(mean, Tensor) else mean
        s = std._data if isinstance(std, Tensor) else std
        if np.any(np.asarray(s) < 0):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        shape = np.broadcast_shapes(np.shape(m), np.shape(s))
        like = mean if isinstance(mean, Tensor) else std
        values = generator_of(generator).normal(m, s, size=shape)
        return _finish(values.astype(like._data.dtype), requires_grad)
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    if size is None:
        raise TypeError("normal() with number mean and std needs a size")
    return _random(size, lambda g, sh: g.normal(mean, std, sh), dtype, device, requires_grad,
                   generator)


# ----- *_like --------------------------------------------------------------------------------
def _like(fill):
    def make(input, *, dtype=None, layout=None, device=None, requires_grad=False,
             memory_format=None):
        return _filled(input.shape, fill, dtype or input.dtype, device, requires_grad, "like")
    return make


zeros_like = _like(0)
ones_like = _like(1)
empty_like = _like(0)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    return _filled(input.shape, fill_value, dtype or input.dtype, device, requires_grad, "full")


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    return randn(*input.shape, dtype=dtype or input.dtype, device=device,
                 requires_grad=requires_grad)


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    return rand(*input.shape, dtype=dtype or input.dtype, device=device,
                requires_grad=requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False):
    if high is None:
        low, high = 0, low
    return randint(low, high, tuple(input.shape), dtype=dtype or input.dtype, device=device)


# ----- questions ---------------------------------------------------------------------------
def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_floating_point(input):
    return input.is_floating_point()


def numel(input):
    return input.numel()

