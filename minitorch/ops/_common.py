"""What the op definitions share (chapters 3 and 6): the base class of built-in ops,
reducing a broadcast gradient, dtype promotion of operands, dims and shapes.
"""

import numpy as np

from .._dtype import result_type, float_result, from_numpy_dtype
from .._tensor import Tensor
from ..autograd import anomaly_mode, grad_mode
from ..autograd.function import (BackwardCFunction, Function, as_outputs, describe_outputs,
                                 transform_apply,
                                 edge_to, finish_unrecorded, link_into_graph, needs_input_grad,
                                 share_version_counter,
                                 save_and_mark_dirty, _fresh_memory, _pack_saved,
                                 _only_graph_inputs)
from ..autograd.graph import NO_EDGE, _sequence

__all__ = ["BuiltinFunction", "unbroadcast", "unbroadcast_array", "sum_to_shape",
           "shapes_if_broadcast", "binary_operands", "as_float",
           "normalize_dim", "normalize_dims", "as_shape", "broadcast_error", "wrap",
           "number_operands", "number_like", "type_name_of", "must_be_tensor",
           "node_attribute", "BuiltinBackward", "broadcast_shapes"]

wrap = Tensor._wrap
_grad_mode = grad_mode._state      # this thread's grad-mode flags (chapter 5)
_anomaly = anomaly_mode._state     # anomaly detection: one switch for the whole process


class BuiltinBackward(BackwardCFunction):
    """The node of a built-in op.  Besides the usual path, it has a faster one:
    an op may define ``backward_on_arrays``, the same derivative written on numpy
    arrays, which runs when the gradient needs no graph of its own (grad mode off
    during backward, which is the case unless ``create_graph=True``).  It reads
    the saved values with ``ctx.saved_arrays``, which checks their versions as
    ``ctx.saved_tensors`` does.  The performance appendix measures what it buys.
    """

    def save_for_backward(self, *tensors):
        """Built-in ops pass only tensors or None: kept without the check a user's
        Function gets."""
        self._to_save = tensors

    def mark_dirty(self, *tensors):
        """Built-in ops mark only their tensor input: kept without the check."""
        self._dirty = tensors

    @property
    def saved_arrays(self):
        saved = self._saved
        if saved is None:
            return tuple([None if t is None else t._data for t in self._to_save])
        if len(saved) == 1 and saved[0] is not None:    # the common case, written out:
            s = saved[0]                # kept values (not freed, no hooks), unchanged
            if s.data is not None and s.version_counter.version == s.saved_version:
                return (s.data,)
            return (s.unpack_array(self),)
        return tuple([None if s is None else s.unpack_array(self) for s in saved])

    def _run_backward(self, grad_outputs, owned):
        on_arrays = self._forward_cls.backward_on_arrays
        grad = grad_outputs[0]
        # A live transform needs the tensor path too: forward mode carries tangents
        # through the gradient's ops (forward over reverse, chapter 12).
        if on_arrays is None or grad is None or _grad_mode.enabled \
                or self._input_meta is not None or _anomaly.enabled \
                or transform_apply[0] is not None:
            return BackwardCFunction._run_backward(self, grad_outputs, owned)
        incoming = grad._data
        results = on_arrays(self, incoming)
        if type(results) is np.ndarray:
            if results.base is None and results is not incoming:    # one new array (usual)
                return [wrap(results)], _OWNS_ONE[True]
        elif type(results) is tuple and len(results) == 2:
            first, second = results
            if second is None:          # a new array and a None (``a * 2``)
                if type(first) is np.ndarray and first.base is None and first is not incoming:
                    return [wrap(first), None], _OWNS_PAIR[True]
            elif first is incoming and second is incoming:  # passed on twice (``a + b``)
                return [grad, grad], _OWNS_PAIR[False]
        return _wrap_array_results(results, grad, owned[0])


