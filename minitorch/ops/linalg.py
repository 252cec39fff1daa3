"""Matrix products: ``@``, ``matmul``, ``mm``, ``addmm`` (chapters 6 and 10).

For ``C = A @ B`` the gradients are ``dA = dC @ B.T`` and ``dB = A.T @ dC``:
the same products, transposed.  ``matmul`` handles vectors and batches by
reshaping them into these products, the way PyTorch does, so its graph has
PyTorch's nodes (``MvBackward0``, ``MmBackward0``, ``BmmBackward0``...).
"""

import numpy as np

from .._tensor import Tensor
from ._common import BuiltinFunction, must_be_tensor, sum_to_shape, wrap
from .shape import Squeeze

__all__ = ["Mm", "Mv", "Dot", "Bmm", "Addmm", "matmul", "mm", "mv", "dot", "bmm", "addmm"]

_C_TYPE_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
                 "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
                 "bool": "bool", "float16": "c10::Half"}


def _shape_text(shape):
    return "x".join(str(s) for s in shape)


def _same_dtype(a, b, what="expected m1 and m2 to have the same dtype, but got: {} != {}",
                kernel="addmm_impl_cpu_"):
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(what.format(_C_TYPE_NAMES[a.dtype.name], _C_TYPE_NAMES[b.dtype.name])
                           + ". Products do not promote dtypes: convert one side first, e.g. with "
                           ".float() or .double()")
    if a._data.dtype.kind == "b":
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\': matrix products '
                                  "of bool tensors are not supported; convert with .long() or "
                                  ".float()")


class Mm(BuiltinFunction):
    """The product of two matrices."""
    _backward_name = "MmBackward0"
    _saved_names = ("mat2", "self")

    @staticmethod
    def forward(ctx, a, b):
        if a.ndim != 2:
            raise RuntimeError("self must be a matrix")
        if b.ndim != 2:
            raise RuntimeError("mat2 must be a matrix")
        _same_dtype(a, b)
        if a._data.shape[1] != b._data.shape[0]:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({_shape_text(a.shape)} and "
                f"{_shape_text(b.shape)}): the columns of the first must equal the rows of "
                "the second")
        need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(b if need_a else None, a if need_b else None)
        return a._data @ b._data

    @staticmethod
    def backward(ctx, grad):
        """``grad @ b.T`` for ``a`` and ``a.T @ grad`` for ``b``: tensor operations, so a
        double backward can differentiate them; None where ``forward`` saved nothing."""
        ### BEGIN SOLUTION 6.5
        b, a = ctx.saved_tensors
        grad_a = grad.mm(b.t()) if b is not None else None
        grad_b = a.t().mm(grad) if a is not None else None
        ### END SOLUTION 6.5
        return grad_a, grad_b


class Mv(BuiltinFunction):
    """A matrix times a vector."""
    _backward_name = "MvBackward0"
    _saved_names = ("vec", "self")

    @staticmethod
    def forward(ctx, a, v):
        if a._data.dtype != v._data.dtype:
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                               f"{a.dtype.type_name} and {v.dtype.type_name}. Products do not "
                               "promote dtypes: convert one side first, e.g. with .float()")
        _same_dtype(a, v, kernel="addmv_impl_cpu")
        if a.shape[1] != v.shape[0]:
            raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat "
                               f"({_shape_text(a.shape)}), vec ({v.shape[0]})")
        ctx.save_for_backward(v, a)
        return a._data @ v._data

    @staticmethod
    def backward(ctx, grad):
        v, a = ctx.saved_tensors
        need_a, need_v = ctx.needs_input_grad
        return (grad.unsqueeze(1).mm(v.unsqueeze(0)) if need_a else None,
                a.t().mv(grad) if need_v else None)


