"""``minitorch.func``: derivatives and batching as functions of functions (chapter 13).

``grad(f)`` is a new function that returns the gradient of ``f``; ``vmap(f)`` a
new function that runs ``f`` on a batch.  Transforms compose because each one
only calls ``f`` and uses what the others leave on the tensors:

* ``grad``, ``vjp`` (and ``jacrev``) are built on the reverse-mode engine.  They
  give the inputs fresh places in the graph (a leaf, or a differentiable alias if
  the input is already being differentiated by an outer transform), call ``f``,
  and run ``autograd.grad(..., create_graph=True)``.  ``create_graph`` is what
  makes nesting work: the gradient is itself recorded, so an outer ``grad`` (or
  an outer ``jvp``'s tangents) can see through it.  The levels of nested ``grad``
  calls are kept apart by *which inputs* each one asks ``autograd.grad`` for:
  the inner call only differentiates with respect to its own fresh leaves.  The
  outermost call cuts the graph off its results when nothing outside needs it.
* ``jvp`` (and ``jacfwd``) are built on forward mode: a dual level per call
  (``autograd.forward_ad``), nested levels kept apart by their numbers.
* ``vmap`` batches by per-op rules (``_vmap``, ``batching_rules``).  Under
  ``vmap``, ``grad`` differentiates the batched values underneath: each
  example's result depends only on that example, so the gradient of the batch,
  taken with ones for every example, is every example's gradient at once (this is
  how ``vmap(grad(loss))`` gives per-sample gradients in one backward pass).
* ``jacrev`` is ``vmap`` of ``vjp`` over the rows of an identity; ``jacfwd`` is
  ``vmap`` of ``jvp`` over its columns; ``hessian`` is ``jacfwd(jacrev(f))``.

Costs: ``grad``/``vjp`` cost a forward and a backward pass, ``jvp`` one forward
pass with tangents.  ``jacrev`` runs one forward pass and one *batched* backward
pass (m rows at once), ``jacfwd`` one batched forward pass.  Under ``vmap``,
``vjp`` runs ``f`` on its inputs expanded to the batch (so that every example has
its own place in the graph): inside ``jacfwd``, as in ``hessian``, the forward
pass of ``jacrev`` then runs on n copies of the input, n times the work of one.
"""

import functools

from .. import autograd
from .._tensor import Tensor
from ..autograd import forward_ad, grad_mode
from ._vmap import (vmap, tree_flatten, tree_unflatten, live_levels, to_full, from_full,
                    BatchedTensor, wrap, _spec_repr)
from ._functional_call import functional_call, stack_module_state

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "vmap", "jacrev", "jacfwd", "hessian",
           "functional_call", "stack_module_state", "linearize"]

_depth = [0]        # how many grad/vjp transforms are running (an outer one needs graphs)


# ----- argnums and inputs -----------------------------------------------------------------
def _check_argnums(argnums, n):
    if isinstance(argnums, tuple):
        if not argnums:
            raise RuntimeError("argnums must be non-empty")
        for a in argnums:
            _check_argnum(a, n)
        normalized = [a % n for a in argnums]
        if len(set(normalized)) != len(normalized):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        return
    _check_argnum(argnums, n)


def _check_argnum(argnum, n):
    if isinstance(argnum, bool) or not isinstance(argnum, int):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnum)}")
    if not -n <= argnum < n:
        raise RuntimeError(f"Got argnum={argnum}, but only {n} positional inputs")


def _selected(args, argnums):
    return tuple(args[a] for a in argnums) if isinstance(argnums, tuple) else args[argnums]


def _replace(args, argnums, values):
    args = list(args)
    if isinstance(argnums, tuple):
        for a, v in zip(argnums, values):
            args[a] = v
    else:
        args[argnums] = values
    return tuple(args)


