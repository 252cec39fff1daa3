"""The backward graph: nodes, edges, saved tensors (chapters 2 and 3).

A forward pass leaves behind a graph of :class:`Node` objects.  Each node
knows only what it needs to compute gradients for its inputs:

* ``next_functions``: one edge ``(node, input_nr)`` per tensor input, pointing *towards
  the leaves* (stored as two tuples, ``_next_nodes`` and ``_next_nrs``, one entry
  per argument: False marks an argument that is not a tensor).  A node never references its own outputs, so the graph has no
  reference cycles and is freed by reference counting alone (chapter 2).
* saved tensors: values from the forward pass, each stored with the version it
  had, so an in-place change made later is detected when backward unpacks it.

A leaf tensor that requires grad is represented in the graph by an
:class:`AccumulateGrad` node, whose job is to add the arriving gradient to the
leaf's ``.grad``.
"""

import itertools
import threading
import weakref

from ..utils.hooks import RemovableHandle, hook_dict

__all__ = ["Node", "AccumulateGrad", "saved_tensors_hooks"]

Tensor = None  # set by minitorch._tensor (avoids an import cycle)

# Creation order of nodes.  When several nodes are ready, the engine runs the
# most recently created first, as PyTorch does; hooks then fire in the same order.
_sequence = itertools.count()

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")


class Node:
    """A step of the backward graph: turns gradients of its outputs into
    gradients of its inputs.  ``tensor.grad_fn`` is one of these."""

    __slots__ = ("_next_nodes", "_next_nrs", "_seq", "needs_input_grad", "__weakref__", "__dict__")

    _num_outputs = 1
    _saved = None         # the saved tensors once recorded; FREED after backward
    _hooked = False       # set when any hook is registered: the engine checks only this flag
    _pre_hooks = _post_hooks = _tensor_pre_hooks = _retain_grad_refs = None

    def name(self):
        """The node's name as PyTorch spells it, e.g. ``MulBackward0``."""
        return type(self).__name__

    @property
    def next_functions(self):
        """Edges to the nodes that produced this node's inputs: ``((node, input_nr), ...)``.
        ``node`` is None for an input that does not require grad."""
        return tuple((node, nr) if node is not None else (None, 0)
                     for node, nr in zip(self._next_nodes, self._next_nrs) if node is not False)

    @property
    def metadata(self):
        """A free-form dict for your own annotations of this node."""
        try:
            return self.__dict__["_metadata"]
        except KeyError:
            return self.__dict__.setdefault("_metadata", {})

    def register_hook(self, hook):
        """Call ``hook(grad_inputs, grad_outputs)`` after this node ran; a non-None
        return value replaces ``grad_inputs``."""
        self._hooked = True
        if self._post_hooks is None:
            self._post_hooks = hook_dict()
        handle = RemovableHandle(self._post_hooks)
        self._post_hooks[handle.id] = hook
        return handle

    def register_prehook(self, hook):
        """Call ``hook(grad_outputs)`` before this node runs; a non-None return
        value replaces ``grad_outputs``."""
        self._hooked = True
        if self._pre_hooks is None:
            self._pre_hooks = hook_dict()
        handle = RemovableHandle(self._pre_hooks)
        self._pre_hooks[handle.id] = hook
        return handle

    def _register_tensor_hook(self, output_nr, hook):
        """A hook of the tensor that is output ``output_nr`` of this node (``Tensor.register_hook``)."""
        self._hooked = True
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        hooks = self._tensor_pre_hooks.get(output_nr)
        if hooks is None:
            hooks = self._tensor_pre_hooks[output_nr] = hook_dict()
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    def _tensor_hook_items(self):
        """``(output_nr, hooks)`` pairs of the tensors this node produced."""
        return self._tensor_pre_hooks.items() if self._tensor_pre_hooks else ()

    def _retain_grad_of(self, output_nr, tensor):
        """Make backward store this output's gradient in ``tensor.grad`` (``retain_grad``).
        The node keeps only a weak reference, so no cycle tensor -> node -> tensor forms."""
        self._hooked = True
        if self._retain_grad_refs is None:
            self._retain_grad_refs = {}
        self._retain_grad_refs[output_nr] = weakref.ref(tensor)

    def _apply(self, grad_outputs):
        """Compute the gradients of the inputs.  Subclasses implement this."""
        raise NotImplementedError

    def __repr__(self):
        return f"<{self.name()} object at {id(self):#x}>"


