"""The backward engine: order, accumulation, freeing, retain_graph, create_graph, grad()."""

import gc

import numpy as np
import pytest

import minitorch
from minitorch.autograd import grad

pytestmark = pytest.mark.chapter4


@pytest.mark.task("4.2")
def test_diamond_sums_both_paths():
    a = minitorch.tensor(2.0, requires_grad=True)
    b = a * 3
    c = b + b * 2          # dc/db = 1 + 2 = 3, db/da = 3
    ga, = grad(c, a)
    assert ga.item() == 9.0


@pytest.mark.task("5.4")
def test_shared_subgraph_runs_each_node_once():
    calls = []
    a = minitorch.tensor([1.0, 2.0], requires_grad=True)
    shared = a.exp()
    shared.grad_fn.register_hook(lambda gi, go: calls.append(1))
    out = (shared * 2 + shared * 3).sum()
    out.backward()
    assert calls == [1]
    np.testing.assert_allclose(a.grad.numpy(), 5 * np.exp([1.0, 2.0]), rtol=1e-6)


@pytest.mark.task("5.4")
def test_node_runs_only_after_all_its_gradients_arrived():
    """A node reached by a short and a long path must wait for the long one."""
    order = []
    x = minitorch.tensor(1.0, requires_grad=True)
    mid = x * 2
    mid.grad_fn.register_prehook(lambda go: order.append(("mid", go[0].item())))
    long = mid.exp().log().exp().log()
    out = mid + long
    out.backward()
    assert order == [("mid", 2.0)]        # one call, with both contributions summed
    assert x.grad.item() == pytest.approx(4.0)


@pytest.mark.task("5.4")
def test_a_node_post_hook_may_replace_the_gradients_it_passes_on():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (grad_inputs[0] * 10, None))
    gx, = grad(y.sum(), x)
    assert gx.tolist() == [30.0, 30.0]


@pytest.mark.task("4.2")
def test_grad_accumulates_over_calls_and_keeps_object():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward()
    first = x.grad
    (x * 3).sum().backward()
    assert x.grad is first                 # accumulated in place, as in PyTorch
    assert x.grad.tolist() == [6.0, 6.0]


@pytest.mark.task("4.2")
def test_same_gradient_object_is_not_shared_between_leaves():
    a = minitorch.tensor([1.0], requires_grad=True)
    b = minitorch.tensor([1.0], requires_grad=True)
    (a + b).sum().backward()
    assert a.grad is not b.grad
    a.grad.zero_()
    assert b.grad.tolist() == [1.0]


@pytest.mark.task("4.2")
def test_user_gradient_is_copied_not_aliased():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    g = minitorch.tensor([1.0, 1.0])
    (x * 1).backward(g)
    g.fill_(100.0)
    assert x.grad.tolist() == [1.0, 1.0]
    y = x.view(2)
    y.backward(g)
    g.fill_(-5.0)
    assert x.grad.tolist() == [101.0, 101.0]


@pytest.mark.task("4.2")
@pytest.mark.parametrize("through", [lambda x: x + 1, lambda x: x.view(2), lambda x: x.clone(),
                                     lambda x: x], ids=["add", "view", "clone", "the leaf"])
def test_a_gradient_passed_on_unchanged_is_copied_into_grad(through):
    """Nodes like add pass the incoming gradient on as it is: the first .grad must be a copy."""
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    g = minitorch.tensor([1.0, 1.0])
    through(x).backward(g)
    g.fill_(7.0)
    assert x.grad.tolist() == [1.0, 1.0]


@pytest.mark.task("4.2")
def test_second_backward_through_freed_graph_raises():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp().sum()
    grad(y, x)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        grad(y, x)


@pytest.mark.task("4.2")
def test_retain_graph_allows_second_backward():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp().sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp([1.0, 2.0]), rtol=1e-6)


@pytest.mark.task("4.2")
def test_graph_without_saved_tensors_can_be_reused():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = (x + 1).sum()
    y.backward()
    y.backward()
    assert x.grad.tolist() == [2.0, 2.0]


@pytest.mark.task("4.2")
def test_saved_tensors_freed_after_backward():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    grad(y.sum(), x)
    with pytest.raises(RuntimeError, match="freed"):
        y.grad_fn._saved_result


@pytest.mark.task("4.2")
def test_depth_100000_chain():
    x = minitorch.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0]
    del y                                   # freeing the deep graph must not overflow either