def _check_tensors(leaves):
    for t in leaves:
        if not isinstance(t, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")


def _fresh_input(t, levels):
    """``t`` (in full batched form) as a new place in the graph to differentiate at."""
    full = to_full(t, levels)
    if not full.is_floating_point():
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    if full.requires_grad:
        leaf = full.view_as(full)               # stays connected for an outer transform
    else:
        leaf = forward_ad.copy_tangents(full, full.detach()).requires_grad_()
    return leaf


def _lower(t, keep_graph):
    """A result handed back to the caller: without its graph unless one is needed
    (tangents of outer jvps are kept either way)."""
    if keep_graph or not isinstance(t, Tensor):
        return t
    if isinstance(t, BatchedTensor):
        value = _lower(t._value, False)
        return t if value is t._value else wrap(value, t._level)
    if not t.requires_grad:
        return t
    return forward_ad.copy_tangents(t, t.detach())


def _needs_graph(leaves):
    return grad_mode.is_grad_enabled() and (
        _depth[0] > 1 or any(isinstance(t, Tensor) and t.requires_grad for t in leaves))


# ----- grad, grad_and_value, vjp -----------------------------------------------------------
def grad_and_value(func, argnums=0, has_aux=False):
    """``(gradient, value)`` of a function with a scalar output (``((grad, (value, aux))``
    with ``has_aux=True``)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        _check_argnums(argnums, len(args))
        levels = live_levels()
        chosen = _selected(args, argnums)
        leaves, spec = tree_flatten(chosen)
        _check_tensors(leaves)
        keep = grad_mode.is_grad_enabled() and (
            _depth[0] > 0 or any(t.requires_grad for t in leaves))
        _depth[0] += 1
        try:
            with grad_mode.enable_grad():
                fresh = [_fresh_input(t, levels) for t in leaves]
                inputs = tree_unflatten([from_full(f, levels) for f in fresh], spec)
                result = func(*_replace(args, argnums, inputs), **kwargs)
                output, aux = _split_aux(result, has_aux, "grad_and_value(f)(*args)")
                _check_scalar(output)
                full = to_full(output, levels)
                grads = _grad_or_none([full], fresh, [_ones(full)], retain_graph=True)
        finally:
            _depth[0] -= 1
        grads = [_lower(from_full(g if g is not None else _zeros(f), levels), keep)
                 for g, f in zip(grads, fresh)]
        value = _lower(output, keep)
        gradient = tree_unflatten(grads, spec)
        if has_aux:
            return gradient, (value, _map(lambda t: _lower(t, keep), aux))
        return gradient, value
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of ``func`` (scalar output) with respect to the arguments in
    ``argnums``; with ``has_aux``, ``func`` returns ``(output, aux)`` and the new function
    ``(gradient, aux)``."""
    both = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        gradient, value = both(*args, **kwargs)
        return (gradient, value[1]) if has_aux else gradient
    return wrapper


def _split_aux(result, has_aux, where):
    if not has_aux:
        return result, None
    if not (isinstance(result, tuple) and len(result) == 2):
        raise RuntimeError(f"{where}: output of function f should be a tuple: (output, aux) "
                           "if has_aux is True")
    output, aux = result
    for leaf in tree_flatten(aux)[0]:
        if not isinstance(leaf, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(leaf)}")
    return output, aux


def _check_scalar(output):
    if not isinstance(output, Tensor):
        raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, "
                           f"got {type(output)}")
    if output.ndim != 0:
        raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar "
                           f"Tensor, got tensor with {output.ndim} dims. Maybe you wanted to "
                           "use the vjp or jacrev APIs instead?")


def _ones(t):
    from .. import ones_like
    return ones_like(t)


def _zeros(t):
    from .. import zeros_like
    return zeros_like(t)


def _map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(t) for t in leaves], spec)