class Dot(BuiltinFunction):
    """The dot product of two vectors."""
    _backward_name = "DotBackward0"
    _saved_names = ("tensor", "self")

    @staticmethod
    def forward(ctx, a, b):
        if a._data.dtype != b._data.dtype:
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                               f"{a.dtype.type_name} and {b.dtype.type_name}. Products do not "
                               "promote dtypes: convert one side first, e.g. with .float()")
        if a._data.dtype.kind == "b":
            raise NotImplementedError("\"dot\" not implemented for 'Bool': convert the vectors "
                                      "with .long() or .float() first")
        if a.shape[0] != b.shape[0]:
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                f"[{b.shape[0]}] to have the same number of elements, but got {a.shape[0]} "
                f"and {b.shape[0]} elements respectively")
        ctx.save_for_backward(b, a)
        return np.asarray(a._data @ b._data)

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return grad * b if need_a else None, grad * a if need_b else None


class Bmm(BuiltinFunction):
    """A batch of matrix products: ``(B, n, k) @ (B, k, m)``."""
    _backward_name = "BmmBackward0"
    _saved_names = ("mat2", "self")

    @staticmethod
    def forward(ctx, a, b):
        if a.ndim != 3 or b.ndim != 3:
            raise RuntimeError(f"batch1 must be a 3D tensor" if a.ndim != 3 else
                               "batch2 must be a 3D tensor")
        if a._data.dtype != b._data.dtype:
            raise RuntimeError(f"expected scalar type {a.dtype.type_name} but found "
                               f"{b.dtype.type_name}. Products do not promote dtypes: convert "
                               "one side first, e.g. with .float()")
        _same_dtype(a, b, kernel="bmm")
        if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
            raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                               f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, "
                               f"{b.shape[1]}].")
        ctx.save_for_backward(b, a)
        return a._data @ b._data

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (grad.bmm(b.transpose(1, 2)) if need_a else None,
                a.transpose(1, 2).bmm(grad) if need_b else None)


class Addmm(BuiltinFunction):
    """``bias + a @ b`` in one node: what ``nn.Linear`` records (with ``b = weight.t()``)."""
    _backward_name = "AddmmBackward0"
    _saved_names = ("mat1", "mat2")       # PyTorch packs (and unpacks) mat1 first

    @staticmethod
    def forward(ctx, bias, a, b):
        _same_dtype(a, b, "mat1 and mat2 must have the same dtype, but got {} and {}")
        if a._data.shape[1] != b._data.shape[0]:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({_shape_text(a.shape)} and "
                f"{_shape_text(b.shape)})")
        need_bias, need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(a if need_b else None, b if need_a else None)
        ctx.bias_shape = bias._data.shape
        ctx.b_transposed = need_b and _transposed(b._data)
        out = a._data @ b._data
        out += bias._data
        return out

    @staticmethod
    def backward(ctx, grad):
        """Three tensors, in ``forward``'s order: ``grad`` summed to the bias's shape
        (``ctx.bias_shape``), ``grad @ b.T`` for ``a`` and ``a.T @ grad`` for ``b``; None
        for an input that needs no gradient (``ctx.needs_input_grad``, or nothing saved)."""
        ### BEGIN SOLUTION 6.5
        a, b = ctx.saved_tensors
        need_bias = ctx.needs_input_grad[0]
        return (grad.sum_to_size(ctx.bias_shape) if need_bias else None,
                grad.mm(b.t()) if b is not None else None,
                a.t().mm(grad) if a is not None else None)
        ### END SOLUTION 6.5

    @staticmethod
    def backward_on_arrays(ctx, grad):
        """The same three gradients on numpy arrays (``grad`` and ``ctx.saved_arrays``),
        returned as arrays: the path taken when no double backward is asked for (see
        ``BuiltinBackward``).  The bias's share is ``_bias_gradient``'s; ``b``'s is computed
        with ``_product(..., ctx.b_transposed)``, so that the gradient of a transposed
        weight (``weight.t()`` in ``nn.Linear``) comes back stored like the weight."""
        ### BEGIN SOLUTION 6.5
        a, b = ctx.saved_arrays
        need_bias = ctx.needs_input_grad[0]
        return (_bias_gradient(grad, ctx.bias_shape) if need_bias else None,
                grad @ b.T if b is not None else None,
                _product(a.T, grad, ctx.b_transposed) if a is not None else None)
        ### END SOLUTION 6.5


def _bias_gradient(grad, shape):
    """The bias's share of ``grad``: for nn.Linear's bias (one value per column), the
    column sums; any other broadcast bias, summed back to its shape."""
    if len(shape) == 1 and grad.ndim == 2 and grad.shape[1] == shape[0]:
        return np.add.reduce(grad, axis=0)
    return sum_to_shape(grad, shape)


