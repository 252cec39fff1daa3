"""Hidden tests of assignment a1-engine (chapters 2-5): cases the public tests leave out."""

import numpy as np
import pytest

import minitorch
from minitorch.autograd.engine import count_dependencies
from minitorch.ops import sum_to_shape

pytestmark = pytest.mark.chapter4


@pytest.mark.task("3.1")
def test_sum_to_shape_of_an_operand_that_was_not_broadcast_is_unchanged():
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(sum_to_shape(x, (2, 3)), x)
    assert sum_to_shape(np.ones((4, 1, 5)), (1, 1)).tolist() == [[20.0]]


@pytest.mark.task("4.1")
def test_an_edge_to_the_third_output_of_a_node():
    x = minitorch.tensor([3.0, 1.0, 2.0], requires_grad=True)
    a, b, c = x.unbind(0)
    assert (c * 1).grad_fn.next_functions[0] == (c.grad_fn, 2)


@pytest.mark.task("4.4")
def test_the_gradient_of_a_third_output_reaches_its_place():
    x = minitorch.tensor([3.0, 1.0, 2.0], requires_grad=True)
    a, b, c = x.unbind(0)
    (c * 5 + a).backward()
    assert x.grad.tolist() == [1.0, 0.0, 5.0]


@pytest.mark.task("4.2")
def test_a_node_reached_three_times_waits_for_three_gradients():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    a = x.exp()
    out = a * 2 + a * 3 + a.sin()
    deps = count_dependencies(out.grad_fn)
    assert deps[a.grad_fn] == 3


@pytest.mark.task("4.3")
def test_a_node_reached_three_times_gets_the_sum_of_three_gradients():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    a = x.exp()
    out = a * 2 + a * 3 + a.sin()
    gx, = minitorch.autograd.grad(out.sum(), x)
    np.testing.assert_allclose(gx.numpy(), np.exp([1.0, 2.0]) * (5 + np.cos(np.exp([1.0, 2.0]))))


@pytest.mark.task("4.4")
def test_a_leaf_used_by_two_roots_of_one_backward_gets_both():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    minitorch.autograd.backward([(x * 2).sum(), (x * 3).sum()])
    assert x.grad.tolist() == [5.0, 5.0]


@pytest.mark.task("4.4")
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
