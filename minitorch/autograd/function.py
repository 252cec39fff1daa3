"""``autograd.Function``: the one mechanism behind every differentiable op (chapter 6).

A Function is a pair of static methods.  ``forward(ctx, *args)`` computes the
result; ``backward(ctx, *grad_outputs)`` returns one gradient per forward
argument.  ``Function.apply`` glues them into autograd in three steps:

1. it makes ``ctx``, which is also the graph node that will become the
   result's ``grad_fn`` (so ``y.grad_fn`` *is* the ctx of the op that made y);
2. it runs ``forward`` with grad mode off, so nothing inside is recorded twice;
3. if grad mode is on and some input requires grad, it *records* the call:
   the node gets an edge to each input's node, becomes the ``grad_fn`` of the
   outputs, and packs the tensors forward asked to save.

Every built-in op of minitorch (``minitorch/ops``) is such a Function.  The
only liberty they take is that their ``forward`` may return a numpy array,
which ``apply`` wraps in a Tensor.

A Function may also be written in the newer style, with ``forward(*args)``
taking no ctx and a separate ``setup_context(ctx, inputs, output)`` that
saves what backward needs.
"""

import functools
import inspect
import itertools
import warnings

import numpy as np

from .._tensor import Tensor
from . import anomaly_mode, grad_mode
from .graph import Node, NO_EDGE, _sequence
from .saved import SavedTensor, RawSavedTensor, current_hooks, _active as saved_hooks_in_use

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable", "InplaceFunction",
           "edge_to"]

# While a transform is live (a forward-AD dual level, a vmap), the function that every
# ``apply`` hands its call to instead (chapters 12 and 13); None otherwise, so the usual
# path pays one list lookup for it.
transform_apply = [None]


class FunctionCtx:
    """The methods ``forward`` (or ``setup_context``) may call on its ``ctx``."""

    __slots__ = ()

    def save_for_backward(self, *tensors):
        """Keep tensors (or None) for ``backward``, which reads them from
        ``ctx.saved_tensors``.  Store other values as attributes of ``ctx``."""
        ### BEGIN SOLUTION 6.8
        for i, t in enumerate(tensors):
            if not (t is None or isinstance(t, Tensor)):
                raise TypeError(
                    f"save_for_backward can only save variables, but argument {i} is of type "
                    f"{type(t).__name__}; store other values as attributes of ctx instead")
        self._to_save = tensors
        ### END SOLUTION 6.8

    def save_for_forward(self, *tensors):
        """Keep tensors (or None) for ``jvp``, which reads them from ``ctx.saved_tensors``
        (chapter 12).  Anything else is refused, with PyTorch's AssertionError
        ("save_for_forward expects all arguments to be tensors; you should save
        non-tensors as attributes on ctx")."""
        ### BEGIN SOLUTION 6.8
        for i, t in enumerate(tensors):
            if not (t is None or isinstance(t, Tensor)):
                raise AssertionError(        # PyTorch's type for this error
                    f"save_for_forward expects all arguments to be tensors; you should "
                    f"save non-tensors as attributes on ctx: argument {i} is "
                    f"{type(t).__name__}")
        self._to_save_forward = tensors
        ### END SOLUTION 6.8

    def mark_dirty(self, *tensors):
        """Declare the inputs that ``forward`` modified in place (and returns).  Anything
        but a tensor is a RuntimeError, PyTorch's type, ``mark_dirty can only accept
        variables, but argument 0 is of type int`` (its position and type name; PyTorch
        2.13's message stops after "argument")."""
        ### BEGIN SOLUTION 6.8
        _only_tensors(tensors, "mark_dirty can only accept variables, but argument {i} is "
                               "of type {kind}")
        self._dirty = tensors
        ### END SOLUTION 6.8

    def mark_non_differentiable(self, *tensors):
        """Declare outputs that have no gradient (indices, masks...).  (Given code in the
        course: built-in operations such as ``sort`` call it, and chapters 4 and 5 use
        them; ``apply`` is what reads ``_non_differentiable``.)"""
        _only_tensors(tensors, "mark_non_differentiable only accepts variable arguments, but "
                               "got {kind}")
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        """With False, ``backward`` receives None (not zeros) for outputs that got no gradient."""
        ### BEGIN SOLUTION 6.8
        self.materialize_grads = bool(value)
        ### END SOLUTION 6.8


