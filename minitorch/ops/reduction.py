"""Reductions: sum, mean, max/min, softmax and log_softmax (chapters 3 and 6).

A reduction's gradient is spread back over the elements it reduced: ``sum``
copies the incoming gradient to every element (``expand``), ``mean`` also
divides by the count, ``max`` sends it to the position of the maximum.
"""

import builtins

import numpy as np

from .._dtype import as_dtype
from .._tensor import Tensor, _NO_DIM as NO_DIM
from ._common import (BuiltinFunction, as_shape, node_attribute, normalize_dim, normalize_dims,
                      sum_to_shape, type_name_of, wrap)

__all__ = ["Sum", "SumDim", "SumToSize", "Mean", "MeanDim", "MaxAll", "MinAll", "MaxDim",
           "MinDim", "Softmax", "LogSoftmax", "sum", "mean", "max", "min", "sum_to_size",
           "softmax", "log_softmax", "MinMax", "NO_DIM", "argmax", "argmin"]


def _keep_shape(shape, dims):
    """The shape a reduction over ``dims`` has with keepdim=True."""
    return tuple(1 if i in dims else s for i, s in enumerate(shape))


def _sum_dtype(x):
    """Sums of ints and bools are int64, as in PyTorch."""
    return np.int64 if x.dtype.kind in "biu" else x.dtype


def _axis(x, dims):
    """numpy's axis for ``dims``: a 0-d tensor has a dim 0 for PyTorch, none for numpy."""
    return dims if x.ndim else None


class Sum(BuiltinFunction):
    """The sum of every element."""
    _backward_name = "SumBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.shape = a.shape
        return np.asarray(a._data.sum(dtype=_sum_dtype(a._data)))

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.shape)


class SumDim(BuiltinFunction):
    """The sum over some dims (``keepdim`` keeps them with size 1)."""
    _backward_name = "SumBackward1"

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        x = a._data
        return np.asarray(x.sum(axis=_axis(x, dims), keepdims=keepdim, dtype=_sum_dtype(x)))

    @staticmethod
    def backward(ctx, grad):
        """``grad`` given back to every summed element: its dims put back with size 1
        unless ``keepdim``, then expanded to ``a``'s shape.  Three values, one per argument
        of ``forward`` (None for ``dims`` and ``keepdim``)."""
        ### BEGIN SOLUTION 6.6
        if not ctx.keepdim:
            grad = grad.reshape(_keep_shape(ctx.shape, ctx.dims))
        return grad.expand(ctx.shape), None, None
        ### END SOLUTION 6.6


class SumToSize(BuiltinFunction):
    """Sum a broadcast result back to ``shape`` (the inverse of ``expand``)."""
    _backward_name = "SumBackward1"

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape = a.shape
        return sum_to_shape(a._data, shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.shape), None


class Mean(BuiltinFunction):
    """The mean of every element."""
    _backward_name = "MeanBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.shape = a.shape
        return _mean(a._data, None, False)

    @staticmethod
    def backward(ctx, grad):
        """``grad`` shared out evenly: expanded to ``a``'s shape and divided by its number of
        elements (1 for an empty tensor, so no division by zero).  One value.  (In this
        module ``max``, ``min`` and ``sum`` are minitorch's reductions: for numbers use
        ``builtins.max``.)"""
        ### BEGIN SOLUTION 6.6
        count = builtins.max(int(np.prod(ctx.shape)), 1)
        return grad.expand(ctx.shape) / count
        ### END SOLUTION 6.6


class MeanDim(BuiltinFunction):
    """The mean over some dims."""
    _backward_name = "MeanBackward1"

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx.shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        return _mean(a._data, _axis(a._data, dims), keepdim)

    @staticmethod
    def backward(ctx, grad):
        """As ``SumDim.backward``, divided by the number of elements averaged (the product of
        the sizes of ``dims``; 1 for a 0-d tensor, whose ``dims`` are ``(0,)`` or ``(-1,)``).
        Three values, None for ``dims`` and ``keepdim``."""
        ### BEGIN SOLUTION 6.6
        if not ctx.keepdim:
            grad = grad.reshape(_keep_shape(ctx.shape, ctx.dims))
        count = builtins.max(int(np.prod([ctx.shape[d] for d in ctx.dims if ctx.shape])), 1)
        return grad.expand(ctx.shape) / count, None, None
        ### END SOLUTION 6.6


