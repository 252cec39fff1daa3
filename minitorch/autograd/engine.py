"""The backward engine: runs the graph from the outputs back to the leaves (chapter 4).

``backward`` works in three steps, none of them recursive (a chain of
100,000 operations is fine):

1. **Count dependencies** (:func:`count_dependencies`): for every node
   reachable from the roots, how many edges lead into it.  A node may run
   only once that many gradients have been delivered to it.
2. **Prune**, for ``autograd.grad`` and ``backward(inputs=...)`` only: keep
   the nodes from which a requested input can be reached.
3. **Execute** (:func:`execute`): take the most urgent ready node, run its
   hooks and its backward, and send each resulting gradient along its edge;
   gradients arriving at the same place are summed first, which is what makes
   diamonds and shared subgraphs come out right.  Among the ready nodes an
   AccumulateGrad (a leaf's) runs first, then the most recently created,
   exactly as PyTorch orders them.  A node frees its saved tensors after it
   ran, unless ``retain_graph=True``.

DeZero (one of the posts this book grew from) orders the same work by
*generation* numbers instead of counting dependencies; chapter 4 compares the two.

Two things happen only when the whole graph has run without error: the
leaves' gradients are added into their ``.grad`` and ``retain_grad`` tensors
get theirs (``GraphTask.commit``, which holds Ctrl-C back until every one is
stored).  So a backward that fails, whether a backward or a hook raises or you
interrupt it with Ctrl-C, changes no ``.grad``: it is either complete or
clearly failed, and never counts a gradient twice when you run it again.  (The
saved tensors of the nodes it already ran are freed, so running it again needs
``retain_graph=True`` the first time, or a new forward pass; without it the
retry raises instead of computing anything.)  This is the one place where
minitorch's order differs from PyTorch's: PyTorch stores a leaf's ``.grad`` at
the leaf's turn in the queue, minitorch at the commit, followed there by the
leaf's ``register_post_accumulate_grad_hook`` hooks and its AccumulateGrad
node's post-hooks (which therefore see every leaf's new ``.grad``).  The leaf's
tensor hooks and pre-hooks still run at its turn, as in PyTorch.

Threads may run backward at the same time, on separate graphs or on one
graph kept with ``retain_graph=True``: each call has its own ``GraphTask``, and
every addition into a ``.grad`` holds one lock (``graph.accumulate_grad``), so
no thread loses another's gradient.
"""

import heapq
import itertools
import signal
import threading

try:        # CPython's C function: signal.signal wraps it in enum conversions costing µs
    from _signal import signal as _set_signal_handler
except ImportError:                                 # pragma: no cover
    _set_signal_handler = signal.signal

from .._tensor import Tensor
from . import grad_mode
from .function import edge_to, transform_apply
from .graph import AccumulateGrad, GraphRoot, accumulate_grad
from ..ops.inplace import add_arrays

__all__ = ["run_backward", "count_dependencies", "execute", "GraphTask"]


def run_backward(roots, seeds, retain_graph, create_graph, inputs=None, accumulate=True):
    """Backpropagate from ``roots`` (tensors), starting from the gradients ``seeds``.

    With ``accumulate=True`` the leaves' ``.grad`` receive their gradients.
    With ``inputs`` only those tensors receive gradients; the gradients of
    ``inputs`` are returned, in order (None for an input the roots do not use).
    """
    ### BEGIN SOLUTION 4.2
    root = GraphRoot([_edge_of(t, f"element {i} of tensors") for i, t in enumerate(roots)],
                     seeds)
    targets = None if inputs is None else [_edge_of(t, "One of the differentiated Tensors")
                                           for t in inputs]
    task = GraphTask(root, retain_graph, targets, accumulate)
    with grad_mode.set_grad_enabled(create_graph):
        execute(task)
        task.commit()
    return None if targets is None else [task.captured.get(target) for target in targets]
    ### END SOLUTION 4.2