def _only_tensors(values, message):
    """Refuse anything but tensors among ``values`` (a RuntimeError with ``message``).
    (Given code in the course, with ``mark_non_differentiable``, which built-in
    operations such as ``sort`` call.)"""
    for i, t in enumerate(values):
        if not isinstance(t, Tensor):
            raise RuntimeError(message.format(i=i, kind=type(t).__name__) +
                               ": pass the tensors themselves (inputs or outputs of forward).")


class BackwardCFunction(Node, FunctionCtx):
    """The graph node of one call of a Function; also the ``ctx`` its methods receive.

    Each Function subclass gets its own subclass of this, named after it
    (``ExpBackward`` for a user's ``Exp``; built-ins use PyTorch's names such as
    ``MulBackward0``), which is what ``grad_fn.name()`` reports.

    Its three slots have no default: ``Function._apply_with_ctx`` gives each new node
    ``needs_input_grad``, ``_to_save = ()`` and ``_saved = None`` before ``forward``
    runs, as ``BuiltinFunction.apply`` does for minitorch's own operations.
    """

    # Set on every call (so kept in slots, not in a per-node dict): which inputs need a
    # gradient, what forward asked to save, and the SavedTensors once recorded (None before).
    __slots__ = ("needs_input_grad", "_to_save", "_saved")

    _forward_cls = None
    _builtin_node = False       # a custom Function's node (set True for minitorch's ops)
    _dirty = ()
    _non_differentiable = ()
    _output_meta = ()       # (shape, dtype) of each output: zeros for missing gradients
    _input_meta = None      # (shape, dtype) of each input, to check what backward returns
    materialize_grads = True
    _in_jvp = False
    _to_save_forward = ()

    @property
    def saved_tensors(self):
        """The tensors given to ``save_for_backward``, checked for in-place changes."""
        return self._unpack_saved()

    def _unpack_saved(self):
        if self._in_jvp:                # ``jvp`` reads what save_for_forward kept
            return tuple(self._to_save_forward)
        if self._saved is None:         # not recorded: hand back what was given
            return tuple(self._to_save)
        return tuple(None if s is None else s.unpack(self) for s in self._saved)

    saved_variables = saved_tensors

    def _release_saved(self):
        saved = self._saved
        if saved:
            for s in saved:
                if s is None:
                    continue
                if s.unpack_hook is None:   # ``release`` for values kept as they are
                    s.tensor = s.data = None
                    s.freed = True
                else:
                    s.release()

    def apply(self, *grad_outputs):
        """Call the Function's ``backward`` on ``grad_outputs`` as they are, and return
        what it returns, unchecked (``grad_fn.apply(g)``, as in PyTorch)."""
        return self._forward_cls.backward(self, *grad_outputs)

    def _apply(self, grad_outputs):
        """Call the Function's ``backward``, with zeros (or None) for outputs that got no
        gradient, and check what it returns (the engine's call).

        ``grad_outputs`` holds one gradient per output, None where none arrived; the
        result is a tuple with one gradient per edge.  When none arrived at all, a
        built-in op (``_skip_without_gradient``) is not called: all None.  Otherwise a
        missing gradient becomes zeros of its output's shape and dtype
        (``_output_meta``), unless the Function turned ``materialize_grads`` off.  With
        anomaly mode on, backward runs through ``anomaly_mode.run_backward`` and its
        results go through ``anomaly_mode.check_gradients``.  Between the two, a node
        that knows its inputs (``_input_meta``, set for custom Functions) checks the
        gradients with ``_check_gradients`` (task 6.8): that line is given."""
        ### BEGIN SOLUTION 4.1
        if self._num_outputs > 1 or grad_outputs[0] is None:
            if self._forward_cls._skip_without_gradient and all(g is None for g in grad_outputs):
                return (None,) * len(self._next_edges)
            if self.materialize_grads:
                grad_outputs = _zeros_for_missing(grad_outputs, self._output_meta)
        if anomaly_mode._state.enabled:
            grads = anomaly_mode.run_backward(self, grad_outputs)
        else:
            grads = self._forward_cls.backward(self, *grad_outputs)
        if type(grads) is not tuple:
            grads = (grads,)
        ### END SOLUTION 4.1
        if self._input_meta is not None:        # a custom Function's: task 6.8 checks them
            grads = self._check_gradients(grads)
        ### BEGIN SOLUTION 4.1
        if anomaly_mode._state.enabled:
            anomaly_mode.check_gradients(self, grads)
        return grads
        ### END SOLUTION 4.1

    def _run_backward(self, grad_outputs, owned):
        """``apply``, and for each result whether the engine may own it."""
        results = self._apply(grad_outputs)
        return results, self._owns(grad_outputs, owned, results)

    def _owns(self, grad_outputs, owned, grad_inputs):
        """Built-in ops return new tensors, or an incoming gradient unchanged: the engine
        owns the new ones, and an incoming one if it owned it (passed on twice, it is
        shared: owned by neither).
        A user's backward may return anything, and a hook may have kept anything."""
        if not self._forward_cls._returns_new_gradients:
            return _NOT_OWNED
        flags, seen = [], []
        for grad in grad_inputs:
            if grad is None:
                flags.append(False)
                continue
            if _contains(seen, grad):       # passed on twice (``a + b``): shared by both
                flags[_position(grad_inputs, grad)] = False
                flags.append(False)
                continue
            seen.append(grad)
            for g, o in zip(grad_outputs, owned):
                if g is grad:
                    flags.append(o)
                    break
            else:
                flags.append(_fresh_memory(grad, grad_outputs, owned))
        return flags

    def name(self):
        return self._forward_cls._node_name or type(self).__name__

    def _check_gradients(self, grads):
        """One gradient per forward argument, each fitting its input's shape and dtype.

        ``backward`` may return more values than that if the extra ones, at the end, are
        all None: they are dropped, as in PyTorch (a Function called without its optional
        last arguments may still return a None for each)."""
        ### BEGIN SOLUTION 6.8
        n = len(self._next_edges)
        if len(grads) != n:
            if len(grads) > n and all(g is None for g in grads[n:]):
                grads = grads[:n]
            else:
                raise RuntimeError(
                    f"function {self.name()} returned an incorrect number of gradients "
                    f"(expected {n}, got {len(grads)}): backward must return one gradient "
                    "per argument of forward, None for arguments that need none")
        return tuple([self._check_gradient(i, g, meta)
                      for i, (g, meta) in enumerate(zip(grads, self._input_meta))])
        ### END SOLUTION 6.8

    def _check_gradient(self, i, grad, meta):
        """Gradient number ``i`` (from 0) checked against ``meta``, its input's ``(shape,
        dtype)`` (None for a tensor that needs no gradient, False for an argument that is
        no tensor), as PyTorch checks it, in this order.  A None gradient stays None.  Any
        other for an argument that is no tensor is a RuntimeError ``function <name>
        returned a gradient different than None at position <i + 1>, but the corresponding
        forward input was not a Variable`` (counted from 1; ``<name>`` is ``self.name()``).
        A gradient that is no Tensor is a RuntimeError ``expected Variable or None (got
        str)`` (its type's name).  A Tensor for a tensor that needs no gradient is dropped
        (None), whatever its shape or dtype.  Otherwise it is summed to the input's shape
        if it broadcasts to it (else the RuntimeError ``Function <name> returned an invalid
        gradient at index <n> - got [3] but expected shape compatible with [2]``, where
        ``n`` counts only the tensor arguments before it, from 0) and converted to the
        input's dtype."""
        ### BEGIN SOLUTION 6.8
        if grad is None:
            return None
        if meta is _NOT_A_TENSOR:
            raise RuntimeError(
                f"function {self.name()} returned a gradient different than None at position "
                f"{i + 1}, but the corresponding forward input was not a Variable: return None "
                "for each argument of forward that is not a tensor")
        if not isinstance(grad, Tensor):
            raise RuntimeError(f"expected Variable or None (got {type(grad).__name__}): "
                               f"function {self.name()} returned it as gradient {i}. Return "
                               "a Tensor (or None) for each input of forward.")
        if meta is None:
            return None
        shape, dtype = meta
        if grad._data.shape != shape:
            if not _expandable(shape, grad._data.shape):
                index = sum(m is not _NOT_A_TENSOR for m in self._input_meta[:i])
                raise RuntimeError(
                    f"Function {self.name()} returned an invalid gradient at index {index} - "
                    f"got {list(grad.shape)} but expected shape compatible with {list(shape)}")
            grad = grad.sum_to_size(shape)
        if grad.dtype is not dtype:
            grad = grad.to(dtype)
        return grad
        ### END SOLUTION 6.8


