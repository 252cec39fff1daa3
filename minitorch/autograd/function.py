"""``autograd.Function``: the one mechanism behind every differentiable op (chapter 4).

A Function is a pair of static methods.  ``forward(ctx, *args)`` computes the
result; ``backward(ctx, *grad_outputs)`` returns one gradient per forward
argument.  ``Function.apply`` glues them into autograd:

1. it makes ``ctx``, which is also the graph node that will become the
   result's ``grad_fn`` (so ``y.grad_fn`` *is* the ctx of the op that made y);
2. it runs ``forward`` with grad mode off, so nothing inside is recorded twice
   (minitorch's own ops compute on numpy arrays only, so they skip the switch);
3. if grad mode is on and some input requires grad, it links the node to the
   inputs' nodes, attaches it to the outputs, and packs the saved tensors.

Every built-in op of minitorch (``minitorch/ops``) is such a Function; the
only liberty they take is that their ``forward`` may return a numpy array,
which ``apply`` wraps in a Tensor.
"""

import functools
import warnings

import numpy as np

from .grad_mode import _state as _grad_state
from .graph import (Node, FREED, FREED_MESSAGE, _sequence, _hooks_state, save_tensor, unpack_saved,
                    unpack_saved_data)

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]

Tensor = None  # set by minitorch._tensor once the Tensor class exists (avoids an import cycle)
_wrap = None   # Tensor._wrap, likewise


class FunctionCtx:
    """The methods ``forward`` may call on its ``ctx`` argument."""

    def save_for_backward(self, *tensors):
        """Keep tensors for ``backward`` (read them back from ``ctx.saved_tensors``).
        Only tensors (or None) can be saved; store other values as ``ctx`` attributes
        (checked when the op is recorded)."""
        self._to_save = tensors

    def mark_dirty(self, *tensors):
        """Declare the inputs that ``forward`` modified in place (and returns)."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        """Declare outputs that have no gradient (indices, masks...)."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        """With False, ``backward`` receives None (not zeros) for outputs that got no gradient."""
        self._materialize_grads = bool(value)


class BackwardCFunction(Node, FunctionCtx):
    """Graph node of one application of a Function; also the ``ctx`` its methods receive.

    Each Function subclass gets its own subclass of this, named after it
    (``ExpBackward`` for a user's ``Exp``; built-ins use PyTorch's names such as
    ``MulBackward0``), which is what ``grad_fn.name()`` reports.
    """

    _forward_cls = None
    _to_save = ()
    _dirty = ()
    _non_differentiable = ()
    _materialize_grads = True
    _output_meta = None

    @property
    def saved_tensors(self):
        """The tensors given to ``save_for_backward``; checks none was modified in place since."""
        saved = self._saved
        if saved is None:  # forward ran without recording: hand back what was given
            return self._to_save
        if saved is FREED:
            raise RuntimeError(FREED_MESSAGE)
        if len(saved) == 1 and saved[0] is not None:     # the common case, without a loop
            return (unpack_saved(saved[0], self),)
        return tuple([None if s is None else unpack_saved(s, self) for s in saved])

    def _pack_saved(self, outputs):
        """Store ``ctx.save_for_backward``'s tensors: inputs as they are, outputs without their graph link."""
        hooks = _hooks_state.stack
        saved = []
        for i, t in enumerate(self._to_save):
            if t is None:
                saved.append(None)
                continue
            if not isinstance(t, Tensor):
                raise TypeError(
                    f"save_for_backward can only save tensors (or None), but argument {i} is of "
                    f"type {type(t).__name__}; store other values as attributes of ctx instead")
            if t._is_inference:
                raise RuntimeError(
                    "Inference tensors cannot be saved for backward. Please do not use Tensors "
                    "created in inference mode in computation tracked by autograd. Make a clone "
                    "to get a normal tensor, or use minitorch.no_grad() instead of inference_mode().")
            output_nr = _output_number(t, outputs)
            if output_nr is not None and t._grad_fn is not self:
                output_nr = None    # a non-differentiable output: no graph link to restore
            saved.append(save_tensor(t, output_nr, hooks[-1] if hooks else None))
        self._saved = saved
        del self._to_save      # it may hold an output: keeping it would make a cycle

    def _apply(self, grad_outputs):
        if self._output_meta is not None and self._materialize_grads:
            grad_outputs = [g if g is not None else _zeros_like_meta(meta)
                            for g, meta in zip(grad_outputs, self._output_meta)]
        grads = self._forward_cls.backward(self, *grad_outputs)
        if type(grads) is not tuple:
            grads = (grads,)
        n_inputs = len(self._next_nodes)
        if len(grads) != n_inputs:
            if len(grads) > n_inputs and all(g is None for g in grads[n_inputs:]):
                grads = grads[:n_inputs]
            else:
                raise RuntimeError(
                    f"function {self.name()} returned an incorrect number of gradients "
                    f"(expected {n_inputs}, got {len(grads)}): backward must return one "
                    "gradient per argument of forward, None for arguments that need none")
        return self._check_gradients(grads)

    def _check_gradients(self, grads):
        """Validate a user's backward: each gradient must fit its input's shape
        (a broadcast-compatible one is summed down to it, as PyTorch does)."""
        checked = []
        for i, (g, meta) in enumerate(zip(grads, self._input_meta)):
            if g is None or meta is None:
                checked.append(None if meta is None else g)
                continue
            if not isinstance(g, Tensor):
                raise TypeError(f"function {self.name()} returned a gradient of type "
                                f"{type(g).__name__} at index {i}; expected a Tensor or None")
            shape, dtype = meta
            if g.shape != shape:
                if not _expandable(shape, g.shape):
                    raise RuntimeError(
                        f"Function {self.name()} returned an invalid gradient at index {i} - got "
                        f"{list(g.shape)} but expected shape compatible with {list(shape)}")
                g = g.sum_to_size(shape)
            if g._data.dtype != dtype:
                g = g.to(dtype=_dtype_of(dtype))
            checked.append(g)
        return tuple(checked)

    @property
    def _input_meta(self):
        return self.__dict__.get("_in_meta", ())


