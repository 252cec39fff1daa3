"""In-place ops: ``add_``, ``sub_``, ``mul_``, ``div_``, ``zero_``, ``fill_``, ``copy_`` (chapter 5).

An in-place op overwrites its input's memory.  It marks that input dirty
(``ctx.mark_dirty``), so ``Function.apply`` bumps the version counter that
the tensor shares with its views, and, when recording, makes the node the
tensor's new ``grad_fn``.  Saved tensors remember the version they were saved
at, and backward refuses to use one that has changed since.

Before touching any memory, :func:`check_in_place` refuses what autograd
could not follow, so a refused op leaves the tensor as it was.  After a
recorded change through a view of a tensor that needed no gradient,
:func:`record_change_in_base` gives that tensor (the view's base) a
``CopySlices`` node, so that gradients reach the operand through the base too.
"""

import re

import numpy as np

from .._dtype import can_cast, result_type
from .._tensor import Tensor
from ..autograd import _interpose, grad_mode
from ..autograd.function import leaf_in_place_error
from ._common import BuiltinFunction, broadcast_error, type_name_of, unbroadcast, wrap
from .arithmetic import _refuse_bool_subtraction
from .indexing import Index
from .pointwise import ReluGrad

__all__ = ["AddInplace", "SubInplace", "MulInplace", "DivInplace", "Fill", "FillTensor", "Zero",
           "Copy", "ReluInplace", "relu_", "CopyIntoView",
           "check_in_place", "record_change_in_base", "in_place", "update_unrecorded", "add_arrays"]


def check_in_place(t, *others, through_view=False):
    """Refuse an in-place change that autograd cannot follow, before any memory is touched.
    ``through_view``: the change writes into a view of ``t`` (``t[key] = value``)."""
    if t._is_inference and not grad_mode.is_inference_mode_enabled():
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not "
                           "allowed. You can make a clone to get a normal tensor before doing "
                           "inplace update.")
    if not grad_mode.is_grad_enabled():
        return
    involved = t._requires_grad or any(isinstance(o, Tensor) and o._requires_grad for o in others)
    if t._grad_fn is not None and getattr(t, "_made_in_custom_function", False):
        raise custom_function_view_error(t)
    if t._view_made_without_grad:
        raise RuntimeError(
            "A view was created in no_grad mode and is being modified inplace with grad mode "
            "enabled. Make both the view and the in-place change inside the no_grad block (not "
            "recorded), or both outside it (recorded).")
    if t._grad_fn is None and t._requires_grad:
        if through_view:
            raise _view_of_leaf_error()
        raise leaf_in_place_error("is being")
    if t._base is not None and _written_through_views(t._base) and not t._tangent_free_alias:
        if not _sees_latest_write(t, t._base):
            raise _stale_view_error()
        return
    if t._base is not None and involved:
        base = t._base
        if base._grad_fn is None and base._requires_grad:
            raise _view_of_leaf_error()
        if not base._requires_grad and not t._tangent_free_alias:
            _check_layout(base)
        if base._requires_grad:
            raise RuntimeError(
                "minitorch does not support in-place operations on a view of a tensor that is "
                "part of the autograd graph (PyTorch rewrites the base tensor's graph for "
                "this). Use the out-of-place operation, or clone() the base tensor first.")


def _written_through_views(base):
    """Is ``base``'s graph made only of changes written through its views
    (``CopySlices`` nodes from :func:`record_change_in_base`)?"""
    return type(base._grad_fn) is CopyIntoView._backward_cls


def _sees_latest_write(view, base):
    """Does ``view``'s graph know about the latest change written into ``base``?  Its
    view nodes must lead to ``base``'s ``CopySlices`` node (taken after that change) or to
    the node of that change itself (the view written last, or a view of it)."""
    latest = base._grad_fn
    written = latest._next_edges[1][0]
    node = view._grad_fn
    while node is not None:
        if node is latest or node is written:
            return True
        if not node._is_view:
            return False
        node = node._next_edges[0][0]
    return False