def _edge_of(t, what):
    """Where ``t``'s gradient flows in the graph: its grad_fn, or its leaf's AccumulateGrad
    (the edge a node records to it, ``edge_to``, chapter 4).

    ``what`` names ``t`` in the RuntimeError raised when it has neither (it needs no
    gradient): ``"element {i} of tensors"`` for the i-th root of backward,
    ``"One of the differentiated Tensors"`` for an input of ``autograd.grad``.  The
    message starts as PyTorch's does, ``"<what> does not require grad and does not
    have a grad_fn"``, and then says what to do."""
    ### BEGIN SOLUTION 4.2
    edge = edge_to(t)
    if edge[0] is not None:
        return edge
    raise RuntimeError(
        f"{what} does not require grad and does not have a grad_fn: nothing recorded how it "
        "was computed. Create the leaves with requires_grad=True, and do not compute the "
        "result under no_grad().")
    ### END SOLUTION 4.2


def count_dependencies(root):
    """How many edges lead into each node reachable from ``root``."""
    ### BEGIN SOLUTION 4.2
    dependencies = {root: 0}
    stack = [root]
    while stack:
        node = stack.pop()
        for edge in node._next_edges:
            if not edge or edge[0] is None:     # no edge, or an input with no gradient
                continue
            child = edge[0]
            if child in dependencies:
                dependencies[child] += 1
            else:
                dependencies[child] = 1
                stack.append(child)
    return dependencies
    ### END SOLUTION 4.2


def execute(task):
    """Run the ready nodes, most urgent first, until none is left.

    ``task.ready`` is a heap (``heapq``) of the nodes themselves: a node compares as
    less when it must run first (``Node.__lt__``: the higher sequence number; a leaf's
    AccumulateGrad has the highest there is).  Push and pop the nodes as they are, with
    no tie-breaker: nodes that tie, such as leaves made ready together, then come out
    in the order the heap's sifting leaves them, which is PyTorch's on Linux (the
    ``std::priority_queue`` of its Linux builds sifts the same way; the C++ standard
    leaves the order of ties open), not their order of arrival.

    Once a node has sent its results on, drop the names that still hold its gradients
    and results before the next node runs: a gradient that was summed into another is
    then freed at once, as in PyTorch, instead of living through the next node.

    A node without hooks never reaches the hook functions (chapter 5): only a node
    whose ``_hooked`` is set goes through ``call_pre_hooks`` (an AccumulateGrad's is
    set too when its leaf has hooks), and only one with ``_post_hooks`` through
    ``call_post_hooks``.  So in the course, a graph without hooks runs before you
    have written the hook functions (course task 5.4).
    """
    ### BEGIN SOLUTION 4.2
    ready, buffers, targets = task.ready, task.buffers, task.targets
    while ready:
        node = heapq.heappop(ready)
        grads, owned = buffers.pop(node)
        if node in targets and not task.capture(node, grads, owned):
            continue                        # a requested input that need not run
        if node._hooked:
            grads = call_pre_hooks(node, grads, owned, task)
        if type(node) is AccumulateGrad:
            task.stash_leaf_gradient(node, grads[0], owned[0])
            continue
        results, owns = node._run_backward(grads, owned)
        if node._post_hooks:
            results, owns = call_post_hooks(node, results, grads), _NOT_OWNED
        if not task.retain_graph:
            node._release_saved()
        task.send(node._next_edges, results, owns)
        del grads, results          # sent on: held by the buffers only, or freed
    ### END SOLUTION 4.2


_NOT_OWNED = itertools.repeat(False)


def _new_buffer(n, nr, grad, own):
    """The buffer of a node with ``n`` outputs, holding the first gradient to arrive."""
    ### BEGIN SOLUTION 4.2
    grads, flags = [None] * n, [False] * n
    grads[nr], flags[nr] = grad, own
    return grads, flags
    ### END SOLUTION 4.2


