"""``autograd.functional``: Jacobians, Hessians and their products, from backward alone.

All of them are built on ``autograd.grad``: a vector-Jacobian product (vjp)
is one backward pass seeded with the vector; a Jacobian is one vjp per output
element (its rows); a Hessian is the Jacobian of the gradient, which needs
``create_graph=True`` for the first derivative; a Jacobian-vector product
(jvp) uses the "double backward" trick: the vjp is linear in its seed, so
differentiating it with respect to the seed gives the jvp.
"""

import numpy as np

from .._tensor import Tensor
from . import grad_mode

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]


def _as_tuple(x, name):
    if isinstance(x, Tensor):
        return True, (x,)
    if isinstance(x, (tuple, list)) and all(isinstance(t, Tensor) for t in x):
        return False, tuple(x)
    raise TypeError(f"The {name} given to autograd.functional must be a Tensor or a tuple of "
                    f"Tensors, but got {type(x).__name__}")


def _prepared(inputs, create_graph):
    """Inputs that require grad, detached from any graph they came from (unless create_graph)."""
    with grad_mode.enable_grad():
        return tuple(x if create_graph and x.requires_grad else
                     x.detach().requires_grad_(True) for x in inputs)


def _grads(outputs, inputs, seeds, create_graph, strict, what):
    from . import grad
    needing = [o for o in outputs if o.requires_grad]
    if not needing:
        result = [None] * len(inputs)
    else:
        pairs = [(o, s) for o, s in zip(outputs, seeds) if o.requires_grad]
        result = list(grad([o for o, _ in pairs], inputs, [s for _, s in pairs],
                           retain_graph=True, create_graph=create_graph, allow_unused=True))
    if strict and any(r is None for r in result):
        raise RuntimeError(f"The {what} is independent of an input: with strict=True every "
                           "output must depend on every input")
    return tuple(Tensor._wrap(np.zeros_like(x._data)) if r is None else r
                 for r, x in zip(result, inputs))


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v @ J)``: the outputs, and the vector-Jacobian product."""
    single_in, inputs = _as_tuple(inputs, "inputs")
    inputs = _prepared(inputs, create_graph)
    with grad_mode.enable_grad():
        out = func(*inputs)
    single_out, outputs = _as_tuple(out, "outputs of func")
    if v is None:
        if any(o.numel() != 1 for o in outputs):
            raise RuntimeError("The vector v can only be None if the user-provided function "
                               "returns a single Tensor with a single element.")
        seeds = tuple(Tensor._wrap(np.ones_like(o._data)) for o in outputs)
    else:
        seeds = _as_tuple(v, "v")[1]
    result = _grads(outputs, inputs, seeds, create_graph, strict, "vjp")
    detached = tuple(o if create_graph else o.detach() for o in outputs)
    return (detached[0] if single_out else detached), (result[0] if single_in else result)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J @ v)`` by double backward."""
    from . import grad
    single_in, inputs = _as_tuple(inputs, "inputs")
    inputs = _prepared(inputs, True)
    if v is None:
        if any(x.numel() != 1 for x in inputs):
            raise RuntimeError("The vector v can only be None if the input to the "
                               "user-provided function is a single Tensor with a single element.")
        v = tuple(Tensor._wrap(np.ones_like(x._data)) for x in inputs)
    else:
        v = _as_tuple(v, "v")[1]
    with grad_mode.enable_grad():
        out = func(*inputs)
        single_out, outputs = _as_tuple(out, "outputs of func")
        dummies = tuple(Tensor._wrap(np.zeros_like(o._data)).requires_grad_(True)
                        for o in outputs)
        vjps = _grads(outputs, inputs, dummies, True, strict, "jvp")
        pairs = [(g, s) for g, s in zip(vjps, v) if g.requires_grad]
        if pairs:
            result = grad([g for g, _ in pairs], dummies, [s for _, s in pairs],
                          create_graph=create_graph, allow_unused=True)
        else:
            result = (None,) * len(dummies)
    result = tuple(Tensor._wrap(np.zeros_like(o._data)) if r is None else r
                   for r, o in zip(result, outputs))
    detached = tuple(o if create_graph else o.detach() for o in outputs)
    return (detached[0] if single_out else detached), (result[0] if single_out else result)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: shape ``output.shape + input.shape``
    (a tuple over inputs and/or outputs when there are several)."""
    if strategy != "reverse-mode":
        raise NotImplementedError("minitorch computes Jacobians in reverse mode only")
    single_in, inputs = _as_tuple(inputs, "inputs")
    inputs = _prepared(inputs, create_graph)
    with grad_mode.enable_grad():
        out = func(*inputs)
    single_out, outputs = _as_tuple(out, "outputs of func")
    blocks = []
    for o in outputs:
        rows = [[] for _ in inputs]
        for j in range(o.numel()):
            seed = np.zeros(o.numel(), dtype=o._data.dtype)
            seed[j] = 1
            seeds = tuple(Tensor._wrap(seed.reshape(o.shape)) if p is o else
                          Tensor._wrap(np.zeros_like(p._data)) for p in outputs)
            grads = _grads(outputs, inputs, seeds, create_graph, strict, "jacobian")
            for i, g in enumerate(grads):
                rows[i].append(g)
        blocks.append(tuple(_stack_rows(r, o, x) for r, x in zip(rows, inputs)))
    if single_out and single_in:
        return blocks[0][0]
    if single_out:
        return blocks[0]
    if single_in:
        return tuple(b[0] for b in blocks)
    return tuple(blocks)


def _stack_rows(rows, output, input):
    from .. import stack
    if not rows:
        return Tensor._wrap(np.zeros(tuple(output.shape) + tuple(input.shape),
                                     dtype=input._data.dtype))
    return stack(rows).reshape(*output.shape, *input.shape)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The matrix of second derivatives of a scalar ``func``."""
    single_in, inputs_t = _as_tuple(inputs, "inputs")

    def gradient(*xs):
        out = func(*xs)
        if not isinstance(out, Tensor) or out.numel() != 1:
            raise RuntimeError("The function given to hessian should return a single Tensor "
                               "with a single element.")
        from . import grad
        grads = grad(out, xs, create_graph=True, allow_unused=True)
        return tuple(Tensor._wrap(np.zeros_like(x._data)) if g is None else g
                     for g, x in zip(grads, xs))
    result = jacobian(gradient, inputs_t, create_graph=create_graph, strict=strict)
    if single_in:
        return result[0][0]
    return result


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v @ H)``."""
    single_in, inputs_t = _as_tuple(inputs, "inputs")
    from . import grad
    xs = _prepared(inputs_t, True)
    with grad_mode.enable_grad():
        out = func(*xs)
        first = grad(out, xs, create_graph=True, allow_unused=True)
        first = tuple(Tensor._wrap(np.zeros_like(x._data)) if g is None else g
                      for g, x in zip(first, xs))
    v = _as_tuple(v, "v")[1] if v is not None else tuple(
        Tensor._wrap(np.ones_like(x._data)) for x in xs)
    result = _grads(first, xs, v, create_graph, strict, "vhp")
    return out.detach(), (result[0] if single_in else result)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H @ v)``: equal to vhp, since a Hessian is symmetric."""
    return vhp(func, inputs, v, create_graph, strict)
