"""In-place ops: ``add_``, ``sub_``, ``mul_``, ``div_``, ``zero_``, ``fill_``, ``copy_`` (chapter 3).

An in-place op overwrites its input's memory.  It marks that input dirty
(``ctx.mark_dirty``), so ``Function.apply`` bumps the version counter that
the tensor shares with its views, and, when recording, makes the node the
tensor's new ``grad_fn``.  Saved tensors remember the version they were saved
at, and backward refuses to use one that has changed since.
"""

import numpy as np

from .._tensor import Tensor
from .arithmetic import Builtin
from ._util import broadcast_error, unbroadcast


class InplaceBuiltin(Builtin):
    """Base of the in-place ops: forward changes its first argument and marks it dirty."""
    _in_place = True


def _operand(x):
    return x._data if isinstance(x, Tensor) else x


def _check_fits(a, b):
    """The result of an in-place op must keep ``a``'s shape: ``b`` may broadcast to ``a`` only."""
    shape = np.shape(b)
    try:
        if np.broadcast_shapes(a.shape, shape) != a.shape:
            raise ValueError
    except ValueError:
        raise RuntimeError(
            f"output with shape {list(a.shape)} doesn't match the broadcast shape "
            f"{list(np.broadcast_shapes(a.shape, shape)) if _broadcasts(a.shape, shape) else list(shape)}"
            ": an in-place operation cannot change the shape of its tensor") from None


def _broadcasts(s1, s2):
    try:
        np.broadcast_shapes(s1, s2)
        return True
    except ValueError:
        return False


def _apply_inplace(op, a, b):
    x = a._data
    y = _operand(b)
    if np.shape(y) != x.shape:
        _check_fits(x, y)
    if x.dtype.kind != "f" and np.result_type(x, y).kind == "f":
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{'Long' if x.dtype.kind == 'i' else 'Bool'}: in-place ops keep the dtype")
    op(x, y, out=x, casting="unsafe")


class AddInplace(InplaceBuiltin):
    _backward_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.other_shape = b.shape if isinstance(b, Tensor) else None
        _apply_inplace(np.add, a, b)
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        gb = unbroadcast(grad, ctx.other_shape) if ctx.other_shape is not None else None
        return grad, gb


class SubInplace(InplaceBuiltin):
    _backward_name = "SubBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.other_shape = b.shape if isinstance(b, Tensor) else None
        _apply_inplace(np.subtract, a, b)
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        gb = unbroadcast(-grad, ctx.other_shape) if ctx.other_shape is not None else None
        return grad, gb


class MulInplace(InplaceBuiltin):
    """``a *= b``: the gradient needs the *old* ``a``, so it is kept (as a copy) when b needs grad."""
    _backward_name = "MulBackward0"
    _saved_names = ("other",)

    @staticmethod
    def forward(ctx, a, b):
        if isinstance(b, Tensor):
            ctx.save_for_backward(b)
            ctx.old_self = Tensor._wrap(a._data.copy()) if ctx.needs_input_grad[1] else None
        else:
            ctx.scalar = b
        _apply_inplace(np.multiply, a, b)
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        if "scalar" in ctx.__dict__:
            return grad * ctx.scalar, None
        b, = ctx.saved_tensors
        ga = grad * b if ctx.needs_input_grad[0] else None
        gb = unbroadcast(grad * ctx.old_self, b._data.shape) if ctx.needs_input_grad[1] else None
        return ga, gb


class DivInplace(InplaceBuiltin):
    _backward_name = "DivBackward0"
    _saved_names = ("other",)

    @staticmethod
    def forward(ctx, a, b):
        if isinstance(b, Tensor):
            ctx.save_for_backward(b)
            ctx.old_self = Tensor._wrap(a._data.copy()) if ctx.needs_input_grad[1] else None
        else:
            ctx.scalar = b
        _apply_inplace(np.true_divide, a, b)
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        if "scalar" in ctx.__dict__:
            return grad / ctx.scalar, None
        b, = ctx.saved_tensors
        ga = grad / b if ctx.needs_input_grad[0] else None
        gb = unbroadcast(-grad * ctx.old_self / (b * b), b._data.shape) if ctx.needs_input_grad[1] else None
        return ga, gb


class Fill(InplaceBuiltin):
    _backward_name = "FillBackward2"

    @staticmethod
    def forward(ctx, a, value):
        a._data[...] = _operand(value)
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        return grad * 0, None


class Zero(InplaceBuiltin):
    _backward_name = "ZeroBackward0"

    @staticmethod
    def forward(ctx, a):
        a._data[...] = 0
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        return grad * 0


class Copy(InplaceBuiltin):
    _backward_name = "CopyBackwards"

    @staticmethod
    def forward(ctx, a, src):
        try:
            np.copyto(a._data, src._data, casting="unsafe")
        except ValueError:
            raise broadcast_error(a._data, src._data) from None
        ctx.src_shape, ctx.src_dtype = src.shape, src._data.dtype
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        g = unbroadcast(grad, ctx.src_shape)
        if g._data.dtype != ctx.src_dtype:
            g = g.to(dtype=g._dtype_from_numpy(ctx.src_dtype))
        return grad * 0, g