def _add_into(buffer, nr, grad, owned):
    """A second gradient for the same place: summed.

    In place into the gradient already in the buffer when the engine owns it
    (``buffer[1][nr]``); otherwise out of place, into a new sum that the engine then
    owns.  Never into the arriving ``grad``, even an owned one: PyTorch does not either,
    so after ``(x + x * 2).sum().backward()`` the leaf's ``.grad._version`` is 0.  Under
    grad mode (``create_graph=True``) the sum is recorded, out of place.  With nothing
    to record, two plain tensors (``_plain_pair``) are summed as arrays, in place or not
    by the same rule (``add_arrays``: the same sum, without an op's node; the
    performance appendix)."""
    ### BEGIN SOLUTION 4.2
    grads, flags = buffer
    old = grads[nr]
    if grad_mode._state.enabled:
        grads[nr], flags[nr] = old + grad, True
    elif _plain_pair(old, grad):
        grads[nr], flags[nr] = add_arrays(old, grad, in_place=flags[nr]), True
    elif flags[nr]:
        old.add_(grad)
    else:
        grads[nr], flags[nr] = old + grad, True
    ### END SOLUTION 4.2


def _plain_pair(old, grad):
    """Would ``old.add_(grad)`` and ``old + grad`` be a plain sum of arrays, when nothing
    is recorded?  Yes for two Tensors of one dtype and shape, outside inference mode
    and the transforms of chapters 12 and 13."""
    a, b = old._data, grad._data
    return (type(old) is Tensor and type(grad) is Tensor and a.dtype is b.dtype
            and a.shape == b.shape and not old._is_inference
            and not grad_mode.inference_may_be_on() and transform_apply[0] is None)


