"""The backward graph: nodes and the edges between them (chapters 2 and 4).

A forward pass leaves behind a graph of :class:`Node` objects.  Each node
knows only what it needs to turn the gradients of its outputs into gradients
of its inputs:

* ``next_functions``: one edge ``(node, input_nr)`` per input, pointing
  *towards the leaves*; ``(None, 0)`` for an input that needs no gradient.
  A node never references its own outputs, so the graph has no reference
  cycles and is freed by reference counting alone (chapter 2).
* the tensors it saved for backward (``minitorch.autograd.saved``).

A leaf tensor that requires grad is represented in the graph by an
:class:`AccumulateGrad` node, whose job is to add the arriving gradient to the
leaf's ``.grad``.

Nodes also carry the hooks that ``Tensor.register_hook``, ``retain_grad``,
``Node.register_prehook`` and ``Node.register_hook`` add (chapter 5), and a
sequence number that fixes the order in which the engine runs them.
"""

import inspect
import itertools
import threading
import weakref

from ..utils.hooks import RemovableHandle, hook_dict
from .grad_mode import is_grad_enabled

__all__ = ["Node", "AccumulateGrad", "GraphRoot", "NO_EDGE"]

# Creation order of nodes.  Among the nodes ready to run, the engine runs the
# one created last; an AccumulateGrad node goes before all others (chapter 4).
_sequence = itertools.count()
_LAST = 2 ** 64 - 1     # PyTorch's number for a leaf's node: the largest, so it runs first

NO_EDGE = (None, 0)     # the edge of an input that needs no gradient


