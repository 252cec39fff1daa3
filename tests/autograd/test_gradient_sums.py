"""Where two gradients meet (chapter 4): the engine sums them, in place into a gradient
it owns, out of place otherwise; with nothing to record it sums the arrays directly
(``engine._add_into``, ``ops.inplace.add_arrays``; the performance appendix).

What the user can see of it is what PyTorch shows: the gradients, and the version
counter of a leaf's ``.grad`` (1 after one in-place sum).  The versions written in
below are PyTorch 2.13's.
"""

import weakref

import numpy as np
import pytest

import minitorch
from minitorch.autograd import engine
from minitorch.ops import inplace

pytestmark = pytest.mark.chapter4

C = 1e-4

# expression of x -> (PyTorch's x.grad._version after backward of its sum, x.grad)
LEAF_GRADIENTS = {
    "x + x * C": (lambda x: x + x * C, 0, 1 + C),
    "x * C + x": (lambda x: x * C + x, 0, 1 + C),
    "x + x": (lambda x: x + x, 0, 2.0),
    "x * 2 + x * 3": (lambda x: x * 2 + x * 3, 1, 5.0),
    "x + x + x": (lambda x: x + x + x, 1, 3.0),
    "x - x * 2": (lambda x: x - x * 2, 0, -1.0),
    "x * x": (lambda x: x * x, 1, 2.0),
    "x * x * x": (lambda x: x * x * x, 2, 3.0),
    "x * (x + 1)": (lambda x: x * (x + 1), 1, 3.0),
    "x.sum() + x.sum()": (lambda x: x.sum() + x.sum(), 0, 2.0),
}


@pytest.mark.task("4.2")
@pytest.mark.parametrize("name", LEAF_GRADIENTS)
def test_a_leafs_gradient_has_the_version_pytorch_gives_it(name):
    """An in-place sum into the gradient bumps its version; a gradient passed on
    twice (by ``+``) is shared, so the sum that meets it is made out of place."""
    f, version, value = LEAF_GRADIENTS[name]
    x = minitorch.ones(3, requires_grad=True)
    f(x).sum().backward()
    assert x.grad._version == version
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, value, np.float32), rtol=1e-6)


def _shared_gradient_graph(w):
    """``a + b`` passes its gradient on to ``a`` and to ``b``; ``a`` then receives
    ``a * 5``'s gradient while ``b`` has not yet run.  Summing that into the gradient
    ``a`` received first, in place, would change what ``b`` reads."""
    a, b = w * 2, w * 3
    d = a * 5                   # made before a + b: it runs after a + b has
    c = (a + b) * 2
    return (c + d).sum()


