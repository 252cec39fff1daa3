"""Making tensors: ``tensor``, ``zeros``, ``ones``, ``randn``, ``arange``... (chapter 3).

Python floats become the default dtype (float32), Python ints int64, bools
bool, as in PyTorch; a numpy array or numpy scalar keeps its dtype.  When you
pass ``dtype=``, the values are converted from the Python numbers straight to
that dtype, so ``tensor(0.1, dtype=float64)`` holds exactly the double 0.1.
``tensor()`` always copies its data; ``from_numpy`` and ``as_tensor`` share it.
"""

import builtins
import math
import numbers
import warnings

import numpy as np

from . import _dtype
from ._device import check_device
from ._dtype import from_numpy_dtype, promote_types
from ._random import Draw
from ._tensor import Tensor
from .autograd import grad_mode
from .ops._common import as_shape, must_be_tensor, type_name_of

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
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                      "requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
    _check_flag(requires_grad, "tensor", "requires_grad")
    array = array_from_data(data, dtype, copy=True, name="tensor")
    return _finish(array, requires_grad)


def _check_flag(value, name, arg):
    if type(value) is not builtins.bool:
        raise TypeError(f"{name}(): argument '{arg}' must be bool, not {type_name_of(value)}")


def array_from_data(data, dtype=None, copy=True, name="tensor"):
    """A numpy array for ``data``, of ``dtype`` or of the dtype PyTorch would infer."""
    target = None if dtype is None else _checked_dtype(dtype, name).numpy_dtype
    if isinstance(data, builtins.range):
        data = list(data)
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
                           "numbers, (nested) lists or tuples of numbers, arrays or tensors")
    if target is not None and array.dtype != target:
        return _converted(array, target)
    return np.array(array, copy=True) if copy else array


def _checked_dtype(dtype, name="tensor"):
    return dtype if isinstance(dtype, _dtype.dtype) else _dtype.as_dtype(dtype, name)


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


_SEQUENCES = (list, tuple, builtins.range)


def _shape_of(data):
    shape = []
    while isinstance(data, _SEQUENCES):
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
            if isinstance(item, _SEQUENCES):
                raise TypeError(f"'{type(item).__name__}' object cannot be interpreted as a "
                                f"number: the entries at dim {level} must be numbers (the "
                                "nested lists have different depths)")
            yield item
            continue
        if not isinstance(item, _SEQUENCES):
            raise TypeError(f"not a sequence: expected a sequence of length {shape[level]} at "
                            f"dim {level}, got {type(item).__name__} (the nested lists have "
                            "different depths)")
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
    if dtype is not None:
        dtype = _checked_dtype(dtype, "as_tensor")
    if isinstance(data, Tensor):
        return data if dtype is None or data.dtype == dtype else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or data.dtype == dtype.numpy_dtype):
        return _finish(_supported_array(data), False)
    return _finish(array_from_data(data, dtype, copy=False, name="as_tensor"), False)


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
    shape = as_shape(size, name)
    if any(s < 0 for s in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{min(shape)}: {list(shape)}")
    return shape


def _dtype_or_default(dtype, name="tensor"):
    return (_checked_dtype(dtype, name) if dtype is not None else _dtype.get_default_dtype())


def _filled(size, fill, dtype, device, requires_grad, name):
    check_device(device)
    shape = _shape_from(size, name)
    np_dtype = _dtype_or_default(dtype, name).numpy_dtype
    return _finish(np.full(shape, fill, dtype=np_dtype), requires_grad)


def _sizes(size, keyword, name):
    """The sizes given by position or as the ``size=`` keyword (not both)."""
    if keyword is None:
        return size
    if size:
        raise TypeError(f"{name}() got multiple values for argument 'size'")
    if not isinstance(keyword, (tuple, list)):
        raise TypeError(f"{name}(): argument 'size' must be tuple of ints, not "
                        f"{type_name_of(keyword)}")
    return (keyword,)


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          **kwargs):
    return _filled(_sizes(size, kwargs.pop("size", None), "zeros"), 0, dtype, device,
                   _no_more(kwargs, "zeros", requires_grad), "zeros")


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, **kwargs):
    return _filled(_sizes(size, kwargs.pop("size", None), "ones"), 1, dtype, device,
                   _no_more(kwargs, "ones", requires_grad), "ones")


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None, **kwargs):
    """Uninitialised in PyTorch; zeros here, so results never depend on leftover memory."""
    return _filled(_sizes(size, kwargs.pop("size", None), "empty"), 0, dtype, device,
                   _no_more(kwargs, "empty", requires_grad), "empty")