def _mean(x, axis, keepdim):
    """The mean as a sum and a division: an empty mean is nan (numpy would also warn)."""
    count = x.size if axis is None else int(np.prod([x.shape[d] for d in axis]))
    return np.asarray(np.true_divide(x.sum(axis=axis, keepdims=keepdim, dtype=x.dtype),
                                     count, dtype=x.dtype))


def _in_dtype(base):
    """``base`` computed in another dtype (``x.sum(dtype=torch.float64)``): the input is
    converted inside one node, as in PyTorch, and the gradient converted back."""

    class InDtype(base):
        _backward_name = base._backward_name
        backward_on_arrays = None

        @staticmethod
        def forward(ctx, a, *args):
            *args, dtype = args
            ctx.in_dtype = a.dtype
            result = base.forward(ctx, wrap(a._data.astype(dtype.numpy_dtype)), *args)
            return np.asarray(result).astype(dtype.numpy_dtype, copy=False)

        @staticmethod
        def backward(ctx, grad):
            grads = base.backward(ctx, grad)
            grads = grads if type(grads) is tuple else (grads,)
            return (grads[0].to(ctx.in_dtype),) + grads[1:] + (None,)

    InDtype.__name__ = InDtype.__qualname__ = base.__name__ + "InDtype"
    return InDtype


def _check_keepdim(keepdim, name):
    if type(keepdim) is not bool:
        raise TypeError(f"{name}(): argument 'keepdim' must be bool, not "
                        f"{type_name_of(keepdim)}")


def _reduce(a, dim, keepdim, dtype, name, whole, some):
    """``whole`` (every element) or ``some`` (some dims), maybe in another dtype."""
    if dtype is not None:
        dtype = as_dtype(dtype, name)
    if keepdim is not False:
        _check_keepdim(keepdim, name)
    if dim is NO_DIM:
        if keepdim:
            raise TypeError(f"{name}() received an invalid combination of arguments: keepdim "
                            f"needs a dim, as in x.{name}(dim, keepdim=True)")
        dim = None
    if isinstance(dim, (list, tuple)) and len(dim) == 0:
        dim = None
    convert = dtype is not None and dtype != a.dtype
    if dim is None and not keepdim:
        return (_IN_DTYPE[whole].apply(a, dtype) if convert else whole.apply(a))
    dims = normalize_dims(dim, a.ndim)
    return (_IN_DTYPE[some].apply(a, dims, keepdim, dtype) if convert else
            some.apply(a, dims, keepdim))


def sum(a, dim=NO_DIM, keepdim=False, *, dtype=None):
    """``a.sum()``, ``a.sum(dim)``, ``a.sum((0, 1), keepdim=True)``, ``a.sum(dtype=...)``."""
    return _reduce(a, dim, keepdim, dtype, "sum", Sum, SumDim)


def mean(a, dim=NO_DIM, keepdim=False, *, dtype=None):
    """The mean; of floating point tensors only (``x.float().mean()`` for integers)."""
    if dtype is not None:
        dtype = as_dtype(dtype, "mean")
    if dtype is not None and not dtype.is_floating_point:
        raise RuntimeError(
            f"mean(): could not infer output dtype. Optional dtype must be either a floating "
            f"point or complex dtype. Got: {dtype.type_name}")
    if dtype is None and not a._data.dtype.kind == "f":
        raise RuntimeError(
            f"mean(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {a.dtype.type_name}. Convert first, e.g. "
            "x.float().mean()")
    return _reduce(a, dim, keepdim, dtype, "mean", Mean, MeanDim)


def sum_to_size(a, *size):
    shape = as_shape(size, "sum_to_size")
    if not _expandable(shape, a.shape):
        raise RuntimeError(f"size {{{list(shape)}}} is not expandable to size "
                           f"{{{list(a.shape)}}}.")
    return a if tuple(a.shape) == shape else SumToSize.apply(a, shape)


def _expandable(shape, target):
    if len(shape) > len(target):
        return False
    return all(s == t or s == 1 for s, t in zip(reversed(shape), reversed(target)))


