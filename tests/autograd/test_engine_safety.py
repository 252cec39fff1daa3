"""The engine is safe (chapter 4): threads accumulate exactly, an interrupted backward
changes no ``.grad`` (and a retry never counts twice), and no two gradients the user
can reach ever share memory."""

import itertools
import signal
import sys
import threading

import numpy as np
import pytest

import minitorch as torch
from minitorch import nn
from minitorch.autograd import Function, engine

pytestmark = pytest.mark.chapter4


# ----- threads --------------------------------------------------------------------------------

def _run_threads(n, work):
    """Start ``work(i)`` in ``n`` threads at once (a barrier) and wait for all of them."""
    barrier = threading.Barrier(n)
    errors = []

    def run(i):
        try:
            barrier.wait()
            work(i)
        except BaseException as error:          # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]          # as it was raised (an unfinished course task stays one)


def test_threads_accumulate_into_a_shared_leaf_exactly():
    """8 threads each run ``(W * c).sum().backward()`` on one leaf: no update is lost.

    A large W makes numpy release the GIL during each in-place addition, so without
    the engine's lock two additions into the same ``.grad`` overlap and one is lost
    (this test then fails in most rounds)."""
    reps = 4
    for _ in range(3):
        w = torch.zeros(1_000_000, requires_grad=True)
        _run_threads(8, lambda i: [(w * float(i + 1)).sum().backward() for _ in range(reps)])
        expected = reps * sum(range(1, 9))
        assert np.all(w.grad.numpy() == expected)


def test_threads_backward_through_one_shared_graph():
    """Two threads run backward through one graph (kept with retain_graph): again no
    update is lost (without the lock most rounds lose some)."""
    for _ in range(3):
        w = torch.zeros(4_000_000, requires_grad=True)
        y = (w * 3.0).sum()
        _run_threads(2, lambda i: [y.backward(retain_graph=True) for _ in range(25)])
        assert np.all(w.grad.numpy() == 2 * 25 * 3.0)


def test_threads_keep_their_own_grad_mode():
    results = {}

    def work(i):
        with torch.set_grad_enabled(i % 2 == 0):
            x = torch.ones(2, requires_grad=True)
            results[i] = (x * 2).requires_grad

    _run_threads(4, work)
    assert results == {0: True, 1: False, 2: True, 3: False}


# ----- an interrupted backward ----------------------------------------------------------------

class Boom(Function):
    """Identity whose backward raises (once, or every time)."""
    raise_next = True
    error = KeyboardInterrupt

    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, grad):
        if Boom.raise_next:
            Boom.raise_next = False
            raise Boom.error()
        return grad


def _interrupting_hook():
    """A tensor hook that raises KeyboardInterrupt the first time only (Ctrl-C)."""
    state = {"raised": False}

    def hook(grad):
        if not state["raised"]:
            state["raised"] = True
            raise KeyboardInterrupt
    return hook


def _graph(a, b, c):
    """Leaves a and b are reached before the node that raises, c after it."""
    mid = Boom.apply(c * 2)
    return (a * 3).sum() + (b * 4).sum() + mid.sum()


@pytest.mark.task("6.8")
@pytest.mark.parametrize("error", [KeyboardInterrupt, ValueError])
def test_an_error_in_a_backward_changes_no_grad_and_a_retry_counts_once(error):
    a, b, c = (torch.ones(2, requires_grad=True) for _ in range(3))
    a.grad = torch.full((2,), 10.0)
    loss = _graph(a, b, c)
    Boom.raise_next, Boom.error = True, error
    with pytest.raises(error):
        loss.backward(retain_graph=True)
    assert a.grad.tolist() == [10.0, 10.0] and b.grad is None and c.grad is None
    loss.backward()
    assert a.grad.tolist() == [13.0, 13.0] and b.grad.tolist() == [4.0, 4.0]
    assert c.grad.tolist() == [2.0, 2.0]


@pytest.mark.task("5.4")
def test_a_keyboard_interrupt_in_a_hook_changes_no_grad():
    a, b, c = (torch.ones(2, requires_grad=True) for _ in range(3))
    y = c * 5
    y.retain_grad()
    y.register_hook(_interrupting_hook())
    loss = (a * 3).sum() + (b * 4).sum() + y.sum()
    with pytest.raises(KeyboardInterrupt):
        loss.backward(retain_graph=True)
    assert (a.grad, b.grad, c.grad, y.grad) == (None, None, None, None)
    loss.backward()
    assert [a.grad.tolist(), b.grad.tolist(), c.grad.tolist(), y.grad.tolist()] == \
        [[3.0, 3.0], [4.0, 4.0], [5.0, 5.0], [1.0, 1.0]]


