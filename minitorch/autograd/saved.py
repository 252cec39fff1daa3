"""Saved tensors: what forward keeps for backward, and the check that it did not change (chapter 5).

``ctx.save_for_backward(a, b)`` turns each tensor into a :class:`SavedTensor`
that remembers the tensor's *version* at that moment.  Every in-place
operation bumps a tensor's version counter (shared with its views), so when
backward unpacks the saved tensor it can tell whether someone overwrote the
values in between, and refuse to compute a wrong gradient.

An output of the node is kept *without its graph link*: keeping the output
itself would make a cycle output -> grad_fn -> saved output (chapter 2).
It gets its ``grad_fn`` back when unpacked, as a new tensor object that shares
the memory, which is why ``y.grad_fn._saved_result`` equals ``y`` but is not
``y``.  An input is kept as the very object (``grad_fn._saved_self is x``).

Inside a ``saved_tensors_hooks`` block, a pack hook sees each tensor as it is
saved and an unpack hook gives it back; chapter 5 uses them to watch what
each operation saves.
"""

import re
import threading
import weakref

from .._dtype import from_numpy_dtype
from .._tensor import Tensor
from .graph import AccumulateGrad

__all__ = ["SavedTensor", "RawSavedTensor", "saved_tensors_hooks", "FREED_MESSAGE"]

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")


class SavedTensor:
    """One tensor given to ``save_for_backward``, with the version it had then.

    An input is kept as it is (``tensor``).  An output is kept as its memory
    and version counter only (``data``, ``version_counter``), without a link to
    its ``grad_fn``: the link comes back when backward unpacks it.
    """

    __slots__ = ("tensor", "data", "version_counter", "saved_version", "output_nr", "freed",
                 "__dict__")

    # Set on few saved tensors, so kept out of the slots (a dict is made when needed):
    unpack_hook = packed = link = None  # with saved_tensors_hooks (see _relinked)
    tangents = None     # a saved output's forward-mode tangents (chapter 12)

    def __init__(self, tensor, output_nr=None, hooks=None):
        """``output_nr`` is set when ``tensor`` is an output of the saving node."""
        self.output_nr, self.freed = output_nr, False
        self.version_counter = counter = tensor._version_counter
        self.saved_version = counter.version
        if hooks is not None:
            pack_hook, self.unpack_hook = hooks
            self.tensor = self.data = None
            self.link = _graph_link(tensor) if output_nr is None else None
            self.packed = pack_hook(tensor)
        else:
            self.tensor = tensor if output_nr is None else None
            self.data = tensor._data

    def unpack(self, node):
        """The saved tensor back, after checking that no in-place op changed it since."""
        if self.freed:
            raise RuntimeError(FREED_MESSAGE)
        if self.unpack_hook is not None:
            return self._relinked(_checked_unpack(self.unpack_hook, self.packed), node)
        self.check_version(node)
        if self.output_nr is None:
            return self.tensor
        t = Tensor._saved_output(self.data, self.version_counter, node, self.output_nr)
        if self.tangents is not None:
            t._fw_grads = self.tangents
        return t

    def _relinked(self, tensor, node):
        """What the unpack hook returned, put back in the graph where the saved tensor was
        (a new tensor object on the same memory), so that a double backward still reaches
        the inputs.  A saved tensor that needed no gradient comes back as returned."""
        if self.output_nr is not None:
            return Tensor._saved_output(tensor._data, tensor._version_counter, node,
                                        self.output_nr)
        if self.link is None:
            return tensor
        alias = tensor._alias_without_graph()
        alias._requires_grad = True
        grad_fn, output_nr = self.link
        if type(grad_fn) is AccumulateGrad:     # a leaf: gradients go to its .grad
            alias._acc_ref = weakref.ref(grad_fn)
        elif grad_fn is not None:
            alias._grad_fn, alias._output_nr = grad_fn, output_nr
        return alias

    def unpack_array(self, node):
        """Only the values, as a numpy array, after the same checks (the speed path of
        built-in ops, see ``ops/_common.py``)."""
        if self.freed or self.unpack_hook is not None:
            return self.unpack(node)._data
        if self.version_counter.version != self.saved_version:
            self.check_version(node)        # raises
        return self.data

    def check_version(self, node):
        """Refuse values that an in-place operation changed after they were saved."""
        current = self.version_counter.version
        if current != self.saved_version:
            ### BEGIN SOLUTION 5.2
            raise RuntimeError(_modified_message(self, node, current))
            ### END SOLUTION 5.2

    def mark_modified_by_its_node(self):
        """An output that its own node changed in place (``mark_dirty``) is saved
        as it is *after* the change: the node knows about its own write."""
        self.saved_version = self.version_counter.version

    def release(self):
        """Drop the references to the values (backward is done with them)."""
        self.tensor = self.data = None
        if self.unpack_hook is not None:
            self.packed = self.unpack_hook = self.link = None
        self.freed = True