def _wrap_array_results(results, grad, grad_owned):
    """The arrays ``backward_on_arrays`` returned, as tensors, and which ones the engine
    owns: the incoming gradient passed on keeps its ownership; a new array is owned;
    a view of the incoming gradient is owned as it was (see ``_fresh_memory``)."""
    if type(results) is np.ndarray and results is not grad._data:    # one new gradient
        t = wrap(results)
        return [t], _OWNS_ONE[results.base is None or
                              _fresh_memory(t, (grad,), (grad_owned,))]
    if type(results) is not tuple:
        results = (results,)
    elif len(results) == 2 and results[1] is None and type(results[0]) is np.ndarray:
        first = results[0]          # a gradient and a None (``a * 2``)
        if first is grad._data:
            return [grad, None], _OWNS_PAIR[grad_owned]
        t = wrap(first)
        return [t, None], _OWNS_PAIR[first.base is None or
                                     _fresh_memory(t, (grad,), (grad_owned,))]
    tensors, owns = [], []
    incoming = grad._data
    passed_on = None                    # where the incoming gradient went first
    for r in results:
        if r is None:
            tensors.append(None)
            owns.append(False)
        elif r is incoming:
            tensors.append(grad)
            if passed_on is None:
                passed_on = len(owns)
                owns.append(grad_owned)
            else:                       # passed on twice (``a + b``): shared by both
                owns[passed_on] = False
                owns.append(False)
        else:
            if type(r) is not np.ndarray:
                r = np.asarray(r)
            t = wrap(r)
            tensors.append(t)
            owns.append(r.base is None or _fresh_memory(t, (grad,), (grad_owned,)))
    return tensors, owns


# The ownership flags of one gradient, or a gradient and a None: shared, since nothing
# changes them.
_OWNS_ONE = {False: (False,), True: (True,)}
_OWNS_PAIR = {False: (False, False), True: (True, False)}


class BuiltinFunction(Function):
    """Base of minitorch's own ops.  They are Functions like yours, with promises:

    * their ``forward`` computes on numpy arrays (it may return one, which
      ``apply`` wraps), so nothing inside it could be recorded;
    * their ``backward`` returns gradients of the right shape and dtype, as new
      tensors or as its incoming gradient unchanged, so the engine may keep them
      as ``.grad`` without copying them;
    * when no gradient at all reaches them, there is nothing to compute, and
      backward is skipped.

    These promises let ``apply`` leave out the grad-mode switch and the checks
    that a user's Function needs (see the performance appendix).
    """
    _node_base = BuiltinBackward
    _returns_new_gradients = True
    _skip_without_gradient = True
    backward_on_arrays = None       # optional: see BuiltinBackward

    @classmethod
    def apply(cls, *args):
        """``Function.apply``'s three steps, with what the promises make unnecessary left
        out and the common case (one new output, one or two arguments) written out."""
        if transform_apply[0] is not None:       # forward mode or vmap (chapters 12, 13)
            return transform_apply[0](cls, args, None)
        ctx = cls._backward_cls()                                   # 1. the node
        ctx._to_save, ctx._saved = (), None
        first, n = args[0], len(args)
        needs = isinstance(first, Tensor) and first._requires_grad
        tensors = n > 2                 # more than one tensor argument (dtypes may differ)
        if n == 1:
            ctx.needs_input_grad = _NEEDS_ONE[needs]
        elif n == 2:
            second = args[1]
            tensors = isinstance(second, Tensor)
            needs_second = tensors and second._requires_grad
            ctx.needs_input_grad = _NEEDS_TWO[needs][needs_second]
            needs = needs or needs_second
        else:
            ctx.needs_input_grad = needs_input_grad(args)
            needs = True in ctx.needs_input_grad
        result = cls.forward(ctx, *args)                            # 2. forward
        if type(result) is np.ndarray:          # a new array: the usual result
            out = wrap(result)
            if cls._is_view:
                share_version_counter(first, (out,))
        elif type(result) is Tensor and not (ctx._dirty or ctx._non_differentiable or
                                             cls._is_view):
            out = result                        # made in forward, to save it (``Exp``)
        else:                   # several outputs, in-place changes, numpy scalars...
            return _apply_rare(cls, ctx, args, result, needs)
        if needs and _grad_mode.enabled:                            # 3. record
            ctx._seq_nr = next(_sequence)
            if n == 1:
                ctx._next_edges = (edge_to(first),)
            elif n == 2 and not tensors:    # a tensor and a number (``a * 2``)
                ctx._next_edges = (edge_to(first), NO_EDGE if cls._wraps_numbers else False)
            else:
                ctx._next_edges = _edges(ctx, args)
            if cls._graph_inputs:
                ctx._next_edges = _only_graph_inputs(ctx._next_edges, args,
                                                     cls._graph_inputs)
            if out._data.dtype.kind == "f":
                out._grad_fn, out._requires_grad = ctx, True
            if tensors and not (n == 2 and type(first) is Tensor and
                                first._data.dtype is out._data.dtype is second._data.dtype):
                _check_dtype_changes(ctx, args, (out,))
            if _anomaly.enabled:
                anomaly_mode.remember_forward(ctx)
            if ctx._to_save:
                ctx._saved = _pack_saved(ctx, (out,))
        elif grad_mode._inference_blocks[0] and _grad_mode.inference:
            finish_unrecorded(ctx, (out,))
        return out


