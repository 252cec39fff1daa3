"""The engine's contract (chapter 4, task 4.2), seen from ``autograd.grad`` alone.

A node runs once, after every gradient that leads into it has arrived, with those
gradients summed; a node with several outputs gets all of them at once; only the nodes
that lead to the requested inputs run; what a node saved is freed after it ran unless
``retain_graph=True``; with ``create_graph=True`` the gradients are themselves recorded.
The tests use operations whose backward is given (add, exp, log, views, a product with a
number) and no hooks, so they test the engine alone.  A node that ran twice would find
its saved tensors freed and raise; one that ran early would pass on a partial gradient:
either way the values below would be wrong.  Values checked with PyTorch 2.13.
"""

import numpy as np
import pytest

import minitorch
from minitorch.autograd import grad

pytestmark = pytest.mark.chapter4


def leaf(values):
    return minitorch.tensor(values, dtype=minitorch.float64, requires_grad=True)


@pytest.mark.task("4.2")
def test_a_node_reached_by_a_short_and_a_long_path_waits_for_both():
    x = leaf([0.5, 1.0])
    mid = x.exp()
    long = mid.exp().log().exp().log()           # mid again, four nodes later
    gx, = grad((mid + long).sum(), x)
    np.testing.assert_allclose(gx.numpy(), 2 * np.exp([0.5, 1.0]), rtol=1e-12)


@pytest.mark.task("4.2")
def test_a_node_that_saved_a_tensor_runs_once_with_the_summed_gradient():
    x = leaf([0.5, 1.0])
    a = x.exp()                                  # saves its result: a second run would fail
    out = a + a.exp() + a * 3
    gx, = grad(out.sum(), x)
    e = np.exp([0.5, 1.0])
    np.testing.assert_allclose(gx.numpy(), e * (1 + np.exp(e) + 3), rtol=1e-12)


@pytest.mark.task("4.2")
def test_a_node_with_several_outputs_gets_all_their_gradients_at_once():
    x = leaf([0.0, 1.0, 2.0])
    a, b, c = x.exp().unbind(0)
    gx, = grad(a * 2 + c * 5 + a, x)
    np.testing.assert_allclose(gx.numpy(), [3 * np.exp(0.0), 0.0, 5 * np.exp(2.0)], rtol=1e-12)


@pytest.mark.task("4.2")
def test_gradients_of_an_intermediate_and_of_a_leaf_together():
    x = leaf([1.0, 2.0])
    mid = x.exp()
    y = (mid * 2 + mid.log()).sum()
    gmid, gx = grad(y, [mid, x])
    e = np.exp([1.0, 2.0])
    np.testing.assert_allclose(gmid.numpy(), 2 + 1 / e, rtol=1e-12)
    np.testing.assert_allclose(gx.numpy(), (2 + 1 / e) * e, rtol=1e-12)


@pytest.mark.task("4.2")
def test_only_the_nodes_that_lead_to_the_inputs_run():
    x = leaf([1.0])
    other = leaf([2.0])
    side = other.exp()                           # saved its result: freed if it ran
    y = (x * 2 + side).sum()
    gx, = grad(y, x)
    assert gx.tolist() == [2.0]
    gother, = grad(side.sum(), other)            # the side branch is still whole
    np.testing.assert_allclose(gother.numpy(), np.exp([2.0]), rtol=1e-12)


@pytest.mark.task("4.2")
def test_retain_graph_keeps_the_saved_tensors_for_another_run():
    x = leaf([1.0, 2.0])
    y = x.exp().sum()
    first, = grad(y, x, retain_graph=True)
    second, = grad(y, x)
    np.testing.assert_allclose(first.numpy(), second.numpy(), rtol=0)
    with pytest.raises(RuntimeError, match="second time"):
        grad(y, x)


@pytest.mark.task("4.2")
def test_create_graph_records_the_gradient_so_it_can_be_differentiated():
    x = leaf([0.5, 1.5])
    g, = grad(x.exp().sum(), x, create_graph=True)
    assert g.requires_grad and g.grad_fn is not None
    gg, = grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), np.exp([0.5, 1.5]), rtol=1e-12)
    assert not gg.requires_grad


@pytest.mark.task("4.2")
def test_several_roots_each_with_its_own_seed():
    x = leaf([1.0, 2.0])
    y = x + 1
    z = y.exp()
    gx, = grad([y, z], x, grad_outputs=[minitorch.tensor([1.0, 10.0], dtype=minitorch.float64),
                                        minitorch.ones(2, dtype=minitorch.float64)])
    np.testing.assert_allclose(gx.numpy(), [1 + np.exp(2.0), 10 + np.exp(3.0)], rtol=1e-12)


@pytest.mark.task("4.2")
def test_a_root_that_is_itself_an_input_gets_its_seed():
    x = leaf([1.0, 2.0])
    g, = grad(x, x, minitorch.tensor([3.0, 4.0], dtype=minitorch.float64))
    assert g.tolist() == [3.0, 4.0]
    y = x + 1
    gy, gx = grad([y.sum(), (y * 2).sum()], [y, x])
    assert gy.tolist() == [3.0, 3.0] and gx.tolist() == [3.0, 3.0]


@pytest.mark.task("4.2")
def test_a_chain_of_20000_nodes_runs_without_recursion():
    x = leaf([1.0])
    y = x
    for _ in range(20_000):
        y = y + 1.0
    gx, = grad(y.sum(), x)
    assert gx.tolist() == [1.0]


@pytest.mark.task("4.2")
def test_the_gradients_sent_to_one_input_are_summed_without_changing_the_senders():
    x = leaf([1.0, 2.0])
    a = x + 0
    b = x.view(2)
    gx, = grad((a + b + x).sum(), x)
    assert gx.tolist() == [3.0, 3.0]
    seed = minitorch.ones(2, dtype=minitorch.float64)
    gx, = grad([a, b], x, grad_outputs=[seed, seed])
    assert gx.tolist() == [2.0, 2.0] and seed.tolist() == [1.0, 1.0]


@pytest.mark.task("4.2")
def test_a_graph_that_saved_nothing_can_run_twice():
    x = leaf([1.0, 2.0])
    y = ((x + 1) - 3).sum()
    assert grad(y, x)[0].tolist() == grad(y, x)[0].tolist() == [1.0, 1.0]