class Node:
    """A step of the backward graph: turns gradients of its outputs into
    gradients of its inputs.  ``tensor.grad_fn`` is one of these."""

    __slots__ = ("_next_edges", "_seq_nr", "__weakref__", "__dict__")

    # Set on few nodes, so kept out of the slots (an instance dict is made when needed).
    _pre_hooks = None           # node pre-hooks: called with the gradients of the outputs
    _post_hooks = None          # node hooks: called with both, after the node ran
    _tensor_pre_hooks = None    # {output_nr: hooks} of the tensors this node produced
    _retained = None            # {output_nr: weakref to a tensor that called retain_grad}
    _hooked = False             # set when any of the above is registered
    _num_outputs = 1
    _builtin_node = True        # minitorch's own node: its ``name`` cannot be reassigned

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if inspect.isfunction(cls.__dict__.get("name")):     # a subclass's own name()
            cls.name = _NodeName(cls.__dict__["name"])

    def name(self):
        """The node's name as PyTorch spells it, e.g. ``MulBackward0``."""
        return type(self).__name__

    @property
    def next_functions(self):
        """Edges to the nodes that produced this node's inputs: ``((node, input_nr), ...)``.

        ``node`` is None for an input that needs no gradient.  An argument
        that is not a graph input (a Python number passed to a custom
        Function, a ``dim``) has no edge at all.
        """
        return tuple(edge for edge in self._next_edges if edge is not False)

    def _sequence_nr(self):
        """The node's creation number, its place in the ready queue: nodes made later
        run first."""
        return self._seq_nr

    def __lt__(self, other):
        # The engine keeps ready nodes in a heap; "less" means "runs first".
        return self._seq_nr > other._seq_nr

    @property
    def metadata(self):
        """A free-form dict for your own annotations of this node."""
        try:
            return self.__dict__["_metadata"]
        except KeyError:
            return self.__dict__.setdefault("_metadata", {})

    # ----- hooks ----------------------------------------------------------------------
    def register_prehook(self, hook):
        """Call ``hook(grad_outputs)`` before this node runs; a non-None return
        value replaces ``grad_outputs``.  Returns a removable handle."""
        ### BEGIN SOLUTION 5.4
        self._hooked = True
        if self._pre_hooks is None:
            self._pre_hooks = hook_dict()
        return _add(self._pre_hooks, hook)
        ### END SOLUTION 5.4

    def register_hook(self, hook):
        """Call ``hook(grad_inputs, grad_outputs)`` after this node ran; a non-None
        return value replaces ``grad_inputs``.  Returns a removable handle."""
        ### BEGIN SOLUTION 5.4
        self._hooked = True
        if self._post_hooks is None:
            self._post_hooks = hook_dict()
        return _add(self._post_hooks, hook)
        ### END SOLUTION 5.4

    def _register_tensor_hook(self, output_nr, hook):
        """A hook of the tensor that is output ``output_nr`` of this node (``Tensor.register_hook``)."""
        ### BEGIN SOLUTION 5.4
        self._hooked = True
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        hooks = self._tensor_pre_hooks.get(output_nr)
        if hooks is None:
            hooks = self._tensor_pre_hooks[output_nr] = hook_dict()
        return _add(hooks, hook)
        ### END SOLUTION 5.4

    def _tensor_hooks(self):
        """``(output_nr, hooks)`` pairs of the tensors this node produced."""
        ### BEGIN SOLUTION 5.4
        return self._tensor_pre_hooks.items() if self._tensor_pre_hooks else ()
        ### END SOLUTION 5.4

    def _retain_grad_of(self, output_nr, tensor):
        """Make backward store this output's gradient in ``tensor.grad`` (``retain_grad``).
        The node keeps only a weak reference: no cycle tensor -> node -> tensor forms."""
        ### BEGIN SOLUTION 5.4
        self._hooked = True
        if self._retained is None:
            self._retained = {}
        self._retained[output_nr] = weakref.ref(tensor)
        ### END SOLUTION 5.4

    # ----- running ----------------------------------------------------------------------
    def _apply(self, grad_outputs):
        """The gradients of the inputs (one per edge), given those of the outputs."""
        raise NotImplementedError

    def _release_saved(self):
        """Forget what forward saved for this node (after backward, unless retain_graph)."""

    def _run_backward(self, grad_outputs, owned):
        """``apply``, and for each result whether the engine may treat it as its own
        (nobody else holds it): unknown here, so no."""
        results = self._apply(grad_outputs)
        return results, (False,) * len(results)

    def __call__(self, *grad_outputs):
        """Run this node's backward directly, outside the engine (as ``grad_fn(grad)``):
        one gradient per entry of ``next_functions``, a bare tensor if there is one."""
        if len(grad_outputs) != self._num_outputs:
            raise TypeError(f"expected {self._num_outputs} arguments, got "
                            f"{len(grad_outputs)} instead: call a node with one gradient "
                            "per output of the operation that made it (chapter 4)")
        results = self._apply(list(grad_outputs))
        results = tuple([r for r, edge in zip(results, self._next_edges) if edge is not False])
        return results[0] if len(results) == 1 else results

    def __repr__(self):
        # The class's name, as PyTorch shows it: <AccumulateGrad object at ...>, without
        # the C++ namespace that ``name()`` keeps (``torch::autograd::AccumulateGrad``).
        return f"<{self.name().rsplit('::', 1)[-1]} object at {id(self):#x}>"


class _NodeName:
    """``node.name()``.  On minitorch's own nodes ``name`` is read-only, as on PyTorch's
    (C++) nodes; the ctx of a custom Function may still store an attribute ``name``."""

    def __init__(self, method):
        self.method = method
        self.__doc__ = method.__doc__

    def __get__(self, node, owner=None):
        if node is None:
            return self.method
        own = node.__dict__.get("name") if not node._builtin_node else None
        return self.method.__get__(node, owner) if own is None else own

    def __set__(self, node, value):
        if node._builtin_node:
            raise AttributeError(f"'{type(node).__name__}' object attribute 'name' is "
                                 "read-only: a node's name comes from the operation that "
                                 "made it. Keep your own labels in node.metadata.")
        node.__dict__["name"] = value


Node.name = _NodeName(Node.__dict__["name"])


def _add(hooks, hook):
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


