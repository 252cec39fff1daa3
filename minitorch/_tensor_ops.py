"""The differentiable Tensor methods: each calls one Function from ``minitorch.ops``.

Kept apart from ``_tensor.py`` so that file reads as "what a tensor is" and
this one as "what you can do with it".  Python numbers as operands get the
ops' scalar variants, which need no gradient of their own.  Chapter 4 shows
that each op is an ``autograd.Function`` like the ones a reader writes.
"""

import numpy as np

from ._tensor import Tensor
from .autograd.grad_mode import _state as _grad_state
from .ops import arithmetic as A, pointwise as P, reduction as R, linalg as L, shape as S, inplace as I
from .ops._util import normalize_dim, normalize_dims, as_shape

Sign = P.Sign  # used by Tensor.sign

_SCALAR_TYPES = (int, float, bool)
_TORCH_TYPE_NAMES = {"i": "Long", "b": "Bool", "f": "Float"}


def _scalar(x):
    """A Python number for ``x`` if it is one (numpy scalars too), else None."""
    if type(x) in _SCALAR_TYPES:
        return x
    if isinstance(x, np.generic) and x.ndim == 0 and x.dtype.kind in "biuf":
        return x.item()
    return None


def _binary(tensor_fn, scalar_fn):
    """``tensor <op> other``: the tensor Function for a tensor, the scalar one for a number."""
    apply_tensor, apply_scalar = tensor_fn.apply, scalar_fn.apply

    def method(self, other):
        if type(other) in _SCALAR_TYPES:
            return apply_scalar(self, other)
        if isinstance(other, Tensor):
            return apply_tensor(self, other)
        s = _scalar(other)
        if s is None:
            return NotImplemented
        return apply_scalar(self, s)
    return method


def _reflected(scalar_fn):
    """``number <op> tensor``."""
    apply_scalar = scalar_fn.apply

    def method(self, other):
        s = _scalar(other)
        if s is None:
            return NotImplemented
        return apply_scalar(self, s)
    return method


Tensor.__add__ = _binary(A.Add, A.AddScalar)
Tensor.__radd__ = _reflected(A.AddScalar)
Tensor.__sub__ = _binary(A.Sub, A.SubScalar)
Tensor.__rsub__ = _reflected(A.RSubScalar)
Tensor.__mul__ = _binary(A.Mul, A.MulScalar)
Tensor.__rmul__ = _reflected(A.MulScalar)
Tensor.__truediv__ = _binary(A.Div, A.DivScalar)
Tensor.__rtruediv__ = _reflected(A.RDivScalar)
Tensor.__pow__ = _binary(A.Pow, A.PowScalar)
Tensor.__rpow__ = _reflected(A.RPowScalar)


Tensor.__neg__ = lambda self: A.Neg.apply(self)
Tensor.__pos__ = lambda self: self


