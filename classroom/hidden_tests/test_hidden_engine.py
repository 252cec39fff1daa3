"""Hidden tests of assignment a1-engine (chapters 2-5): cases the public tests leave out."""

import numpy as np
import pytest

import minitorch
from minitorch.ops import sum_to_shape

pytestmark = pytest.mark.chapter4


@pytest.mark.task("3.1")
def test_sum_to_shape_of_an_operand_that_was_not_broadcast_is_unchanged():
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(sum_to_shape(x, (2, 3)), x)
    assert sum_to_shape(np.ones((4, 1, 5)), (1, 1)).tolist() == [[20.0]]


@pytest.mark.task("4.1")
def test_a_view_of_a_constant_stays_unrecorded_next_to_a_recorded_one():
    x = minitorch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    c = minitorch.tensor([5.0, 6.0, 7.0, 8.0])
    v = c.view(2, 2)
    assert v.grad_fn is None and not v.requires_grad
    out = v + x.view(2, 2)
    assert out.grad_fn.next_functions[0] == (None, 0)
    assert out.grad_fn.next_functions[1][0].name() == "ViewBackward0"
    assert out.grad_fn(minitorch.ones(2, 2))[1].tolist() == [[1.0, 1.0], [1.0, 1.0]]


@pytest.mark.task("4.1")
def test_an_edge_to_the_third_output_of_a_node():
    x = minitorch.tensor([3.0, 1.0, 2.0], requires_grad=True)
    a, b, c = x.unbind(0)
    assert (c * 1).grad_fn.next_functions[0] == (c.grad_fn, 2)


@pytest.mark.task("4.2")
def test_the_gradient_of_a_third_output_reaches_its_place():
    x = minitorch.tensor([3.0, 1.0, 2.0], requires_grad=True)
    a, b, c = x.unbind(0)
    (c * 5 + a).backward()
    assert x.grad.tolist() == [1.0, 0.0, 5.0]


@pytest.mark.task("4.2")
def test_a_node_with_two_outputs_reached_through_both_runs_once():
    x = minitorch.tensor([0.5, 1.5], dtype=minitorch.float64, requires_grad=True)
    e = x.exp()                          # saves its result: freed after its one run
    a, b = e.unbind(0)
    gx, = minitorch.autograd.grad(a * 2 + b * 3 + a.exp(), x)
    v = np.exp([0.5, 1.5])
    np.testing.assert_allclose(gx.numpy(), [v[0] * (2 + np.exp(v[0])), 3 * v[1]], rtol=1e-12)


@pytest.mark.task("4.2")
def test_autograd_grad_of_an_input_reached_only_through_a_pruned_branch_is_none():
    x = minitorch.tensor([1.0], requires_grad=True)
    w = minitorch.tensor([2.0], requires_grad=True)
    y = (x.exp() + 1).sum()
    gx, gw = minitorch.autograd.grad(y, [x, w], allow_unused=True)
    assert gw is None
    np.testing.assert_allclose(gx.numpy(), np.exp([1.0]), rtol=1e-6)


@pytest.mark.task("4.2")
def test_a_node_reached_three_times_gets_the_sum_of_three_gradients():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    a = x.exp()
    out = a * 2 + a * 3 + a.sin()
    gx, = minitorch.autograd.grad(out.sum(), x)
    np.testing.assert_allclose(gx.numpy(), np.exp([1.0, 2.0]) * (5 + np.cos(np.exp([1.0, 2.0]))))


@pytest.mark.task("4.2")
def test_a_leaf_used_by_two_roots_of_one_backward_gets_both():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    minitorch.autograd.backward([(x * 2).sum(), (x * 3).sum()])
    assert x.grad.tolist() == [5.0, 5.0]


@pytest.mark.task("4.2")
def test_float32_gradients_accumulate_in_float32():
    x = minitorch.tensor([1.0, 2.0], dtype=minitorch.float32, requires_grad=True)
    for _ in range(3):
        (x * 0.5).sum().backward()
    assert x.grad.dtype == minitorch.float32 and x.grad.tolist() == [1.5, 1.5]