class GraphRoot(Node):
    """The node backward starts from: its "gradients" are the seeds, one per root tensor."""

    def __init__(self, edges, seeds):
        self._next_edges = tuple(edges)
        self._seq_nr = _LAST
        self.seeds = list(seeds)

    def _apply(self, grad_outputs):
        seeds, self.seeds = self.seeds, None
        return seeds


# One lock for every update of a ``.grad``: threads running backward on a
# shared leaf must not lose each other's additions.
_accumulate_lock = threading.Lock()


class AccumulateGrad(Node):
    """The graph node of a leaf that requires grad: adds gradients into ``variable.grad``.

    A leaf creates this node on first use and keeps only a weak reference to
    it; the node holds the leaf strongly (``node.variable``), so the leaf lives
    as long as any graph that uses it.  It runs before any other ready node, so
    a leaf's gradient is stored (and its hooks run) as soon as it is complete.
    """

    __slots__ = ("variable",)

    def __init__(self, variable):
        self.variable = variable
        self._next_edges = ()
        self._seq_nr = _LAST
        if variable._backward_hooks:
            self._hooked = True

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def __repr__(self):
        return f"<AccumulateGrad object at {id(self):#x}>"

    def _tensor_hooks(self):
        """The leaf's own hooks (``Tensor.register_hook`` on a leaf), as output 0's."""
        ### BEGIN SOLUTION 5.4
        hooks = self.variable._backward_hooks
        return ((0, hooks),) if hooks else ()
        ### END SOLUTION 5.4

    def _apply(self, grad_outputs):
        """Add the gradient into the leaf's ``.grad`` now (when called directly).

        The engine does not call this: it keeps a leaf's gradient until the
        whole backward has succeeded and then stores them all (``engine.py``).
        """
        if grad_outputs[0] is not None:
            accumulate_grad(self.variable, grad_outputs[0], owned=False)
        return ()


def accumulate_grad(variable, grad, owned):
    """Add ``grad`` into ``variable.grad`` (chapter 4).

    The first gradient is stored as it is when the engine ``owned`` it (made
    it, and nobody else can reach it), and as a copy otherwise, so ``.grad``
    never shares memory with another tensor.  Under ``create_graph=True``
    (grad mode on during backward) the copy and the sum are recorded,
    out-of-place ops (``CopyBackwards``, ``AddBackward0``): each such backward
    makes a new ``.grad``, which can itself be differentiated.  Otherwise later
    gradients are added in place, so ``.grad`` stays the same object, even one
    that requires grad from an earlier ``create_graph=True`` (it keeps its
    ``grad_fn``; the addition is not recorded).  The lock makes each update
    whole: threads running backward into the same leaf lose none of each
    other's gradients.
    """
    with _accumulate_lock:
        ### BEGIN SOLUTION 4.4
        old = variable._grad
        if is_grad_enabled():
            variable._grad = _recorded_copy(grad) if old is None else old + grad
        elif old is None:
            variable._grad = grad if owned else grad.clone()
        else:
            old.add_(grad)
        ### END SOLUTION 4.4


def _recorded_copy(grad):
    """A copy of ``grad`` into new memory, recorded (as ``copy_``) when grad mode is on."""
    return grad.new_empty(grad.shape).copy_(grad)


def clear_grad(variable, set_to_none):
    """Empty ``variable.grad`` before the next backward: drop it (``set_to_none``, the
    default of ``zero_grad``), or fill it with zeros.  Modules (chapter 7) and
    optimizers (chapter 9) clear their parameters with it.

    Zeros are written into the same tensor, so it must stop being part of a graph
    first: a ``.grad`` made under ``create_graph=True`` has a ``grad_fn`` and is
    detached in place; one that merely requires grad stops requiring it.
    """
    grad = variable.grad
    if grad is None:
        return
    if set_to_none:
        variable.grad = None
        return
    if grad.grad_fn is not None:
        grad.detach_()
    else:
        grad.requires_grad_(False)
    grad.zero_()