def test_a_leaf_hook_that_raises_leaves_the_other_leaves_unchanged():
    a, b = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    b.register_hook(_interrupting_hook())
    loss = (a * b).sum()
    with pytest.raises(KeyboardInterrupt):
        loss.backward(retain_graph=True)
    assert a.grad is None and b.grad is None
    loss.backward()
    assert a.grad.tolist() == [1.0, 1.0] and b.grad.tolist() == [1.0, 1.0]


@pytest.mark.task("6.8")
def test_a_retry_without_retain_graph_fails_clearly_instead_of_counting_twice():
    a, b, c = (torch.ones(2, requires_grad=True) for _ in range(3))
    mid = Boom.apply(c * 2).exp()       # exp (made later) runs, and frees, before Boom raises
    loss = mid.sum() + (a * 3).sum() + (b * 4).sum()       # a and b are reached before Boom
    Boom.raise_next, Boom.error = True, KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        loss.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        loss.backward()
    assert (a.grad, b.grad, c.grad) == (None, None, None)


@pytest.mark.task("6.8")
def test_an_interrupted_autograd_grad_changes_nothing():
    x = torch.ones(2, requires_grad=True)
    mid = Boom.apply(x * 5)
    y = x * 2                           # made after Boom: its node runs first
    y.retain_grad()
    Boom.raise_next, Boom.error = True, KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        torch.autograd.grad(mid.sum() + y.sum(), x)
    assert x.grad is None and y.grad is None


@pytest.mark.skipif(not hasattr(signal, "raise_signal"), reason="needs signal.raise_signal")
def test_ctrl_c_while_gradients_are_stored_waits_until_all_are_stored(monkeypatch):
    """A SIGINT that arrives while the commit stores the gradients is held back: every
    leaf gets its gradient, then KeyboardInterrupt is raised."""
    real = engine.accumulate_grad
    calls = []

    def accumulate_then_interrupt(variable, grad, owned):
        calls.append(variable)
        if len(calls) == 1:
            signal.raise_signal(signal.SIGINT)          # Ctrl-C between two leaves
        real(variable, grad, owned)

    monkeypatch.setattr(engine, "accumulate_grad", accumulate_then_interrupt)
    a, b, c = (torch.ones(2, requires_grad=True) for _ in range(3))
    with pytest.raises(KeyboardInterrupt):
        (a * 2 + b * 3 + c * 4).sum().backward()
    assert [a.grad.tolist(), b.grad.tolist(), c.grad.tolist()] == [[2.0, 2.0], [3.0, 3.0],
                                                                   [4.0, 4.0]]


def test_the_engine_documents_what_an_interrupted_backward_does():
    doc = engine.__doc__
    for words in ("Ctrl-C", "changes no ``.grad``", "never counts a gradient twice"):
        assert words in doc


# ----- gradient ownership ---------------------------------------------------------------------

class Twice(Function):
    """Backward returns the very same tensor for both inputs."""

    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


class Identity(Function):
    @staticmethod
    def forward(ctx, a):
        return a.clone()

    @staticmethod
    def backward(ctx, grad):
        return grad


class Keeps(Function):
    """Identity whose backward keeps the gradient it received and passes it on."""
    kept = []

    @staticmethod
    def forward(ctx, a):
        return a * 1

    @staticmethod
    def backward(ctx, grad):
        Keeps.kept.append(grad)
        return grad


def _leaves(*shapes):
    return [torch.ones(*shape, requires_grad=True) for shape in shapes]


def _hooked_leaves(kept):
    a, b = _leaves((3,), (3,))
    a.register_hook(kept.append)
    b.register_hook(lambda g: kept.append(g))
    return (a + b).sum(), [a, b]


def _hooked_non_leaf(kept):
    a, b = _leaves((3,), (3,))
    y = a + b
    y.register_hook(kept.append)
    return y.sum(), [a, b]


def _node_post_hook(kept):
    a, b = _leaves((3,), (3,))
    y = a + b
    y.grad_fn.register_hook(lambda gi, go: kept.extend([*gi, *go]))
    return y.sum(), [a, b]


