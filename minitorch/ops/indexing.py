"""Indexing: ``x[0]``, ``x[1:3]``, ``x[idx]``, ``x[mask]``, ``x[key] = value``, gather, scatter
(chapters 3 and 5).

Basic indexing (ints, slices, None, ``...``) gives a *view*: it is built from
one ``Select``, ``Slice`` or ``Unsqueeze`` per indexed dim, as in PyTorch, so
``x[0, 1:]`` records a ``SliceBackward0`` above a ``SelectBackward0``.
Advanced indexing (integer or boolean tensors, lists) copies the selected
elements (``IndexBackward0``); its gradient adds back into zeros, so an
element picked twice gets both gradients.
"""

import numpy as np

from .._tensor import Tensor
from ._common import (BuiltinFunction, broadcast_error, normalize_dim, type_name_of, wrap,
                      _number_as)
from .shape import Alias, Unsqueeze, ViewFunction, check_expand

__all__ = ["Select", "Slice", "Index", "IndexPutAccumulate", "SetItem", "Gather", "Scatter",
           "getitem", "setitem", "select", "narrow", "gather", "scatter", "index_select"]


class Select(ViewFunction):
    """``x.select(dim, index)``: one position along ``dim``, which disappears."""
    _backward_name = "SelectBackward0"

    @staticmethod
    def forward(ctx, a, dim, index):
        ctx.shape, ctx.dim, ctx.index = a.shape, dim, index
        # the Ellipsis keeps a single element a (0-d) view: numpy would copy it out
        return a._data[(slice(None),) * dim + (index, Ellipsis)]

    @staticmethod
    def backward(ctx, grad):
        key = (slice(None),) * ctx.dim + (ctx.index,)
        return IndexPutAccumulate.apply(grad, key, ctx.shape), None, None


class Slice(ViewFunction):
    """``x[start:stop:step]`` along one dim."""
    _backward_name = "SliceBackward0"

    @staticmethod
    def forward(ctx, a, dim, start, stop, step):
        ctx.shape, ctx.key = a.shape, (slice(None),) * dim + (slice(start, stop, step),)
        return a._data[ctx.key]

    @staticmethod
    def backward(ctx, grad):
        return IndexPutAccumulate.apply(grad, ctx.key, ctx.shape), None, None, None, None


class Index(BuiltinFunction):
    """Advanced indexing with integer or boolean arrays: a copy of the selected elements."""
    _backward_name = "IndexBackward0"

    @staticmethod
    def forward(ctx, a, key):
        ctx.shape, ctx.key = a.shape, key
        return a._data[key]

    @staticmethod
    def backward(ctx, grad):
        return IndexPutAccumulate.apply(grad, ctx.key, ctx.shape), None


class IndexPutAccumulate(BuiltinFunction):
    """Zeros of ``shape`` with ``grad`` added at ``key``: the backward of every indexing.
    Repeated indices add up (``np.add.at``)."""
    _backward_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, grad, key, shape):
        ctx.key = key
        out = np.zeros(shape, dtype=grad._data.dtype)
        np.add.at(out, key, grad._data)
        return out

    @staticmethod
    def backward(ctx, g):
        return Index.apply(g, ctx.key), None, None


def select(a, dim, index, shown_dim=None):
    """``a.select(dim, index)``; ``shown_dim`` is the dim an error names (``x[0, 5]``
    names the dim of ``x``, not of ``x[0]``)."""
    d = normalize_dim(dim, a.ndim)
    size = a.shape[d]
    if isinstance(index, Tensor):
        index = index.item()
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension "
                         f"{d if shown_dim is None else shown_dim} with size {size}")
    return Select.apply(a, d, index % size)


def narrow(a, dim, start, length):
    d = normalize_dim(dim, a.ndim)
    size = a.shape[d]
    if isinstance(start, Tensor):
        start = start.item()
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    start %= size if size else 1
    if length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    return Slice.apply(a, d, start, start + length, 1)