def test_implicit_gradient_only_for_scalars():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()


def test_backward_with_gradient_is_vector_jacobian_product():
    x = minitorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).backward(gradient=minitorch.tensor([1.0, 0.1, 0.01]))
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 0.4, 0.06], rtol=1e-6)


def test_backward_gradient_shape_must_match():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (x * 2).backward(minitorch.ones(3))


@pytest.mark.task("4.2")
def test_backward_on_tensor_without_graph():
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        minitorch.ones(2).sum().backward()


def test_intermediate_grads_not_kept_unless_retained():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = (y * y).sum()
    z.backward()
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        assert y.grad is None


def test_retain_grad():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    assert y.retains_grad
    (y * y).sum().backward()
    assert y.grad.tolist() == [4.0, 8.0]
    assert x.grad.tolist() == [8.0, 16.0]


@pytest.mark.task("4.2")
def test_autograd_grad_returns_without_touching_grad():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    w = minitorch.tensor([3.0, 4.0], requires_grad=True)
    y = (x * 3 + w).sum()
    gx, = grad(y, x)
    assert gx.tolist() == [3.0, 3.0]
    assert x.grad is None and w.grad is None


def test_autograd_grad_of_intermediate():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    mid = x * 3
    y = (mid * mid).sum()
    gmid, gx = grad(y, [mid, x])
    assert gmid.tolist() == [6.0, 12.0]
    assert gx.tolist() == [18.0, 36.0]


@pytest.mark.task("4.2")
def test_autograd_grad_unused_input():
    x = minitorch.tensor([1.0], requires_grad=True)
    unused = minitorch.tensor([1.0], requires_grad=True)
    y = (x * 2).sum()
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        grad(y, [x, unused], retain_graph=True)
    gx, gu = grad(y, [x, unused], allow_unused=True)
    assert gx.tolist() == [2.0] and gu is None


@pytest.mark.task("5.4")
def test_autograd_grad_only_runs_needed_nodes():
    calls = []
    x = minitorch.tensor([1.0], requires_grad=True)
    other = minitorch.tensor([1.0], requires_grad=True)
    side = other.exp()
    side.grad_fn.register_prehook(lambda g: calls.append("side"))
    y = (x * 2 + side).sum()
    grad(y, x)
    assert calls == []


def test_backward_inputs_restricts_accumulation():
    x = minitorch.tensor([1.0], requires_grad=True)
    w = minitorch.tensor([2.0], requires_grad=True)
    (x * w).sum().backward(inputs=[w])
    assert w.grad.tolist() == [1.0]
    assert x.grad is None


def test_create_graph_second_derivative():
    x = minitorch.tensor(3.0, requires_grad=True)
    y = x ** 3
    d1, = grad(y, x, create_graph=True)
    assert d1.requires_grad and d1.item() == 27.0
    d2, = grad(d1, x)
    assert d2.item() == 18.0


@pytest.mark.task("4.2")
def test_create_graph_records_the_copy_into_grad():
    # A first gradient stored under create_graph=True is a recorded copy, never the
    # engine's own tensor with its graph (PyTorch 2.13: grad_fn=<CopyBackwards>).
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    x.exp().sum().backward(create_graph=True)
    assert x.grad.requires_grad
    assert x.grad.grad_fn.name() == "torch::autograd::CopyBackwards"
    x.exp().sum().backward(create_graph=True)       # the second one is added, recorded
    assert x.grad.grad_fn.name() == "AddBackward0"


@pytest.mark.task("4.2")
def test_create_graph_backward_leaves_differentiable_grad():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    (x.exp().sum()).backward(create_graph=True)
    assert x.grad.requires_grad
    x.grad.sum().backward()      # d/dx of sum(exp(x)) accumulated again: exp(x) + exp(x)
    np.testing.assert_allclose(x.grad.detach().numpy(), 2 * np.exp([1.0, 2.0]), rtol=1e-6)


def test_third_derivative():
    x = minitorch.tensor(2.0, requires_grad=True)
    y = x.exp() * x
    g = y
    for _ in range(3):
        g, = grad(g, x, create_graph=True)
    # d^3/dx^3 (x e^x) = (x + 3) e^x
    assert g.item() == pytest.approx(5 * np.exp(2.0), rel=1e-5)


