"""Activation checkpointing: trade memory for recomputation (chapter 14).

A network's backward needs what its forward saved: for a deep MLP, every
layer's input and activation, held from the forward pass until backward reaches
that layer.  ``checkpoint(fn, *args, use_reentrant=False)`` keeps none of what
``fn`` saves.  It runs ``fn`` under chapter 5's saved-tensor hooks:

* the *pack* hook, called for every tensor an op in ``fn`` saves, keeps only its
  number (and its shape and dtype, to check the recomputation);
* the *unpack* hook, called when backward first needs one of them, runs ``fn``
  again on the same inputs (with the random state it had the first time), this
  time catching what its ops save, and hands back the tensor with that number.

Memory: during forward only ``fn``'s inputs and outputs stay alive, and the
tensors recomputed for backward live until backward has used them.  Time: ``fn``
runs twice.  ``checkpoint_sequential`` applies this to the segments of a
``Sequential``: about ``segments`` boundary activations are kept instead of all.

``use_reentrant=True`` is the older variant: a ``Function`` whose backward
reruns ``fn`` with grad mode on and calls ``backward`` inside ``backward``.
"""

import contextlib
import warnings

from .. import _random
from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd.function import Function
from ..autograd.saved import saved_tensors_hooks

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError"]


class CheckpointError(RuntimeError):
    """The recomputation did not save the same tensors as the first run."""


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check="default", debug=False, preserve_rng_state=True,
               early_stop=True, **kwargs):
    """``function(*args, **kwargs)``, saving nothing for backward: what backward needs
    is recomputed from ``args`` when it is needed (see the module docstring).  Returns
    what ``function`` returns.

    ``use_reentrant=False``: the hook variant.  A ``_Frame`` of the call (which checks
    the recomputation unless ``determinism_check`` is ``"none"``) packs and unpacks,
    under ``saved_tensors_hooks``, every tensor ``function`` saves.  ``context_fn()`` is
    called once, here; it returns two context managers: ``function`` runs inside the
    first, each recomputation inside the second.  A ``determinism_check`` other than
    ``"default"`` or ``"none"`` is PyTorch's ValueError ``determinism_check should be
    one of ['default', 'none'], but got x``.  Keyword arguments go to ``function``.

    ``use_reentrant=True``: the reentrant variant, ``CheckpointFunction`` (below).  As
    PyTorch, it refuses with a ValueError a ``context_fn`` other than
    ``noop_context_fn`` or ``debug=True`` (``Passing `context_fn` or `debug` is only
    supported when use_reentrant=False.``) and keyword arguments for ``function``
    (``Unexpected keyword arguments: scale,shift``: their names, joined by commas).

    ``use_reentrant=None`` (not passed) gives PyTorch's UserWarning (one line)
    ``torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly.
    Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an
    exception. use_reentrant=False is recommended, but if you need to preserve the
    current default behavior, you can pass use_reentrant=True. Refer to docs for more
    details on the differences between the two variants.``, then runs the reentrant
    variant, PyTorch's default.  ``early_stop`` is accepted and ignored (the
    recomputation always runs to the end)."""
    ### BEGIN SOLUTION 14.1
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
            "exception. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for "
            "more details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    if use_reentrant:
        if context_fn is not noop_context_fn or debug:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        if kwargs:          # as PyTorch: the reentrant variant passes positional ones only
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got "
                         f"{determinism_check}")
    forward_context, recompute_context = context_fn()
    frame = _Frame(function, args, kwargs, preserve_rng_state,
                   determinism_check == "default", recompute_context)
    with saved_tensors_hooks(frame.pack, frame.unpack), forward_context:
        return function(*args, **kwargs)
    ### END SOLUTION 14.1