def _output_number(t, outputs):
    """The position of ``t`` among ``outputs`` (by identity), or None if it is not one."""
    for i, o in enumerate(outputs):
        if o is t:
            return i
    return None


def _expandable(shape, target):
    if len(shape) > len(target):
        return False
    for a, b in zip(reversed(shape), reversed(target)):
        if a != b and a != 1:
            return False
    return True


def _zeros_like_meta(meta):
    shape, dtype = meta
    return Tensor._wrap(np.zeros(shape, dtype=dtype))


def _dtype_of(np_dtype):
    from .._dtype import from_numpy_dtype
    return from_numpy_dtype(np_dtype)


class BuiltinBackward(BackwardCFunction):
    """Node of minitorch's own ops: their backward is trusted, so its results are not checked.

    Array mode: when the gradient itself needs no graph (grad mode is off
    during backward unless ``create_graph=True``) and the op's backward uses
    only arithmetic (``_array_backward``), the same formula runs on the numpy
    arrays: ``ctx.saved_tensors`` and the gradients come in as arrays, and the
    results are wrapped back into tensors.
    """

    _arrays = False

    def _apply(self, grad_outputs):
        cls = self._forward_cls
        if not cls._array_backward or _grad_state.enabled:
            grads = cls.backward(self, *grad_outputs)
            return grads if type(grads) is tuple else (grads,)
        grad = grad_outputs[0]          # elementwise ops have a single output
        self._arrays = True
        try:
            results = cls.backward(self, grad._data)
        finally:
            self._arrays = False
        if type(results) is not tuple:
            results = (results,)
        wrapped = []
        for r in results:
            if r is None:
                wrapped.append(None)
            elif r is grad._data:
                # Passed through unchanged: hand on the same tensor, so the engine
                # still sees who else holds it (AccumulateGrad copies shared ones).
                wrapped.append(grad)
            else:
                wrapped.append(_wrap(r if type(r) is np.ndarray else np.asarray(r)))
        return tuple(wrapped)

    @property
    def saved_tensors(self):
        if not self._arrays:
            return BackwardCFunction.saved_tensors.fget(self)
        saved = self._saved
        if saved is FREED:
            raise RuntimeError(FREED_MESSAGE)
        arrays = []
        for entry in saved:
            arrays.append(None if entry is None else unpack_saved_data(entry, self))
        return tuple(arrays)


def _saved_getter(i):
    return lambda node: node.saved_tensors[i]