def _apply_rare(cls, ctx, args, result, needs):
    """Step 3 for what ``apply`` leaves out: an in-place change (with nothing recorded,
    as an optimizer's, only the version counter moves), several outputs, a view that
    is not a new array, non-differentiable outputs, a numpy scalar."""
    if ctx._dirty and not (needs and _grad_mode.enabled) \
            and not grad_mode.inference_may_be_on():
        for t in ctx._dirty:            # an unrecorded in-place change (optimizers)
            t._version_counter.version += 1
        return result
    return _apply_general(cls, ctx, args, result, needs)


# ``needs_input_grad`` for one and two arguments: tuples shared by all nodes, since a
# tuple of the node's own would be one more object per op for the garbage collector.
# Indexed by the flags themselves (False is 0, True is 1).
_NEEDS_ONE = ((False,), (True,))
_NEEDS_TWO = tuple(tuple((a, b) for b in (False, True)) for a in (False, True))


def _edges(ctx, args):
    """``link_into_graph``'s edges for two tensors, or for more arguments (``apply`` writes
    out one tensor, and a tensor and a number): ``edge_to`` for a tensor; for anything
    else, the empty edge if the op counts numbers as inputs, else none."""
    if len(args) == 2:
        return (edge_to(args[0]), edge_to(args[1]))
    other = NO_EDGE if ctx._wraps_numbers else False
    return tuple([edge_to(a) if isinstance(a, Tensor) else other for a in args])


def _apply_general(cls, ctx, args, result, needs):
    """Step 3 for views, several outputs, in-place changes and optional tensor inputs.
    (In a course release that stubs task 4.1, every recorded op takes it: ``apply``'s
    own recording would show the task's answer; see classroom/tasks.toml.)"""
    outputs = as_outputs(result, args, ctx)
    if needs and grad_mode._state.enabled:
        link_into_graph(ctx, args, outputs)
        describe_outputs(ctx, outputs)
        if len(args) > 1 and isinstance(args[1], Tensor):
            _check_dtype_changes(ctx, args, outputs)
        if ctx._to_save or ctx._dirty:
            save_and_mark_dirty(ctx, outputs)
    elif ctx._dirty or grad_mode.inference_may_be_on():
        finish_unrecorded(ctx, outputs)
    return outputs[0] if type(result) is not tuple else tuple(outputs)


def _check_dtype_changes(ctx, args, outputs):
    """When the result's dtype differs from an input's (float32 * float64), remember the
    inputs' dtypes so that backward returns each gradient in its input's dtype."""
    out = outputs[0]._data.dtype if isinstance(outputs[0], Tensor) else None
    for a in args:
        if isinstance(a, Tensor) and a._requires_grad and a._data.dtype is not out:
            ctx._input_meta = tuple((x._data.shape, x.dtype) if isinstance(x, Tensor) and
                                    x._requires_grad else None for x in args)
            return


# ----- broadcasting ------------------------------------------------------------------------
def unbroadcast(grad, shape):
    """The gradient of an input of ``shape`` that was broadcast to ``grad``'s shape.

    Broadcasting copied the input along the dims it added or stretched, so
    each copy received a share of the gradient: sum them back (chapter 3).
    """
    if grad.shape == shape:
        return grad
    return grad.sum_to_size(shape)


