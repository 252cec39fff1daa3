"""Shape ops: view, reshape, transpose, squeeze, expand, indexing, cat, stack (chapter 3).

Most of these are *views*: the result shares memory with its input (a numpy
view), and also its version counter, so an in-place change through either
is seen by autograd's correctness check.  Their gradients only move numbers
around: the inverse reshape, the inverse transpose, a sum for ``expand``.
"""

import numpy as np

from .._tensor import Tensor
from .arithmetic import Builtin

wrap = Tensor._wrap


class View(Builtin):
    _backward_name = "ViewBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, a, shape):
        x = a._data
        ctx.shape = x.shape
        shape = _infer_shape(shape, x.size)
        try:
            out = x.view()
            out.shape = shape   # numpy refuses (AttributeError) instead of copying
        except AttributeError:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead.") from None
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.shape), None


class ReshapeCopy(Builtin):
    """``reshape`` of a tensor that cannot be viewed with the new shape: a copy."""
    _backward_name = "UnsafeViewBackward0"

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape = a._data.shape
        return np.ascontiguousarray(a._data).reshape(shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.shape), None


def _infer_shape(shape, size):
    """Resolve a single -1 in ``shape`` and check the element count matches."""
    if -1 in shape:
        if shape.count(-1) > 1:
            raise RuntimeError("only one dimension can be inferred")
        known = int(np.prod([s for s in shape if s != -1]))
        if known == 0 or size % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
        shape = tuple(size // known if s == -1 else s for s in shape)
    if int(np.prod(shape)) != size or any(s < 0 for s in shape):
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
    return shape


def reshape(a, shape):
    shape = _infer_shape(shape, a._data.size)
    x = a._data
    if x.flags.c_contiguous or x.size <= 1:
        return View.apply(a, shape)
    try:
        return View.apply(a, shape)
    except RuntimeError:
        return ReshapeCopy.apply(a, shape)


class Transpose(Builtin):
    _backward_name = "TransposeBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, a, dim0, dim1):
        ctx.dims = (dim0, dim1)
        return np.swapaxes(a._data, dim0, dim1)

    @staticmethod
    def backward(ctx, grad):
        return grad.transpose(*ctx.dims), None, None


class T(Builtin):
    _backward_name = "TBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, a):
        x = a._data
        if x.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D; "
                               "use transpose(dim0, dim1) or permute")
        return x.T

    @staticmethod
    def backward(ctx, grad):
        return grad.t()


class Permute(Builtin):
    _backward_name = "PermuteBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, a, dims):
        ctx.inverse = tuple(np.argsort(dims))
        return np.transpose(a._data, dims)

    @staticmethod
    def backward(ctx, grad):
        return grad.permute(*ctx.inverse), None


class Unsqueeze(Builtin):
    _backward_name = "UnsqueezeBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        return np.expand_dims(a._data, dim)

    @staticmethod
    def backward(ctx, grad):
        return grad.squeeze(ctx.dim), None


class Squeeze(Builtin):
    _backward_name = "SqueezeBackward1"
    _is_view = True

    @staticmethod
    def forward(ctx, a, dims):
        x = a._data
        ctx.shape = x.shape
        dims = tuple(d for d in dims if x.shape[d] == 1)
        return np.squeeze(x, axis=dims) if dims else x.view()

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.shape), None


class SqueezeAll(Squeeze):
    _backward_name = "SqueezeBackward0"


class Expand(Builtin):
    _backward_name = "ExpandBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, a, shape):
        x = a._data
        ctx.shape = x.shape
        lead = len(shape) - x.ndim
        if lead < 0:
            raise RuntimeError(
                f"expand: the number of sizes provided ({len(shape)}) must be greater or equal to "
                f"the number of dimensions in the tensor ({x.ndim})")
        target = list(shape)
        for i, s in enumerate(x.shape):
            want = shape[lead + i]
            if want == -1:
                target[lead + i] = s
            elif s != want and s != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({want}) must match the existing size ({s}) "
                    f"at non-singleton dimension {lead + i}.  Target sizes: {list(shape)}.  "
                    f"Tensor sizes: {list(x.shape)}")
        return np.broadcast_to(x, tuple(target))

    @staticmethod
    def backward(ctx, grad):
        return grad.sum_to_size(ctx.shape), None


class Clone(Builtin):
    _backward_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, a):
        return a._data.copy()

    @staticmethod
    def backward(ctx, grad):
        return grad


class ToDtype(Builtin):
    _backward_name = "ToCopyBackward0"
    _changes_dtype = True

    @staticmethod
    def forward(ctx, a, np_dtype):
        ctx.dtype = a._data.dtype
        return a._data.astype(np_dtype)

    @staticmethod
    def backward(ctx, grad):
        return wrap_cast(grad, ctx.dtype), None


def wrap_cast(t, np_dtype):
    return ToDtype.apply(t, np_dtype) if t._data.dtype != np_dtype else t


