"""Rearranging values: repeat, split/chunk, unbind, flip, roll, diagonal, tril/triu, trace,
masked_select, index_select, movedim.

None of these computes anything new: each moves, copies or picks elements.
So each backward moves the gradient back: a repeated element receives the
sum of its copies' gradients, a split's pieces are joined again, a flip is
flipped back, a picked element receives its gradient and the others zero.
"""

import numpy as np

from .._tensor import Tensor
from ._common import BuiltinFunction, as_shape, normalize_dim, normalize_dims, type_name_of, wrap
from .shape import cat, stack

__all__ = ["Repeat", "Split", "SplitWithSizes", "Unbind", "Flip", "Roll", "Diagonal", "Tril", "Triu", "Trace",
           "MaskedSelect", "IndexSelect", "repeat", "split", "chunk", "unbind", "flip", "roll",
           "diagonal", "tril", "triu", "trace", "masked_select", "index_select", "movedim",
           "tile"]


class Repeat(BuiltinFunction):
    """The tensor tiled ``repeats[d]`` times along each dim (new leading dims allowed)."""
    _backward_name = "RepeatBackward0"

    @staticmethod
    def forward(ctx, a, repeats):
        x = a._data
        lead = len(repeats) - x.ndim
        ctx.shape, ctx.repeats = x.shape, repeats
        return np.tile(x.reshape((1,) * lead + x.shape), repeats)

    @staticmethod
    def backward(ctx, grad):
        lead = len(ctx.repeats) - len(ctx.shape)
        full = (1,) * lead + ctx.shape
        # Split each dim d of size repeats[d] * full[d] into (repeats[d], full[d]) and sum
        # over the repeats: every copy's gradient goes back to its one original.
        split = []
        for r, s in zip(ctx.repeats, full):
            split += [r, s]
        g = grad.reshape(*split).sum(tuple(range(0, 2 * len(full), 2)))
        return g.reshape(ctx.shape), None


def repeat(a, *sizes):
    repeats = as_shape(sizes)
    if len(repeats) < a.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    if any(r < 0 for r in repeats):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(repeats)}: "
                           f"{list(repeats)}")
    return Repeat.apply(a, repeats)


def tile(a, *dims):
    dims = as_shape(dims)
    dims = (1,) * (a.ndim - len(dims)) + dims
    return repeat(a, *dims)


class Split(BuiltinFunction):
    """Pieces of a tensor along ``dim`` (views in PyTorch; copies here are not allowed,
    so the pieces are views of the input)."""
    _backward_name = "SplitBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, a, sizes, dim):
        x = a._data
        ctx.dim, ctx.shape = dim, a.shape
        starts = np.cumsum((0,) + sizes[:-1])
        key = (slice(None),) * dim
        return tuple(x[key + (slice(int(s), int(s) + n),)] for s, n in zip(starts, sizes))

    @staticmethod
    def backward(ctx, *grads):
        pieces = [g if g is not None else None for g in grads]
        return cat(pieces, ctx.dim), None, None


class SplitWithSizes(Split):
    """``split`` with a list of sizes."""
    _backward_name = "SplitWithSizesBackward0"


def split(a, split_size_or_sections, dim=0):
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = normalize_dim(dim, a.ndim)
    size = a.shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = as_shape((tuple(split_size_or_sections),), "split_with_sizes", "split_sizes")
        if sum(sizes) != size or any(s < 0 for s in sizes):
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} "
                               f"(input tensor's size at dimension {d}), but got "
                               f"split_sizes={list(sizes)}")
        function = SplitWithSizes
    else:
        step = split_size_or_sections
        if isinstance(step, bool) or not isinstance(step, (int, np.integer)):
            raise TypeError(f"split_with_sizes(): argument 'split_sizes' (position 2) must be "
                            f"tuple of ints, not {type_name_of(step)}")
        step = int(step)
        if step < 0 or step == 0 and size:
            raise RuntimeError(f"split expects split_size be non-negative, but got "
                               f"split_size={step}" if step < 0 else
                               f"split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {size}")
        sizes = tuple(min(step, size - s) for s in range(0, size, step)) if size else (0,)
        function = Split
    pieces = function.apply(a, sizes, d)
    return pieces if isinstance(pieces, tuple) else (pieces,)