def __matmul__(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return L.matmul(self, other)


Tensor.__matmul__ = __matmul__


def add(self, other, *, alpha=1):
    return self + (other * alpha if alpha != 1 else other)


def sub(self, other, *, alpha=1):
    return self - (other * alpha if alpha != 1 else other)


Tensor.add = add
Tensor.sub = sub
Tensor.mul = lambda self, other: self * other
Tensor.div = lambda self, other: self / other
Tensor.neg = lambda self: -self
Tensor.pow = lambda self, exponent: self ** exponent
Tensor.matmul = lambda self, other: L.matmul(self, other)
Tensor.mm = lambda self, mat2: L.Mm.apply(self, mat2)

# ----- elementwise math ------------------------------------------------------------


def _unary(fn):
    """A method ``x.name()`` that applies the one-input Function ``fn``."""
    apply = fn.apply

    def method(self):
        return apply(self)
    method.__name__ = fn.__name__.lower()
    return method


Tensor.exp = _unary(P.Exp)
Tensor.log = _unary(P.Log)
Tensor.sqrt = _unary(P.Sqrt)
Tensor.abs = Tensor.__abs__ = _unary(P.Abs)
Tensor.relu = _unary(P.Relu)
Tensor.sigmoid = _unary(P.Sigmoid)
Tensor.tanh = _unary(P.Tanh)


def clamp(self, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return P.Clamp.apply(self, min, max)


def masked_fill(self, mask, value):
    """Copy of self with ``value`` where ``mask`` (bool tensor or array) is True."""
    mask = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if mask.dtype != np.bool_:
        raise RuntimeError(f"masked_fill only supports boolean masks, but got mask with dtype {mask.dtype}")
    return P.MaskedFill.apply(self, mask, value)


Tensor.clamp = clamp
Tensor.masked_fill = masked_fill

# ----- reductions ---------------------------------------------------------------------


def sum(self, dim=None, keepdim=False, *, dtype=None):
    t = self if dtype is None else self.to(dtype)
    if dim is None:
        return R.Sum.apply(t) if not keepdim else R.SumDim.apply(t, normalize_dims(None, t.ndim), True)
    return R.SumDim.apply(t, normalize_dims(dim, t._data.ndim), keepdim)


def mean(self, dim=None, keepdim=False, *, dtype=None):
    t = self if dtype is None else self.to(dtype)
    if t._data.dtype.kind != "f":
        raise RuntimeError(
            f"mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {_TORCH_TYPE_NAMES[t._data.dtype.kind]}. Convert first, e.g. "
            "x.float().mean()")
    if dim is None and not keepdim:
        return R.Mean.apply(t)
    return R.MeanDim.apply(t, normalize_dims(dim, t._data.ndim), keepdim)


def _extreme(all_fn, dim_fn, largest):
    def method(self, dim=None, keepdim=False):
        if isinstance(dim, Tensor):
            raise TypeError("use minitorch.maximum for the elementwise maximum of two tensors")
        if dim is None:
            return all_fn.apply(self, largest)
        d = normalize_dim(dim, self._data.ndim)
        if self._data.ndim == 0:
            return _MinMax(self.clone(), Tensor._wrap(np.asarray(0, dtype=np.int64)))
        values, indices = dim_fn.apply(self, d, keepdim, largest)
        return _MinMax(values, indices)
    return method


class _MinMax(tuple):
    """``(values, indices)`` from ``max(dim)``/``min(dim)``, also readable by name."""
    __slots__ = ()

    def __new__(cls, values, indices):
        return super().__new__(cls, (values, indices))

    values = property(lambda self: self[0])
    indices = property(lambda self: self[1])

    def __repr__(self):
        return f"minitorch.return_types.max(\nvalues={self[0]!r},\nindices={self[1]!r})"


Tensor.sum = sum
Tensor.mean = mean
Tensor.max = _extreme(R.MaxAll, R.MaxDim, True)
Tensor.min = _extreme(R.MinAll, R.MinDim, False)
Tensor.sum_to_size = lambda self, *size: R.SumToSize.apply(self, as_shape(size)) \
    if self._data.shape != as_shape(size) else self
Tensor.softmax = lambda self, dim: R.Softmax.apply(self, normalize_dim(dim, self._data.ndim))
Tensor.log_softmax = lambda self, dim: R.LogSoftmax.apply(self, normalize_dim(dim, self._data.ndim))

# ----- shapes -------------------------------------------------------------------------


def view(self, *shape):
    return S.View.apply(self, S._infer_shape(as_shape(shape), self._data.size))


def reshape(self, *shape):
    return S.reshape(self, as_shape(shape))


def transpose(self, dim0, dim1):
    n = self._data.ndim
    return S.Transpose.apply(self, normalize_dim(dim0, n), normalize_dim(dim1, n))


def permute(self, *dims):
    dims = as_shape(dims)
    n = self._data.ndim
    if len(dims) != n:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match "
                           f"the length of the desired ordering of dimensions i.e. input.dim() = {n} "
                           f"is not equal to len(dims) = {len(dims)}")
    return S.Permute.apply(self, tuple(normalize_dim(d, n) for d in dims))


def unsqueeze(self, dim):
    return S.Unsqueeze.apply(self, normalize_dim(dim, self._data.ndim + 1))


def squeeze(self, dim=None):
    if dim is None:
        return S.SqueezeAll.apply(self, tuple(range(self._data.ndim)))
    if self._data.ndim == 0:
        normalize_dim(dim, 0)
        return S.Squeeze.apply(self, ())
    return S.Squeeze.apply(self, normalize_dims(dim, self._data.ndim))


def expand(self, *sizes):
    return S.Expand.apply(self, as_shape(sizes))


def narrow(self, dim, start, length):
    d = normalize_dim(dim, self._data.ndim)
    key = (slice(None),) * d + (slice(start, start + length),)
    return S.Slice.apply(self, key)


def select(self, dim, index):
    d = normalize_dim(dim, self._data.ndim)
    return S.Select.apply(self, (slice(None),) * d + (index,))


Tensor.view = view
Tensor.reshape = reshape
Tensor.flatten = lambda self: reshape(self, -1)
Tensor.transpose = transpose
Tensor.permute = permute
Tensor.t = lambda self: S.T.apply(self)
Tensor.T = property(lambda self: S.T.apply(self) if self._data.ndim <= 2
                    else permute(self, *reversed(range(self._data.ndim))))
Tensor.unsqueeze = unsqueeze
Tensor.squeeze = squeeze
Tensor.expand = expand
Tensor.expand_as = lambda self, other: expand(self, *other._data.shape)
Tensor.view_as = lambda self, other: view(self, *other._data.shape)
Tensor.narrow = narrow
Tensor.select = select
Tensor.clone = lambda self: S.Clone.apply(self)
Tensor.__getitem__ = lambda self, key: S.getitem(self, key)

# ----- in place -----------------------------------------------------------------------


def _check_inplace(t, *others):
    """Refuse in-place changes autograd cannot follow, before any memory is touched."""
    if not _grad_state.enabled:
        return
    involved = t._requires_grad or any(isinstance(o, Tensor) and o._requires_grad for o in others)
    if t._grad_fn is None and t._requires_grad:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation. "
            "Wrap the update in `with minitorch.no_grad():` (as optimizers do) or work on a clone.")
    if t._base is not None and involved:
        base = t._base
        if base._grad_fn is None and base._requires_grad:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                               "operation. Do it under minitorch.no_grad() or work on a clone.")
        raise RuntimeError(
            "minitorch does not support in-place operations on a view of a tensor that is part of "
            "the autograd graph (PyTorch rewrites the base tensor's graph for this). Use the "
            "out-of-place operation, or clone() the base tensor first.")