def _node_pre_hook(kept):
    a, b = _leaves((3,), (3,))
    y = a + b
    y.grad_fn.register_prehook(lambda go: kept.extend(go))
    return y.sum(), [a, b]


def _leaf_node_hooks(kept):
    a, b = _leaves((3,), (3,))
    y = a + b
    node = y.grad_fn.next_functions[0][0]
    node.register_prehook(lambda go: kept.extend(go))
    node.register_hook(lambda gi, go: kept.extend(go))
    return y.sum(), [a, b]


def _module_hooks(kept):
    lin = nn.Linear(3, 3)
    lin.register_full_backward_hook(lambda m, gi, go: kept.extend([*gi, *go]))
    lin.register_full_backward_pre_hook(lambda m, go: kept.extend(go))
    x = torch.ones(2, 3, requires_grad=True)
    return lin(x).sum(), [x, lin.weight, lin.bias]


def _retained(kept):
    a, b = _leaves((3,), (3,))
    y = a + b
    z = y.view(3)
    for t in (y, z):
        t.retain_grad()
    return z.sum(), [a, b, y, z]


def _retained_pass_through(kept):
    """y's gradient passes through y's node unchanged and is then summed with another
    gradient of x: the retained y.grad must keep its own value (3, not 5)."""
    x, = _leaves((3,))
    x2 = x * 2
    y = x + 0
    y.retain_grad()
    return (y * 3).sum() + x2.sum(), [x, y]


def _twice(kept):
    a, b = _leaves((3,), (3,))
    return Twice.apply(a, b).sum(), [a, b]


def _keeps(kept):
    a, b = _leaves((3,), (3,))
    Keeps.kept = kept
    return Twice.apply(Keeps.apply(a), b).sum(), [a, b]


def _identity(kept):
    a, = _leaves((3,))
    return Identity.apply(a).sum(), [a]


SCENARIOS = {
    "custom backward returns one tensor twice": _twice,
    "custom backward keeps its gradient": _keeps,
    "identity custom Function": _identity,
    "tensor hooks on leaves keep gradients": _hooked_leaves,
    "tensor hook on a non-leaf keeps its gradient": _hooked_non_leaf,
    "node post-hook keeps gradients": _node_post_hook,
    "node pre-hook keeps gradients": _node_pre_hook,
    "AccumulateGrad pre- and post-hooks keep gradients": _leaf_node_hooks,
    "module full backward hooks keep gradients": _module_hooks,
    "retain_grad": _retained,
    "retain_grad of a gradient passed on unchanged": _retained_pass_through,
    "x + x": lambda kept: (lambda x: ((x + x).sum(), [x]))(*_leaves((3,))),
    "x * x": lambda kept: (lambda x: ((x * x).sum(), [x]))(*_leaves((3,))),
    "broadcast sum": lambda kept: (lambda a, b: ((a + b).sum(), [a, b]))(*_leaves((1, 3), (2, 3))),
    "expand": lambda kept: (lambda a, b: ((a.expand(3) + b).sum(), [a, b]))(*_leaves((1,), (3,))),
    "reshape, t, transpose": lambda kept: (
        lambda a, b, c: ((a.reshape(3, 2) + b.t() + c.transpose(0, 1)).sum(), [a, b, c]))(
            *_leaves((2, 3), (2, 3), (2, 3))),
    "cat and stack": lambda kept: (
        lambda a, b: ((torch.cat([a, b]).sum() + torch.stack([a, b]).sum()), [a, b]))(
            *_leaves((3,), (3,))),
}


def _seeded(build_leaves_and_output):
    def scenario(kept):
        leaves, out = build_leaves_and_output()
        seed = torch.ones(*out.shape)
        kept.append(seed)
        return (out, seed), leaves
    return scenario


SEEDED = {
    "leaf.backward(seed)": lambda: (lambda a: ([a], a))(*_leaves((3,))),
    "a + 0 with a seed": lambda: (lambda a: ([a], a + 0))(*_leaves((3,))),
    "a.view with a seed": lambda: (lambda a: ([a], a.view(2, 3)))(*_leaves((6,))),
    "a.t() + b with a seed": lambda: (lambda a, b: ([a, b], a.t() + b))(*_leaves((2, 3), (3, 2))),
    "identity Function with a seed": lambda: (lambda a: ([a], Identity.apply(a)))(*_leaves((3,))),
}
SCENARIOS.update({name: _seeded(build) for name, build in SEEDED.items()})