def _transposed(x):
    """True for a transposed view of a matrix (``weight.t()``), stored column by column."""
    return x.ndim == 2 and x.flags.f_contiguous and not x.flags.c_contiguous


def _product(x, y, transposed):
    """``x @ y``, computed transposed when it is the gradient of a transposed view
    (``weight.t()``): once ``TBackward0`` transposes it back, the weight's gradient
    is then stored row by row, like the weight."""
    return (y.T @ x.T).T if transposed else x @ y


# ----- matmul: the general product, built from the ones above -------------------------------
def mm(a, b):
    if not isinstance(b, Tensor):
        raise must_be_tensor(b, "mm", "mat2")
    return Mm.apply(a, b)


def mv(a, v):
    if not isinstance(v, Tensor):
        raise must_be_tensor(v, "mv", "vec")
    return Mv.apply(a, v)


def dot(a, b):
    if not isinstance(b, Tensor):
        raise must_be_tensor(b, "dot", "tensor")
    return Dot.apply(a, b)


def bmm(a, b):
    if not isinstance(b, Tensor):
        raise must_be_tensor(b, "bmm", "mat2")
    return Bmm.apply(a, b)


class SqueezeProduct(Squeeze):
    """The row dim a vector @ matrix product added, squeezed away again.  PyTorch squeezes
    its fresh result in place (``squeeze_``), hence this node's name; the result is no view
    of anything the user holds."""
    _backward_name = "SqueezeBackward4"
    _is_view = False


def addmm(bias, a, b):
    return Addmm.apply(bias, a, b)


def matmul(a, b):
    """``a @ b`` for any dims: vectors, matrices and broadcast batches of matrices."""
    if not isinstance(b, Tensor):
        raise must_be_tensor(b, "matmul", "other")
    na, nb = a.ndim, b.ndim
    if na == 0 or nb == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{na}D and {nb}D")
    if na == 1 and nb == 1:
        return Dot.apply(a, b)
    if na == 2 and nb == 1:
        return Mv.apply(a, b)
    if na == 1 and nb == 2:
        return SqueezeProduct.apply(Mm.apply(a.unsqueeze(0), b), (0,))
    if na == 2 and nb == 2:
        return Mm.apply(a, b)
    if na >= 3 and nb <= 2:
        return _fold_batch_into_rows(a, b)
    return _batched(a, b)


def _fold_batch_into_rows(a, b):
    """``(..., n, k) @ (k, m)``: one matrix product over all the rows, then the batch back."""
    k = a.shape[-1]
    rows = a.reshape(-1, k)
    if b.ndim == 1:
        return rows.mv(b)._unsafe_view(a.shape[:-1])
    return rows.mm(b)._unsafe_view(a.shape[:-1] + (b.shape[-1],))


def _batched(a, b):
    """Broadcast the batch dims, then one ``bmm`` over the flattened batch."""
    a2 = a.unsqueeze(0) if a.ndim == 1 else a
    b2 = b.unsqueeze(-1) if b.ndim == 1 else b
    if a2.shape[-1] != b2.shape[-2]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{int(np.prod(a2.shape[:-2]))}, {a2.shape[-1]}] but got: "
            f"[{int(np.prod(b2.shape[:-2]))}, {b2.shape[-2]}].")
    try:
        batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    except ValueError:
        raise RuntimeError(f"The size of tensor a must match the size of tensor b in the batch "
                           f"dimensions: {list(a.shape)} and {list(b.shape)} do not "
                           "broadcast") from None
    n, k, m = a2.shape[-2], a2.shape[-1], b2.shape[-1]
    flat = int(np.prod(batch))
    left = a2.expand(*batch, n, k).reshape(flat, n, k)
    right = b2.expand(*batch, k, m).reshape(flat, k, m)
    out_shape = tuple(batch) + ((n,) if a.ndim > 1 else ()) + ((m,) if b.ndim > 1 else ())
    return left.bmm(right)._unsafe_view(out_shape)


def _wrap_result(array):
    return wrap(array)