# ----- x[key] --------------------------------------------------------------------------------
def getitem(a, key):
    """``a[key]`` as PyTorch computes it: basic indices one dim at a time, then advanced."""
    if not isinstance(key, tuple):
        single = _single_index(a, key)
        if single is not None:
            return single
        key = (key,)
    key = _expand_ellipsis(a, [_as_index(k) for k in key])
    result, advanced, dim, original = a, {}, 0, 0
    for k in key:
        if k is None:
            result = Unsqueeze.apply(result, dim)
            dim += 1
            continue
        if isinstance(k, np.ndarray) and k.ndim == 0:      # True or False: a new dim kept
            result = Unsqueeze.apply(result, dim)             # whole or emptied, as a copy
            advanced[dim] = np.array([bool(k)])
            dim += 1
            continue
        if isinstance(k, (int, np.integer)):
            result = select(result, dim, int(k), original)
        elif isinstance(k, slice):
            if k != slice(None):
                result = _slice(result, dim, k)
            dim += 1
        else:
            for extra in range(k.ndim if k.dtype == np.bool_ else 1):
                advanced[dim + extra] = k
            dim += k.ndim if k.dtype == np.bool_ else 1
        original += k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else 1
    if advanced:
        return _advanced(result, advanced)
    return result if result is not a else Alias.apply(a)


def _single_index(a, key):
    """The common one-index cases, handled as PyTorch does (``x[:]`` is a Slice)."""
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        _need_dims(a, 1)
        return select(a, 0, int(key))
    if isinstance(key, slice):
        _need_dims(a, 1)
        return _slice(a, 0, key)
    if key is None:
        return Unsqueeze.apply(a, 0)
    if key is Ellipsis:
        return Alias.apply(a)
    return None


def _need_dims(a, n):
    if a.ndim < n:
        raise IndexError(f"invalid index of a {a.ndim}-dim tensor. Use `tensor.item()` to "
                         f"convert a 0-dim tensor to a number")