def vjp(func, *primals, has_aux=False):
    """``(output, vjp_fn)``: ``vjp_fn(cotangents)`` returns, for each primal, the
    cotangents pulled back through ``func`` (a vector-Jacobian product).  ``vjp_fn`` may
    be called many times, and under ``vmap`` (that is how ``jacrev`` works)."""
    levels = live_levels()
    leaves, spec = tree_flatten(primals)
    _check_tensors(leaves)
    keep = grad_mode.is_grad_enabled() and (_depth[0] > 0 or any(t.requires_grad
                                                                 for t in leaves))
    _depth[0] += 1
    try:
        with grad_mode.enable_grad():
            fresh = [_fresh_input(t, levels) for t in leaves]
            result = func(*tree_unflatten([from_full(f, levels) for f in fresh], spec))
            output, aux = _split_aux(result, has_aux, "vjp(f, *primals)")
    finally:
        _depth[0] -= 1
    out_leaves, out_spec = tree_flatten(output)
    for o in out_leaves:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"vjp(f, *primals): Expected f to be a function that has only "
                               f"Tensors as outputs, got {type(o)}")

    def vjp_fn(cotangents, **kwargs):
        ct_leaves, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure "
                f"of outputs to the function. cotangents: {_spec_repr(ct_spec)}, primal "
                f"output: {_spec_repr(out_spec)}")
        for i, (c, o) in enumerate(zip(ct_leaves, out_leaves)):
            if c.shape != o.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"{c.shape} and output[{i}] has a shape of {o.shape}.")
        grads = _pull_back(out_leaves, ct_leaves, fresh, levels)
        grads = [_lower(g, keep or _depth[0] > 0) for g in grads]
        return tree_unflatten(grads, spec)

    value = _map(lambda t: _lower(t, keep), output)
    if has_aux:
        return value, vjp_fn, _map(lambda t: _lower(t, keep), aux)
    return value, vjp_fn


def _pull_back(outputs, cotangents, fresh, levels):
    """``autograd.grad`` of the outputs along the cotangents, at the vmap levels the
    function ran under.  A cotangent batched at a newer level (``vmap(vjp_fn)``) goes
    through the engine as a BatchedTensor: each node's backward is batched by the rules."""
    now = live_levels()
    if now[:len(levels)] != levels:
        raise NotImplementedError("vjp_fn was called under vmap levels that do not extend "
                                  "the ones its function ran under")
    full_outs = [to_full(o, levels) for o in outputs]
    full_cts = [to_full(c, levels) for c in cotangents]
    grads = _grad_or_none(full_outs, fresh, full_cts, retain_graph=True)
    return [from_full(g, levels) if g is not None else from_full(_zeros(f), levels)
            for g, f in zip(grads, fresh)]


def _grad_or_none(outputs, inputs, cotangents, retain_graph):
    """``autograd.grad`` with ``create_graph`` (so that outer transforms see through it),
    for the outputs that depend on anything; None for every input if none does."""
    pairs = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
    if not pairs:
        return [None] * len(inputs)
    with grad_mode.enable_grad():
        return autograd.grad([o for o, _ in pairs], inputs, [c for _, c in pairs],
                             retain_graph=retain_graph, create_graph=True, allow_unused=True)