def _graph_link(tensor):
    """Where a tensor that requires grad sits in the graph: its ``(grad_fn, output_nr)``,
    or for a leaf ``(its AccumulateGrad node, 0)``; None for one that needs no gradient.
    Kept when hooks pack the tensor, since the hooks may give back a detached copy."""
    from .function import edge_to      # (function imports this module)
    edge = edge_to(tensor)
    return None if edge[0] is None else edge


class RawSavedTensor:
    """``grad_fn._raw_saved_self``: one saved tensor of a node, to give it its own pair of
    hooks after the fact (``register_hooks(pack_hook, unpack_hook)``): the pack hook runs
    at once, the unpack hook whenever backward or ``_saved_self`` needs the tensor."""

    __slots__ = ("_node", "_saved")

    def __init__(self, node, saved):
        self._node = node
        self._saved = saved

    def register_hooks(self, pack_hook, unpack_hook):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("register_hooks(): incompatible function arguments: pass two "
                            "callables, pack_hook(tensor) and unpack_hook(packed)")
        saved = self._saved
        if saved.freed:
            raise RuntimeError("Calling register_hooks on a saved tensor after it has been "
                               "freed. " + FREED_MESSAGE.split(". ", 1)[1])
        if saved.unpack_hook is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have "
                               "already been set. Hint: only one pair of hooks is allowed at "
                               "a time.")
        if saved.output_nr is None:
            tensor = saved.tensor
        else:
            tensor = Tensor._saved_output(saved.data, saved.version_counter, self._node,
                                          saved.output_nr)
        saved.link = _graph_link(tensor) if saved.output_nr is None else None
        saved.packed = pack_hook(tensor)
        saved.unpack_hook = unpack_hook
        saved.tensor = saved.data = None


def _checked_unpack(unpack_hook, packed):
    tensor = unpack_hook(packed)
    if not isinstance(tensor, Tensor):
        raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got "
                        f"result of type {type(tensor).__name__}")
    return tensor


def _modified_message(saved, node, current):
    data = saved.data
    shape = ", ".join(map(str, data.shape))
    return ("one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [torch.{_type_name(data)}Tensor [{shape}]]"
            f"{_which_is(saved, node)} is at version {current}; expected version "
            f"{saved.saved_version} instead. Hint: do the in-place operation on a clone "
            "(x = x.clone()) or after backward, or use the out-of-place version of the "
            "operation.")


def _which_is(saved, node):
    """PyTorch's ", which is output 0 of Mul," naming the op that made the tensor: the
    saving node for a saved output, the tensor's grad_fn for a saved input (none for a leaf)."""
    ### BEGIN SOLUTION 5.2
    if saved.output_nr is not None:
        maker, nr = node, saved.output_nr
    elif saved.tensor is not None and saved.tensor._grad_fn is not None:
        maker, nr = saved.tensor._grad_fn, saved.tensor._output_nr
    else:
        return ""
    ### END SOLUTION 5.2
    op = re.sub(r"Backward\d*$", "", maker.name().replace("torch::autograd::", ""))
    return f", which is output {nr} of {op},"


def _type_name(data):
    return from_numpy_dtype(data.dtype).type_name


# ----- saved_tensors_hooks ----------------------------------------------------------------
class _HooksStack(threading.local):
    """The (pack, unpack) pairs active in this thread, innermost last."""
    stack = ()


_hooks = _HooksStack()
_active_lock = threading.Lock()


_active = [0]       # how many saved_tensors_hooks blocks are open, in all threads


def current_hooks():
    """The innermost (pack_hook, unpack_hook) pair of this thread, or None.  The
    per-thread stack is read only while some thread uses hooks at all (``_active``)."""
    if not _active[0]:
        return None
    stack = _hooks.stack
    return stack[-1] if stack else None


class saved_tensors_hooks:
    """Context manager: transform every tensor saved for backward inside the block.

    ``pack_hook(tensor)`` runs when an operation saves a tensor and may return
    anything (a copy on disk, a compressed form...); ``unpack_hook(packed)``
    runs when backward needs the tensor and must return a tensor equal to the
    original.
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _hooks.stack = _hooks.stack + ((self.pack_hook, self.unpack_hook),)
        with _active_lock:
            _active[0] += 1
        return None                 # as in PyTorch: ``with ... as h`` binds None

    def __exit__(self, *exc):
        _hooks.stack = _hooks.stack[:-1]
        with _active_lock:
            _active[0] -= 1
        return False


class save_on_cpu(saved_tensors_hooks):
    """Keep saved tensors in CPU memory: on a CPU-only library, saved tensors are there
    already, so this changes nothing (it exists so that PyTorch code runs)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(lambda tensor: tensor, lambda tensor: tensor)


class disable_saved_tensors_hooks:
    """Refuse ``saved_tensors_hooks`` inside the block, with ``error_message``."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        if _hooks.stack:
            raise RuntimeError(self.error_message)
        return self

    def __exit__(self, *exc):
        return False