_NOT_OWNED = itertools.repeat(False)
_NOT_A_TENSOR = False       # in ``_input_meta``: the argument was no tensor (None for a
                            # tensor that needs no gradient)


def _fresh_memory(grad, grad_outputs, owned):
    """Does a gradient that a built-in backward made own its memory?

    A new array does.  A rearranged view (a transpose, a reshape: the same
    elements, writable) does if what it views was either made in backward or an
    incoming gradient the engine owned.  A broadcast or a slice never does: it
    repeats or leaves out elements of memory that may serve other gradients.
    """
    data = grad._data
    base = data.base
    if base is None:
        return True
    if not data.flags.writeable or data.size != base.size:
        return False
    for g, o in zip(grad_outputs, owned):
        if g is not None and (g._data is base or g._data.base is base):
            return o
    return True


def _zeros_for_missing(grad_outputs, output_meta):
    """Zeros in place of the gradients of outputs that received none."""
    ### BEGIN SOLUTION 4.1
    if all(g is not None for g in grad_outputs):
        return grad_outputs
    return [Tensor._wrap(np.zeros(shape, dtype=dtype.numpy_dtype)) if g is None else g
            for g, (shape, dtype) in zip(grad_outputs, output_meta)]
    ### END SOLUTION 4.1


def _expandable(shape, target):
    """True if a tensor of ``shape`` broadcasts to ``target``."""
    if len(shape) > len(target):
        return False
    return all(a == b or a == 1 for a, b in zip(reversed(shape), reversed(target)))