@pytest.mark.task("5.4")
def test_backward_order_latest_created_first():
    order = []
    x = minitorch.tensor(1.0, requires_grad=True)
    a = x * 2
    b = x * 3
    a.grad_fn.register_prehook(lambda g: order.append("a"))
    b.grad_fn.register_prehook(lambda g: order.append("b"))
    (a + b).backward()
    assert order == ["b", "a"]


@pytest.mark.task("4.2")
@pytest.mark.parametrize("combine", [lambda s, e, w: (s + e) + w,
                                     lambda s, e, w: w + (e + s)],
                         ids=["(s + e) + w", "w + (e + s)"])
def test_ready_nodes_run_leaves_first_then_latest_created(monkeypatch, combine):
    # Whatever order their gradients arrive in, the ready nodes run AccumulateGrad first,
    # then the latest created (highest sequence number): PyTorch 2.13 runs both cases as
    # Add, AccumulateGrad w, Add, Exp, Sin, AccumulateGrad x.  The two cases deliver the
    # inner pairs in opposite orders, so neither a first-in-first-out queue nor a stack
    # gives this order.  The runs are logged without hooks (those are task 5.4).
    x = minitorch.tensor(1.0, requires_grad=True)
    w = minitorch.tensor(2.0, requires_grad=True)
    s, e = x.sin(), x.exp()             # Sin is created first, Exp after it
    out = combine(s, e, w)
    ran = []
    for node in _nodes_below(out.grad_fn):
        if not isinstance(node, minitorch.autograd.graph.AccumulateGrad):
            _log_runs(node, ran)
    stash = minitorch.autograd.engine.GraphTask.stash_leaf_gradient

    def logged_stash(task, node, grad, owned):
        ran.append("AccumulateGrad " + ("x" if node.variable is x else "w"))
        return stash(task, node, grad, owned)

    monkeypatch.setattr(minitorch.autograd.engine.GraphTask, "stash_leaf_gradient",
                        logged_stash)
    out.backward()
    assert ran == ["AddBackward0", "AccumulateGrad w", "AddBackward0", "ExpBackward0",
                   "SinBackward0", "AccumulateGrad x"]
    assert x.grad.item() == pytest.approx(np.cos(1.0) + np.exp(1.0))


def _nodes_below(root):
    """Every node reachable from ``root``, once each."""
    seen, todo = [], [root]
    while todo:
        node = todo.pop()
        if node is not None and all(node is not other for other in seen):
            seen.append(node)
            todo.extend(child for child, _ in node.next_functions)
    return seen


def _log_runs(node, ran):
    """Note ``node``'s name in ``ran`` each time it runs, whether the engine calls its
    ``_run_backward`` or its ``_apply`` (once per run: the first calls the second)."""
    running = []

    def logged(method):
        def run(*args):
            if not running:
                ran.append(node.name())
            running.append(True)
            try:
                return method(*args)
            finally:
                running.pop()
        return run

    node._run_backward = logged(node._run_backward)
    node._apply = logged(node._apply)


def test_multiple_roots():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y1 = (x * 2).sum()
    y2 = (x * x).sum()
    minitorch.autograd.backward([y1, y2])
    assert x.grad.tolist() == [4.0, 6.0]


@pytest.mark.task("4.2")
def test_roots_depending_on_each_other():
    x = minitorch.tensor(1.0, requires_grad=True)
    y = x * 2
    z = y * 3
    minitorch.autograd.backward([y, z], [minitorch.tensor(1.0), minitorch.tensor(1.0)])
    assert x.grad.item() == 8.0


def test_unused_multi_output_gets_no_gradient():
    x = minitorch.tensor([[1.0, 5.0], [7.0, 2.0]], requires_grad=True)
    values, indices = x.max(dim=1)
    values.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0], [1.0, 0.0]]
    assert indices.requires_grad is False


@pytest.mark.task("5.3")
def test_no_reference_cycles_graph_freed_by_refcount():
    gc.disable()
    try:
        gc.collect()
        x = minitorch.tensor(np.ones(1000), requires_grad=True)
        y = ((x * 2).exp() * x).sigmoid().sum()
        node = y.grad_fn
        import weakref
        ref = weakref.ref(node)
        del node
        del y
        assert ref() is None
    finally:
        gc.enable()