def _no_more(kwargs, name, requires_grad):
    if kwargs:
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kwargs))}'")
    return requires_grad


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False):
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type_name_of(size)}")
    if isinstance(fill_value, Tensor):
        if fill_value.ndim != 0:
            raise TypeError("full(): argument 'fill_value' (position 2) must be Number, not "
                            "Tensor (a tensor with dims)")
        dtype = fill_value.dtype if dtype is None else dtype
        fill_value = fill_value.item()
    elif not isinstance(fill_value, (numbers.Number, np.generic)):
        raise TypeError(f"full(): argument 'fill_value' (position 2) must be Number, not "
                        f"{type_name_of(fill_value)}")
    if dtype is None:
        dtype = _number_dtype(fill_value)
    return _filled(tuple(size), fill_value, dtype, device, requires_grad, "full")


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    check_device(device)
    for arg, position, value in (("n", 1, n), ("m", 2, m)):
        if value is not None and not isinstance(value, (builtins.int, np.integer)):
            raise TypeError(f"eye(): argument '{arg}' (position {position}) must be int, not "
                            f"{type_name_of(value)}")
        if value is not None and value < 0:
            raise RuntimeError(f"{arg} must be greater or equal to 0, got {value}")
    np_dtype = _dtype_or_default(dtype, "eye").numpy_dtype
    return _finish(np.eye(n, m, dtype=np_dtype), requires_grad)


def arange(start, end=None, step=1, *, out=None, dtype=None, device=None, requires_grad=False):
    """``start, start + step, ...`` up to (not including) ``end``."""
    check_device(device)
    named = (("end", start),) if end is None else (("start", start), ("end", end), ("step", step))
    for position, (arg, value) in enumerate(named, 1):
        if not isinstance(value, (numbers.Number, np.generic, Tensor)):
            raise TypeError(f"arange(): argument '{arg}' (position {position}) must be Number, "
                            f"not {type_name_of(value)}")
    if end is None:
        start, end = 0, start
    start, end, step = (v.item() if isinstance(v, (Tensor, np.generic)) else v
                        for v in (start, end, step))
    if not all(math.isfinite(v) for v in (start, end)):
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (step > 0 and end >= start or step < 0 and end <= start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    is_int = all(isinstance(v, numbers.Integral) for v in (start, end, step))
    d = (_checked_dtype(dtype, "arange") if dtype is not None else
         _dtype.int64 if is_int else _dtype.get_default_dtype())
    _refuse_bool(d, "arange_cpu")
    count = max(math.ceil((end - start) / step), 0)
    values = start + np.arange(count, dtype=np.float64 if not is_int else np.int64) * step
    return _finish(values.astype(d.numpy_dtype), requires_grad)


def _refuse_bool(d, kernel):
    if d is _dtype.bool:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\': this function '
                                  "makes numbers; convert the result with .bool() instead")


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
    return _finish(values.astype(_dtype_or_default(dtype, "range").numpy_dtype), requires_grad)