def _as_index(k):
    """Tensors and lists inside an index as numpy arrays (int64 positions or bool masks)."""
    if isinstance(k, Tensor):
        if k.dtype.is_floating_point:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if k.ndim == 0 and k.dtype.name != "bool":
            return int(k.item())
        return k._data if k.dtype.name == "bool" else k._data.astype(np.int64)
    if isinstance(k, (list, range, np.ndarray)):
        array = np.asarray(list(k) if isinstance(k, range) else k)
        if array.dtype.kind == "f":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if array.dtype.kind not in "biu" and array.size:
            raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), None and long or "
                             f"byte Variables are valid indices (got {type(k).__name__})")
        return array.astype(np.int64) if array.dtype != np.bool_ else array
    if isinstance(k, bool):
        return np.asarray(k)
    if isinstance(k, (int, np.integer, slice)) or k is None or k is Ellipsis:
        return k
    error = TypeError if isinstance(k, str) else IndexError
    raise error(f"only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                f"Variables are valid indices (got {type_name_of(k)})")


def _expand_ellipsis(a, key):
    """Replace ``...`` by as many full slices as the dims the rest of the key leaves out."""
    used = sum(1 if isinstance(k, (int, np.integer, slice)) or
               isinstance(k, np.ndarray) and k.dtype != np.bool_ else
               k.ndim if isinstance(k, np.ndarray) else 0
               for k in key if k is not Ellipsis and k is not None)
    if used > a.ndim:
        raise IndexError(f"too many indices for tensor of dimension {a.ndim}")
    if sum(k is Ellipsis for k in key) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if Ellipsis not in [k if k is Ellipsis else None for k in key]:
        return key
    at = next(i for i, k in enumerate(key) if k is Ellipsis)
    return key[:at] + [slice(None)] * (a.ndim - used) + key[at + 1:]


def _slice(a, dim, k):
    start, stop, step = k.start, k.stop, k.step
    step = 1 if step is None else int(step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step < 0:
        raise ValueError("step must be greater than zero: negative steps are not supported; "
                         "use x.flip(dim) or index with a reversed list")
    start, stop, _ = slice(start, stop, step).indices(a.shape[dim])
    return Slice.apply(a, dim, start, max(start, stop), step)


def _advanced(a, advanced):
    """One ``Index`` over the dims that have integer or boolean arrays."""
    key, dim = [], 0
    positions = sorted(advanced)
    seen = set()
    for d in range(a.ndim):
        if d in advanced:
            array = advanced[d]
            if id(array) in seen:
                continue
            seen.add(id(array))
            _check_bounds(a, d, array)
            key.append(array)
        else:
            key.append(slice(None))
    del positions, dim
    return Index.apply(a, tuple(key))


def _check_bounds(a, dim, array):
    if array.dtype == np.bool_:
        shape = a.shape[dim:dim + array.ndim]
        if array.shape != tuple(shape):
            raise IndexError(f"The shape of the mask {list(array.shape)} at index {dim} does "
                             f"not match the shape of the indexed tensor {list(a.shape)} at "
                             f"index {dim}")
        return
    size = a.shape[dim]
    if array.size and (array.max() >= size or array.min() < -size):
        bad = int(array.max() if array.max() >= size else array.min())
        raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


# ----- x[key] = value --------------------------------------------------------------------
class SetItem(BuiltinFunction):
    """``a[key] = value``, in place.  PyTorch names this node CopySlices."""
    _backward_name = "CopySlices"
    _node_name = "torch::autograd::CopySlices"

    @staticmethod
    def forward(ctx, a, key, value):
        src = value._data if isinstance(value, Tensor) else value
        ctx.key = key
        ctx.value_shape = value.shape if isinstance(value, Tensor) else None
        a._data[key] = src
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        kept = np.ones(grad.shape, dtype=bool)
        kept[ctx.key] = False
        grad_value = None
        if ctx.value_shape is not None and ctx.needs_input_grad[2]:
            grad_value = Index.apply(grad, ctx.key).sum_to_size(ctx.value_shape)
        return grad * wrap(kept), None, grad_value


def setitem(a, key, value):
    """``a[key] = value`` for a number or a tensor ``value`` (converted to ``a``'s dtype).
    Everything is checked before ``a`` changes."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, complex):
        raise RuntimeError(f"value cannot be converted to type {a.dtype.name} without overflow: "
                           "minitorch has no complex dtypes")
    if not isinstance(value, (Tensor, bool, int, float)):
        raise TypeError(f"can't assign a {type_name_of(value)} to a "
                        f"torch.{a.dtype.type_name}Tensor: assign a number or a tensor")
    if not isinstance(key, tuple):
        key = (key,)
    if a.ndim == 0 and any(k is not None and k is not Ellipsis for k in key):
        _need_dims(a, 1)
    key = tuple(_expand_ellipsis(a, [_as_index(k) for k in key]))
    d = 0
    for k in key:
        if k is None:
            continue
        if isinstance(k, (int, np.integer)) and not -a.shape[d] <= k < a.shape[d]:
            raise IndexError(f"index {k} is out of bounds for dimension {d} with size "
                             f"{a.shape[d]}")
        if isinstance(k, slice) and k.step is not None and k.step <= 0:
            _slice(a, d, k)                         # PyTorch's error for the step
        if isinstance(k, np.ndarray):
            _check_bounds(a, d, k)
            d += k.ndim if k.dtype == np.bool_ else 1
        else:
            d += 1
    key = tuple(k for k in key if k is not None)
    if isinstance(value, Tensor):
        value = _fitted_value(a, key, value)
    elif a._data.dtype.kind in "iu":
        value = _number_as(value, a._data.dtype)     # refuses what does not fit
    return SetItem.apply(a, key, value)


def _fitted_value(a, key, value):
    """``value`` for ``a[key] = value``: its leading dims of size 1 dropped and its shape
    checked as PyTorch's ``expand`` checks it; its dtype converted to ``a``'s, except that
    an index with arrays needs a value of the same dtype."""
    advanced = any(isinstance(k, np.ndarray) for k in key)
    if advanced and value.ndim and value._data.dtype != a._data.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, "
                           f"got {a.dtype.type_name} for the destination and "
                           f"{value.dtype.type_name} for the source.")
    target = a._data[key].shape
    shape = value.shape
    while len(shape) > len(target) and shape[0] == 1:
        shape = shape[1:]
    if advanced:
        try:
            np.broadcast_shapes(shape, target)
        except ValueError:
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(value.shape)} "
                               f"cannot be broadcast to indexing result of shape "
                               f"{list(target)}") from None
    else:
        check_expand(value, shape, target)
    if shape != value.shape:
        value = value.reshape(shape)
    if value._data.dtype != a._data.dtype:
        value = value.to(a.dtype)
    return value


# ----- gather and scatter --------------------------------------------------------------------
def _check_index_tensor(a, dim, index, name, src=None):
    if not isinstance(index, Tensor) or index.dtype.name != "int64":
        got = index.dtype if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"{name}(): Expected dtype int64 for index, got {got}")
    if index.ndim != a.ndim and not (index.ndim <= 1 and a.ndim <= 1):
        raise RuntimeError(f"Index tensor must have the same number of dimensions as "
                           f"{'input' if name == 'gather' else 'self'} tensor")
    for d in range(index.ndim):
        if d != dim and index.shape[d] > a.shape[d]:
            raise RuntimeError(f"Size does not match at dimension {d} expected index "
                               f"{list(index.shape)} to be smaller than self {list(a.shape)} "
                               f"apart from dimension {dim}")
    data = index._data
    if data.size and (data.max() >= a.shape[dim] or data.min() < -a.shape[dim]):
        raise RuntimeError(f"index {int(data.max())} is out of bounds for dimension {dim} with "
                           f"size {a.shape[dim]}")


def _region(index_shape):
    return tuple(slice(0, s) for s in index_shape)


class Gather(BuiltinFunction):
    """``out[i][j] = a[index[i][j]][j]`` (for dim 0): pick along ``dim`` by ``index``."""
    _backward_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, a, dim, index):
        ctx.shape, ctx.dim, ctx.index = a.shape, dim, index
        region = _region(index.shape[:dim]) + (slice(None),) + _region(index.shape[dim + 1:])
        return np.take_along_axis(a._data[region], index._data, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        zeros = wrap(np.zeros(ctx.shape, dtype=grad._data.dtype))
        return ScatterAdd.apply(zeros, ctx.dim, ctx.index, grad), None, None


class Scatter(BuiltinFunction):
    """A copy of ``a`` with ``src``'s values written at ``index`` along ``dim``."""
    _backward_name = "ScatterBackward0"

    @staticmethod
    def forward(ctx, a, dim, index, src):
        ctx.dim, ctx.index = dim, index
        out = a._data.copy()
        values = src._data if isinstance(src, Tensor) else np.full(index.shape, src,
                                                                   dtype=out.dtype)
        region = _region(index.shape)
        values = values[region] if isinstance(src, Tensor) else values
        np.put_along_axis(out, index._data, values.astype(out.dtype, copy=False), axis=dim) \
            if out.ndim else out.fill(values.reshape(()) if values.size else out)
        return out

    @staticmethod
    def backward(ctx, grad):
        need_a, need_src = ctx.needs_input_grad[0], ctx.needs_input_grad[3]
        grad_a = Scatter.apply(grad, ctx.dim, ctx.index, 0.0) if need_a else None
        grad_src = Gather.apply(grad, ctx.dim, ctx.index) if need_src else None
        return grad_a, None, None, grad_src


class ScatterAdd(BuiltinFunction):
    """A copy of ``a`` with ``src``'s values added at ``index`` along ``dim``."""
    _backward_name = "ScatterAddBackward0"

    @staticmethod
    def forward(ctx, a, dim, index, src):
        ctx.dim, ctx.index = dim, index
        out = a._data.copy()
        values = src._data[_region(index.shape)]
        positions = list(np.indices(index.shape, sparse=True))
        positions[dim] = index._data
        np.add.at(out, tuple(positions), values)
        return out

    @staticmethod
    def backward(ctx, grad):
        need_a, need_src = ctx.needs_input_grad[0], ctx.needs_input_grad[3]
        return (grad if need_a else None, None, None,
                Gather.apply(grad, ctx.dim, ctx.index) if need_src else None)


def gather(a, dim, index):
    d = normalize_dim(dim, a.ndim)
    _check_index_tensor(a, d, index, "gather")
    return Gather.apply(a, d, index)


def scatter(a, dim, index, src, reduce=None):
    d = normalize_dim(dim, a.ndim)
    _check_index_tensor(a, d, index, "scatter")
    if reduce is not None:
        if reduce != "add":
            raise NotImplementedError("minitorch's scatter supports reduce='add' only")
        return ScatterAdd.apply(a, d, index, src)
    return Scatter.apply(a, d, index, src)


def scatter_add(a, dim, index, src):
    d = normalize_dim(dim, a.ndim)
    _check_index_tensor(a, d, index, "scatter_add")
    return ScatterAdd.apply(a, d, index, src)


def index_select(a, dim, index):
    d = normalize_dim(dim, max(a.ndim, 1))
    if not isinstance(index, Tensor) or index.dtype.name not in ("int64", "int32"):
        raise RuntimeError("index_select(): Expected dtype int32/int64 for index")
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    key = (slice(None),) * d + (index._data.reshape(-1).astype(np.int64),)
    _check_bounds(a, d, key[-1])
    return Index.apply(a, key)


def _broadcast_error(a, b):
    return broadcast_error(a, b)