class GraphTask:
    """What one call of backward (or ``autograd.grad``) keeps while it runs.

    The methods that store the results (``stash_leaf_gradient``, ``retain``,
    ``commit``) keep them in two lists that ``__init__`` makes empty:
    ``leaf_gradients``, of ``(AccumulateGrad node, gradient, owned)``, and
    ``retained``, of ``(tensor, gradient)``.
    """

    def __init__(self, root, retain_graph, targets=None, accumulate=True):
        """Prepare a run from the ``GraphRoot`` ``root``: the dependency count of every
        node it reaches (pruned, when ``targets`` are given, to the nodes that lead to a
        target), the root ready to run with its (empty) gradients.  ``targets`` are the
        edges ``(node, nr)`` whose gradients ``autograd.grad`` returns (``captured``);
        with ``accumulate`` the leaves among them still get their ``.grad``."""
        ### BEGIN SOLUTION 4.2
        self.retain_graph = retain_graph
        self.dependencies = count_dependencies(root)
        self.targets = {} if targets is None else _positions_by_node(targets)
        self.captured = {}
        self.needed = None
        if targets is not None:
            leads = _nodes_leading_to(self.targets, self.dependencies, root)
            self.dependencies = _recount(self.dependencies, leads)
            # A node runs only to pass gradients on towards a target; a target itself
            # is only read, except the leaves of backward(inputs=...), which accumulate.
            self.needed = {n for n in leads
                           if any(child in leads for child, _ in n.next_functions)}
            if accumulate:
                self.needed.update(n for n in self.targets if isinstance(n, AccumulateGrad))
        self.buffers = {root: ([], [])}
        self.ready = [root]
        self.leaf_gradients = []
        self.retained = []
        ### END SOLUTION 4.2

    # ----- the queue ---------------------------------------------------------------------
    def send(self, edges, grads, owned):
        """Deliver each gradient along its edge; a node is ready once all the edges
        leading into it have delivered.

        Each node's buffer is a pair of lists, a slot per output of the node: the
        gradients, and whether the engine owns each one (made it itself, nobody else
        holds it), so it may keep it as a leaf's ``.grad`` without a copy.
        """
        ### BEGIN SOLUTION 4.2
        dependencies, buffers = self.dependencies, self.buffers
        for edge, grad, own in zip(edges, grads, owned):
            if not edge:
                continue
            node, nr = edge
            remaining = dependencies.get(node)
            if remaining is None:              # no node, or pruned (leads to no target)
                continue
            buffer = buffers.get(node)
            if buffer is None:                  # the first gradient to reach the node
                n = node._num_outputs
                buffers[node] = ([grad], [own]) if n == 1 else _new_buffer(n, nr, grad, own)
            elif grad is not None:
                if buffer[0][nr] is None:
                    buffer[0][nr], buffer[1][nr] = grad, own
                else:
                    _add_into(buffer, nr, grad, own)
            dependencies[node] = remaining - 1
            if remaining == 1:
                heapq.heappush(self.ready, node)
        ### END SOLUTION 4.2

    def should_run(self, node):
        """Must ``node`` run? Every node does, unless targets were given: then only the
        nodes that pass gradients on towards a target (and the leaves that accumulate)."""
        ### BEGIN SOLUTION 4.2
        return self.needed is None or node in self.needed
        ### END SOLUTION 4.2

    # ----- autograd.grad: reading the gradients of the inputs ------------------------------
    def capture(self, node, grads, owned):
        """Keep the gradients flowing into a requested input; True if the node must
        still run.  One that need not (a leaf, for autograd.grad) first lets its
        tensor's hooks change them, as PyTorch does.  The engine gives up what it
        captured: the caller receives it, so it must not be added into later."""
        ### BEGIN SOLUTION 4.2
        runs = self.should_run(node)
        if not runs and node._hooked:
            grads = call_tensor_pre_hooks(node, grads, owned, self)
        for nr in self.targets[node]:
            self.captured[(node, nr)] = grads[nr]
            owned[nr] = False
        return runs
        ### END SOLUTION 4.2

    # ----- results, stored only when the whole graph ran ----------------------------------
    def stash_leaf_gradient(self, node, grad, owned):
        """Keep a leaf's complete gradient until ``commit`` stores it in ``.grad``."""
        if owned and grad is not None and grad._fw_grads and node.variable._grad is None:
            grad = _kept_as_grad(grad)
        self.leaf_gradients.append((node, grad, owned))

    def retain(self, tensor, grad):
        """Keep the gradient of a ``retain_grad`` tensor until ``commit`` (the hooks of
        chapter 5 call this)."""
        self.retained.append((tensor, grad))

    def commit(self):
        """Store every leaf's gradient in ``.grad`` and every retained gradient, with
        Ctrl-C held back until all are stored; then run the hooks that follow a leaf's
        accumulation (a hook that raises then finds every ``.grad`` already stored)."""
        with _interrupts_deferred():
            for node, grad, owned in self.leaf_gradients:
                if grad is not None:
                    accumulate_grad(node.variable, grad, owned)
            for tensor, grad in self.retained:
                accumulate_grad(tensor, grad, owned=False)
        for node, grad, _ in self.leaf_gradients:
            if node._post_hooks or node.variable._post_accumulate_grad_hooks:
                call_accumulated_hooks(node, grad)


def _kept_as_grad(grad):
    """A first gradient the engine owns becomes ``.grad`` itself, as PyTorch's engine
    takes it over: detached, so without the tangents forward mode gave it (chapter 12).
    Under ``create_graph=True`` it is copied instead, and the copy keeps them."""
    return grad if grad_mode.is_grad_enabled() else grad.detach()


def _positions_by_node(targets):
    """``{node: [output numbers]}`` of the target edges."""
    ### BEGIN SOLUTION 4.2
    positions = {}
    for node, nr in targets:
        positions.setdefault(node, []).append(nr)
    return positions
    ### END SOLUTION 4.2


def _nodes_leading_to(targets, dependencies, root):
    """The nodes from which some target node can be reached (targets included)."""
    ### BEGIN SOLUTION 4.2
    order = _topological_order(dependencies, root)
    leads = set(targets)
    for node in reversed(order):
        if node not in leads and any(child in leads for child, _ in node.next_functions):
            leads.add(node)
    return leads
    ### END SOLUTION 4.2