def test_no_cycles_anywhere_in_a_graph():
    """After use, nothing of a graph needs the cycle collector: gc finds no garbage."""
    gc.collect()
    gc.disable()
    try:
        gc.set_debug(gc.DEBUG_SAVEALL)
        x = minitorch.randn(10, requires_grad=True)
        for _ in range(3):
            y = (x.exp() * x).tanh()
            z = y.pow(2).sum()
            z.backward()
            y.retain_grad()
            z = y.max()
        del x, y, z
        gc.collect()
        leftovers = [o for o in gc.garbage if type(o).__module__.startswith("minitorch")]
        assert leftovers == []
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


@pytest.mark.task("4.1")
def test_leaf_keeps_one_accumulate_grad_node():
    x = minitorch.tensor([1.0], requires_grad=True)
    a = x * 2
    b = x * 3
    assert a.grad_fn.next_functions[0][0] is b.grad_fn.next_functions[0][0]
    assert a.grad_fn.next_functions[0][0].variable is x


@pytest.mark.task("5.4")
def test_grad_of_leaf_accumulation_refcount_logic_stays_safe():
    """The engine stores a fresh gradient without copying; a shared one it copies."""
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    holder = []
    y = x * 1
    y.register_hook(lambda g: holder.append(g))
    y.sum().backward()
    x.grad.add_(1.0)
    assert holder[0].tolist() == [1.0, 1.0]      # the hook's tensor was copied, not stolen


@pytest.mark.parametrize("other", [minitorch.ones(2, dtype=minitorch.float64), minitorch.tensor([1, 2])])
def test_leaf_gradient_has_the_leaf_dtype(other):
    a = minitorch.ones(2, requires_grad=True)
    (a * other).sum().backward()
    assert a.grad.dtype == minitorch.float32
    assert a.grad.tolist() == other.double().tolist()


def test_array_mode_and_tensor_mode_backward_agree():
    """Elementwise ops run their backward on arrays unless create_graph=True; both give the same."""
    def f(x, w):
        return ((x * w + 0.5).exp().log() / w - x ** 2 + (-x).sigmoid() * x.tanh() + x.relu().sqrt()).sum()
    x = minitorch.tensor([0.3, 1.2, -0.7], requires_grad=True)
    w = minitorch.tensor([1.5, 0.8, 2.0], requires_grad=True)
    fast = grad(f(x, w), [x, w])
    slow = grad(f(x, w), [x, w], create_graph=True)
    for a, b in zip(fast, slow):
        assert not a.requires_grad and b.requires_grad
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-6)


@pytest.mark.task("4.2")
def test_grad_object_across_create_graph_and_plain_backward():
    # PyTorch 2.13: each create_graph=True backward makes a new .grad (a recorded sum); a
    # plain backward then adds into the .grad it finds, in place, even one that requires
    # grad: the same object, still requiring grad, its grad_fn unchanged.
    x = minitorch.tensor([1.0, 2.0], dtype=minitorch.float64, requires_grad=True)
    e = np.exp([1.0, 2.0])
    x.exp().sum().backward(create_graph=True)
    first = x.grad
    assert first.requires_grad and first.grad_fn.name() == "torch::autograd::CopyBackwards"
    x.exp().sum().backward(create_graph=True)
    second = x.grad
    assert second is not first and second.grad_fn.name() == "AddBackward0"
    np.testing.assert_allclose(first.detach().numpy(), e)
    x.exp().sum().backward()
    assert x.grad is second and second.requires_grad
    assert second.grad_fn.name() == "AddBackward0"
    np.testing.assert_allclose(second.detach().numpy(), 3 * e)
    x.exp().sum().backward()
    assert x.grad is second
    np.testing.assert_allclose(second.detach().numpy(), 4 * e)
    x.exp().sum().backward(create_graph=True)
    assert x.grad is not second
    np.testing.assert_allclose(x.grad.detach().numpy(), 5 * e)


@pytest.mark.task("4.2")
def test_a_grad_set_by_hand_that_requires_grad_is_added_into():
    # PyTorch 2.13: the same object, added in place, no grad_fn recorded
    x = minitorch.tensor([1.0, 2.0], dtype=minitorch.float64, requires_grad=True)
    mine = minitorch.ones(2, dtype=minitorch.float64, requires_grad=True)
    x.grad = mine
    x.exp().sum().backward()
    assert x.grad is mine and mine.grad_fn is None and mine.requires_grad
    np.testing.assert_allclose(mine.detach().numpy(), 1 + np.exp([1.0, 2.0]))
