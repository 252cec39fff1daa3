"""Shape ops: view, reshape, transpose, squeeze, expand, cat, stack, clone, to (chapter 3).

Most of these are *views*: the result shares memory with its input (a numpy
view), and also its version counter, so an in-place change through either is
seen by autograd's correctness check (chapter 5).  Their gradients only move
numbers around: the inverse reshape, the inverse transpose, a sum for
``expand``.
"""

import math

import numpy as np

from .._dtype import from_numpy_dtype, promote_types
from .._tensor import Tensor
from ._common import (BuiltinFunction, as_shape, node_attribute, normalize_dim, normalize_dims,
                      sum_to_shape, type_name_of, wrap)

__all__ = ["View", "UnsafeView", "Alias", "Transpose", "T", "Permute", "Unsqueeze", "Squeeze",
           "SqueezeAll", "Expand", "Clone", "ToCopy", "Cat", "Stack", "view", "reshape",
           "transpose", "permute", "unsqueeze", "squeeze", "expand", "cat", "stack", "to_dtype",
           "infer_shape", "flatten", "unflatten", "check_expand"]


class ViewFunction(BuiltinFunction):
    """Base of the ops whose result looks into the input's memory."""
    _is_view = True


def infer_shape(shape, size):
    """Resolve a single -1 in ``shape`` and check the element count matches ``size``."""
    inferred = None
    for i, s in enumerate(shape):
        if s == -1:
            if inferred is not None:
                raise RuntimeError("only one dimension can be inferred")
            inferred = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape "
                               f"{list(shape)}")
    if inferred is not None:
        known = math.prod(s for s in shape if s != -1)
        if known == 0:
            if size == 0:
                raise RuntimeError(
                    f"cannot reshape tensor of 0 elements into shape {list(shape)} because "
                    "the unspecified dimension size -1 can be any value and is ambiguous")
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
        if size % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
        shape = tuple(size // known if s == -1 else s for s in shape)
    if math.prod(shape) != size:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
    return tuple(shape)


class View(ViewFunction):
    """The same memory seen with another shape (only when the strides allow it)."""
    _backward_name = "ViewBackward0"

    @staticmethod
    def forward(ctx, a, shape):
        x = a._data
        ctx.shape = x.shape
        try:
            out = np.reshape(x, shape, copy=False)     # numpy refuses rather than copy
        except ValueError:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) "
                "instead.") from None
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.shape), None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        return grad.reshape(ctx.shape), None


class UnsafeView(BuiltinFunction):
    """A reshape of a fresh copy (``reshape`` of a tensor that cannot be viewed)."""
    _backward_name = "UnsafeViewBackward0"

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape = a._data.shape
        return np.ascontiguousarray(a._data).reshape(shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.shape), None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        return grad.reshape(ctx.shape), None


class Alias(ViewFunction):
    """The same tensor, as a new view (``x[...]``)."""
    _backward_name = "AliasBackward0"

    @staticmethod
    def forward(ctx, a):
        return a._data.view()

    @staticmethod
    def backward(ctx, grad):
        return grad


node_attribute(View, "_saved_self_sym_sizes", property(lambda node: tuple(node.shape)))


def view(a, *shape):
    if len(shape) == 1 and _is_dtype(shape[0]):
        return a._view_as_dtype(shape[0])
    if not shape and a._data.size != 1:
        raise TypeError("view() missing 1 required positional argument: the shape, as in "
                        "x.view(2, 3) or x.view(-1)")
    return View.apply(a, infer_shape(as_shape(shape, "view"), _numel(a)))


def _numel(a):
    """The number of elements, from the shape: while ``minitorch.compile`` captures with
    symbolic sizes (chapter 19) the shape holds SymInts, so that a ``-1`` resolved from
    it stays symbolic instead of fixing the size the capture saw."""
    return math.prod(a._data.shape)


def _is_dtype(x):
    return hasattr(x, "numpy_dtype")


def reshape(a, *shape):
    """A view when the memory allows one, otherwise a copy (as PyTorch's reshape)."""
    if not shape and a._data.size != 1:     # (an empty shape fits one element: a 0-d result)
        raise TypeError('reshape() missing 1 required positional arguments: "shape", as in '
                        "x.reshape(2, 3) or x.reshape(-1)")
    shape = infer_shape(as_shape(shape, "reshape"), _numel(a))
    if _viewable(a._data, shape):
        return View.apply(a, shape)
    return UnsafeView.apply(a.clone(), shape)


def _viewable(x, shape):
    if x.flags.c_contiguous or x.size <= 1:
        return True
    try:
        np.reshape(x, shape, copy=False)
        return True
    except ValueError:
        return False


