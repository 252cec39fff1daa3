"""Tensor hooks and graph-node hooks: order, replacement values, removal (values checked on PyTorch 2.13)."""

import pytest

import minitorch

pytestmark = pytest.mark.chapter5


@pytest.mark.task("5.4")
def test_leaf_hook_replaces_the_gradient_and_can_be_removed():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    handle = x.register_hook(lambda g: g * 10)
    (x * 3).sum().backward()
    assert x.grad.tolist() == [30.0, 30.0]
    handle.remove()
    x.grad = None
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_non_leaf_hooks_run_in_order_and_retain_grad_sees_the_result():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    order = []
    y.register_hook(lambda g: order.append("first") or g + 1)
    y.retain_grad()
    y.register_hook(lambda g: order.append("second") or g * 2)
    (y * y).sum().backward()
    assert order == ["first", "second"]
    # d(y*y)/dy = 2y = [4, 8]; +1 then *2 gives [10, 18]; retain_grad keeps the final value
    assert y.grad.tolist() == [10.0, 18.0]
    assert x.grad.tolist() == [20.0, 36.0]


@pytest.mark.task("5.4")
def test_hook_handle_as_context_manager():
    x = minitorch.tensor([1.0], requires_grad=True)
    with x.register_hook(lambda g: g * 0):
        (x * 2).sum().backward()
    assert x.grad.tolist() == [0.0]
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0]


@pytest.mark.task("5.4")
def test_node_prehook_replaces_incoming_gradients():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    z = x.exp()
    z.grad_fn.register_prehook(lambda grad_outputs: (grad_outputs[0] * 0,))
    z.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


@pytest.mark.task("5.4")
def test_node_hook_sees_inputs_and_outputs_and_may_replace_inputs():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    z = x.exp()
    z.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (grad_inputs[0] + 100,))
    z.sum().backward()
    assert x.grad.tolist() == pytest.approx([102.7183, 107.3891], abs=1e-4)
    seen = []
    w = x * 1
    w.grad_fn.register_hook(lambda gi, go: seen.append((len(gi), len(go))))
    w.sum().backward()
    assert seen == [(2, 1)]      # the Python number counts as an input, as in PyTorch


@pytest.mark.task("5.4")
def test_hook_on_a_leaf_registered_after_its_node_exists():
    x = minitorch.tensor([1.0], requires_grad=True)
    y = x * 2                      # the AccumulateGrad node of x exists from here on
    x.register_hook(lambda g: g + 5)
    y.sum().backward()
    assert x.grad.tolist() == [7.0]