def _stale_view_error():
    return RuntimeError(
        "this view was taken before another in-place change written through a view of the "
        "same base tensor, so its graph does not know that change (PyTorch would refresh "
        "it; minitorch does not). Take the view again after the change, e.g. row = buf[1], "
        "and change that one in place.")


def _check_layout(base):
    """:func:`record_change_in_base` finds a view's elements in its base by their memory
    offsets: refuse a base whose steps go backwards or between elements, before
    anything changes."""
    itemsize = base._data.itemsize
    if any(s < 0 or s % itemsize for s in base._data.strides):
        raise RuntimeError(
            "minitorch records an in-place change through a view only when the view's base "
            "tensor steps forward through its memory, element by element; this one does "
            "not. Make the base with .contiguous() (or clone()) before taking the view, or "
            "make the change out of place.")


def custom_function_view_error(t):
    """PyTorch's error for changing in place an output that a custom Function returned as
    one of its inputs, or as a view of one (a module's full backward hooks make such
    outputs: see ``nn.modules._backward_hook``)."""
    op = re.sub(r"Backward\d*$", "", t._grad_fn.name())
    return RuntimeError(
        f"Output {t._output_nr} of {op} is a view and is being modified inplace. This view "
        "was created inside a custom Function (or because an input was returned as-is) and "
        "the autograd logic to handle view+inplace would override the custom backward "
        "associated with the custom Function, leading to incorrect gradients. This behavior "
        "is forbidden. You can fix this by cloning the output of the custom Function.")


def _view_of_leaf_error():
    return RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                        "in-place operation. Do it under minitorch.no_grad() or work on a "
                        "clone.")


class CopyIntoView(BuiltinFunction):
    """The base's side of an in-place change made through one of its views (chapter 5):
    the node that :func:`record_change_in_base` gives the base, named as PyTorch's.
    Its edges lead to the base's graph before the change (input 0) and to the view's
    new node (input 1); backward sends the view's region of the gradient to the view
    and the rest to the base's earlier graph."""
    _backward_name = "CopySlices"
    _node_name = "torch::autograd::CopySlices"
    _graph_inputs = 2

    @staticmethod
    def forward(ctx, base, view, positions):
        ctx.positions = positions
        return base._data           # the node is moved onto ``base``: nothing is computed

    @staticmethod
    def backward(ctx, grad):
        region = Index.apply(grad.reshape(-1), (ctx.positions,))
        rest = None
        if ctx.needs_input_grad[0]:
            kept = np.ones(grad.shape, dtype=bool)
            kept.reshape(-1)[ctx.positions] = False
            rest = grad * wrap(kept)
        return rest, region, None


def record_change_in_base(t):
    """After an in-place op changed ``t``: if ``t`` is a view and the change was recorded,
    give its base a ``CopySlices`` node as PyTorch does, and return ``t``.

    The op made its node ``t``'s ``grad_fn``, but the base shares ``t``'s memory and
    holds the new values too: without a node of its own it would keep
    ``requires_grad=False`` and a later ``base.sum().backward()`` would miss the operand
    (a silent wrong result).  The node adds no version bump (the op made the one
    change).  ``check_in_place`` has refused the cases this cannot follow: a base
    with a graph of another kind, a view older than the base's latest such change.
    PyTorch also gives ``t`` a new ``grad_fn`` (``AsStridedBackward0``, above the
    base's node); minitorch keeps the op's node there, with the same gradients.
    """
    base = t._base
    if base is None or not t._requires_grad or t._tangent_free_alias \
            or not grad_mode.is_grad_enabled() or _interpose.vmap_levels:
        return t
    if base._requires_grad and not _written_through_views(base):
        return t
    # A bookkeeping node, not an op of the program: no transform (forward mode) sees it.
    node_holder = _interpose.plain_apply(CopyIntoView, (base, t, _positions_in(base, t)))
    base._grad_fn, base._requires_grad, base._output_nr = node_holder._grad_fn, True, 0
    return t