# ----- jvp ---------------------------------------------------------------------------------
def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(output, jvp_out)``: ``func(*primals)`` and its directional derivative along
    ``tangents`` (a Jacobian-vector product), in one forward pass with dual tensors."""
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. "
                           "it should be valid to call f(*primals).")
    p_leaves, p_spec = tree_flatten(primals)
    t_leaves, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals and tangents to have the same python "
            "structure. For example, if primals is a tuple of 3 tensors, tangents also must "
            f"be. Got primals with structure {_spec_repr(p_spec)} and tangents with structure "
            f"{_spec_repr(t_spec)}")
    _check_tensors(p_leaves + t_leaves)
    keep = grad_mode.is_grad_enabled() and (
        _depth[0] > 0 or any(t.requires_grad for t in p_leaves + t_leaves))
    level = forward_ad._push_level()
    try:
        duals = [forward_ad.make_dual(p, t, level=level) for p, t in zip(p_leaves, t_leaves)]
        result = func(*tree_unflatten(duals, p_spec))
        output, aux = _split_aux(result, has_aux, "jvp(f, primals, tangents)")
        out_leaves, out_spec = tree_flatten(output)
        primals_out, tangents_out = [], []
        for o in out_leaves:
            if not isinstance(o, Tensor):
                raise RuntimeError(f"jvp(f, primals, tangents): expected f(*primals) to "
                                   f"return only tensors, got unsupported type {type(o)}")
            p, t = forward_ad.unpack_dual(o, level=level)
            primals_out.append(_lower(p, keep))
            tangents_out.append(_lower(t, keep) if t is not None else _zeros(o))
    finally:
        forward_ad.exit_dual_level(level=level)
    out = (tree_unflatten(primals_out, out_spec), tree_unflatten(tangents_out, out_spec))
    return out + (aux,) if has_aux else out


def linearize(func, *primals):
    """``(output, jvp_fn)``: ``jvp_fn(*tangents)`` is the jvp at ``primals`` (here by
    running ``jvp`` again on each call)."""
    output = func(*primals)

    def jvp_fn(*tangents):
        return jvp(func, primals, tangents)[1]
    return output, jvp_fn


# ----- Jacobians and Hessians ---------------------------------------------------------------
def _basis(shapes, like):
    """Rows of an identity, cut per tensor: for tensor i, shape ``(N, *shapes[i])``."""
    from .. import eye
    total = sum(_numel(s) for s in shapes)
    identity = eye(total, dtype=like.dtype)
    pieces, start = [], 0
    for s in shapes:
        n = _numel(s)
        pieces.append(identity[:, start:start + n].reshape(total, *s))
        start += n
    return pieces


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of ``func`` by reverse mode: one ``vjp`` whose ``vjp_fn`` is
    ``vmap``-ed over the rows of an identity (one row per output element)."""
    @functools.wraps(func)
    def wrapper(*args):
        _check_argnums(argnums, len(args))
        chosen = _selected(args, argnums)
        in_leaves, in_spec = tree_flatten(chosen)

        def of_chosen(*values):
            return func(*_replace(args, argnums, tree_unflatten(list(values), in_spec)))
        result = vjp(of_chosen, *in_leaves, has_aux=has_aux)
        output, vjp_fn = result[0], result[1]
        out_leaves, out_spec = tree_flatten(output)
        rows = _basis([o.shape for o in out_leaves], out_leaves[0])
        pulled = vmap(lambda *r: vjp_fn(tree_unflatten(list(r), out_spec)),
                      chunk_size=chunk_size)(*rows)
        jac, start = [], 0
        for o in out_leaves:
            n = o.numel()
            jac.append(tree_unflatten(
                [g[start:start + n].reshape(*o.shape, *i.shape)
                 for g, i in zip(pulled, in_leaves)], in_spec))
            start += n
        jacobian = tree_unflatten(jac, out_spec)
        return (jacobian, result[2]) if has_aux else jacobian
    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func`` by forward mode: ``jvp`` ``vmap``-ed over the columns of
    an identity (one column per input element)."""
    @functools.wraps(func)
    def wrapper(*args):
        _check_argnums(argnums, len(args))
        chosen = _selected(args, argnums)
        in_leaves, in_spec = tree_flatten(chosen)
        _check_tensors(in_leaves)

        def of_chosen(*values):
            return func(*_replace(args, argnums, tree_unflatten(list(values), in_spec)))

        def push(*tangents):
            out = jvp(of_chosen, tuple(in_leaves), tuple(tangents), has_aux=has_aux)
            return (out[1], out[2]) if has_aux else out[1]

        columns = _basis([i.shape for i in in_leaves], in_leaves[0])
        pushed = vmap(push, randomness=randomness)(*columns)
        aux = None
        if has_aux:
            pushed, aux = pushed
            aux = _map(lambda t: t[0], aux)
        out_leaves, out_spec = tree_flatten(pushed)
        jac = []
        for o in out_leaves:
            per_input, start = [], 0
            out_shape = tuple(o.shape[1:])
            for i in in_leaves:
                n = i.numel()
                block = o[start:start + n]
                per_input.append(block.movedim(0, -1).reshape(*out_shape, *i.shape))
                start += n
            jac.append(tree_unflatten(per_input, in_spec))
        jacobian = tree_unflatten(jac, out_spec)
        return (jacobian, aux) if has_aux else jacobian
    return wrapper


def hessian(func, argnums=0):
    """The Hessian of a scalar function: ``jacfwd(jacrev(func))``, forward over reverse."""
    return jacfwd(jacrev(func, argnums), argnums)
