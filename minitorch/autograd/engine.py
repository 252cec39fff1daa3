"""The backward engine: runs the graph from the outputs back to the leaves (chapter 3).

``backward`` works in three steps, none of them recursive (a chain of
100,000 operations is fine):

1. **Discover** every node reachable from the roots and count, for each node,
   how many edges lead into it: its *dependencies*.
2. **Prune** (only for ``autograd.grad`` or ``backward(inputs=...)``): keep only
   the nodes from which a requested input can be reached.
3. **Execute**: a node runs once all its dependencies have delivered their
   gradients.  Gradients arriving at the same input are summed first, which is
   what makes diamonds and shared subgraphs come out right.  Among the ready
   nodes the most recently created runs first, as in PyTorch.  After running,
   a node frees its saved tensors unless ``retain_graph=True``.

DeZero (seed 001) orders the same work by *generation* numbers instead of
counting dependencies; the book compares the two.
"""

import heapq
import sys

from .grad_mode import _state as _grad_state
from .graph import FREED

__all__ = ["run_backward", "accumulate_into_grad"]

Tensor = None  # set by minitorch._tensor


def run_backward(roots, grad_roots, retain_graph, create_graph, inputs=None, allow_unused=False,
                 accumulate=True):
    """Backpropagate from ``roots`` (tensors) seeded with ``grad_roots``.

    With ``accumulate=True`` leaves receive their gradients in ``.grad``; with
    ``inputs`` given, only those tensors get gradients, and they are returned
    (in order) instead of, or as well as, being accumulated.
    """
    root_edges = [_root_edge(t, i) for i, t in enumerate(roots)]
    targets = None if inputs is None else [_target_of(t) for t in inputs]
    deps = _count_dependencies([edge[0] for edge in root_edges], targets)

    buffers = {}
    for (node, nr), grad in zip(root_edges, grad_roots):
        _add_to_buffer(buffers, node, nr, grad)
    captured = {} if targets is not None else None
    capture_at = {}
    if targets is not None:
        for target in targets:
            if target is not None:
                capture_at.setdefault(target[0], []).append(target[1])

    ready = []
    for node in dict.fromkeys(e[0] for e in root_edges):
        if deps.get(node, 0) == 0 and node in deps:
            heapq.heappush(ready, (-node._seq, node))

    prev_mode = _grad_state.enabled
    _grad_state.enabled = create_graph
    try:
        _execute(ready, buffers, deps, capture_at, captured, retain_graph)
    finally:
        _grad_state.enabled = prev_mode

    if targets is not None and accumulate:
        for t, target in zip(inputs, targets):
            accumulate_into_grad(t, captured.get(target))
    if targets is None or accumulate:
        return None
    results = []
    for i, target in enumerate(targets):
        grad = captured.get(target) if target is not None else None
        if grad is None and not allow_unused:
            raise RuntimeError(
                f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                "Set allow_unused=True if this is the desired behavior.")
        results.append(grad)
    return results


def _root_edge(t, i):
    if t._grad_fn is not None:
        return (t._grad_fn, t._output_nr)
    if t._requires_grad:
        return (t._accumulate_grad_node(), 0)
    raise RuntimeError(
        f"element {i} of tensors does not require grad and does not have a grad_fn: nothing "
        "recorded how it was computed. Create the leaves with requires_grad=True, and do not "
        "compute the result under no_grad().")


def _target_of(t):
    """Where in the graph the gradient of input ``t`` can be read."""
    if t._grad_fn is not None:
        return (t._grad_fn, t._output_nr)
    if t._requires_grad:
        return (t._accumulate_grad_node(), 0)
    raise RuntimeError("One of the differentiated Tensors does not require grad: create it with "
                       "requires_grad=True (or call .requires_grad_()) before using it.")


def _count_dependencies(root_nodes, targets):
    """Map each node that must run to the number of edges leading into it."""
    deps = dict.fromkeys(root_nodes, 0)
    stack = list(deps)
    while stack:
        for child in stack.pop()._next_nodes:
            if child:
                if child in deps:
                    deps[child] += 1
                else:
                    deps[child] = 1
                    stack.append(child)
    if targets is None:
        return deps
    keep = _nodes_leading_to({t[0] for t in targets if t is not None}, root_nodes, deps)
    pruned = dict.fromkeys(keep, 0)
    for node in keep:
        for child in node._next_nodes:
            if child and child in pruned:
                pruned[child] += 1
    return pruned


def _nodes_leading_to(target_nodes, root_nodes, deps):
    """The nodes from which some target node can be reached (targets included)."""
    # A topological order (each node before the nodes it points to), by counting
    # down the dependencies; then, walking it backwards, a node leads to a target
    # if one of its children does.
    remaining = dict(deps)
    order = []
    stack = [n for n in dict.fromkeys(root_nodes) if remaining[n] == 0]
    while stack:
        node = stack.pop()
        order.append(node)
        for child in node._next_nodes:
            if child:
                remaining[child] -= 1
                if remaining[child] == 0:
                    stack.append(child)
    leads = set(target_nodes)
    for node in reversed(order):
        if node not in leads and any(child and child in leads for child in node._next_nodes):
            leads.add(node)
    return [node for node in order if node in leads]