def _saved_property(i, name):
    return property(lambda node: node.saved_tensors[i], doc=f"the saved tensor {name!r}")


def _raw_saved_property(i, name):
    def raw(node):
        saved = node._saved[i] if node._saved is not None else None
        return None if saved is None else RawSavedTensor(node, saved)
    return property(raw, doc=f"the saved tensor {name!r} itself, to register hooks on")


class FunctionMeta(type):
    """Gives each Function subclass its own node class, named ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        node_name = attrs.get("_backward_name", name + "Backward")
        # ``grad_fn._saved_self``, ``_saved_result``...: built-in ops name their saved
        # tensors the way PyTorch's nodes expose them.
        node_attrs = {"_forward_cls": cls, "__module__": cls.__module__,
                      "_is_view": cls._is_view, "_wraps_numbers": cls._wraps_numbers,
                      "_graph_inputs": cls._graph_inputs,
                      "_builtin_node": cls._returns_new_gradients}
        for i, saved_name in enumerate(cls._saved_names):
            node_attrs["_saved_" + saved_name] = _saved_property(i, saved_name)
            node_attrs["_raw_saved_" + saved_name] = _raw_saved_property(i, saved_name)
        node_base = getattr(cls, "_node_base", None) or BackwardCFunction
        cls._backward_cls = type(node_name, (node_base,), node_attrs)
        cls._setup_context_style = not getattr(cls.setup_context, "_is_default", False)
        _choose_backward(cls)


def _choose_backward(cls):
    """A Function defines ``backward`` or, under its other name, ``vjp``; not both."""
    backward, vjp = cls.backward, cls.vjp
    if backward is vjp or getattr(vjp, "_is_default", False):
        return
    if getattr(backward, "_is_default", False):
        cls.backward = staticmethod(vjp)
    else:
        cls.backward = staticmethod(_both_backward_and_vjp)


def _both_backward_and_vjp(ctx, *grad_outputs):
    raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not "
                       "allowed. You should only implement one of them.")


class Function(metaclass=FunctionMeta):
    """Base class for differentiable operations.  Subclass it, write static
    ``forward(ctx, ...)`` and ``backward(ctx, ...)``, and call ``YourFunction.apply(...)``.
    """

    # Set by minitorch's own ops (users leave them alone):
    _is_view = False            # the outputs share memory and version counter with input 0
    _wraps_numbers = False      # a Python number operand is a graph input, as in PyTorch's + - * /
    _skip_without_gradient = False   # no gradient arrived: do not call backward at all
    _returns_new_gradients = False   # backward makes new tensors (or passes its input on)
    _saved_names = ()           # names for ``grad_fn._saved_<name>``
    _graph_inputs = 0           # if set: only the first n arguments are graph inputs
    _node_name = None           # what ``grad_fn.name()`` says, if not the node class's name
    _node_base = None           # the base of this Function's node class (BackwardCFunction)

    def __init__(self, *args, **kwargs):
        warnings.warn(f"{type(self)} should not be instantiated: its methods are static, so call "
                      f"{type(self).__name__}.apply(...) on the class itself.", DeprecationWarning,
                      stacklevel=2)

    @staticmethod
    def forward(ctx, *args):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode AD.")

    backward._is_default = True
    backward = vjp = staticmethod(backward)

    def setup_context(ctx, inputs, output):
        """Newer style: save what backward needs, given forward's inputs and output.
        Define it (and a ``forward`` without ctx) instead of ``forward(ctx, ...)``."""
        raise NotImplementedError("setup_context is not overridden: write forward(ctx, ...)")

    setup_context._is_default = True
    setup_context = staticmethod(setup_context)

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` on ``args`` and, when grad mode is on and an input requires
        grad, record the call in the backward graph."""
        if transform_apply[0] is not None:
            return transform_apply[0](cls, args, kwargs)
        return cls._apply_with_ctx(args, kwargs)[0]

    @classmethod
    def _apply_with_ctx(cls, args, kwargs):
        """``apply``'s work, returning the ctx too (forward mode calls ``jvp`` with it)."""
        ### BEGIN SOLUTION 6.8
        if kwargs or cls._setup_context_style:
            args = _bind_arguments(cls, args, kwargs)
        ctx = cls._backward_cls()                                   # 1. the node
        ctx._to_save, ctx._saved = (), None
        ctx.needs_input_grad = needs_input_grad(args)
        result = _run_forward(cls, ctx, args)                       # 2. forward, unrecorded
        outputs = as_outputs(result, args, ctx)
        if grad_mode.is_grad_enabled() and True in ctx.needs_input_grad:
            _record(ctx, args, outputs)                             # 3. record
        else:
            finish_unrecorded(ctx, outputs)
        return (outputs[0] if type(result) is not tuple else tuple(outputs)), ctx
        ### END SOLUTION 6.8

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """Forward mode: the tangent of each output, given the tangent of each input
        (chapter 12).  Read what forward kept with ``ctx.save_for_forward`` from
        ``ctx.saved_tensors``."""
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")


