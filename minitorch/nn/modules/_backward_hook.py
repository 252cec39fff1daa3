"""How a Module's full backward hooks see the gradients of its inputs and outputs
(chapter 8).

A full backward hook wants ``grad_input`` (gradients of the module's input
tensors) and ``grad_output`` (gradients of its output tensors), although
backward never visits "the module": it only visits graph nodes.  The trick,
PyTorch's too, is to put an identity ``autograd.Function`` around the module:

    inputs -> [BackwardHookFunction] -> forward(...) -> [BackwardHookFunction] -> outputs

Its nodes do nothing to the values, but they are graph nodes, so hooks can be
registered on them.  Backward reaches the output node first: its hook stores
``grad_output``.  It reaches the input node last: its hook now knows both
tuples and calls the user's hooks, whose returned tuple replaces ``grad_input``.
"""

import warnings

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ..._tensor import Tensor

__all__ = ["BackwardHookFunction", "BackwardHook"]


class BackwardHookFunction(Function):
    """Identity on any number of tensors; exists only so that hooks have a node to sit on."""

    @staticmethod
    def forward(ctx, *args):
        # A tensor that needs no grad stays out of the graph: it is returned as a
        # detached alias marked non-differentiable (its gradient arrives as zeros).
        outputs = tuple(a if a.requires_grad else a.detach() for a in args)
        ctx.mark_non_differentiable(*[o for o in outputs if not o.requires_grad])
        return outputs

    @staticmethod
    def backward(ctx, *grads):
        return grads


def _pack(indices, values, size):
    """Put ``values`` at ``indices`` of a tuple of ``size`` Nones (non-tensor arguments stay None)."""
    packed = [None] * size
    for i, value in zip(indices, values):
        packed[i] = value
    return tuple(packed)


def _check_sizes(new, old):
    """A hook may replace gradients, not change their shapes."""
    for value, before in zip(new, old):
        if isinstance(value, Tensor) and isinstance(before, Tensor) and value.shape != before.shape:
            raise RuntimeError(
                f"hook 'hook' has changed the size of value: a full backward hook returned a "
                f"gradient of shape {list(value.shape)} for an input of shape "
                f"{list(before.shape)}; return gradients of the inputs' shapes (or None)")


class BackwardHook:
    """Connects one call of a module to its full backward (pre-)hooks."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = -1
        self.input_tensors_index = self.output_tensors_index = None

    def _route_through_identity(self, args, register):
        """Pass the tensors among ``args`` through BackwardHookFunction and call
        ``register(node)`` on its node.  Returns the new args and where the tensors are."""
        indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in indices]
        if not (is_grad_enabled() and any(t.requires_grad for t in tensors)):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        node = next(t.grad_fn for t in new_tensors if t.grad_fn is not None)
        register(node)
        new_args = list(args)
        for i, t in zip(indices, new_tensors):
            new_args[i] = t
        return tuple(new_args), indices

    # ----- inputs: the last node backward reaches for this module -----------------
    def setup_input_hook(self, args):
        def register(node):
            node.register_hook(self._input_hook)
        result, self.input_tensors_index = self._route_through_identity(args, register)
        self.n_inputs = len(args)
        self.input_zeros = [a._data for a in args if isinstance(a, Tensor)]
        return result

    def _input_hook(self, grad_inputs, _grad_outputs):
        if self.grad_outputs is None:
            return None     # gradient reached the inputs without passing through the outputs
        # An input that needs no grad gets zeros, as in PyTorch (its identity output was
        # non-differentiable, and backward fills the gradient of such an output with zeros).
        missing = [g is None for g in grad_inputs]
        grad_inputs = [Tensor._wrap(np.zeros_like(data)) if g is None else g
                       for g, data in zip(grad_inputs, self.input_zeros)]
        grads = _pack(self.input_tensors_index, grad_inputs, self.n_inputs)
        for hook in self.user_hooks:
            result = hook(self.module, grads, self.grad_outputs)
            if result is None:
                continue
            if len(result) != len(grads):
                raise RuntimeError(f"Backward hook returned an invalid number of grad_input, "
                                   f"got {len(result)}, but expected {len(grads)}")
            _check_sizes(result, grads)
            grads = result
        self.grad_outputs = None
        # A node hook may not put a gradient where none flows (PyTorch refuses it too).
        return tuple(None if none else grads[i]
                     for i, none in zip(self.input_tensors_index, missing))

    # ----- outputs: the first node backward reaches -------------------------------
    def setup_output_hook(self, result):
        single = not isinstance(result, tuple)
        outputs = (result,) if single else result

        def register(node):
            node.register_hook(self._output_hook)
        new_outputs, self.output_tensors_index = self._route_through_identity(outputs, register)
        self.n_outputs = len(outputs)
        return new_outputs[0] if single else new_outputs

    def _output_hook(self, _grad_inputs, grad_outputs):
        self.grad_outputs = _pack(self.output_tensors_index, grad_outputs, self.n_outputs)
        for hook in self.user_pre_hooks:
            result = hook(self.module, self.grad_outputs)
            if result is None:
                continue
            if len(result) != len(self.grad_outputs):
                raise RuntimeError(f"Backward pre hook returned an invalid number of grad_output, "
                                   f"got {len(result)}, but expected {len(self.grad_outputs)}")
            self.grad_outputs = tuple(result)
        grad_outputs = self.grad_outputs
        if self.input_tensors_index is None:
            self._call_hooks_without_inputs()
        return tuple(grad_outputs[i] for i in self.output_tensors_index)

    def _call_hooks_without_inputs(self):
        """No input requires grad: the input node does not exist, so call the hooks now."""
        if self.user_hooks:
            warnings.warn("Full backward hook is firing when gradients are computed with respect to "
                          "module outputs since no inputs require gradients.", UserWarning)
        grads = (None,) * self.n_inputs
        for hook in self.user_hooks:
            result = hook(self.module, grads, self.grad_outputs)
            if result is not None and not (isinstance(result, tuple) and all(g is None for g in result)):
                raise RuntimeError("Backward hook for Modules where no input requires gradient should "
                                   "always return None or None for all gradients.")
        self.grad_outputs = None