def _topological_order(dependencies, root):
    """Every node before the nodes its edges lead to (Kahn's algorithm)."""
    ### BEGIN SOLUTION 4.2
    remaining = dict(dependencies)
    order, stack = [], [root]
    while stack:
        node = stack.pop()
        order.append(node)
        for child, _ in node.next_functions:
            if child is not None:
                remaining[child] -= 1
                if remaining[child] == 0:
                    stack.append(child)
    return order
    ### END SOLUTION 4.2


def _recount(dependencies, needed):
    """Dependencies counted again over the needed nodes only."""
    ### BEGIN SOLUTION 4.2
    counts = {node: 0 for node in dependencies if node in needed}
    for node in counts:
        for child, _ in node.next_functions:
            if child is not None and child in counts:
                counts[child] += 1
    return counts
    ### END SOLUTION 4.2


# ----- hooks -------------------------------------------------------------------------------
# What a hook returns is checked as PyTorch checks it: a tuple (node hooks) or a tensor
# (tensor hooks), one value per gradient, each of the same shape and dtype, and no value
# where there was no gradient.  None in a returned tuple drops that gradient.

def call_pre_hooks(node, grads, owned, task):
    """Before a node runs: its tensors' hooks and ``retain_grad``, then the node's pre-hooks.

    Returns the gradients the node then runs with: ``grads`` itself, or a new list where
    a hook replaced some.  A gradient a hook has seen may be kept by it, so the engine
    no longer owns it: ``owned`` is updated in place (set False), not returned.
    """
    ### BEGIN SOLUTION 5.4
    grads = call_tensor_pre_hooks(node, grads, owned, task)
    for hook in list((node._pre_hooks or {}).values()):
        owned[:] = [False] * len(owned)
        result = hook(tuple(grads))
        if result is not None:
            grads = _checked_tuple(hook, result, grads)
    return grads
    ### END SOLUTION 5.4


def call_tensor_pre_hooks(node, grads, owned, task):
    """The hooks registered with ``Tensor.register_hook`` on this node's outputs (called
    with None for an output that got no gradient), then the ``retain_grad`` ones.

    Returns the gradients, as ``call_pre_hooks`` does (``grads`` itself, or a new list
    where a hook replaced some), and updates ``owned`` in place."""
    ### BEGIN SOLUTION 5.4
    for nr, hooks in node._tensor_hooks():
        for hook in list(hooks.values()):
            owned[nr] = False
            result = hook(grads[nr])
            if result is not None:
                grads = list(grads)
                grads[nr] = _checked_tensor(hook, result, grads[nr])
    for nr, ref in (node._retained or {}).items():
        tensor = ref()
        if tensor is not None and grads[nr] is not None:
            owned[nr] = False       # stored at the commit: nothing may add into it before
            task.retain(tensor, grads[nr])
    return grads
    ### END SOLUTION 5.4


def call_post_hooks(node, results, grads):
    """After a node ran: its hooks see both sides and may replace the results.

    Returns the results to send on: ``results`` itself, or what a hook returned instead
    (checked).  The engine owns none of them afterwards (a hook may have kept any)."""
    ### BEGIN SOLUTION 5.4
    for hook in list((node._post_hooks or {}).values()):
        replaced = hook(tuple(results), tuple(grads))
        if replaced is not None:
            results = _checked_tuple(hook, replaced, results)
    return results
    ### END SOLUTION 5.4


def call_accumulated_hooks(node, grad):
    """After a leaf's ``.grad`` is stored: its post-accumulate-grad hooks (which must
    return None: ``_refuse_post_accumulate_result``), then the post-hooks of its
    AccumulateGrad node, called as ``call_post_hooks`` calls a node's: with the
    node's results, ``()`` (it has none), and its gradients, ``(grad,)``.  What such a
    hook returns is checked against ``()`` like any node hook's (``_checked_tuple``):
    anything but None or ``()`` raises, a tuple of one value with "hook '<name>' has
    returned an incorrect number of values (got 1, but expected 0)"."""
    ### BEGIN SOLUTION 5.4
    variable = node.variable
    for hook in list((variable._post_accumulate_grad_hooks or {}).values()):
        result = hook(variable)
        if result is not None:
            _refuse_post_accumulate_result(result)
    if node._post_hooks:
        call_post_hooks(node, (), (grad,))
    ### END SOLUTION 5.4