def _bind_arguments(cls, args, kwargs):
    """Keyword arguments of ``apply`` bound to ``forward``'s parameters, with its defaults
    filled in (always, in the setup_context style), so every argument is positional."""
    ### BEGIN SOLUTION 6.8
    takes_ctx = not cls._setup_context_style
    bound = _signature(cls).bind(*((None,) if takes_ctx else ()), *args, **kwargs)
    bound.apply_defaults()
    return bound.args[1:] if takes_ctx else bound.args
    ### END SOLUTION 6.8


def _signature(cls):
    """``forward``'s signature, kept on the class after the first call."""
    signature = cls.__dict__.get("_forward_signature")
    if signature is None:
        signature = inspect.signature(cls.forward)
        cls._forward_signature = signature
    return signature


def needs_input_grad(args):
    """For each argument: is it a tensor that requires grad?  (Given: the chapter's
    outline of ``apply`` writes it out, and built-in ops use it too.)"""
    return tuple([isinstance(a, Tensor) and a._requires_grad for a in args])


def _run_forward(cls, ctx, args):
    """Call ``forward`` with grad mode off (in either Function style).  Before this,
    ``_apply_with_ctx`` gives the new node ``ctx._to_save, ctx._saved = (), None``: a
    forward that saves nothing leaves them so, and recording (``_pack_saved``) and
    ``saved_tensors`` read them."""
    ### BEGIN SOLUTION 6.8
    state = grad_mode._state
    was_enabled, state.enabled = state.enabled, False
    try:
        if cls._setup_context_style:
            output = cls.forward(*args)
            cls.setup_context(ctx, args, output)
            return output
        return cls.forward(ctx, *args)
    finally:
        state.enabled = was_enabled
    ### END SOLUTION 6.8


def as_outputs(result, args, ctx):
    """What ``forward`` returned (a value or a tuple), as a list of Tensors (other
    values pass through).

    An array (or numpy scalar) becomes a new tensor.  An input returned as it
    is, and not modified in place, becomes a new tensor object sharing its
    memory (``_alias_if_input``, given).  The inputs marked dirty must be among the
    results (``_check_dirty_returned``).  The outputs of a view op
    (``ctx._is_view``) share their first input's version counter
    (``share_version_counter``).
    """
    ### BEGIN SOLUTION 4.1
    outputs = []
    results = result if type(result) is tuple else (result,)
    if ctx._dirty:
        _check_dirty_returned(ctx._dirty, results)
    for o in results:
        if isinstance(o, (np.ndarray, np.generic)):
            o = Tensor._wrap(np.asarray(o))
        elif isinstance(o, Tensor):
            o = _alias_if_input(o, args, ctx)
        outputs.append(o)
    if ctx._is_view:
        share_version_counter(args[0], outputs)
    return outputs
    ### END SOLUTION 4.1