def chunk(a, chunks, dim=0):
    if isinstance(chunks, bool) or not isinstance(chunks, (int, np.integer)):
        raise TypeError(f"chunk(): argument 'chunks' (position 1) must be int, not "
                        f"{type_name_of(chunks)}")
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: "
                           f"{chunks}")
    d = normalize_dim(dim, a.ndim)
    size = a.shape[d]
    step = -(-size // chunks) if size else 1
    return split(a, step, d)


class Unbind(BuiltinFunction):
    """Every slice along ``dim``, as a tuple of views."""
    _backward_name = "UnbindBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, a, dim):
        x = a._data
        ctx.dim = dim
        key = (slice(None),) * dim
        return tuple(x[key + (i, Ellipsis)] for i in range(x.shape[dim]))

    @staticmethod
    def backward(ctx, *grads):
        return stack(list(grads), ctx.dim), None


def unbind(a, dim=0):
    if a.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    result = Unbind.apply(a, normalize_dim(dim, a.ndim))
    return result if isinstance(result, tuple) else (result,)


class Flip(BuiltinFunction):
    _backward_name = "FlipBackward0"

    @staticmethod
    def forward(ctx, a, dims):
        ctx.dims = dims
        return np.flip(a._data, axis=dims).copy()

    @staticmethod
    def backward(ctx, grad):
        return grad.flip(ctx.dims), None


def flip(a, *dims):
    dims = as_shape(dims)
    return Flip.apply(a, normalize_dims(list(dims), a.ndim) if a.ndim else ())


class Roll(BuiltinFunction):
    _backward_name = "RollBackward0"

    @staticmethod
    def forward(ctx, a, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        return np.roll(a._data, shifts, axis=dims)

    @staticmethod
    def backward(ctx, grad):
        back = tuple(-s for s in ctx.shifts) if isinstance(ctx.shifts, tuple) else -ctx.shifts
        return grad.roll(back, ctx.dims), None, None


def roll(a, shifts, dims=None):
    if dims is None:
        return Roll.apply(a.flatten(), shifts, None).view(*a.shape)
    if isinstance(dims, int):
        dims, shifts = (normalize_dim(dims, a.ndim),), (shifts,) if isinstance(shifts, int) \
            else tuple(shifts)
    else:
        dims = tuple(normalize_dim(d, a.ndim) for d in dims)
        shifts = tuple(shifts)
    if len(dims) != len(shifts):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    return Roll.apply(a, shifts, dims)


class Diagonal(BuiltinFunction):
    _backward_name = "DiagonalBackward0"

    @staticmethod
    def forward(ctx, a, offset, dim1, dim2):
        ctx.shape, ctx.args = a.shape, (offset, dim1, dim2)
        return np.diagonal(a._data, offset, dim1, dim2).copy()

    @staticmethod
    def backward(ctx, grad):
        return DiagonalEmbed.apply(grad, ctx.shape, *ctx.args), None, None, None


class DiagonalEmbed(BuiltinFunction):
    """Zeros of ``shape`` with ``grad`` on the diagonal (diagonal's backward)."""
    _backward_name = "DiagonalBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, shape, offset, dim1, dim2):
        ctx.args = (offset, dim1, dim2)
        out = np.zeros(shape, dtype=grad._data.dtype)
        view = np.diagonal(out, offset, dim1, dim2)
        view.setflags(write=True)
        view[...] = grad._data
        return out

    @staticmethod
    def backward(ctx, g):
        return Diagonal.apply(g, *ctx.args), None, None, None, None


def diagonal(a, offset=0, dim1=0, dim2=1):
    d1, d2 = normalize_dim(dim1, a.ndim), normalize_dim(dim2, a.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return Diagonal.apply(a, offset, d1, d2)


class _Triangle(BuiltinFunction):
    _numpy = None

    @classmethod
    def forward(cls, ctx, a, diagonal):
        if a.ndim < 2:
            raise RuntimeError(f"{cls.__name__.lower()}: input tensor must have at least 2 "
                               "dimensions")
        ctx.diagonal = diagonal
        return cls._numpy(a._data, diagonal)

    @classmethod
    def backward(cls, ctx, grad):
        return cls.apply(grad, ctx.diagonal), None


class Tril(_Triangle):
    _backward_name = "TrilBackward0"
    _numpy = staticmethod(np.tril)


class Triu(_Triangle):
    _backward_name = "TriuBackward0"
    _numpy = staticmethod(np.triu)


def tril(a, diagonal=0):
    return Tril.apply(a, diagonal)


def triu(a, diagonal=0):
    return Triu.apply(a, diagonal)


class Trace(BuiltinFunction):
    _backward_name = "TraceBackward0"

    @staticmethod
    def forward(ctx, a):
        if a.ndim != 2:
            raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {a.ndim}")
        ctx.shape = a.shape
        x = a._data
        dtype = np.int64 if x.dtype.kind in "biu" else x.dtype
        return np.asarray(np.trace(x, dtype=dtype))

    @staticmethod
    def backward(ctx, grad):
        eye = wrap(np.eye(*ctx.shape, dtype=grad._data.dtype))
        return grad * eye


def trace(a):
    return Trace.apply(a)


class MaskedSelect(BuiltinFunction):
    """The elements where ``mask`` is True, as a 1-D tensor (a copy)."""
    _backward_name = "MaskedSelectBackward0"

    @staticmethod
    def forward(ctx, a, mask):
        x, m = np.broadcast_arrays(a._data, mask._data)
        ctx.mask, ctx.shape, ctx.full = m, a.shape, x.shape
        return x[m]

    @staticmethod
    def backward(ctx, grad):
        out = np.zeros(ctx.full, dtype=grad._data.dtype)
        out[ctx.mask] = grad._data
        return wrap(out).sum_to_size(*ctx.shape), None


def masked_select(a, mask):
    if not isinstance(mask, Tensor) or mask.dtype.name != "bool":
        got = mask.dtype if isinstance(mask, Tensor) else type(mask).__name__
        raise RuntimeError(f"masked_select: expected BoolTensor for mask, got {got}")
    return MaskedSelect.apply(a, mask)


class IndexSelect(BuiltinFunction):
    """The slices at ``index`` along ``dim`` (a copy); repeated indices add their gradients."""
    _backward_name = "IndexSelectBackward0"

    @staticmethod
    def forward(ctx, a, dim, index):
        ctx.dim, ctx.index, ctx.shape = dim, index._data.reshape(-1), a.shape
        return np.take(a._data, ctx.index, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        out = np.zeros(ctx.shape, dtype=grad._data.dtype)
        key = (slice(None),) * ctx.dim + (ctx.index,)
        np.add.at(out, key, grad._data)
        return wrap(out), None, None


def index_select(a, dim, index):
    d = normalize_dim(dim, max(a.ndim, 1))
    if not isinstance(index, Tensor) or index.dtype.name not in ("int64", "int32"):
        raise RuntimeError("index_select(): Expected dtype int32/int64 for index")
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    size = a.shape[d] if a.ndim else 1
    idx = index._data.reshape(-1)
    if idx.size and (idx.max() >= size or idx.min() < -size):
        bad = int(idx.max() if idx.max() >= size else idx.min())
        raise IndexError(f"index out of range in self: index {bad} for a dimension of size "
                         f"{size}")
    return IndexSelect.apply(a, d, index)


def movedim(a, source, destination):
    sources = (source,) if isinstance(source, int) else tuple(source)
    destinations = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(sources) != len(destinations):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source "
                           f"({list(sources)} dims) should contain the same number of dims as "
                           f"destination ({list(destinations)} dims)")
    n = a.ndim
    sources = [normalize_dim(s, n) for s in sources]
    destinations = [normalize_dim(d, n) for d in destinations]
    order = [None] * n
    for s, d in zip(sources, destinations):
        order[d] = s
    rest = iter(i for i in range(n) if i not in sources)
    order = [next(rest) if o is None else o for o in order]
    return a.permute(*order)


class _TriangleInplace(BuiltinFunction):
    """``x.tril_(d)`` / ``x.triu_(d)``: the other triangle zeroed in ``x``'s own memory.
    The gradient is masked the same way, so nothing needs saving."""
    _numpy = None
    _out_of_place = None

    @classmethod
    def forward(cls, ctx, a, diagonal):
        x = a._data
        x[...] = cls._numpy(x, diagonal)
        ctx.diagonal = diagonal
        ctx.mark_dirty(a)
        return a

    @classmethod
    def backward(cls, ctx, grad):
        return cls._out_of_place.apply(grad, ctx.diagonal), None


class TrilInplace(_TriangleInplace):
    _backward_name = "TrilBackward0"
    _numpy = staticmethod(np.tril)
    _out_of_place = Tril


class TriuInplace(_TriangleInplace):
    _backward_name = "TriuBackward0"
    _numpy = staticmethod(np.triu)
    _out_of_place = Triu


def _triangle_(function, a, diagonal):
    from .inplace import check_in_place, record_change_in_base
    if a.ndim < 2:
        name = function.__name__[:4].lower()
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    check_in_place(a)
    return record_change_in_base(function.apply(a, diagonal))


def tril_(a, diagonal=0):
    """Zero the elements above the ``diagonal``-th diagonal, in place."""
    return _triangle_(TrilInplace, a, diagonal)


def triu_(a, diagonal=0):
    """Zero the elements below the ``diagonal``-th diagonal, in place."""
    return _triangle_(TriuInplace, a, diagonal)
