"""minitorch.autograd: reverse-mode automatic differentiation (chapters 3 and 4).

* ``Function``: the base of every differentiable operation (``function.py``)
* ``backward`` / ``grad``: run the engine (``engine.py``)
* grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``
* ``graph``: nodes, saved tensors and ``saved_tensors_hooks``
* ``gradcheck`` / ``gradgradcheck``: compare backward with finite differences
"""

import numpy as np

from . import grad_mode, graph, function, engine
from .function import Function, once_differentiable
from .grad_mode import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled, inference_mode,
                        is_inference_mode_enabled)
from .gradcheck import gradcheck, gradgradcheck, GradcheckError

__all__ = ["Function", "once_differentiable", "backward", "grad", "gradcheck", "gradgradcheck",
           "GradcheckError", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
           "inference_mode", "is_inference_mode_enabled", "graph", "function", "grad_mode"]


def _as_tuple(x):
    if x is None:
        return ()
    if isinstance(x, function.Tensor):
        return (x,)
    return tuple(x)


def _seed_gradients(outputs, grad_outputs):
    """The gradient each output starts with: given, or ones for a scalar."""
    Tensor = function.Tensor
    if len(grad_outputs) == 0:
        grad_outputs = (None,) * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"grad can be implicitly created only for scalar outputs: got "
                           f"{len(grad_outputs)} gradients for {len(outputs)} outputs")
    seeds = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if not isinstance(out, Tensor):
            raise TypeError(f"backward expects tensors, but output {i} is {type(out).__name__}")
        if g is None:
            if out._requires_grad and out._data.size != 1:
                raise RuntimeError(
                    "grad can be implicitly created only for scalar outputs: this output has shape "
                    f"{list(out.shape)}. Reduce it first (e.g. y.sum().backward()) or pass a "
                    "gradient of the same shape: y.backward(gradient=...)")
            g = Tensor._wrap(np.ones(out._data.shape, dtype=out._data.dtype))
        elif not isinstance(g, Tensor):
            raise TypeError(f"gradient for output {i} must be a Tensor or None, not {type(g).__name__}")
        elif g.shape != out.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                               f"output[{i}] has a shape of {out.shape}.")
        seeds.append(g)
    return seeds


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate into the leaves' ``.grad`` the gradient of ``tensors``.

    ``retain_graph`` defaults to ``create_graph``: without it the saved tensors
    are freed as the engine goes, and a second backward through the same graph
    raises.  With ``inputs``, only those tensors receive gradients.
    """
    outputs = _as_tuple(tensors)
    seeds = _seed_gradients(outputs, _as_tuple(grad_tensors))
    if retain_graph is None:
        retain_graph = create_graph
    inputs = _as_tuple(inputs) if inputs is not None else None
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    engine.run_backward(outputs, seeds, retain_graph, create_graph, inputs=inputs, allow_unused=True,
                 accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=None, materialize_grads=False):
    """Return the gradients of ``outputs`` with respect to ``inputs`` (nothing goes into ``.grad``)."""
    outputs = _as_tuple(outputs)
    inputs_t = _as_tuple(inputs)
    seeds = _seed_gradients(outputs, _as_tuple(grad_outputs))
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    results = engine.run_backward(outputs, seeds, retain_graph, create_graph, inputs=inputs_t,
                           allow_unused=allow_unused, accumulate=False)
    if materialize_grads:
        from .. import zeros_like
        results = [r if r is not None else zeros_like(t) for r, t in zip(results, inputs_t)]
    return tuple(results)