# ----- max and min -------------------------------------------------------------------------
class MaxAll(BuiltinFunction):
    """The largest element.  Ties share the gradient evenly, as in PyTorch."""
    _backward_name = "MaxBackward1"
    _saved_names = ("self", "result")
    _pick = staticmethod(np.max)

    @classmethod
    def forward(cls, ctx, a):
        if a._data.size == 0:
            raise RuntimeError(f"{cls._pick.__name__}(): Expected reduction dim to be specified "
                               "for input.numel() == 0. Specify the reduction dim with the "
                               "'dim' argument.")
        result = wrap(np.asarray(cls._pick(a._data)))
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        hits = (a._data == result._data)
        share = (hits / hits.sum()).astype(a._data.dtype)
        return grad * wrap(share)


class MinAll(MaxAll):
    _backward_name = "MinBackward1"
    _pick = staticmethod(np.min)


class MaxDim(BuiltinFunction):
    """``max(dim)``: the values and the indices where they were found."""
    _backward_name = "MaxBackward0"
    _saved_names = ("indices",)
    _arg_pick = staticmethod(np.argmax)

    @classmethod
    def forward(cls, ctx, a, dim, keepdim):
        x = a._data
        if x.shape and x.shape[dim] == 0:
            raise IndexError(f"{cls.__name__[:3].lower()}(): Expected reduction dim {dim} to "
                             "have non-zero size.")
        indices = np.expand_dims(cls._arg_pick(x, axis=dim), dim) if x.ndim else np.zeros((), int)
        values = np.take_along_axis(x, indices, axis=dim) if x.ndim else x.copy()
        if not keepdim and x.ndim:
            indices, values = indices.squeeze(dim), values.squeeze(dim)
        ctx.shape, ctx.dim, ctx.keepdim = a.shape, dim, keepdim
        indices = wrap(indices.astype(np.int64))
        ctx.save_for_backward(indices)
        ctx.mark_non_differentiable(indices)
        return wrap(values), indices

    @staticmethod
    def backward(ctx, grad, grad_indices):
        indices, = ctx.saved_tensors
        if not ctx.shape:
            return grad, None, None
        if not ctx.keepdim:
            grad, indices = grad.unsqueeze(ctx.dim), indices.unsqueeze(ctx.dim)
        zeros = Tensor._wrap(np.zeros(ctx.shape, dtype=grad._data.dtype))
        return zeros.scatter(ctx.dim, indices, grad), None, None


class MinDim(MaxDim):
    _backward_name = "MinBackward0"
    _arg_pick = staticmethod(np.argmin)


class _ReturnType(tuple):
    """``(values, indices)`` from ``max(dim)``/``min(dim)``, also readable by name.  Its
    type is called ``max`` or ``min``, as PyTorch's ``torch.return_types.max``."""
    __slots__ = ()

    values = property(lambda self: self[0])
    indices = property(lambda self: self[1])

    def __repr__(self):
        return (f"minitorch.return_types.{type(self).__name__}(\nvalues={self[0]!r},\n"
                f"indices={self[1]!r})")


_RETURN_TYPES = {}


def MinMax(values, indices, name="max"):
    """The named pair ``max(dim)``, ``min(dim)``, ``sort``... returns: a ``_ReturnType``
    subclass called ``name``, made on first use."""
    cls = _RETURN_TYPES.get(name)
    if cls is None:
        cls = _RETURN_TYPES[name] = type(name, (_ReturnType,), {
            "__slots__": (), "__module__": "minitorch.return_types"})
    return cls((values, indices))


def _extreme(all_fn, dim_fn, name):
    def reduce(a, dim=NO_DIM, keepdim=False):
        if isinstance(dim, Tensor):
            return getattr(a, "maximum" if all_fn is MaxAll else "minimum")(dim)
        if keepdim is not False and type(keepdim) is not bool:
            raise TypeError(f"{name}(): argument 'keepdim' (position 2) must be bool, not "
                            f"{type_name_of(keepdim)}")
        if dim is NO_DIM:
            if keepdim:
                raise TypeError(f"{name}() received an invalid combination of arguments: "
                                f"keepdim needs a dim, as in x.{name}(dim, keepdim=True)")
            return all_fn.apply(a)
        if dim is None:
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            f"(dim=NoneType): give an int dim, or no dim for the {name} of "
                            "every element")
        values, indices = dim_fn.apply(a, normalize_dim(dim, a.ndim), keepdim)
        return MinMax(values, indices, name)
    reduce.__name__ = name
    return reduce


max = _extreme(MaxAll, MaxDim, "max")
min = _extreme(MinAll, MinDim, "min")