def _positions_in(base, view):
    """Where ``view``'s elements sit in ``base``, as indices into ``base.reshape(-1)``
    (row-major), in an array of ``view``'s shape."""
    data, itemsize = base._data, base._data.itemsize
    offset = (view._data.__array_interface__["data"][0]
              - data.__array_interface__["data"][0]) // itemsize
    if data.flags.c_contiguous:     # memory offsets are the row-major indices
        return _offsets(offset, view._data.shape, [s // itemsize for s in view._data.strides])
    # Otherwise write each element's row-major index at its place in a copy of the base's
    # memory layout, and read them back through the view's offset and strides.
    extent = 1 + sum((n - 1) * s // itemsize for n, s in zip(data.shape, data.strides))
    memory = np.zeros(extent if data.size else 0, dtype=np.intp)
    layout = np.lib.stride_tricks.as_strided
    layout(memory, data.shape, _steps(data, memory))[...] = np.arange(data.size).reshape(data.shape)
    return layout(memory[offset:], view._data.shape, _steps(view._data, memory)).copy()


def _offsets(start, shape, strides):
    """The element offsets of an array laid out by ``start``, ``shape``, ``strides``."""
    positions = np.full(shape, start, dtype=np.intp)
    for dim, (n, stride) in enumerate(zip(shape, strides)):
        positions += (np.arange(n) * stride).reshape((n,) + (1,) * (len(shape) - dim - 1))
    return positions


def _steps(array, memory):
    """``array``'s strides, moved from its element size to ``memory``'s."""
    return [s // array.itemsize * memory.itemsize for s in array.strides]


def _fits(t, other):
    """``other`` may be combined into ``t`` in place: same shape after broadcasting, and a
    result type that ``t``'s dtype can hold."""
    if isinstance(other, Tensor):
        if other._data.shape == t._data.shape and other._data.dtype == t._data.dtype:
            return                  # the common case: nothing to broadcast or cast
    elif type(other) is float and t._data.dtype.kind == "f":
        return
    shape = other._data.shape if isinstance(other, Tensor) else ()
    try:
        broadcast = np.broadcast_shapes(t._data.shape, shape)
    except ValueError:
        raise broadcast_error(t._data, np.empty(shape)) from None
    if broadcast != t._data.shape:
        raise RuntimeError(f"output with shape {list(t._data.shape)} doesn't match the "
                           f"broadcast shape {list(broadcast)}")
    produced = result_type(t, other)
    if not can_cast(produced, t.dtype):
        raise RuntimeError(f"result type {produced.type_name} can't be cast to the desired "
                           f"output type {t.dtype.type_name}")


def in_place(function, t, other, name, alpha=1):
    """``t.<name>_(other)`` (``alpha``: ``t.add_(other, alpha=...)``): checked first, then
    applied."""
    if not isinstance(other, (Tensor, bool, int, float)):
        raise TypeError(f"{name}(): argument 'other' (position 1) must be Tensor, not "
                        f"{type_name_of(other)}")
    if function is SubInplace:
        if t._data.dtype.kind == "b" or type(other) is bool or \
                isinstance(other, Tensor) and other._data.dtype.kind == "b":
            _refuse_bool_subtraction(t, other)
    _fits(t, other)
    check_in_place(t, other)
    changed = function.apply(t, other) if alpha == 1 else function.apply(t, other, alpha)
    return record_change_in_base(changed)


def _values(other, dtype):
    return other._data.astype(dtype, copy=False) if isinstance(other, Tensor) else other


class InPlaceOp(BuiltinFunction):
    """Base of the in-place ops: forward changes its first argument and marks it dirty."""


class AddInplace(InPlaceOp):
    """``a += alpha * b`` (``a.add_(b, alpha=...)``): ``b`` a tensor or a number."""
    _backward_name = "AddBackward0"
    _wraps_numbers = True

    _ufunc = np.add

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        ctx.other_shape, ctx.alpha = (b.shape if isinstance(b, Tensor) else None), alpha
        _combine(np.add, a, b, alpha)
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        need_b = ctx.needs_input_grad[1]
        return grad, unbroadcast(grad * ctx.alpha, ctx.other_shape) if need_b else None, None


class SubInplace(InPlaceOp):
    """``a -= alpha * b``."""
    _backward_name = "SubBackward0"
    _wraps_numbers = True

    _ufunc = np.subtract

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        ctx.other_shape, ctx.alpha = (b.shape if isinstance(b, Tensor) else None), alpha
        _combine(np.subtract, a, b, alpha)
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        need_b = ctx.needs_input_grad[1]
        return grad, unbroadcast(grad * -ctx.alpha, ctx.other_shape) if need_b else None, None


def _combine(ufunc, a, b, alpha):
    """``a <- a + alpha * b`` (``np.add``) or ``a - alpha * b`` (``np.subtract``), in
    ``a``'s memory: the array work of ``add_`` and ``sub_``."""
    ufunc(a._data, _scaled_values(b, alpha, a._data.dtype), out=a._data, casting="unsafe")


def update_unrecorded(function, a, b, alpha):
    """``a.add_(b, alpha=...)`` (or ``sub_``) when nothing is recorded, as an optimizer's
    update under no_grad: the op's array work and the version bump that any in-place
    change makes, without building a node that would be thrown away (see the
    performance appendix).  ``check_in_place`` must have passed first."""
    _combine(function._ufunc, a, b, alpha)
    a._version_counter.version += 1
    return a


def add_arrays(a, b, in_place):
    """``a.add_(b)`` (``in_place``) or ``a + b`` for two tensors of one dtype and shape,
    when nothing is recorded: the array work of those ops and the version bump of
    ``add_``, without building their nodes.  The engine sums two gradients that meet
    this way (``engine._add_into``)."""
    if in_place:
        return update_unrecorded(AddInplace, a, b, 1)
    return wrap(np.asarray(np.add(a._data, b._data)))     # 0-d: numpy returns a scalar


def _scaled_values(b, alpha, dtype):
    """``alpha * b``'s values in ``dtype`` (``b`` a tensor: alpha is applied in its dtype,
    then the result cast, as PyTorch's kernels do)."""
    if alpha == 1:
        return _values(b, dtype)
    if b._data.dtype is dtype and dtype.kind == "f" and type(alpha) is float:
        return b._data * alpha      # a Python float keeps the array's dtype
    return np.multiply(b._data, alpha, dtype=np.result_type(b._data, alpha)).astype(dtype, copy=False)


class MulInplace(InPlaceOp):
    """``a *= b``: the gradient for ``b`` needs the *old* ``a``, kept as a copy if needed."""
    _backward_name = "MulBackward0"
    _wraps_numbers = True

    @staticmethod
    def forward(ctx, a, b):
        if isinstance(b, Tensor):
            old_a = wrap(a._data.copy()) if ctx.needs_input_grad[1] else None
            ctx.save_for_backward(b, old_a)
        else:
            ctx.number = b
        np.multiply(a._data, _values(b, a._data.dtype), out=a._data, casting="unsafe")
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        if "number" in ctx.__dict__:
            return grad * ctx.number, None
        b, old_a = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (grad * b if need_a else None,
                unbroadcast(grad * old_a, b.shape) if need_b else None)


class DivInplace(InPlaceOp):
    _backward_name = "DivBackward0"
    _wraps_numbers = True

    @staticmethod
    def forward(ctx, a, b):
        if not a.dtype.is_floating_point:
            raise RuntimeError(f"result type Float can't be cast to the desired output type "
                               f"{a.dtype.type_name}")
        if isinstance(b, Tensor):
            old_a = wrap(a._data.copy()) if ctx.needs_input_grad[1] else None
            ctx.save_for_backward(b, old_a)
        else:
            ctx.number = b
        np.true_divide(a._data, _values(b, a._data.dtype), out=a._data, casting="unsafe")
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        if "number" in ctx.__dict__:
            return grad / ctx.number, None
        b, old_a = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (grad / b if need_a else None,
                unbroadcast(-grad * old_a / (b * b), b.shape) if need_b else None)


class Fill(InPlaceOp):
    """Every element set to one value (a number, or a 0-d tensor that may require grad)."""
    _backward_name = "FillBackward2"

    @staticmethod
    def forward(ctx, a, value):
        a._data[...] = value._data if isinstance(value, Tensor) else value
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        grad_value = grad.sum() if ctx.needs_input_grad[1] else None
        return grad * 0, grad_value


class FillTensor(Fill):
    """``fill_`` with a 0-d tensor."""
    _backward_name = "FillBackward3"


def fill_(t, value):
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.ndim} dimensions.")
    elif not isinstance(value, (bool, int, float, np.generic)):
        raise TypeError(f"fill_(): argument 'value' must be Number or a 0-d Tensor, not "
                        f"{type(value).__name__}")
    check_in_place(t, value)
    fill = FillTensor if isinstance(value, Tensor) else Fill
    return record_change_in_base(fill.apply(t, value))


class ReluInplace(InPlaceOp):
    """``a.relu_()``: negative values set to 0 in place.  The derivative needs only the
    result, which the node saves as it is after the change (``ReluBackward0``, as the
    out-of-place relu)."""
    _backward_name = "ReluBackward0"
    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        if a._data.dtype.kind == "b":
            raise RuntimeError("Boolean inputs not supported for relu; convert with .float() "
                               "first")
        np.maximum(a._data, 0, out=a._data)
        ctx.save_for_backward(a)
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        return ReluGrad.apply(grad, result)

    @staticmethod
    def backward_on_arrays(ctx, grad):
        result, = ctx.saved_arrays
        return grad * (result > 0)


def relu_(t):
    check_in_place(t)
    return record_change_in_base(ReluInplace.apply(t))


class Zero(InPlaceOp):
    _backward_name = "ZeroBackward0"

    @staticmethod
    def forward(ctx, a):
        a._data[...] = 0
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        return grad * 0


class Copy(InPlaceOp):
    """``a.copy_(src)``: ``src``'s values (broadcast, converted to ``a``'s dtype) into ``a``."""
    _backward_name = "CopyBackwards"
    _node_name = "torch::autograd::CopyBackwards"

    @staticmethod
    def forward(ctx, a, src):
        np.copyto(a._data, src._data, casting="unsafe")
        ctx.src_shape, ctx.src_dtype = src.shape, src.dtype
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        grad_src = None
        if ctx.needs_input_grad[1]:
            grad_src = unbroadcast(grad, ctx.src_shape).to(ctx.src_dtype)
        return grad * 0, grad_src


def copy_(t, src):
    if isinstance(src, (bool, int, float, np.generic)) and not isinstance(src, np.ndarray):
        src = wrap(np.asarray(src, dtype=t._data.dtype))
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not "
                        f"{type_name_of(src)}")
    if src is t:
        return t
    _check_copy(t._data, src._data)
    check_in_place(t, src)
    return record_change_in_base(Copy.apply(t, src))


def _check_copy(dst, src):
    """PyTorch's errors for a source that does not broadcast to the destination, or whose
    elements overlap the destination's in another layout."""
    try:
        shape = np.broadcast_shapes(dst.shape, src.shape)
    except ValueError:
        raise broadcast_error(dst, src) from None
    if shape != dst.shape:
        raise RuntimeError(f"output with shape {list(dst.shape)} doesn't match the broadcast "
                           f"shape {list(shape)}: copy_ needs a source that broadcasts to the "
                           "destination's shape")
    if src.base is None and dst.base is None:
        return                                  # two arrays with memory of their own
    same_layout = (src.__array_interface__["data"][0] == dst.__array_interface__["data"][0]
                   and src.strides == dst.strides and src.shape == dst.shape)
    if same_layout:
        return
    try:
        overlap = np.shares_memory(dst, src, max_work=10_000)
    except np.exceptions.TooHardError:
        overlap = False                         # PyTorch does not look further either
    if overlap:
        raise RuntimeError("unsupported operation: some elements of the input tensor and the "
                           "written-to tensor refer to a single memory location. Please "
                           "clone() the tensor before performing the operation.")