class _Frame:
    """One checkpointed call: the numbers handed out by ``pack``, and, once backward asks,
    the recomputed tensors by number."""

    def __init__(self, function, args, kwargs, preserve_rng_state, check,
                 recompute_context):
        """Remember the call, the random state now (``_random.get_rng_state()``, if
        ``preserve_rng_state``), whether to ``check`` the recomputation, the context
        manager to run it in (``recompute_context``, the second of ``context_fn``'s
        pair), and room for what ``pack`` hands out: the shape and dtype of each saved
        tensor, by number."""
        ### BEGIN SOLUTION 14.1
        self.function, self.args, self.kwargs = function, args, kwargs
        self.rng_state = _random.get_rng_state() if preserve_rng_state else None
        self.check, self.recompute_context = check, recompute_context
        self.metadata = []          # (shape, dtype) of each saved tensor, by number
        self.recomputed = {}
        ### END SOLUTION 14.1

    def pack(self, tensor):
        """Keep the number of the saved tensor, not the tensor: note its shape and dtype
        and return its number (0 for the first tensor saved, then 1, 2, ...)."""
        ### BEGIN SOLUTION 14.1
        self.metadata.append((tensor.shape, tensor.dtype))
        return len(self.metadata) - 1
        ### END SOLUTION 14.1

    def unpack(self, number):
        """The saved tensor ``number`` (what ``pack`` returned), recomputed: the first
        request runs ``_recompute``, which recomputes all of them.  Each is handed over
        once and then forgotten, so that it is freed when backward is done with it; a
        second backward through the same graph (``retain_graph=True``) asks again and
        gets a new recomputation, as in PyTorch."""
        ### BEGIN SOLUTION 14.1
        if number not in self.recomputed:
            self._recompute()
        return self.recomputed.pop(number)
        ### END SOLUTION 14.1

    def _recompute(self):
        """Run the function again, with the random state of the first run, grad mode on and
        the recompute context, catching every tensor it saves; check them against what
        ``pack`` saw (unless ``check`` is off, ``_check``); keep them by number.

        The catching pack hook keeps a graph-free alias of each tensor (``detach()``, as
        PyTorch does: the same values, no ``grad_fn``; the tensor itself would keep the
        throwaway graph alive until it is unpacked) and returns None, so that the graph
        keeps nothing either.  Returning the tensor would make each op that saves its own
        output (``tanh``, ``exp``) a cycle, output to node to output, which only the
        garbage collector frees: the recomputation would outlive backward."""
        ### BEGIN SOLUTION 14.1
        caught = []

        def catch(tensor):
            # Keep a graph-free alias: the tensor itself would hold the recomputation's
            # throwaway graph (its grad_fn and everything behind it) until unpacked.
            caught.append(tensor.detach())
            return None

        with _rng_state(self.rng_state), grad_mode.enable_grad(), \
                saved_tensors_hooks(catch, _refuse_unpack), self.recompute_context:
            self.function(*self.args, **self.kwargs)
        if self.check:
            self._check(caught)
        self.recomputed = dict(enumerate(caught))
        ### END SOLUTION 14.1

    def _check(self, caught):
        """Raise a ``CheckpointError`` when the recomputation saved (``caught``, in order)
        another number of tensors, or tensors of other shapes or dtypes, than the first
        run (``pack``'s notes).  The messages begin as PyTorch's:

        - ``torch.utils.checkpoint: A different number of tensors was saved during the
          original forward and recomputation.`` then two lines, ``Number of tensors saved
          during forward: 2`` and ``Number of tensors saved during recomputation: 1.``;
        - ``torch.utils.checkpoint: Recomputed values for the following tensors have
          different metadata than during the forward pass.`` then, for each tensor that
          differs, three lines: ``tensor at position 0:``, ``saved metadata: {'shape':
          minitorch.Size([3]), 'dtype': minitorch.float32}`` and ``recomputed metadata:
          {...}`` (the same for the recomputed tensor).

        Returns None when they agree."""
        ### BEGIN SOLUTION 14.1
        if len(caught) != len(self.metadata):
            raise CheckpointError(
                f"torch.utils.checkpoint: A different number of tensors was saved during the "
                f"original forward and recomputation.\nNumber of tensors saved during forward: "
                f"{len(self.metadata)}\nNumber of tensors saved during recomputation: "
                f"{len(caught)}. Make the checkpointed function deterministic (same ops on "
                "the same shapes each call).")
        bad = [(i, meta, (t.shape, t.dtype)) for i, (meta, t) in
               enumerate(zip(self.metadata, caught)) if meta != (t.shape, t.dtype)]
        if bad:
            lines = "\n".join(
                f"tensor at position {i}:\nsaved metadata: {{'shape': {s[0]}, 'dtype': "
                f"{s[1]}}}\nrecomputed metadata: {{'shape': {r[0]}, 'dtype': {r[1]}}}"
                for i, s, r in bad)
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have "
                f"different metadata than during the forward pass.\n{lines}\n")
        ### END SOLUTION 14.1


def _refuse_unpack(packed):
    """The unpack hook of the recomputation.  Nothing calls it: the recomputed graph is
    thrown away without a backward, and the tensors its ops save are caught by the pack
    hook, which returns None (``_recompute``).  Were it called, it would hand back what
    the pack hook returned."""
    return packed