def unbroadcast_array(grad, shape):
    """``unbroadcast`` on arrays (the array path of backward): the gradient itself when
    nothing was broadcast, passed on without a copy."""
    if grad.shape == shape:
        return grad
    return sum_to_shape(grad, shape)


def shapes_if_broadcast(a, b):
    """The shapes of two tensor operands, which backward needs to sum each gradient back
    (``unbroadcast``); None when they are equal, so that nothing was broadcast and the
    node keeps no tuples (fewer objects for the garbage collector to visit)."""
    shape_a, shape_b = a._data.shape, b._data.shape
    return None if shape_a == shape_b else (shape_a, shape_b)


def sum_to_shape(x, shape):
    """Sum the array ``x`` over the dims that broadcasting added or stretched, to get
    ``shape``."""
    ### BEGIN SOLUTION 3.1
    lead = x.ndim - len(shape)
    stretched = tuple(lead + i for i, size in enumerate(shape)
                      if size == 1 and x.shape[lead + i] != 1)
    summed = x.sum(axis=tuple(range(lead)) + stretched, keepdims=True)
    return summed.reshape(shape)
    ### END SOLUTION 3.1


def broadcast_error(a, b):
    """numpy's broadcasting ValueError, restated as PyTorch's RuntimeError."""
    sa, sb = list(np.shape(a)), list(np.shape(b))
    for i in range(1, max(len(sa), len(sb)) + 1):
        da = sa[-i] if i <= len(sa) else 1
        db = sb[-i] if i <= len(sb) else 1
        if da != db and da != 1 and db != 1:
            dim = max(len(sa), len(sb)) - i
            return RuntimeError(
                f"The size of tensor a ({da}) must match the size of tensor b ({db}) at "
                f"non-singleton dimension {dim}: shapes {sa} and {sb} do not broadcast. "
                "Reshape one of them, or add a dimension with unsqueeze().")
    return RuntimeError(f"shapes {sa} and {sb} cannot be broadcast together")


def broadcast_shapes(*arrays):
    """The shape ``arrays`` broadcast to, or PyTorch's RuntimeError naming the first two that
    do not broadcast."""
    shape = ()
    for x in arrays:
        try:
            shape = np.broadcast_shapes(shape, np.shape(x))
        except ValueError:
            raise broadcast_error(np.broadcast_to(np.zeros(()), shape), x) from None
    return shape


# ----- dtypes ------------------------------------------------------------------------------
def binary_operands(a, b, dtype=None):
    """The numpy values of ``a`` (a tensor) and ``b`` (a tensor or a Python number), both
    converted to ``dtype`` (by default the result dtype of PyTorch's promotion)."""
    x = a._data
    if dtype is None:
        kind = x.dtype.kind
        if type(b) is float and kind == "f" or type(b) is int and kind in "fiu":
            return x, b             # a number that does not change the dtype
        if isinstance(b, Tensor) and b._data.dtype == x.dtype:
            return x, b._data
        dtype = result_type(a, b)
    target = dtype.numpy_dtype
    x = x if x.dtype == target else x.astype(target)
    if isinstance(b, Tensor):
        y = b._data if b._data.dtype == target else b._data.astype(target)
    else:
        y = _number_as(b, target)
    return x, y


def number_operands(a, number):
    """``binary_operands`` for a tensor and a Python number (``a * 2.5``).  For a
    floating-point tensor the number comes back as a 0-d array of the tensor's dtype,
    which numpy takes faster, with the same result (see ``number_like``)."""
    x = a._data
    if x.dtype.kind == "f" and (type(number) is float or type(number) is int):
        return x, np.asarray(number, x.dtype)
    return binary_operands(a, number)


def number_like(number, x):
    """``number`` as a 0-d array of the floating array ``x``'s dtype.  numpy casts a
    Python number to that dtype anyway (NEP 50), so the result has the same bits; but
    deciding the number's dtype makes multiplying a small array about half as costly
    again, more than making the 0-d array costs (the performance appendix measures it,
    ``tests/test_fast_paths.py`` checks the bits)."""
    return np.asarray(number, x.dtype)