def _hook_name(hook):
    """How the errors name a hook: its ``__name__``, or ``<unknown>``."""
    ### BEGIN SOLUTION 5.4
    return getattr(hook, "__name__", "<unknown>")
    ### END SOLUTION 5.4


def _checked_tensor(hook, value, old):
    """A tensor hook's replacement for the gradient ``old``, checked as PyTorch checks it:
    a TypeError unless it is a tensor ("expected Variable, but hook returned '<type>'");
    a RuntimeError when no gradient arrived ("can't replace a None gradient with a
    non-None value"), when its dtype differs ("hook '<name>' has changed the type of
    value (was torch.FloatTensor got torch.DoubleTensor)") or its shape ("hook '<name>'
    has changed the size of value")."""
    ### BEGIN SOLUTION 5.4
    if not isinstance(value, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(value).__name__}'. A "
                        "hook returns a Tensor to replace the gradient, or None to keep it.")
    if old is None:
        raise RuntimeError("can't replace a None gradient with a non-None value: this "
                           "gradient did not arrive, so the hook must return None for it.")
    if value.dtype != old.dtype:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the type of value (was "
                           f"torch.{old.dtype.type_name}Tensor got torch."
                           f"{value.dtype.type_name}Tensor). Return a gradient of the "
                           "dtype it was given.")
    if tuple(value.shape) != tuple(old.shape):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value: it "
                           f"returned shape {list(value.shape)} for a gradient of shape "
                           f"{list(old.shape)}. Return a gradient of the same shape.")
    return value
    ### END SOLUTION 5.4


def _checked_tuple(hook, values, old):
    """A node hook's replacement for the gradients ``old``: a TypeError unless it is a
    tuple ("expected tuple, but hook returned '<type>'"), a RuntimeError unless it has
    one value per position ("hook '<name>' has returned an incorrect number of values
    (got 2, but expected 1)"); each value None (no gradient there) or as
    ``_checked_tensor`` wants it."""
    ### BEGIN SOLUTION 5.4
    if type(values) is not tuple:
        raise TypeError(f"expected tuple, but hook returned '{type(values).__name__}'. A "
                        "node hook returns a tuple with one gradient (or None) per position, "
                        "or None to keep them all.")
    if len(values) != len(old):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has returned an incorrect number of "
                           f"values (got {len(values)}, but expected {len(old)}). Return one "
                           "value per position, None where there is no gradient.")
    return [v if v is None else _checked_tensor(hook, v, o) for v, o in zip(values, old)]
    ### END SOLUTION 5.4


def _refuse_post_accumulate_result(result):
    """A post-accumulate-grad hook returned something: PyTorch's error for it (a
    RuntimeError for a tensor, a TypeError for anything else)."""
    ### BEGIN SOLUTION 5.4
    if isinstance(result, Tensor):
        raise RuntimeError("Tensor post accumulate grad hooks should return None. Change "
                           "the tensor's .grad in place if the hook must modify it.")
    raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'. A post "
                    "accumulate grad hook should return None.")
    ### END SOLUTION 5.4


class _interrupts_deferred:
    """Hold back Ctrl-C (SIGINT) during a block, then raise it: the block runs to its
    end.

    Only the main thread receives signals, so elsewhere this does nothing.
    """

    def __enter__(self):
        self.installed = self.received = False
        if threading.current_thread() is threading.main_thread():
            try:
                self.previous = _set_signal_handler(signal.SIGINT, self._note)
                self.installed = True
            except ValueError:      # not the main interpreter, or signals unavailable
                pass
        return self

    def _note(self, signum, frame):
        self.received = True

    def __exit__(self, *exc):
        if self.installed:      # previous None: set outside Python, restored as default
            _set_signal_handler(signal.SIGINT, signal.SIG_DFL if self.previous is None
                                else self.previous)
        if self.received and exc[0] is None:
            raise KeyboardInterrupt
        return False