def flatten(a, start_dim=0, end_dim=-1):
    if a.ndim == 0:
        return reshape(a, 1)
    start, end = normalize_dim(start_dim, a.ndim), normalize_dim(end_dim, a.ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return a
    shape = a.shape[:start] + (-1,) + a.shape[end + 1:]
    return reshape(a, *shape)


def unflatten(a, dim, sizes):
    d = normalize_dim(dim, a.ndim)
    sizes = tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    known = math.prod(s for s in sizes if s != -1)
    if -1 not in sizes and known != a.shape[d]:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {dim} ({a.shape[d]}) in the input tensor")
    return view(a, *(a.shape[:d] + sizes + a.shape[d + 1:])) if _viewable(
        a._data, infer_shape(a.shape[:d] + sizes + a.shape[d + 1:], a._data.size)) else \
        reshape(a, *(a.shape[:d] + sizes + a.shape[d + 1:]))


class Transpose(ViewFunction):
    _backward_name = "TransposeBackward0"

    @staticmethod
    def forward(ctx, a, dim0, dim1):
        ctx.dims = (dim0, dim1)
        return np.swapaxes(a._data, dim0, dim1)

    @staticmethod
    def backward(ctx, grad):
        return grad.transpose(*ctx.dims), None, None


def transpose(a, dim0, dim1):
    n = a.ndim
    return Transpose.apply(a, normalize_dim(dim0, n), normalize_dim(dim1, n))


class T(ViewFunction):
    """``t()``: the transpose of a matrix (vectors and scalars unchanged)."""
    _backward_name = "TBackward0"

    @staticmethod
    def forward(ctx, a):
        if a.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                               f"{a.ndim}D; use transpose(dim0, dim1) or permute")
        return a._data.T

    @staticmethod
    def backward(ctx, grad):
        return grad.t()

    @staticmethod
    def backward_on_arrays(ctx, grad):
        return grad.T


class Permute(ViewFunction):
    _backward_name = "PermuteBackward0"

    @staticmethod
    def forward(ctx, a, dims):
        ctx.inverse = tuple(int(i) for i in np.argsort(dims))
        return np.transpose(a._data, dims)

    @staticmethod
    def backward(ctx, grad):
        return grad.permute(ctx.inverse), None


def permute(a, *dims):
    if not dims and a._data.ndim:
        raise TypeError('permute() missing 1 required positional arguments: "dims", one per '
                        "dim of the tensor, as in x.permute(1, 0)")
    dims = as_shape(dims, "permute", "dims")
    n = a.ndim
    if len(dims) != n:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {n} is not equal to len(dims) = {len(dims)}")
    dims = tuple(normalize_dim(d, n) for d in dims)
    if len(set(dims)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return Permute.apply(a, dims)


class Unsqueeze(ViewFunction):
    _backward_name = "UnsqueezeBackward0"

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        return np.expand_dims(a._data, dim)

    @staticmethod
    def backward(ctx, grad):
        return grad.squeeze(ctx.dim), None


def unsqueeze(a, dim):
    return Unsqueeze.apply(a, normalize_dim(dim, a.ndim + 1))


class Squeeze(ViewFunction):
    """Remove the given dims of size 1 (others are left alone, as in PyTorch)."""
    _backward_name = "SqueezeBackward1"

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


class SqueezeDims(Squeeze):
    _backward_name = "SqueezeBackward2"


def squeeze(a, dim=None):
    if dim is None:
        return SqueezeAll.apply(a, tuple(range(a.ndim)))
    if isinstance(dim, (tuple, list)):
        dims = normalize_dims(dim, max(a.ndim, 1)) if a.ndim else ()
        return SqueezeDims.apply(a, dims)
    d = normalize_dim(dim, a.ndim)
    return Squeeze.apply(a, (d,) if a.ndim else ())


class Expand(ViewFunction):
    """A broadcast view: dims of size 1 repeated without copying."""
    _backward_name = "ExpandBackward0"

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape = a.shape
        return np.broadcast_to(a._data, shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.sum_to_size(ctx.shape), None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        return sum_to_shape(grad, ctx.shape), None


def expand(a, *sizes):
    if not sizes and a._data.ndim:
        raise TypeError('expand() missing 1 required positional arguments: "size", as in '
                        "x.expand(3, 2)")
    shape = as_shape(sizes, "expand")
    return Expand.apply(a, check_expand(a, a._data.shape, shape))


def check_expand(a, have_shape, shape):
    """The shape ``a`` (of ``have_shape``) expands to for ``expand(*shape)`` (-1 keeps a dim),
    or PyTorch's error."""
    lead = len(shape) - len(have_shape)
    if lead < 0:
        raise RuntimeError(
            f"expand(torch.{a.dtype.type_name}Tensor{{{list(have_shape)}}}, size="
            f"{list(shape)}): the number of sizes provided ({len(shape)}) must be greater or "
            f"equal to the number of dimensions in the tensor ({len(have_shape)})")
    target = list(shape)
    for i, want in enumerate(shape):
        have = have_shape[i - lead] if i >= lead else None
        if want == -1:
            if have is None:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
            target[i] = have
        elif want < 0:
            raise RuntimeError(f"The expanded size of the tensor ({want}) isn't allowed")
        elif have is not None and have != want and have != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({want}) must match the existing size "
                f"({have}) at non-singleton dimension {i}.  Target sizes: {list(shape)}.  "
                f"Tensor sizes: {list(have_shape)}")
    return tuple(target)


class Clone(BuiltinFunction):
    _backward_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, a):
        return a._data.copy()

    @staticmethod
    def backward(ctx, grad):
        return grad