def linspace(start, end, steps, *, out=None, dtype=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end``.  As in PyTorch, the first
    half counts up from ``start`` and the second half down from ``end`` (in the result's
    dtype), so both ends are exact."""
    check_device(device)
    if not isinstance(steps, numbers.Integral) or steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    d = _dtype_or_default(dtype, "linspace")
    _refuse_bool(d, "linspace_cpu")
    start, end = (v.item() if isinstance(v, (Tensor, np.generic)) else v for v in (start, end))
    return _finish(_evenly_spaced(start, end, steps, d.numpy_dtype), requires_grad)


def _evenly_spaced(start, end, steps, np_dtype):
    work = np_dtype.type if np_dtype.kind == "f" else np.float64
    if steps == 1:
        return np.array([start], dtype=work).astype(np_dtype)
    first, last = work(start), work(end)
    step = (last - first) / work(max(steps - 1, 1))
    index = np.arange(steps).astype(work)
    up = first + step * index
    down = last - step * (work(steps - 1) - index)
    return np.where(np.arange(steps) < steps // 2, up, down).astype(np_dtype)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, device=None,
             requires_grad=False):
    check_device(device)
    if not isinstance(steps, numbers.Integral) or steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    np_dtype = _dtype_or_default(dtype, "logspace").numpy_dtype
    return _finish(np.logspace(start, end, steps, base=base).astype(np_dtype), requires_grad)


# ----- random tensors ----------------------------------------------------------------------
def _random(size, draw, dtype, device, requires_grad, generator=None, kernel="normal_kernel_cpu",
            name="randn"):
    check_device(device)
    shape = _shape_from(size, name)
    d = _dtype_or_default(dtype, name)
    if not d.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{d.type_name}': random "
                                  "floats need a floating point dtype")
    drawn = Draw(generator)     # inside vmap: maybe one draw per example (chapter 13)
    values = draw(drawn.rng, drawn.sizes + shape).astype(d.numpy_dtype, copy=False)
    return drawn.result(_finish(values, requires_grad))


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False):
    """Samples of the standard normal distribution."""
    return _random(size, lambda g, s: g.standard_normal(s), dtype, device, requires_grad,
                   generator)


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False):
    """Samples of the uniform distribution on [0, 1)."""
    return _random(size, lambda g, s: g.random(s), dtype, device, requires_grad, generator,
                   "check_uniform_bounds", "rand")


# C type names in PyTorch's messages about integer bounds
_C_NAMES = {"uint8": "unsigned char", "int8": "signed char", "int16": "short", "int32": "int",
            "int64": "long", "bool": "bool"}


def randint(*args, low=None, high=None, size=None, generator=None, dtype=None, device=None,
            requires_grad=False):
    """``randint(high, size)`` or ``randint(low, high, size)``: integers in [low, high).
    Each argument may also be given by name: ``randint(low=2, high=5, size=(3,))``."""
    check_device(device)
    args = list(args)
    if size is None and args and isinstance(args[-1], (tuple, list)):
        size = args.pop()
    if size is None and len(args) in (2, 3):
        raise TypeError(f"randint(): argument 'size' (position {len(args)}) must be tuple of "
                        f"ints, not {type_name_of(args[-1])}")
    low, high = _randint_bounds(args, low, high)
    if size is None:
        raise TypeError("randint() missing required argument 'size' (a tuple such as (3,))")
    for value in (low, high):
        if not isinstance(value, (builtins.int, np.integer)) or isinstance(value, builtins.bool):
            raise TypeError(f"randint() received an invalid combination of arguments - got "
                            f"{type_name_of(value)} for a bound; low and high must be ints")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    d = _checked_dtype(dtype, "randint") if dtype is not None else _dtype.int64
    _check_bounds(low, high, d)
    drawn = Draw(generator)
    values = drawn.rng.integers(low, high, size=drawn.sizes + _shape_from(size, "randint"))
    return drawn.result(_finish(values.astype(d.numpy_dtype), requires_grad))


def _randint_bounds(args, low, high):
    """``(low, high)`` from randint's positional bounds and its ``low=``/``high=``
    keywords, combined as PyTorch allows: ``(high)``, ``(low, high)``, ``(low,
    high=)``, ``(high=)`` or ``(low=, high=)``."""
    given_low = low is not None
    if high is None:
        if given_low:
            raise TypeError("randint() missing required argument 'high': give the upper "
                            "bound too, as in randint(low=2, high=5, size=(3,))")
        if len(args) == 1:
            return 0, args[0]
        if len(args) == 2:
            return args[0], args[1]
        raise TypeError("randint() takes (high, size) or (low, high, size)")
    if len(args) > 1 or (args and given_low):
        raise TypeError("randint() received an invalid combination of arguments: give each "
                        "bound once, as in randint(low, high, size) or "
                        "randint(low=2, high=5, size=(3,))")
    if args:
        return args[0], high
    return (low if given_low else 0), high


def _check_bounds(low, high, d):
    if d.is_floating_point:
        return
    info = (0, 1) if d is _dtype.bool else (np.iinfo(d.numpy_dtype).min,
                                            np.iinfo(d.numpy_dtype).max)
    if not info[0] <= low <= info[1]:
        raise RuntimeError(f"from is out of bounds for {_C_NAMES[d.name]}")
    if not info[0] <= high - 1 <= info[1]:
        raise RuntimeError(f"to - 1 is out of bounds for {_C_NAMES[d.name]}")


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    check_device(device)
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    d = _checked_dtype(dtype, "randperm") if dtype is not None else _dtype.int64
    drawn = Draw(generator)
    order = np.broadcast_to(np.arange(n), drawn.sizes + (n,))
    values = drawn.rng.permuted(order, axis=-1) if drawn.sizes else drawn.rng.permutation(n)
    return drawn.result(_finish(values.astype(d.numpy_dtype), requires_grad))


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad=False):
    """Samples of a normal distribution: ``mean`` and ``std`` numbers (with ``size``)
    or tensors (their broadcast shape)."""
    check_device(device)
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        tensors = [t for t in (mean, std) if isinstance(t, Tensor)]
        shape = np.broadcast_shapes(*[t.shape for t in tensors])
        drawn = Draw(generator, tensors)
        m, s = (_values_for_draw(drawn, t, shape) for t in (mean, std))
        if np.any(np.asarray(s) < 0):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        values = drawn.rng.normal(m, s, size=drawn.sizes + shape)
        return drawn.result(_finish(values.astype(tensors[0]._data.dtype), requires_grad))
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    if size is None:
        raise TypeError("normal() with number mean and std needs a size")
    return _random(size, lambda g, sh: g.normal(mean, std, sh), dtype, device, requires_grad,
                   generator, name="normal")


def _values_for_draw(drawn, t, shape):
    """A number as it is; a tensor's values for every example drawn, as an array whose
    dims line up with ``drawn.sizes + shape`` for broadcasting."""
    if not isinstance(t, Tensor):
        return t
    values = drawn.values_of(t)._data
    lead = len(drawn.sizes)
    return values.reshape(values.shape[:lead] + (1,) * (len(shape) - t.ndim) +
                          values.shape[lead:])


# ----- *_like --------------------------------------------------------------------------------
def _input_tensor(input, name):
    if not isinstance(input, Tensor):
        raise must_be_tensor(input, name)
    return input


def _batched_like(input, make):
    """Under ``vmap`` (chapter 13) a ``*_like`` of a batched tensor is batched too, as in
    PyTorch: made like the batched value underneath, so that an in-place op (``.normal_()``
    drawing per example, ``.add_(x)``) can fill it example by example.  None otherwise."""
    if type(input) is Tensor:
        return None
    from .func._vmap import BatchedTensor, wrap
    if type(input) is not BatchedTensor:
        return None
    return wrap(make(input._value), input._level)


def _like(fill, name):
    def make(input, *, dtype=None, layout=None, device=None, requires_grad=False,
             memory_format=None):
        _input_tensor(input, name)
        batched = _batched_like(input, lambda value: make(
            value, dtype=dtype, device=device, requires_grad=requires_grad))
        if batched is not None:
            return batched
        return _filled(input.shape, fill, dtype or input.dtype, device, requires_grad, name)
    make.__name__ = make.__qualname__ = name
    return make


zeros_like = _like(0, "zeros_like")
ones_like = _like(1, "ones_like")
empty_like = _like(0, "empty_like")


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    _input_tensor(input, "full_like")
    batched = _batched_like(input, lambda value: full_like(
        value, fill_value, dtype=dtype, device=device, requires_grad=requires_grad))
    if batched is not None:
        return batched
    return _filled(input.shape, fill_value, dtype or input.dtype, device, requires_grad, "full")


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    _input_tensor(input, "randn_like")
    return randn(*input.shape, dtype=dtype or input.dtype, device=device,
                 requires_grad=requires_grad)


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    _input_tensor(input, "rand_like")
    return rand(*input.shape, dtype=dtype or input.dtype, device=device,
                requires_grad=requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False):
    _input_tensor(input, "randint_like")
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