FREED = ()  # marks saved tensors that backward released


class AccumulateGrad(Node):
    """The graph node of a leaf that requires grad: adds gradients into ``variable.grad``.

    A leaf creates this node on first use and keeps only a weak reference to
    it; the node holds the leaf strongly (``node.variable``), so the leaf lives
    as long as any graph that uses it.
    """

    __slots__ = ("variable",)

    def __init__(self, variable):
        self.variable = variable
        self._next_nodes = self._next_nrs = ()
        self._seq = next(_sequence)
        if variable._backward_hooks:
            self._hooked = True

    def _tensor_hook_items(self):
        hooks = self.variable._backward_hooks
        return ((0, hooks),) if hooks else ()

    def _apply(self, grad_outputs):
        from .engine import accumulate_into_grad
        accumulate_into_grad(self.variable, grad_outputs[0])
        return ()


# A saved tensor is a small record, made for every tensor an op saves, so it is a
# plain tuple: (tensor, data, version_counter, version, output_nr).
#
# An input is kept as the very object (``grad_fn._saved_self is x``).  An
# output is kept only as its memory and version counter (tensor is None) and
# becomes a tensor again, with its ``grad_fn``, when unpacked: storing the
# output itself would make a cycle output -> grad_fn -> saved output.

def save_tensor(tensor, output_nr, hooks):
    """The record kept for one tensor given to ``save_for_backward``."""
    if hooks is not None:
        return _HookedSave(tensor, hooks)
    return (tensor if output_nr is None else None, tensor._data, tensor._version_counter,
            tensor._version_counter[0], output_nr)


def unpack_saved(entry, node):
    """The saved tensor back, after checking that no in-place op changed it since."""
    if type(entry) is not tuple:
        return entry.unpack()
    tensor, data, counter, version, output_nr = entry
    if counter[0] != version:
        raise RuntimeError(_modified_message(data, node, output_nr, counter[0], version))
    if output_nr is None:
        return tensor
    return Tensor._saved_output(data, counter, node, output_nr)


def unpack_saved_data(entry, node):
    """Like ``unpack_saved``, but only the array (array-mode backward of built-in ops)."""
    if type(entry) is not tuple:
        return entry.unpack()._data
    data, counter, version, output_nr = entry[1:]
    if counter[0] != version:
        raise RuntimeError(_modified_message(data, node, output_nr, counter[0], version))
    return data


class _HookedSave:
    """A tensor saved while ``saved_tensors_hooks`` were active: kept as ``pack_hook`` made it."""

    __slots__ = ("packed", "unpack_hook")

    def __init__(self, tensor, hooks):
        pack_hook, self.unpack_hook = hooks
        self.packed = pack_hook(tensor)

    def unpack(self):
        return self.unpack_hook(self.packed)


def _modified_message(data, node, output_nr, current, saved):
    where = (f"output {output_nr} of {node.name()}" if output_nr is not None
             else "an input of " + node.name())
    return ("one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{data.dtype.name} tensor of shape {list(data.shape)}], "
            f"which is {where}, is at version {current}; expected version {saved} instead. "
            "Hint: do the in-place operation on a clone (x = x.clone()) or after backward, "
            "or use the out-of-place version of the operation.")


class _HooksState(threading.local):
    stack = ()


_hooks_state = _HooksState()


class saved_tensors_hooks:
    """Context manager: transform every tensor saved for backward inside the block.

    ``pack_hook(tensor)`` runs when an operation saves a tensor and may return
    anything (a copy on disk, a compressed form...); ``unpack_hook(packed)``
    runs when backward needs the tensor and must return a tensor equal to the
    original.  Chapter 3 uses it to watch what each operation saves.
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _hooks_state.stack = _hooks_state.stack + ((self.pack_hook, self.unpack_hook),)
        return self

    def __exit__(self, *exc):
        _hooks_state.stack = _hooks_state.stack[:-1]
        return False