class ToCopy(BuiltinFunction):
    """A copy in another dtype; the gradient is converted back."""
    _backward_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, a, dtype):
        ctx.dtype = a.dtype
        return a._data.astype(dtype.numpy_dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad.to(ctx.dtype), None


def to_dtype(a, dtype, copy=False):
    if dtype == a.dtype and not copy:
        return a
    return ToCopy.apply(a, dtype)


# ----- joining -----------------------------------------------------------------------------
def _tensor_list(tensors, name):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type_name_of(tensors)}")
    if not tensors:
        if name == "stack":
            raise RuntimeError("stack expects a non-empty TensorList")
        raise ValueError(f"torch.{name}(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}(): expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
    return tuple(tensors)


def _common_dtype(tensors):
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = promote_types(dtype, t.dtype)
    return dtype


class Cat(BuiltinFunction):
    _backward_name = "CatBackward0"

    @staticmethod
    def forward(ctx, dim, *tensors):
        dtype = _common_dtype(tensors).numpy_dtype
        arrays = [t._data.astype(dtype, copy=False) for t in tensors]
        ctx.dim = dim
        ctx.sizes = [x.shape[dim] if x.ndim else 0 for x in arrays]
        kept = [x for x in arrays if not (x.ndim == 1 and x.size == 0)] or arrays[:1]
        # numpy lays out a result made from one transposed or expanded input like that
        # input; PyTorch's result is always contiguous.
        return np.ascontiguousarray(np.concatenate(kept, axis=dim))

    @staticmethod
    def backward(ctx, grad):
        grads, start = [], 0
        for size in ctx.sizes:
            grads.append(grad.narrow(ctx.dim, start, size))
            start += size
        return (None, *grads)


def cat(tensors, dim=0):
    """Join tensors along an existing dimension (1-D empty tensors are skipped, as in PyTorch)."""
    tensors = _tensor_list(tensors, "cat")
    shaped = [t for t in tensors if not (t.ndim == 1 and t.numel() == 0)]
    if any(t.ndim == 0 for t in tensors):
        i = next(i for i, t in enumerate(tensors) if t.ndim == 0)
        raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    reference = shaped[0] if shaped else tensors[0]
    d = normalize_dim(dim, reference.ndim)
    for i, t in enumerate(tensors):
        if t.ndim == 1 and t.numel() == 0:
            continue
        if t.ndim != reference.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got "
                               f"{reference.ndim} and {t.ndim}")
        for k, (s, r) in enumerate(zip(t.shape, reference.shape)):
            if k != d and s != r:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {r} but got size {s} for tensor number {i} "
                                   "in the list.")
    return Cat.apply(d, *tensors)


class Stack(BuiltinFunction):
    _backward_name = "StackBackward0"

    @staticmethod
    def forward(ctx, dim, *tensors):
        dtype = _common_dtype(tensors).numpy_dtype
        ctx.dim = dim
        return np.ascontiguousarray(np.stack([t._data.astype(dtype, copy=False)
                                              for t in tensors], axis=dim))

    @staticmethod
    def backward(ctx, grad):
        n = grad.shape[ctx.dim]
        return (None, *[grad.select(ctx.dim, i) for i in range(n)])


def stack(tensors, dim=0):
    """Join same-shaped tensors along a new dimension."""
    tensors = _tensor_list(tensors, "stack")
    first = tensors[0].shape
    for i, t in enumerate(tensors):
        if t.shape != first:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(first)} at entry 0 and {list(t.shape)} at entry {i}")
    return Stack.apply(normalize_dim(dim, tensors[0].ndim + 1), *tensors)


def from_numpy_dtype_of(array):
    return from_numpy_dtype(array.dtype)


def wrap_array(array):
    return wrap(array)