@contextlib.contextmanager
def _rng_state(state):
    """Run a block with the random state ``state`` (``_random.set_rng_state``; None:
    leave the state alone), then restore the one it replaced, even if the block raised:
    a recomputed dropout draws the same mask as the first run."""
    ### BEGIN SOLUTION 14.1
    if state is None:
        yield
        return
    current = _random.get_rng_state()
    _random.set_rng_state(state)
    try:
        yield
    finally:
        _random.set_rng_state(current)
    ### END SOLUTION 14.1


# ----- the reentrant variant ------------------------------------------------------------
class CheckpointFunction(Function):
    """Forward without a graph; backward reruns the function with one and runs backward
    through it (backward inside backward).  Named as PyTorch's, so its node prints as
    ``CheckpointFunctionBackward``."""

    @staticmethod
    def forward(ctx, function, preserve_rng_state, *args):
        """The reentrant variant: run ``function`` under no_grad (nothing recorded, nothing
        saved) and return its output, remembering the random state (if
        ``preserve_rng_state``) and the arguments, the tensors saved for backward
        (``ctx.save_for_backward``).  When no tensor argument requires grad, PyTorch's
        UserWarning ``None of the inputs have requires_grad=True. Gradients will be
        None``."""
        ### BEGIN SOLUTION 14.1
        ctx.function = function
        ctx.rng_state = _random.get_rng_state() if preserve_rng_state else None
        ctx.inputs = [a if not isinstance(a, Tensor) else None for a in args]
        ctx.tensor_positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None")
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with grad_mode.no_grad():
            return function(*args)
        ### END SOLUTION 14.1

    @staticmethod
    def backward(ctx, *grad_outputs):
        """Run ``function`` again on detached copies of the saved inputs (each requiring grad
        as its original does), with grad mode on and the first run's random state,
        backpropagate ``grad_outputs`` through that new graph from the outputs that require
        grad, and return the inputs' gradients (None for the function, the flag and
        non-tensors).  When no output requires grad, PyTorch's RuntimeError ``none of output
        has requires_grad=True, this checkpoint() is not necessary``."""
        ### BEGIN SOLUTION 14.1
        from .. import autograd
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_positions, ctx.saved_tensors):
            inputs[i] = t.detach().requires_grad_(t.requires_grad)
        with _rng_state(ctx.rng_state), grad_mode.enable_grad():
            outputs = ctx.function(*inputs)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grad_outputs)
                 if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        grads = tuple(inputs[i].grad if isinstance(inputs[i], Tensor) else None
                      for i in range(len(inputs)))
        return (None, None) + grads
        ### END SOLUTION 14.1


# ----- sequences of modules -------------------------------------------------------------------
def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` (a ``Sequential``, whose children are taken in order, or a list
    of modules) one after another, in ``segments`` parts, and return the output: each
    part but the last has ``len(functions) // segments`` modules and is checkpointed
    (``checkpoint`` with ``use_reentrant``), so only the inputs of the parts are kept
    for backward; the last part takes the modules left and runs without a checkpoint.

    Its one keyword is ``preserve_rng_state`` (default True); any other is PyTorch's
    ValueError ``Unexpected keyword arguments: foo`` (the names, joined by commas).
    ``use_reentrant=None`` gives PyTorch's UserWarning (one line)
    ``torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should
    be passed explicitly. In version 2.9 we will raise an exception if use_reentrant is
    not passed. use_reentrant=False is recommended, but if you need to preserve the
    current default behavior, you can pass use_reentrant=True. Refer to docs for more
    details on the differences between the two variants.`` and runs the reentrant
    variant."""
    ### BEGIN SOLUTION 14.1
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should "
            "be passed explicitly. In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is recommended, but if you need to preserve "
            "the current default behavior, you can pass use_reentrant=True. Refer to docs for "
            "more details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if hasattr(functions, "children") and not isinstance(functions, (list, tuple)):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(_run_part(functions, start, end), input,
                           use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return _run_part(functions, end + 1, len(functions) - 1)(input)
    ### END SOLUTION 14.1


def _run_part(functions, start, end):
    """A function running ``functions[start]`` to ``functions[end]`` (both included) one
    after the other."""
    ### BEGIN SOLUTION 14.1
    def forward(input):
        for j in range(start, end + 1):
            input = functions[j](input)
        return input
    return forward
    ### END SOLUTION 14.1
