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
    is recomputed from ``args`` when it is needed (see the module docstring)."""
    ### BEGIN SOLUTION 14.1
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
            "exception. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for "
            "more details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got "
                         f"{determinism_check}")
    if use_reentrant:
        if context_fn is not noop_context_fn or debug:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        if kwargs:          # as PyTorch: the reentrant variant passes positional ones only
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    frame = _Frame(function, args, kwargs, preserve_rng_state,
                   determinism_check == "default", context_fn)
    forward_context, _ = context_fn()
    with saved_tensors_hooks(frame.pack, frame.unpack), forward_context:
        return function(*args, **kwargs)
    ### END SOLUTION 14.1


class _Frame:
    """One checkpointed call: the numbers handed out by ``pack``, and, once backward asks,
    the recomputed tensors by number."""

    def __init__(self, function, args, kwargs, preserve_rng_state, check, context_fn):
        """Remember the call, the random state now (if ``preserve_rng_state``) and what
        ``pack`` hands out: the shape and dtype of each saved tensor, by number."""
        ### BEGIN SOLUTION 14.1
        self.function, self.args, self.kwargs = function, args, kwargs
        self.rng_state = _random.get_rng_state() if preserve_rng_state else None
        self.check, self.context_fn = check, context_fn
        self.metadata = []          # (shape, dtype) of each saved tensor, by number
        self.recomputed = {}
        ### END SOLUTION 14.1

    def pack(self, tensor):
        """Keep the number of the saved tensor, not the tensor."""
        ### BEGIN SOLUTION 14.1
        self.metadata.append((tensor.shape, tensor.dtype))
        return len(self.metadata) - 1
        ### END SOLUTION 14.1

    def unpack(self, number):
        """The saved tensor, recomputed (all of them at the first request)."""
        ### BEGIN SOLUTION 14.1
        if number not in self.recomputed:
            self._recompute()
        return self.recomputed.pop(number)
        ### END SOLUTION 14.1

    def _recompute(self):
        """Run the function again, with the random state of the first run, grad mode on and
        the recompute half of ``context_fn``, catching every tensor it saves; check them
        against what ``pack`` saw (unless ``check`` is off, ``_check``); keep them by number.

        The catching pack hook keeps a graph-free alias of each tensor (the tensor itself
        would keep the throwaway graph alive until it is unpacked) and returns None, so
        that the graph keeps nothing either.  Returning the tensor would make each op that
        saves its own output (``tanh``, ``exp``) a cycle, output to node to output, which
        only the garbage collector frees: the recomputation would outlive backward."""
        ### BEGIN SOLUTION 14.1
        caught = []

        def catch(tensor):
            # Keep a graph-free alias: the tensor itself would hold the recomputation's
            # throwaway graph (its grad_fn and everything behind it) until unpacked.
            caught.append(tensor.detach())
            return None

        _, recompute_context = self.context_fn()
        with _rng_state(self.rng_state), grad_mode.enable_grad(), \
                saved_tensors_hooks(catch, _refuse_unpack), recompute_context:
            self.function(*self.args, **self.kwargs)
        if self.check:
            self._check(caught)
        self.recomputed = dict(enumerate(caught))
        ### END SOLUTION 14.1

    def _check(self, caught):
        """A ``CheckpointError`` when the recomputation saved another number of tensors, or
        tensors of other shapes or dtypes, than the first run (PyTorch's messages)."""
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
    """Run a block with the random state ``state`` (if given), then restore the current
    one: a recomputed dropout draws the same mask as the first run."""
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
        saved), remembering the random state (if ``preserve_rng_state``) and saving the tensor
        arguments for backward."""
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
        """Run ``function`` again on detached copies of the saved inputs, with grad mode on and
        the first run's random state, backpropagate ``grad_outputs`` through that new graph, and
        return the inputs' gradients (None for the function, the flag and non-tensors)."""
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
    """Run ``functions`` (a ``Sequential`` or a list of modules) one after another, in
    ``segments`` parts: each part but the last is checkpointed, so only the inputs of
    the parts are kept for backward."""
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
