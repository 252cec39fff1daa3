"""Matrix products: ``@``, ``matmul``, ``mm`` (chapters 4 and 6).

For ``C = A @ B`` the gradients are ``dA = dC @ B.T`` and ``dB = A.T @ dC``:
the same products, transposed.  ``matmul`` also handles vectors (a dot
product, a matrix-vector product) and batches of matrices.
"""

import numpy as np

from .arithmetic import Builtin
from ._util import unbroadcast


def _shape_str(shape):
    return "x".join(str(s) for s in shape)


class Mm(Builtin):
    """Product of two matrices."""
    _backward_name = "MmBackward0"
    _saved_names = ("self", "mat2")

    @staticmethod
    def forward(ctx, a, b):
        x, y = a._data, b._data
        if x.ndim != 2 or y.ndim != 2:
            raise RuntimeError(f"mm expects two 2-D tensors, got {x.ndim}-D and {y.ndim}-D; "
                               "use matmul (the @ operator) for vectors and batches")
        if x.shape[1] != y.shape[0]:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({_shape_str(x.shape)} and "
                f"{_shape_str(y.shape)}): the columns of the first must equal the rows of the second")
        ctx.save_for_backward(a, b)
        return _matmul(x, y)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (grad.mm(b.t()) if need_a else None,
                a.t().mm(grad) if need_b else None)


def _matmul(x, y):
    out = x @ y
    if out.dtype != x.dtype and x.dtype.kind == "f" and y.dtype.kind == "f":
        out = out.astype(np.promote_types(x.dtype, y.dtype), copy=False)
    return out


class Matmul(Builtin):
    """``a @ b`` for any dims: vectors, matrices and broadcast batches of matrices."""
    _backward_name = "MatmulBackward"
    _saved_names = ("self", "other")

    @staticmethod
    def forward(ctx, a, b):
        x, y = a._data, b._data
        if x.ndim == 0 or y.ndim == 0:
            raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                               f"{x.ndim}D and {y.ndim}D; use * to multiply by a scalar")
        k_x = x.shape[-1]
        k_y = y.shape[0] if y.ndim == 1 else y.shape[-2]
        if k_x != k_y:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({_shape_str(x.shape)} and "
                f"{_shape_str(y.shape)}): the last dim of the first must equal the "
                "second-to-last dim of the second")
        ctx.save_for_backward(a, b)
        try:
            return _matmul(x, y)
        except ValueError:
            raise RuntimeError(f"batch dims of {list(x.shape)} and {list(y.shape)} do not broadcast") from None

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        # Promote vectors to matrices, use the matrix rule, then undo the promotion.
        a2 = a.unsqueeze(0) if a.ndim == 1 else a
        b2 = b.unsqueeze(-1) if b.ndim == 1 else b
        sa, sb = a2._data.shape, b2._data.shape
        g = grad.reshape(np.broadcast_shapes(sa[:-2], sb[:-2]) + (sa[-2], sb[-1]))
        ga = gb = None
        if need_a:
            ga = g @ b2.transpose(-1, -2)
            ga = ga.reshape(ga.shape[:-2] + (ga.shape[-1],)) if a.ndim == 1 else ga
            ga = unbroadcast(ga, a._data.shape)
        if need_b:
            gb = a2.transpose(-1, -2) @ g
            gb = gb.reshape(gb.shape[:-1]) if b.ndim == 1 else gb
            gb = unbroadcast(gb, b._data.shape)
        return ga, gb


class Dot(Matmul):
    _backward_name = "DotBackward0"


class Mv(Matmul):
    _backward_name = "MvBackward0"


class BatchMatmul(Matmul):
    _backward_name = "BmmBackward0"


def matmul(a, b):
    """``a @ b``, recorded under the node name PyTorch uses for those dims."""
    na, nb = a.ndim, b.ndim
    if na == 2 and nb == 2:
        return Mm.apply(a, b)
    if na == 1 and nb == 1:
        return Dot.apply(a, b)
    if na == 2 and nb == 1:
        return Mv.apply(a, b)
    return BatchMatmul.apply(a, b) if na > 2 or nb > 2 else Matmul.apply(a, b)