def _inplace_operand(other, name):
    """A tensor or Python number to combine in place, or a TypeError saying what is accepted."""
    if isinstance(other, Tensor):
        return other
    s = _scalar(other)
    if s is None:
        raise TypeError(f"{name}(): argument 'other' must be a Tensor or a number, "
                        f"not {type(other).__name__}")
    return s


def _inplace(fn, name, with_alpha=False):
    """``x.name_(other)``: checked before any memory is touched, then ``fn`` applied."""
    def method(self, other, *, alpha=1):
        operand = _inplace_operand(other, name)
        if alpha != 1:
            operand = operand * alpha
        _check_inplace(self, operand)
        return fn.apply(self, operand)

    def method_without_alpha(self, other):
        operand = _inplace_operand(other, name)
        _check_inplace(self, operand)
        return fn.apply(self, operand)
    chosen = method if with_alpha else method_without_alpha
    chosen.__name__ = name
    return chosen


def _inplace_operator(method):
    """``x += other``: like the method, but an unsupported operand lets Python try others."""
    def operator(self, other):
        if not isinstance(other, Tensor) and _scalar(other) is None:
            return NotImplemented
        return method(self, other)
    return operator


Tensor.add_ = _inplace(I.AddInplace, "add_", with_alpha=True)
Tensor.sub_ = _inplace(I.SubInplace, "sub_", with_alpha=True)
Tensor.mul_ = _inplace(I.MulInplace, "mul_")
Tensor.div_ = _inplace(I.DivInplace, "div_")
Tensor.__iadd__ = _inplace_operator(Tensor.add_)
Tensor.__isub__ = _inplace_operator(Tensor.sub_)
Tensor.__imul__ = _inplace_operator(Tensor.mul_)
Tensor.__itruediv__ = _inplace_operator(Tensor.div_)


def zero_(self):
    _check_inplace(self)
    return I.Zero.apply(self)


Tensor.zero_ = zero_


def fill_(self, value):
    _check_inplace(self, value)
    return I.Fill.apply(self, value)


def copy_(self, src):
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' must be Tensor, not {type(src).__name__}")
    _check_inplace(self, src)
    return I.Copy.apply(self, src)


def __setitem__(self, key, value):
    _check_inplace(self, value)
    if not isinstance(value, Tensor):
        s = _scalar(value)
        value = s if s is not None else np.asarray(value)
    S.SetItem.apply(self, S.index_key(key), value)


Tensor.fill_ = fill_
Tensor.copy_ = copy_
Tensor.__setitem__ = __setitem__