def _alias_if_input(o, args, ctx):
    """An input that forward returned as it is, and did not change in place, becomes a new
    tensor sharing its memory (so it can get a ``grad_fn`` of its own without touching the
    input), and takes the input's place in ``ctx._non_differentiable``; any other output
    stays as it is."""
    if not _contains(args, o) or _contains(ctx._dirty, o):
        return o
    alias = o._alias_without_graph()
    ctx._non_differentiable = tuple(alias if x is o else x for x in ctx._non_differentiable)
    return alias


def _check_dirty_returned(dirty, results):
    for t in dirty:
        if not _contains(results, t):
            raise RuntimeError(
                "Some elements marked as dirty during the forward method were not returned as "
                "output. The inputs that are modified inplace must all be outputs of the "
                "Function: return each tensor you pass to ctx.mark_dirty.")


def _position(sequence, obj):
    """The index of ``obj`` in ``sequence``, by identity."""
    for i, x in enumerate(sequence):
        if x is obj:
            return i
    return None


def _contains(sequence, obj):
    """``obj in sequence`` by identity (``in`` would compare tensors elementwise)."""
    for x in sequence:
        if x is obj:
            return True
    return False


def share_version_counter(base, outputs):
    """A view shares its input's version counter, and remembers the tensor it looks into."""
    for t in outputs:
        t._version_counter = base._version_counter
        t._base = base if base._base is None else base._base
        t._is_inference = base._is_inference    # whatever the mode it is made in
        if getattr(base, "_made_in_custom_function", False):
            t._made_in_custom_function = True   # a view of such an output is one too
        if base._requires_grad and not grad_mode._state.enabled:
            t._requires_grad = True             # still a view of a tensor that requires grad
            t._view_made_without_grad = True


def finish_unrecorded(ctx, outputs):
    """No graph: only the version bumps of in-place changes, and inference flags."""
    for t in ctx._dirty:
        t._version_counter.bump()
    if grad_mode._state.inference and not ctx._is_view:
        for t in outputs:
            if isinstance(t, Tensor):
                t._is_inference = True


def _record(ctx, args, outputs):
    """Everything step 3 does for a Function: check, link, describe, save."""
    ### BEGIN SOLUTION 6.8
    _check_in_place(ctx)
    for step in (link_into_graph, _mark_views_of_inputs, _describe_inputs_and_outputs):
        step(ctx, args, outputs)
    save_and_mark_dirty(ctx, outputs)
    ### END SOLUTION 6.8


def _mark_views_of_inputs(ctx, args, outputs):
    """An output sharing an input's memory (the input returned as it is, or a view made
    in forward) may not be changed in place later, as in PyTorch: the change could not
    be followed through the Function's own backward (``ops.inplace.check_in_place``).
    Such an output (recorded by ``ctx``, not marked dirty) shares an input's version
    counter ``_counter``; mark it by setting ``t._made_in_custom_function = True``, which
    ``check_in_place`` reads.  Also set its ``_view_made_without_grad = False``: forward
    ran with grad mode off, so ``share_version_counter`` flagged a view of an input that
    requires grad as made under no_grad, but this one is recorded."""
    ### BEGIN SOLUTION 6.8
    # Read the counters without making them: memory shared with an input shares its
    # counter, so an output with none made yet shares nothing.
    counters = [a._counter for a in args if isinstance(a, Tensor) and a._counter is not None]
    for t in outputs:
        if isinstance(t, Tensor) and t._grad_fn is ctx and not _contains(ctx._dirty, t) \
                and t._counter is not None and _contains(counters, t._counter):
            t._made_in_custom_function = True
            t._view_made_without_grad = False   # made under forward's no_grad, but recorded
    ### END SOLUTION 6.8