def _arg_extreme(pick, name):
    def arg(a, dim=None, keepdim=False):
        if keepdim is not False and type(keepdim) is not bool:
            raise TypeError(f"{name}(): argument 'keepdim' (position 2) must be bool, not "
                            f"{type_name_of(keepdim)}")
        x = a._data
        if x.dtype.kind == "b":
            raise RuntimeError(f"{name}(): does not support bool input; convert with .long() "
                               "first")
        if dim is None:
            if x.size == 0:
                raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                                 "input.numel() == 0.")
            index = np.asarray(pick(x), dtype=np.int64)
            return wrap(index.reshape((1,) * x.ndim) if keepdim else index)
        d = normalize_dim(dim, x.ndim)
        if x.ndim == 0:
            return wrap(np.zeros((), dtype=np.int64))
        if x.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        return wrap(pick(x, axis=d, keepdims=keepdim).astype(np.int64))
    arg.__name__ = name
    return arg


argmax = _arg_extreme(np.argmax, "argmax")
argmin = _arg_extreme(np.argmin, "argmin")


# ----- softmax -----------------------------------------------------------------------------
class Softmax(BuiltinFunction):
    _backward_name = "SoftmaxBackward0"
    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a, dim):
        x = a._data
        if x.size == 0:
            result = wrap(x.copy())
        else:
            e = np.exp(x - x.max(axis=dim, keepdims=True))
            result = wrap(e / e.sum(axis=dim, keepdims=True))
        ctx.dim = dim
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        y, = ctx.saved_tensors
        return y * (grad - (grad * y).sum(ctx.dim, keepdim=True)), None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        y, = ctx.saved_arrays
        return y * (grad - (grad * y).sum(axis=ctx.dim, keepdims=True)), None


class LogSoftmax(BuiltinFunction):
    """log(softmax(x)) computed as x - max - log(sum(exp(x - max))): never overflows."""
    _backward_name = "LogSoftmaxBackward0"
    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a, dim):
        x = a._data
        if x.size == 0:
            result = wrap(x.copy())
        else:
            shifted = x - np.maximum.reduce(x, axis=dim, keepdims=True)
            shifted -= np.log(np.add.reduce(np.exp(shifted), axis=dim, keepdims=True))
            result = wrap(shifted)
        ctx.dim = dim
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        y, = ctx.saved_tensors
        return grad - y.exp() * grad.sum(ctx.dim, keepdim=True), None

    @staticmethod
    def backward_on_arrays(ctx, grad):
        y, = ctx.saved_arrays
        return grad - np.exp(y) * np.add.reduce(grad, axis=ctx.dim, keepdims=True), None


def _softmax_input(a, dim, dtype, name):
    if dtype is not None:
        a = a.to(as_dtype(dtype, name))
    if a._data.dtype.kind != "f":
        raise NotImplementedError(f'"{name}_lastdim_kernel_impl" not implemented for '
                                  f"'{a.dtype.type_name}': {name} needs a floating point "
                                  "tensor (convert with .float(), or pass dtype=)")
    return a, normalize_dim(dim, a.ndim)


def softmax(a, dim, dtype=None):
    a, dim = _softmax_input(a, dim, dtype, "softmax")
    return Softmax.apply(a, dim)


def log_softmax(a, dim, dtype=None):
    a, dim = _softmax_input(a, dim, dtype, "log_softmax")
    return LogSoftmax.apply(a, dim)


# sum(dtype=...) and mean(dtype=...): the same nodes, computed in another dtype
_IN_DTYPE = {base: _in_dtype(base) for base in (Sum, SumDim, Mean, MeanDim)}

# What PyTorch's nodes of these ops show besides saved tensors (``grad_fn._saved_dim``...)
for _function in (Sum, Mean, _IN_DTYPE[Sum], _IN_DTYPE[Mean]):
    node_attribute(_function, "_saved_self_sym_sizes", property(lambda node: tuple(node.shape)))
for _function in (SumDim, MeanDim, _IN_DTYPE[SumDim], _IN_DTYPE[MeanDim]):
    node_attribute(_function, "_saved_self_sym_sizes", property(lambda node: tuple(node.shape)))
    node_attribute(_function, "_saved_dim", property(lambda node: node.dims))
    node_attribute(_function, "_saved_keepdim", property(lambda node: node.keepdim))
del _function
