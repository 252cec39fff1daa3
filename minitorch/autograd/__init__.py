"""minitorch.autograd: reverse-mode automatic differentiation (chapters 4 to 6).

* ``graph``: nodes and edges (``graph.py``); saved tensors and their hooks (``saved.py``)
* ``backward`` / ``grad``: run the engine (``engine.py``)
* grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``
* ``Function``: the base of every differentiable operation (``function.py``)
* ``gradcheck`` / ``gradgradcheck``: compare backward with finite differences
* ``Variable``: the pre-0.4 wrapper, kept so that old code runs (returns a tensor)
"""

import numpy as np

from .._tensor import Tensor
from . import grad_mode, graph, saved, function, engine
from .function import Function, once_differentiable, InplaceFunction
from .grad_mode import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled, inference_mode,
                        is_inference_mode_enabled)
from .gradcheck import gradcheck, gradgradcheck, GradcheckError
from . import functional, anomaly_mode, profiler
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .variable import Variable
from . import forward_ad

__all__ = ["Function", "once_differentiable", "backward", "grad", "gradcheck", "gradgradcheck",
           "GradcheckError", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
           "inference_mode", "is_inference_mode_enabled", "graph", "function", "grad_mode",
           "functional", "detect_anomaly", "set_detect_anomaly", "InplaceFunction", "Variable",
           "profiler", "forward_ad"]

graph.saved_tensors_hooks = saved.saved_tensors_hooks     # PyTorch's spelling: autograd.graph.*
graph.save_on_cpu = saved.save_on_cpu
graph.disable_saved_tensors_hooks = saved.disable_saved_tensors_hooks


def _as_tuple(x, what):
    if x is None:
        return ()
    if isinstance(x, Tensor):
        return (x,)
    if isinstance(x, (list, tuple)):
        return tuple(x)
    raise TypeError(f"{what} must be a Tensor or a sequence of Tensors, not {type(x).__name__}")


def _inputs_tuple(inputs, function):
    """``inputs`` of backward() or grad(): one tensor or a non-empty sequence of tensors."""
    inputs = (inputs,) if not isinstance(inputs, (list, tuple)) else tuple(inputs)
    if not inputs:
        raise RuntimeError(f"`inputs` argument to `{function}()` cannot be empty. Pass the "
                           "tensors whose gradients you want, or leave inputs out.")
    for t in inputs:
        if not isinstance(t, Tensor):
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got "
                               f"{type(t).__name__}. Pass the tensors themselves.")
    return inputs


def _check_flag(value, name, function):
    if value is not None and not isinstance(value, (bool, int, np.bool_)):
        raise TypeError(f"{function}(): argument '{name}' must be bool, not "
                        f"{type(value).__name__}")


def _seed_gradients(outputs, grad_outputs):
    """The gradient each output starts with: the one given, or ones for a scalar.
    Extra gradients are ignored, as in PyTorch; missing ones are an error."""
    if not grad_outputs:
        grad_outputs = (None,) * len(outputs)
    if len(grad_outputs) < len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grad_outputs)} gradients: "
                           "pass one gradient per tensor (None for a scalar).")
    return [_seed(i, out, g) for i, (out, g) in enumerate(zip(outputs, grad_outputs))]


def _seed(i, out, g):
    if not isinstance(out, Tensor):
        raise TypeError(f"backward expects tensors, but output {i} is {type(out).__name__}")
    if g is None:
        if out._requires_grad and out._data.size != 1:
            raise RuntimeError(
                "grad can be implicitly created only for scalar outputs: this output has shape "
                f"{list(out.shape)}. Reduce it first (e.g. y.sum().backward()) or pass a "
                "gradient of the same shape: y.backward(gradient=...)")
        if not out._data.dtype.kind == "f":
            raise RuntimeError(f"grad can be implicitly created only for real scalar outputs "
                               f"but got {out.dtype}")
        return Tensor._wrap(np.ones(out._data.shape, dtype=out._data.dtype))
    if not isinstance(g, Tensor):
        raise TypeError(f"gradients can be either Tensors or None, but got "
                        f"{type(g).__name__}. Wrap the values in a tensor: "
                        "minitorch.tensor(values).")
    if g.shape != out.shape:
        raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                           f"output[{i}] has a shape of {out.shape}.")
    if g._data.dtype != out._data.dtype and out._data.dtype.kind == "f":
        g = g.to(out.dtype)         # PyTorch converts a seed to its output's dtype
    return g


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate into the leaves' ``.grad`` the gradient of ``tensors``.

    ``retain_graph`` defaults to ``create_graph``: without it the saved tensors
    are freed as the engine goes, and a second backward through the same graph
    raises.  With ``inputs``, only those tensors receive gradients (a non-leaf
    among them is made to ``retain_grad()``, as PyTorch does).  The ``.grad`` of
    the leaves change only if the whole backward succeeds.
    """
    _check_flag(retain_graph, "retain_graph", "backward")
    _check_flag(create_graph, "create_graph", "backward")
    outputs = _as_tuple(tensors, "tensors")
    seeds = _seed_gradients(outputs, _as_tuple(grad_tensors, "grad_tensors"))
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = _inputs_tuple(inputs, "backward")
        for t in inputs:
            if t._grad_fn is not None:
                t.retain_grad()
    engine.run_backward(outputs, seeds, retain_graph, create_graph, inputs=inputs)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, as a tuple (a dict when
    ``inputs`` is a dict of tensors); no ``.grad`` changes."""
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                             allow_unused, materialize_grads)
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads"
                         "=True, but got: allow_unused=False.")
    _check_flag(retain_graph, "retain_graph", "grad")
    _check_flag(create_graph, "create_graph", "grad")
    names = list(inputs) if isinstance(inputs, dict) else None
    outputs = _as_tuple(outputs, "outputs")
    inputs = _inputs_tuple(list(inputs.values()) if names is not None else inputs, "grad")
    seeds = _seed_gradients(outputs, _as_tuple(grad_outputs, "grad_outputs"))
    if retain_graph is None:
        retain_graph = create_graph
    allow_unused = materialize_grads if allow_unused is None else allow_unused
    results = engine.run_backward(outputs, seeds, retain_graph, create_graph, inputs=inputs,
                                  accumulate=False)
    for i, r in enumerate(results):
        if r is None and not allow_unused:
            raise RuntimeError(
                f"The differentiated Tensor at index {i} appears to not have been used in the "
                "graph. Set allow_unused=True if this is the desired behavior.")
    if materialize_grads:
        results = [Tensor._wrap(np.zeros_like(t._data)) if r is None else r
                   for r, t in zip(results, inputs)]
    return tuple(results) if names is None else dict(zip(names, results))


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                  materialize_grads):
    """``is_grads_batched=True``: the first dim of each grad_output is a batch of
    gradients, and backward runs once for all of them under ``func.vmap`` (chapter 13).
    Inside, the engine carries batched gradients, so it runs on tensors (create_graph)."""
    from ..func import vmap

    def one(*seeds):
        return grad(outputs, inputs, seeds, retain_graph=True, create_graph=True,
                    allow_unused=allow_unused, materialize_grads=materialize_grads)
    results = vmap(one)(*_as_tuple(grad_outputs, "grad_outputs"))
    if not create_graph:
        results = tuple(None if r is None else r.detach() for r in results)
    return results