class FunctionMeta(type):
    """Gives each Function subclass its own node class, named ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        node_name = attrs.get("_backward_name", name + "Backward")
        node_base = BuiltinBackward if cls._builtin else BackwardCFunction
        attrs = {"_forward_cls": cls}
        # ``grad_fn._saved_self``, ``_saved_result``...: built-in ops name their saved
        # tensors the way PyTorch's nodes expose them.
        for i, saved_name in enumerate(cls._saved_names):
            attrs["_saved_" + saved_name] = property(_saved_getter(i), doc=f"saved tensor {saved_name!r}")
        cls._backward_cls = type(node_name, (node_base,), attrs)
        # minitorch's own ops that return one new float result take a shorter path in apply
        cls._fresh_single_output = (cls._builtin and not cls._is_view and not cls._multi_output
                                    and not cls._in_place and not cls._changes_dtype)


class Function(metaclass=FunctionMeta):
    """Base class for differentiable operations.  Subclass it, write static
    ``forward(ctx, ...)`` and ``backward(ctx, ...)``, and call ``YourFunction.apply(...)``.
    """

    _builtin = False      # minitorch's own ops: trusted backward, numpy-only forward
    _is_view = False      # outputs share memory (and the version counter) with input 0
    _multi_output = False  # forward returns a tuple
    _in_place = False      # forward modifies an input (and marks it dirty)
    _array_backward = False  # backward may run on numpy arrays (see BuiltinBackward)
    _changes_dtype = False   # the result may be of another dtype than the inputs (e.g. not float)
    _saved_names = ()     # names for ``grad_fn._saved_<name>`` (built-in ops)

    def __init__(self, *args, **kwargs):
        warnings.warn(f"{type(self)} should not be instantiated: its methods are static, so call "
                      f"{type(self).__name__}.apply(...) on the class itself.", DeprecationWarning,
                      stacklevel=2)

    @staticmethod
    def forward(ctx, *args):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your "
                                  "custom autograd.Function to use it with backward mode AD.")

    vjp = backward

    @classmethod
    def apply(cls, *args):
        """Run ``forward`` on ``args`` and, when grad mode is on and an input requires
        grad, record the call in the backward graph."""
        state = _grad_state
        ctx = cls._backward_cls()
        if state.enabled:
            needs, nodes, nrs = _inspect(args)
            record = True in needs
        else:
            # Nothing is recorded; a user's forward still sees which inputs require grad,
            # as in PyTorch (minitorch's own forwards do not need to know).
            needs = (False,) * len(args) if cls._builtin else _inspect(args)[0]
            record = False
        ctx.needs_input_grad = needs
        if cls._builtin or not state.enabled:
            # minitorch's own forwards only touch numpy arrays: nothing to keep from recording.
            result = cls.forward(ctx, *args)
        else:
            state.enabled = False
            try:
                result = cls.forward(ctx, *args)
            finally:
                state.enabled = True

        if cls._fresh_single_output:
            # The common case, kept short: one new result, nothing modified in place.
            if type(result) is not Tensor:       # an ndarray, or a numpy scalar from 0-d math
                result = _wrap(result if type(result) is np.ndarray else np.asarray(result))
            if record:      # (an input requires grad, so it is float, and so is the result)
                ctx._seq = next(_sequence)
                ctx._next_nodes = nodes
                ctx._next_nrs = nrs
                result._grad_fn = ctx
                result._requires_grad = True
                if ctx._to_save:
                    ctx._pack_saved((result,))
            elif state.inference:
                result._is_inference = True
            return result
        return _wrap_outputs(cls, ctx, args, result, record, (nodes, nrs) if record else None)


def _inspect(args):
    """For each argument: does it require grad, and where does it sit in the graph.

    Returns ``needs`` (bools), ``nodes`` and ``nrs``: for a tensor that
    requires grad, its grad_fn (or its leaf's AccumulateGrad) and which output
    of that node it is; None for another tensor, False for a non-tensor.  This
    runs for every op in grad mode, hence one plain loop.
    """
    needs = []
    nodes = []
    any_nr = False
    for a in args:
        if not isinstance(a, Tensor):
            needs.append(False)
            nodes.append(False)
        elif not a._requires_grad:
            needs.append(False)
            nodes.append(None)
        elif a._grad_fn is not None:
            needs.append(True)
            nodes.append(a._grad_fn)
            any_nr = any_nr or a._output_nr != 0
        else:
            needs.append(True)
            nodes.append(a._accumulate_grad_node())
    nrs = tuple([a._output_nr if isinstance(a, Tensor) else 0 for a in args]) if any_nr else _zeros(len(args))
    return tuple(needs), tuple(nodes), nrs


_ZEROS = [(0,) * n for n in range(8)]


def _zeros(n):
    """A shared tuple of n zeros: most inputs are output 0 of their node."""
    return _ZEROS[n] if n < 8 else (0,) * n


def _wrap_outputs(cls, ctx, args, result, record, edges=None):
    """Turn what ``forward`` returned into tensors and, if recording, attach ``ctx`` as their grad_fn."""
    single = not isinstance(result, tuple)
    raw = (result,) if single else result
    # Decide before aliasing: an input returned as an output is replaced by an alias below.
    non_differentiable = [_output_number(o, ctx._non_differentiable) is not None for o in raw]
    outputs = [_as_output(o, args, ctx) for o in raw]
    if cls._is_view:
        base = args[0]
        for t in outputs:
            t._version_counter = base._version_counter
            t._base = base if base._base is None else base._base
    if record:
        _record(cls, ctx, args, outputs, non_differentiable, edges)
    for t in ctx._dirty:
        t._version_counter[0] += 1
    if record and ctx._dirty and ctx._saved:
        _saved_outputs_see_their_new_version(ctx._saved)
    elif not record and _grad_state.inference:
        for t in outputs:
            if isinstance(t, Tensor):
                t._is_inference = True
    return outputs[0] if single else tuple(outputs)


def _saved_outputs_see_their_new_version(saved):
    """Inputs were saved as they were before the in-place change; an output modified
    in place is saved as it is after it."""
    for i, entry in enumerate(saved):
        if type(entry) is tuple and entry[4] is not None:
            saved[i] = entry[:3] + (entry[2][0], entry[4])


def _as_output(o, args, ctx):
    if isinstance(o, np.ndarray):
        return Tensor._wrap(o)
    if isinstance(o, Tensor):
        # An input returned as it is, and not modified in place, becomes a new
        # tensor object sharing its data, so that it can get its own grad_fn.
        if _output_number(o, args) is not None and _output_number(o, ctx._dirty) is None:
            return o._alias_without_graph()
        return o
    if isinstance(o, np.generic):
        return Tensor._wrap(np.asarray(o))
    return o


def _record(cls, ctx, args, outputs, non_differentiable, edges):
    """Link ``ctx`` into the graph: edges to the inputs' nodes, itself as the outputs' grad_fn."""
    ctx._seq = next(_sequence)
    ctx._next_nodes, ctx._next_nrs = edges
    for t in ctx._dirty:
        if t._grad_fn is None and t._requires_grad:
            raise RuntimeError("a leaf Variable that requires grad has been used in an in-place "
                               "operation. Do it under minitorch.no_grad(), or on a clone.")
    for i, t in enumerate(outputs):
        if not isinstance(t, Tensor):
            continue
        if t._data.dtype.kind != "f" or non_differentiable[i]:
            t._requires_grad = False
            continue
        t._grad_fn = ctx
        t._requires_grad = True
        if i:
            t._output_nr = i
    if len(outputs) > 1 or not cls._builtin:
        ctx._num_outputs = len(outputs)
        ctx._output_meta = [(t._data.shape, t._data.dtype) if isinstance(t, Tensor) else ((), np.float32)
                            for t in outputs]
        if not cls._builtin:
            ctx._in_meta = tuple([(a._data.shape, a._data.dtype)
                                  if isinstance(a, Tensor) and a._requires_grad else None for a in args])
    if ctx._to_save:
        ctx._pack_saved(outputs)


def once_differentiable(backward):
    """Decorate a ``backward`` that cannot itself be differentiated.

    It then runs with grad mode off and, if a double backward is attempted
    (``create_graph=True`` with inputs that require grad), the gradients it
    returns carry a node that raises a clear error when reached.
    """
    @functools.wraps(backward)
    def wrapper(ctx, *grad_outputs):
        from .grad_mode import no_grad, is_grad_enabled
        needs_graph = is_grad_enabled() and any(
            isinstance(g, Tensor) and g.requires_grad for g in grad_outputs)
        with no_grad():
            grads = backward(ctx, *grad_outputs)
        if not needs_graph:
            return grads
        single = not isinstance(grads, tuple)
        links = [g for g in grad_outputs if isinstance(g, Tensor)]
        marked = tuple(_DelayedError.apply(g, ctx.name(), *links) if isinstance(g, Tensor) else g
                       for g in ((grads,) if single else grads))
        return marked[0] if single else marked
    return wrapper


class _DelayedError(Function):
    """Identity in forward; raises in backward (marks once-differentiable results)."""
    _backward_name = "DelayedError"

    @staticmethod
    def forward(ctx, g, name, *links):
        ctx.fn_name = name
        return g._data.copy()

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError(f"trying to differentiate twice a function ({ctx.fn_name}) that was "
                           "marked with @once_differentiable")