def link_into_graph(ctx, args, outputs):
    """Make ``ctx`` a node: an edge to each input's place in the graph, and the
    ``grad_fn`` of each output that can have a gradient.

    The node gets its creation number (``ctx._seq_nr``, the next of ``_sequence``:
    it orders the engine's queue) and its edges (``ctx._next_edges``, one per
    argument, from ``edge_to``; an op with ``_graph_inputs`` keeps edges for its
    first ones only, ``_only_graph_inputs``).  Each output that can have a gradient
    (``_differentiable``) becomes output number ``i`` of the node: its
    ``_grad_fn``, ``_requires_grad`` and ``_output_nr``.  With anomaly mode on, the
    node remembers where it was made (``anomaly_mode.remember_forward``).
    """
    ### BEGIN SOLUTION 4.1
    ctx._seq_nr = next(_sequence)
    ctx._next_edges = tuple([edge_to(a, ctx._wraps_numbers) for a in args])
    if ctx._graph_inputs:
        ctx._next_edges = _only_graph_inputs(ctx._next_edges, args, ctx._graph_inputs)
    for i, t in enumerate(outputs):
        if _differentiable(t, ctx._non_differentiable):
            t._grad_fn, t._requires_grad, t._output_nr = ctx, True, i
    if anomaly_mode._state.enabled:
        anomaly_mode.remember_forward(ctx)
    ### END SOLUTION 4.1


def _differentiable(t, marked_not):
    """Only floating point tensors have gradients, and not those marked otherwise."""
    ### BEGIN SOLUTION 4.1
    return (isinstance(t, Tensor) and t._data.dtype.kind == "f"
            and not (marked_not and _contains(marked_not, t)))
    ### END SOLUTION 4.1


def save_and_mark_dirty(ctx, outputs):
    """Pack what forward saved, then count in-place changes (saved inputs keep the
    version they had before the change; a saved output its version after it).

    ``ctx._to_save`` (what ``save_for_backward`` got), when forward saved anything, is
    packed by ``_pack_saved`` (task 5.3) into ``ctx._saved`` (a node that saved nothing
    keeps ``_saved`` None and never calls ``_pack_saved``); the version counter of each
    tensor in ``ctx._dirty`` goes up by one; and a saved output that this very node
    changed in place is told so (``mark_modified_by_its_node``), so that unpacking it
    later does not refuse it.
    """
    ### BEGIN SOLUTION 4.1
    if ctx._to_save:
        ctx._saved = _pack_saved(ctx, outputs)
    for t in ctx._dirty:
        t._version_counter.bump()
    if ctx._dirty and ctx._saved:
        for entry in ctx._saved:
            if entry is not None and entry.output_nr is not None and \
                    _contains(ctx._dirty, outputs[entry.output_nr]):
                entry.mark_modified_by_its_node()
    ### END SOLUTION 4.1


def edge_to(arg, wraps_numbers=False):
    """The edge from a new node to where ``arg`` sits in the graph.

    A tensor that requires grad leads to its ``grad_fn`` (or, for a leaf, its
    AccumulateGrad node, ``arg._accumulate_grad_node()``), as the output it is of
    that node (``_output_nr``; a leaf's node has one output); any other tensor has
    the empty edge ``(None, 0)``; an argument that is not a tensor has no edge
    (False) unless the op treats Python numbers as inputs, as PyTorch's
    ``+ - * /`` do.
    """
    ### BEGIN SOLUTION 4.1
    if isinstance(arg, Tensor):
        if not arg._requires_grad:
            return NO_EDGE
        if arg._grad_fn is not None:
            return (arg._grad_fn, arg._output_nr)
        return (arg._accumulate_grad_node(), 0)
    return NO_EDGE if wraps_numbers and isinstance(arg, (int, float)) else False
    ### END SOLUTION 4.1


def _only_graph_inputs(edges, args, n):
    """The edges of an op whose first ``n`` arguments are its tensor inputs: one left out
    (None) still has its empty edge, as an optional tensor of PyTorch's has, and the
    arguments after them (indices, targets) have none."""
    return tuple(False if i >= n else NO_EDGE if a is None else e
                 for i, (a, e) in enumerate(zip(args, edges)))


def _check_in_place(ctx):
    """A leaf that requires grad may not be changed in place while recording: a dirty
    one raises ``leaf_in_place_error("has been")`` (forward has already changed it)."""
    ### BEGIN SOLUTION 6.8
    for t in ctx._dirty:
        if t._grad_fn is None and t._requires_grad:
            raise leaf_in_place_error("has been")
    ### END SOLUTION 6.8


def leaf_in_place_error(tense="is being"):
    """The error for changing a leaf that requires grad in place while recording."""
    return RuntimeError(
        f"a leaf Variable that requires grad {tense} used in an in-place operation. Wrap the "
        "update in `with minitorch.no_grad():` (as optimizers do), or work on a clone.")