@pytest.mark.parametrize("build", SCENARIOS.values(), ids=SCENARIOS.keys())
@pytest.mark.parametrize("create_graph", [False, True], ids=["", "create_graph"])
def test_no_grad_shares_memory_with_another_grad_or_a_kept_tensor(build, create_graph):
    """Every .grad is apart from every other .grad and from every tensor a hook, a
    backward or the user kept (those may share among themselves, as in PyTorch), and
    writing into one of them changes none of the others."""
    kept = []
    out, leaves = build(kept)
    if isinstance(out, tuple):
        out[0].backward(out[1], create_graph=create_graph)
    else:
        out.backward(create_graph=create_graph)
    grads = [(f"grad of leaf {i}", t.grad) for i, t in enumerate(leaves) if t.grad is not None]
    assert len(grads) == len(leaves)
    others = [(f"kept tensor {i}", k) for i, k in enumerate(kept) if k is not None]
    for (n1, g), (n2, t) in itertools.chain(itertools.combinations(grads, 2),
                                            itertools.product(grads, others)):
        assert not np.shares_memory(g._data, t._data), f"{n1} shares memory with {n2}"
    everything = grads + others
    for name, t in everything:
        if not t._data.flags.writeable:
            continue                    # a broadcast view a hook kept: nothing can write it
        before = [u._data.copy() for _, u in everything]
        t._data += 1
        for (other, u), old in zip(everything, before):
            if u is not t and (name, other) not in _MAY_SHARE(others, name, other):
                assert np.array_equal(u._data, old), f"writing {name} changed {other}"


def _MAY_SHARE(others, a, b):
    """Pairs of kept tensors, which may be one and the same memory."""
    names = {n for n, _ in others}
    return {(a, b)} if a in names and b in names else set()


@pytest.mark.task("5.4")
def test_retained_and_captured_gradients_keep_their_values():
    """A gradient the engine passes on unchanged and later adds another into must not
    be the one handed to the user (retain_grad, autograd.grad)."""
    x = torch.ones(2, requires_grad=True)
    x2 = x * 2
    y = x + 0
    y.retain_grad()
    ((y * 3).sum() + x2.sum()).backward()
    assert y.grad.tolist() == [3.0, 3.0] and x.grad.tolist() == [5.0, 5.0]
    x = torch.ones(2, requires_grad=True)
    x2 = x * 2
    y = x + 0
    gy, gx = torch.autograd.grad((y * 3).sum() + x2.sum(), [y, x])
    assert gy.tolist() == [3.0, 3.0] and gx.tolist() == [5.0, 5.0]
    assert not np.shares_memory(gy._data, gx._data)


@pytest.mark.task("4.2")
def test_accumulating_into_an_existing_grad_keeps_it_apart_from_the_new_gradient():
    a, b = _leaves((3,), (3,))
    a.grad = torch.zeros(3)
    assigned = a.grad
    seed = torch.ones(3)
    (a + b).backward(seed)
    assert a.grad is assigned                       # accumulated in place, as in PyTorch
    assert a.grad.tolist() == [1.0, 1.0, 1.0]
    for t in (seed, b.grad):
        assert not np.shares_memory(a.grad._data, t._data)
    (a + b).backward(seed)
    assert a.grad.tolist() == [2.0, 2.0, 2.0] and b.grad.tolist() == [2.0, 2.0, 2.0]
    assert seed.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.task("4.2")
def test_autograd_grad_results_are_apart_from_every_grad():
    a, b = _leaves((3,), (3,))
    ga, gb = torch.autograd.grad((a + b).sum(), [a, b])
    (a + b).sum().backward()
    for g in (ga, gb):
        for t in (a.grad, b.grad):
            assert not np.shares_memory(g._data, t._data)
    a.grad += 1
    assert ga.tolist() == [1.0, 1.0, 1.0] and gb.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.task("4.2")
def test_the_first_gradient_under_create_graph_is_a_copy_of_the_seed():
    a, = _leaves((3,))
    seed = torch.ones(3)
    a.backward(seed, create_graph=True)
    assert not np.shares_memory(a.grad._data, seed._data)
    seed += 1
    assert a.grad.tolist() == [1.0, 1.0, 1.0]