@pytest.mark.task("5.1")
def test_nested_no_grad_restores_each_level():
    with minitorch.no_grad():
        with minitorch.no_grad():
            pass
        assert not minitorch.is_grad_enabled()
        with minitorch.enable_grad():
            assert minitorch.is_grad_enabled()
        assert not minitorch.is_grad_enabled()
    assert minitorch.is_grad_enabled()


@pytest.mark.task("5.2")
def test_an_output_saved_by_its_node_and_changed_in_place_is_detected():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.add_(1)
    exp_node = y.grad_fn.next_functions[0][0]
    with pytest.raises(RuntimeError, match="which is output 0 of Exp, is at version 1"):
        exp_node._saved_result      # unpacking checks the version, as backward does


@pytest.mark.task("5.3")
def test_pack_hook_sees_each_saved_tensor_once_in_order():
    seen = []
    a = minitorch.tensor([2.0], requires_grad=True)
    b = minitorch.tensor([3.0], requires_grad=True)
    with minitorch.autograd.graph.saved_tensors_hooks(lambda t: seen.append(t.tolist()) or t,
                                                      lambda t: t):
        out = a * b
    assert seen == [[3.0], [2.0]]
    assert out.grad_fn._saved_other.tolist() == [3.0]
    assert out.grad_fn._saved_self.tolist() == [2.0]


@pytest.mark.task("5.4")
def test_two_tensor_hooks_run_in_order_each_on_the_last_result():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.register_hook(lambda g: g * 10)
    handle = y.register_hook(lambda g: g + 1)
    y.sum().backward()
    assert x.grad.tolist() == [33.0, 33.0]
    handle.remove()
    x.grad = None
    y = x * 3
    first = y.register_hook(lambda g: g * 10)
    first.remove()
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


@pytest.mark.task("5.4")
def test_a_pre_hook_returning_too_many_gradients_is_refused_and_nothing_is_stored():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    z = x * 2
    z.grad_fn.register_prehook(lambda grads: (grads[0], grads[0]))
    with pytest.raises(RuntimeError, match="incorrect number of values"):
        z.sum().backward()
    assert x.grad is None


@pytest.mark.task("5.4")
def test_a_post_accumulate_grad_hook_sees_the_grad_after_each_backward():
    seen = []
    w = minitorch.tensor([1.0, 2.0], requires_grad=True)
    w.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    (w * 2).sum().backward()
    (w * 2).sum().backward()
    assert seen == [[2.0, 2.0], [4.0, 4.0]]


@pytest.mark.task("5.4")
def test_retain_grad_keeps_what_the_hooks_made():
    a = minitorch.tensor([1.0, 2.0], requires_grad=True)
    b = a.exp()
    b.retain_grad()
    b.register_hook(lambda g: g * 2)
    (b * 1).sum().backward()
    assert b.grad.tolist() == [2.0, 2.0]
    np.testing.assert_allclose(a.grad.numpy(), 2 * np.exp([1.0, 2.0]), rtol=1e-6)


@pytest.mark.task("5.4")
def test_a_hook_that_changes_the_dtype_is_refused():
    t = minitorch.tensor([1.0, 2.0], requires_grad=True)
    u = t + 1
    u.register_hook(lambda g: g.double())
    with pytest.raises(RuntimeError, match="changed the type of value"):
        u.sum().backward()


@pytest.mark.task("4.4")
def test_accumulate_grad_keeps_the_first_gradient_s_dtype_and_adds_in_place():
    from minitorch.autograd.graph import accumulate_grad
    x = minitorch.tensor([1.0, 2.0], dtype=minitorch.float32, requires_grad=True)
    with minitorch.no_grad():
        accumulate_grad(x, minitorch.tensor([0.25, 0.5], dtype=minitorch.float32), owned=False)
        first = x.grad
        accumulate_grad(x, minitorch.tensor([0.25, 0.5], dtype=minitorch.float32), owned=True)
    assert x.grad is first and x.grad.dtype == minitorch.float32
    assert x.grad.tolist() == [0.5, 1.0]