def _describe_inputs_and_outputs(ctx, args, outputs):
    """Shapes and dtypes that backward needs: to check its gradients, and to make zeros."""
    ### BEGIN SOLUTION 6.8
    describe_outputs(ctx, outputs)
    ctx._input_meta = tuple(_NOT_A_TENSOR if not isinstance(a, Tensor) else
                            (a._data.shape, a.dtype) if a._requires_grad else None
                            for a in args)
    ### END SOLUTION 6.8


def describe_outputs(ctx, outputs):
    """Remember how many outputs the node has, and each one's shape and dtype (to make
    zeros for an output that gets no gradient).

    Sets ``ctx._num_outputs``, the number of outputs (``Node.__call__`` and the engine
    read it), and ``ctx._output_meta``, a tuple with one ``(shape, dtype)`` per output:
    its array's shape and its minitorch dtype (``t.dtype``, as ``_input_meta`` keeps
    them), or ``((), None)`` for a result that is no tensor."""
    ### BEGIN SOLUTION 4.1
    ctx._num_outputs = len(outputs)
    ctx._output_meta = tuple((t._data.shape, t.dtype) if isinstance(t, Tensor) else ((), None)
                             for t in outputs)
    ### END SOLUTION 4.1


def _pack_saved(ctx, outputs):
    """Turn ``ctx.save_for_backward``'s tensors into SavedTensors (or None)."""
    to_save = ctx._to_save
    ctx._to_save = ()        # it may hold an output: keeping it would make a cycle
    hooks = current_hooks() if saved_hooks_in_use[0] else None
    saved = []
    ### BEGIN SOLUTION 5.3
    for t in to_save:
        if t is None:
            saved.append(None)
            continue
        if t._is_inference:
            _refuse_inference_tensor(t)
        saved.append(SavedTensor(t, _output_number(t, outputs, ctx), hooks))
    ### END SOLUTION 5.3
    return tuple(saved)


def _output_number(t, outputs, ctx):
    """The position of ``t`` among the node's differentiable outputs, or None."""
    if t._grad_fn is not ctx:          # an input, or an output without a gradient
        return None
    if outputs[0] is t:                # the usual case, the first (or only) output
        return 0
    for i, o in enumerate(outputs):
        if o is t:
            return i
    return None


def _refuse_inference_tensor(t):
    if t._is_inference:                 # checked again: callers test it inline first
        raise RuntimeError(
            "Inference tensors cannot be saved for backward. Please do not use Tensors "
            "created in inference mode in computation tracked by autograd. To work around "
            "this, you can make a clone to get a normal tensor and use it in autograd, or use "
            "`minitorch.no_grad()` instead of `minitorch.inference_mode()`.")


class InplaceFunction(Function):
    """A Function with an ``inplace`` flag (kept for PyTorch compatibility)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


# ----- once_differentiable ----------------------------------------------------------------
def once_differentiable(backward):
    """Decorate a ``backward`` that cannot itself be differentiated.

    It then runs with grad mode off and, if a double backward is attempted
    (``create_graph=True`` with gradients that require grad), the gradients it
    returns carry a node that raises a clear error when reached.  As in PyTorch,
    that node hangs from a stand-in leaf, not from the gradients it received:
    ``backward()`` reaches it and fails, while ``autograd.grad`` for chosen
    inputs finds no path to them (an unused input, or zeros in gradgradcheck).
    """
    @functools.wraps(backward)
    def wrapper(ctx, *grad_outputs):
        ### BEGIN SOLUTION 6.8
        needs_graph = grad_mode.is_grad_enabled() and any(
            isinstance(g, Tensor) and g.requires_grad for g in grad_outputs)
        with grad_mode.no_grad():
            grads = backward(ctx, *grad_outputs)
        if not needs_graph:
            return grads
        single = not isinstance(grads, tuple)
        marked = tuple(_DelayedError.apply(g.detach().requires_grad_(), ctx.name())
                       if isinstance(g, Tensor) and g.is_floating_point() else g
                       for g in ((grads,) if single else grads))
        return marked[0] if single else marked
        ### END SOLUTION 6.8
    return wrapper


class _DelayedError(Function):
    """Identity in forward; raises in backward (marks once-differentiable results)."""
    _backward_name = "Error"

    @staticmethod
    def forward(ctx, g, name):
        ctx.fn_name = name
        return g._data.copy()

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError(f"trying to differentiate twice a function ({ctx.fn_name}) that was "
                           "marked with @once_differentiable")