@pytest.mark.task("4.2")
@pytest.mark.parametrize("anomaly", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_gradient_passed_on_twice_is_not_summed_into_in_place(anomaly, dtype):
    """Both the array path and the tensor path (anomaly mode takes the latter)."""
    w = minitorch.tensor([1.0, 2.0], dtype=getattr(minitorch, dtype), requires_grad=True)
    with minitorch.autograd.set_detect_anomaly(anomaly):
        _shared_gradient_graph(w).backward()
    assert w.grad.tolist() == [20.0, 20.0]         # c = 10 w and d = 10 w


def test_add_passes_its_gradient_on_without_a_copy_when_nothing_was_broadcast():
    a = minitorch.ones(3, requires_grad=True)
    b = minitorch.ones(2, 3, requires_grad=True)
    grad = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    y = b + b
    first, second = y.grad_fn._forward_cls.backward_on_arrays(y.grad_fn, grad)
    assert first is grad and second is grad
    y = a + b                   # a was broadcast: its gradient is summed back
    first, second = y.grad_fn._forward_cls.backward_on_arrays(y.grad_fn, grad)
    assert first.tolist() == [3.0, 5.0, 7.0] and second is grad


def _leaves(dtype):
    """Leaves of a few shapes (0-d included) of ``dtype``."""
    rng = np.random.default_rng(0)
    for shape in [(), (1,), (5,), (3, 4)]:
        yield minitorch.tensor(rng.uniform(0.5, 1.5, shape).astype(dtype), requires_grad=True)


def _where_gradients_meet(x):
    """A chain that fans out, then a product of a tensor with itself and with another."""
    y = x
    for _ in range(20):
        y = y + y * C
    z = y.exp()
    return (z * z + z * y + y).sum()


def _backward(x):
    x.grad = None
    _where_gradients_meet(x).backward()
    return x.grad


@pytest.mark.task("4.2")
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_gradients_summed_as_arrays_have_the_bits_of_the_general_path(dtype, monkeypatch):
    calls = []
    real_add_arrays = engine.add_arrays

    def counted(a, b, in_place):
        calls.append(in_place)
        return real_add_arrays(a, b, in_place)

    monkeypatch.setattr(engine, "add_arrays", counted)
    for x in _leaves(dtype):
        fast = _backward(x)
        assert calls and True in calls and False in calls     # both kinds of sum happened
        calls.clear()
        with monkeypatch.context() as m:
            m.setattr(engine, "_plain_pair", lambda old, grad: False)
            general = _backward(x)
        assert not calls
        assert fast.dtype == general.dtype and fast.shape == general.shape
        assert fast.numpy().tobytes() == general.numpy().tobytes()
        assert fast._version == general._version


def test_add_arrays_is_add_or_add_in_place_without_a_node():
    a = minitorch.tensor([1.0, 2.0])
    b = minitorch.tensor([0.5, 0.25])
    total = inplace.add_arrays(a, b, in_place=False)
    assert total.tolist() == [1.5, 2.25] and a.tolist() == [1.0, 2.0] and total.grad_fn is None
    assert inplace.add_arrays(a, b, in_place=True) is a
    assert a.tolist() == [1.5, 2.25] and a._version == 1
    zero_d = inplace.add_arrays(minitorch.tensor(1.0), minitorch.tensor(2.0), in_place=False)
    assert type(zero_d.numpy()) is np.ndarray and zero_d.item() == 3.0


@pytest.mark.task("4.2")
def test_gradients_that_meet_under_create_graph_are_recorded():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    g, = minitorch.autograd.grad((x * x).sum(), x, create_graph=True)
    assert g.grad_fn is not None and g.grad_fn.name() == "AddBackward0"
    g2, = minitorch.autograd.grad(g.sum(), x)
    assert g2.tolist() == [2.0, 2.0]


@pytest.mark.task("4.2")
def test_gradients_that_meet_in_inference_mode_take_the_general_path(monkeypatch):
    monkeypatch.setattr(engine, "add_arrays", None)     # would raise if called
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    total = (x + x * C).sum()
    with minitorch.inference_mode():
        total.backward()
    np.testing.assert_allclose(x.grad.numpy(), [1 + C] * 2, rtol=1e-6)


@pytest.mark.task("4.2")
def test_a_gradient_summed_into_another_is_freed_before_the_next_node_runs(monkeypatch):
    """``b = a * a``: its node returns two gradients for ``a``; the engine adds the second
    into the first.  The second is then garbage, and must not be kept while the node of
    ``a`` runs (the memory benchmarks' squares chain: a whole array more at the peak)."""
    from minitorch.ops import arithmetic
    real_backward = arithmetic.Mul.backward
    returned, alive_at_entry = [], []

    def spy(ctx, grad):
        alive_at_entry.append([ref() is not None for ref in returned])
        grad_a, grad_b = real_backward(ctx, grad)
        returned.extend(weakref.ref(g._data) for g in (grad_a, grad_b))
        return grad_a, grad_b

    monkeypatch.setattr(arithmetic.Mul, "backward", staticmethod(spy))
    x = minitorch.ones(1000, dtype=minitorch.float64, requires_grad=True)
    a = x * x
    b = a * a
    del a
    b.backward(minitorch.ones(1000, dtype=minitorch.float64))
    first, second = alive_at_entry                  # b's node ran first, then a's
    assert first == []
    assert second == [True, False]                  # the sum (a's gradient) and no more
    assert x.grad.tolist() == [4.0] * 1000