def _number_as(value, np_dtype):
    """A Python number as a numpy scalar of ``np_dtype``, refusing values that do not fit."""
    if np_dtype.kind in "iu":
        info = np.iinfo(np_dtype)
        if not info.min <= value <= info.max:
            raise RuntimeError(f"value cannot be converted to type {np_dtype.name} without "
                               f"overflow: {value} is outside [{info.min}, {info.max}]")
    return np_dtype.type(value)


def as_float(a):
    """``a``'s values as floating point: its own dtype if it is one, the default otherwise."""
    x = a._data
    if x.dtype.kind == "f":
        return x
    target = float_result(from_numpy_dtype(x.dtype)).numpy_dtype
    return x if x.dtype == target else x.astype(target)


def result_dtype(*operands):
    return result_type(*operands)


def float_dtype_of(a, b=None):
    """The dtype of a result that is always floating point (true division...)."""
    if isinstance(b, Tensor) and b._data.dtype == a._data.dtype or b is None or \
            type(b) is float or type(b) is int:
        if a._data.dtype.kind == "f":
            return from_numpy_dtype(a._data.dtype)
    return float_result(result_type(a) if b is None else result_type(a, b))


# ----- dims and shapes -----------------------------------------------------------------------
def normalize_dim(dim, ndim):
    """A dim in ``[-ndim, ndim)`` as a non-negative index, or PyTorch's IndexError."""
    low, high = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise TypeError(f"dim must be an int, not {type(dim).__name__}")
    if dim < low or dim > high:
        raise IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], "
                         f"but got {dim})")
    return int(dim) % ndim if ndim else 0


def normalize_dims(dim, ndim):
    """``dim`` (None, an int, or a sequence of ints) as a sorted tuple of non-negative dims."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (tuple, list)):
        dims = tuple(normalize_dim(d, ndim) for d in dim)
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"dim {dims[0] if dims else dim} appears multiple times in the "
                               "list of dims")
        return tuple(sorted(dims))
    return (normalize_dim(dim, ndim),)


def as_shape(size, name=None, arg="size"):
    """Accept ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` or ``f(torch.Size(...))``: ``(2, 3)``.

    Anything else is refused with PyTorch's TypeError, naming the function ``name``."""
    where = f"{name}(): argument '{arg}'" if name else f"argument '{arg}'"
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
        for i, s in enumerate(size):
            if not _is_size(s):
                raise TypeError(f"{where} must be tuple of ints, but found element of type "
                                f"{type_name_of(s)} at pos {i}")
        return tuple([s if isinstance(s, int) else int(s) for s in size])
    for i, s in enumerate(size):
        if _is_size(s):
            continue
        if len(size) == 1:
            raise TypeError(f"{where} (position 1) must be tuple of ints, not "
                            f"{type_name_of(s)}")
        if isinstance(s, (tuple, list)) and name:
            raise TypeError(f"{name}() takes 1 positional argument but {len(size)} were given: "
                            f"pass the sizes either one by one or as one tuple")
        raise TypeError(f"{where} must be tuple of ints, but found element of type "
                        f"{type_name_of(s)} at pos {i}")
    return tuple([s if isinstance(s, int) else int(s) for s in size])  # (a SymInt stays)


def _is_size(s):
    return type(s) is int or (isinstance(s, (int, np.integer)) and not isinstance(s, bool)) \
        or _is_int_tensor(s)


def _is_int_tensor(s):
    return isinstance(s, Tensor) and s._data.size == 1 and s._data.dtype.kind in "iu"


def type_name_of(x):
    """How PyTorch names the type of a wrong argument (``numpy.ndarray`` in full)."""
    if isinstance(x, np.ndarray):
        return "numpy.ndarray"
    return type(x).__name__


def must_be_tensor(x, name, arg="input", position=1):
    """PyTorch's TypeError for a non-tensor where a tensor argument is expected."""
    return TypeError(f"{name}(): argument '{arg}' (position {position}) must be Tensor, not "
                     f"{type_name_of(x)}")


def node_attribute(function, name, value):
    """Give the nodes of a built-in ``function`` an attribute (a constant or a property),
    e.g. ``_saved_alpha``: what PyTorch's nodes of that op show besides saved tensors."""
    setattr(function._backward_cls, name, value)