def _execute(ready, buffers, deps, capture_at, captured, retain_graph):
    """Run ready nodes until none is left; each hands its input gradients on."""
    heappop, heappush = heapq.heappop, heapq.heappush
    node = heappop(ready)[1] if ready else None
    while node is not None:
        grads = buffers.pop(node)
        if node._hooked:
            grads = _run_pre_hooks(node, grads)
        newly_ready = []
        if capture_at and node in capture_at:
            for nr in capture_at[node]:
                captured[(node, nr)] = grads[nr]
            if not any(child and child in deps for child in node._next_nodes):
                outputs = ()    # nothing beyond this node was asked for
            else:
                outputs = node._apply(grads)
        else:
            outputs = node._apply(grads)
        if node._hooked and node._post_hooks:
            outputs = _run_post_hooks(node, outputs, grads)
        if not retain_graph and node._saved is not None:
            node._saved = FREED
        for child, nr, grad in zip(node._next_nodes, node._next_nrs, outputs):
            if not child:
                continue
            remaining = deps.get(child)
            if remaining is None:      # pruned: leads to no requested input
                continue
            if grad is not None:
                buf = buffers.get(child)
                if buf is None:
                    if child._num_outputs == 1:
                        buffers[child] = [grad]
                    else:
                        buffers[child] = [None] * child._num_outputs
                        buffers[child][nr] = grad
                elif buf[nr] is None:
                    buf[nr] = grad
                else:
                    buf[nr] = buf[nr] + grad
            deps[child] = remaining - 1
            if remaining == 1:
                if child in buffers:
                    newly_ready.append(child)
                else:
                    _release_children(child, deps, ready, buffers)
        # Drop our references so AccumulateGrad can tell when a gradient is ours alone.
        grads = outputs = grad = None
        if len(newly_ready) == 1 and not ready:
            node = newly_ready[0]       # a chain: no need to go through the queue
        else:
            for child in newly_ready:
                heappush(ready, (-child._seq, child))
            node = heappop(ready)[1] if ready else None


def _add_to_buffer(buffers, node, nr, grad):
    buf = buffers.get(node)
    if buf is None:
        buf = buffers[node] = [None] * node._num_outputs
    old = buf[nr]
    buf[nr] = grad if old is None else old + grad


def _release_children(node, deps, ready, buffers):
    """A node that received no gradient at all still counts as done for its children."""
    stack = [node]
    while stack:
        current = stack.pop()
        for child in current._next_nodes:
            if not child or child not in deps:
                continue
            deps[child] -= 1
            if deps[child] == 0:
                if child in buffers:
                    heapq.heappush(ready, (-child._seq, child))
                else:
                    stack.append(child)


def _run_pre_hooks(node, grads):
    """Tensor hooks first, then ``retain_grad``, then the node's own pre-hooks."""
    for nr, hooks in node._tensor_hook_items():
        grads = _call_grad_hooks(hooks, grads, nr)
    if node._retain_grad_refs is not None:
        for nr, ref in node._retain_grad_refs.items():
            tensor = ref()
            if tensor is not None and grads[nr] is not None:
                _retain(tensor, grads[nr])
    if node._pre_hooks:
        for hook in list(node._pre_hooks.values()):
            result = hook(tuple(grads))
            if result is not None:
                grads = list(result)
    return grads


def _call_grad_hooks(hooks, grads, nr):
    grad = grads[nr]
    if grad is None:
        return grads
    for hook in list(hooks.values()):
        result = hook(grad)
        if result is not None:
            grad = result
    grads = list(grads)
    grads[nr] = grad
    return grads


def _retain(tensor, grad):
    if _grad_state.enabled:
        tensor._grad = grad if tensor._grad is None else tensor._grad + grad
    else:
        grad = Tensor._wrap(grad._data.copy())
        tensor._grad = grad if tensor._grad is None else Tensor._wrap(tensor._grad._data + grad._data)


def _run_post_hooks(node, outputs, grads):
    for hook in list(node._post_hooks.values()):
        result = hook(tuple(outputs), tuple(grads))
        if result is not None:
            outputs = tuple(result)
    return outputs


def accumulate_into_grad(variable, grad):
    """Add ``grad`` to a leaf's ``.grad`` (AccumulateGrad's job).

    As in PyTorch: the first gradient is stored (the engine's own result when
    nothing else can see it, a copy otherwise), later ones are added in place
    so ``.grad`` stays the same object; under ``create_graph=True`` the sum is
    an out-of-place, differentiable operation instead.
    """
    if grad is None:
        return
    if grad._data.shape != variable._data.shape:
        shape = variable._data.shape
        grad = grad.sum_to_size(shape) if grad._data.ndim >= len(shape) else grad.expand(shape)
    if grad._data.dtype is not variable._data.dtype:       # e.g. float32 leaf times a float64 tensor
        grad = grad.to(dtype=variable.dtype)
    old = variable._grad
    if _grad_state.enabled:           # create_graph=True: keep the gradient's own graph
        variable._grad = grad if old is None else old + grad
    elif old is None:
        variable._grad = grad if _engine_owns(grad) else Tensor._wrap(grad._data.copy())
    elif old._requires_grad:
        variable._grad = Tensor._wrap(old._data + grad._data)
    else:
        old._data += grad._data
        old._version_counter[0] += 1


# References to a gradient the engine hands to AccumulateGrad, counted by
# sys.getrefcount: the caller's argument, the local name, getrefcount's own.
_ENGINE_REFS = 4


def _engine_owns(grad):
    """True when nobody but the engine holds this gradient or its memory, so it can be stored."""
    return (not grad._requires_grad and grad._data.flags.owndata and grad._base is None
            and sys.getrefcount(grad) <= _ENGINE_REFS)