class Cat(Builtin):
    _backward_name = "CatBackward0"

    @staticmethod
    def forward(ctx, dim, *tensors):
        arrays = [t._data for t in tensors]
        ref = next((x for x in arrays if x.ndim > 0), arrays[0])
        for i, x in enumerate(arrays):
            if x.ndim != ref.ndim:
                raise RuntimeError(
                    f"Tensors must have same number of dimensions: got {ref.ndim} and {x.ndim} "
                    f"(tensor number {i} in the list)")
            for d, (s, r) in enumerate(zip(x.shape, ref.shape)):
                if d != dim and s != r:
                    raise RuntimeError(
                        f"Sizes of tensors must match except in dimension {dim}. Expected size {r} "
                        f"but got size {s} for tensor number {i} in the list.")
        ctx.dim = dim
        ctx.sizes = [x.shape[dim] for x in arrays]
        return np.concatenate(arrays, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        grads, start = [], 0
        for size in ctx.sizes:
            grads.append(grad.narrow(ctx.dim, start, size))
            start += size
        return (None, *grads)


class Stack(Builtin):
    _backward_name = "StackBackward0"

    @staticmethod
    def forward(ctx, dim, *tensors):
        shapes = {t.shape for t in tensors}
        if len(shapes) > 1:
            first = tensors[0].shape
            i, bad = next((i, t.shape) for i, t in enumerate(tensors) if t.shape != first)
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(first)} at "
                               f"entry 0 and {list(bad)} at entry {i}")
        ctx.dim = dim
        return np.stack([t._data for t in tensors], axis=dim)

    @staticmethod
    def backward(ctx, grad):
        n = grad.shape[ctx.dim]
        return (None, *[grad.select(ctx.dim, i) for i in range(n)])


def _is_basic_index(key):
    """True if ``key`` selects a view (ints, slices, None, ...), not a copy."""
    items = key if isinstance(key, tuple) else (key,)
    return all(k is None or k is Ellipsis or isinstance(k, (slice, int, np.integer))
               and not isinstance(k, bool) for k in items)


def _take(ctx, a, key):
    """``a``'s array indexed by ``key`` (what both kinds of indexing do forward)."""
    ctx.key, ctx.shape = key, a.shape
    try:
        return a._data[key]
    except IndexError as e:
        raise _index_error(e, a, key) from None


class Select(Builtin):
    """Indexing with ints, slices, None and ``...``: a view of the input."""
    _backward_name = "SelectBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, a, key):
        return _take(ctx, a, key)

    @staticmethod
    def backward(ctx, grad):
        return IndexGrad.apply(grad, ctx.key, ctx.shape, False), None


class Slice(Select):
    _backward_name = "SliceBackward0"


class Index(Builtin):
    """Indexing with integer or boolean arrays: a copy of the selected elements."""
    _backward_name = "IndexBackward0"

    @staticmethod
    def forward(ctx, a, key):
        return _take(ctx, a, key)

    @staticmethod
    def backward(ctx, grad):
        return IndexGrad.apply(grad, ctx.key, ctx.shape, True), None


class IndexGrad(Builtin):
    """Zeros of ``shape`` with ``grad`` added at ``key`` (indexing's backward).
    Repeated indices add up (``np.add.at``)."""
    _backward_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, grad, key, shape, advanced):
        ctx.key, ctx.advanced = key, advanced
        out = np.zeros(shape, dtype=grad._data.dtype)
        if advanced:
            np.add.at(out, key, grad._data)
        else:
            out[key] = grad._data
        return out

    @staticmethod
    def backward(ctx, g):
        return (Index if ctx.advanced else Select).apply(g, ctx.key), None, None, None


def _index_error(error, a, key):
    message = str(error).replace(" for axis ", " for dimension ")
    if "out of bounds" in message:
        return IndexError(message + f" (tensor of shape {list(a.shape)})")
    return IndexError(f"{message}; the tensor has shape {list(a.shape)}")


def index_key(key):
    """Turn tensors inside an index into numpy arrays (bool masks, int64 indices)."""
    if isinstance(key, tuple):
        return tuple(index_key(k) for k in key)
    if isinstance(key, Tensor):
        data = key._data
        if data.dtype.kind == "f":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        return data
    if isinstance(key, list):
        return np.asarray(key)
    return key


def getitem(a, key):
    key = index_key(key)
    if _is_basic_index(key):
        items = key if isinstance(key, tuple) else (key,)
        if all(isinstance(k, (int, np.integer)) for k in items):
            return Select.apply(a, key)
        return Slice.apply(a, key)
    return Index.apply(a, key)


class SetItem(Builtin):
    """``a[key] = value``, in place: PyTorch calls this node CopySlices."""
    _backward_name = "CopySlices"
    _in_place = True

    @staticmethod
    def forward(ctx, a, key, value):
        ctx.key = key
        src = value._data if isinstance(value, Tensor) else value
        ctx.value_shape = value.shape if isinstance(value, Tensor) else None
        try:
            a._data[key] = src
        except ValueError:
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(np.shape(src))} cannot be "
                               f"broadcast to indexing result of shape "
                               f"{list(a._data[key].shape)}") from None
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        grad_a = grad.masked_fill(_mask_of(ctx.key, grad.shape), 0.0)
        grad_value = None
        if ctx.value_shape is not None and ctx.needs_input_grad[2]:
            grad_value = grad[ctx.key].sum_to_size(ctx.value_shape)
        return grad_a, None, grad_value


def _mask_of(key, shape):
    mask = np.zeros(shape, dtype=bool)
    mask[key] = True
    return mask
