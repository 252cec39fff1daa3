"""Recording a call (chapter 4, task 4.1): what an operation leaves behind.

When an input requires grad, the call becomes a node of the graph: the result is a
non-leaf whose ``grad_fn`` is that node, the node has an edge to each input, each
output knows which output of the node it is, and an in-place change makes the
changed tensor the output of the new node.  Calling a node (``y.grad_fn(g)``) runs its
backward: zeros stand in for the gradients of outputs that got none.  These tests use
only built-in operations that save no tensor and never run the engine, so they test
recording alone.  Every expected value was checked with PyTorch 2.13.
"""

import numpy as np
import pytest

import minitorch

pytestmark = [pytest.mark.chapter4]


def leaf(values):
    return minitorch.tensor(values, requires_grad=True)


@pytest.mark.task("4.1")
def test_a_result_of_an_input_that_requires_grad_is_a_recorded_non_leaf():
    x = leaf([1.0, 2.0])
    y = x + 1
    assert y.requires_grad and not y.is_leaf
    assert y.grad_fn is not None and y.grad_fn.name() == "AddBackward0"
    z = y - x
    assert z.grad_fn.name() == "SubBackward0"
    assert [edge[0] for edge in z.grad_fn.next_functions][0] is y.grad_fn


def test_nothing_is_recorded_when_no_input_requires_grad():
    x = minitorch.tensor([1.0, 2.0])
    y = x + 1
    assert not y.requires_grad and y.is_leaf and y.grad_fn is None
    w = leaf([1.0, 2.0]).detach()
    assert (w + y).grad_fn is None


@pytest.mark.task("4.1")
def test_the_result_is_a_new_tensor_with_the_values_forward_computed():
    x = leaf([1.0, 2.0])
    y = x + 0
    assert y is not x and y.tolist() == [1.0, 2.0]
    assert x.grad_fn is None and x.is_leaf          # the input is left as it was


@pytest.mark.task("4.1")
def test_every_output_of_a_node_leads_back_to_it_by_its_number():
    x = leaf([3.0, 1.0, 2.0])
    a, b, c = x.unbind(0)
    assert a.grad_fn is b.grad_fn is c.grad_fn
    assert a.grad_fn.name() == "UnbindBackward0"
    assert (b + 1).grad_fn.next_functions[0] == (b.grad_fn, 1)
    assert (c - 1).grad_fn.next_functions[0] == (c.grad_fn, 2)
    assert a.grad_fn.next_functions[0][0].variable is x


@pytest.mark.task("4.1")
def test_a_view_of_a_recorded_tensor_is_recorded_and_shares_its_version():
    x = leaf([1.0, 2.0, 3.0, 4.0])
    y = x + 0
    v = y.view(2, 2)
    assert v.grad_fn.name() == "ViewBackward0" and v.grad_fn.next_functions[0][0] is y.grad_fn
    y.add_(1)
    assert y._version == v._version == 1
    parts = y.unbind(0)
    assert parts[0]._version == 1          # several outputs, one version counter


@pytest.mark.task("4.1")
def test_an_in_place_change_makes_the_tensor_the_output_of_a_new_node():
    x = leaf([1.0, 2.0])
    y = x + 0
    before = y.grad_fn
    returned = y.add_(1)
    assert returned is y and y._version == 1
    assert y.grad_fn is not before and y.grad_fn.name() == "AddBackward0"
    assert y.grad_fn.next_functions[0] == (before, 0)
    assert y.tolist() == [2.0, 3.0]
    y.sub_(1)
    assert y._version == 2 and y.grad_fn.name() == "SubBackward0"


@pytest.mark.task("4.1")
def test_calling_a_node_returns_one_gradient_per_input():
    x = leaf([1.0, 2.0])
    w = leaf([3.0, 4.0])
    gx, gw = (x + w).grad_fn(minitorch.ones(2))
    assert gx.tolist() == gw.tolist() == [1.0, 1.0]
    gx, gw = (x - w).grad_fn(minitorch.tensor([1.0, 2.0]))
    assert gx.tolist() == [1.0, 2.0] and gw.tolist() == [-1.0, -2.0]


@pytest.mark.task("4.1")
def test_an_input_that_needs_no_gradient_gets_none():
    x = leaf([1.0, 2.0, 3.0])
    gx, gc = (x + minitorch.tensor([1.0, 2.0, 3.0])).grad_fn(minitorch.ones(3))
    assert gx.tolist() == [1.0, 1.0, 1.0] and gc is None


@pytest.mark.task("4.1")
def test_outputs_that_got_no_gradient_get_zeros_of_their_shape():
    x = leaf([[3.0, 1.0], [2.0, 5.0]])
    a, b = x.unbind(0)
    g = a.grad_fn(minitorch.tensor([1.0, 2.0]), None)
    assert g.tolist() == [[1.0, 2.0], [0.0, 0.0]]
    g = a.grad_fn(None, minitorch.tensor([7.0, 8.0]))
    assert g.tolist() == [[0.0, 0.0], [7.0, 8.0]]


@pytest.mark.task("4.1")
def test_a_node_whose_outputs_got_no_gradient_at_all_returns_none():
    x = leaf([3.0, 1.0, 2.0])
    a, _, _ = x.unbind(0)
    assert a.grad_fn(None, None, None) is None


@pytest.mark.task("4.1")
def test_a_float32_graph_gives_float32_gradients():
    x = minitorch.tensor([1.0, 2.0], dtype=minitorch.float32, requires_grad=True)
    a, b = x.unbind(0)
    g = a.grad_fn(minitorch.tensor(1.0), None)
    assert g.dtype == minitorch.float32 and g.tolist() == [1.0, 0.0]


@pytest.mark.task("4.1")
def test_a_result_that_is_not_floating_point_is_not_recorded():
    x = leaf([1.0, -2.0, 3.0])
    y = x + 0
    assert (y > 0).grad_fn is None and not (y > 0).requires_grad
    index = y.to(minitorch.int64)
    assert index.grad_fn is None and not index.requires_grad


@pytest.mark.task("4.1")
def test_only_the_outputs_marked_non_differentiable_and_integers_are_left_out():
    # as a Function's forward that calls ctx.mark_non_differentiable(marked) records
    # (torch.max(x, 0)'s indices): the other outputs stay outputs of the node
    from minitorch.autograd.function import link_into_graph
    x = leaf([1.0, 2.0])
    node = type((x + 1).grad_fn)()          # a fresh node, linked by hand
    kept, marked = minitorch.tensor([1.0]), minitorch.tensor([2.0])
    counts = minitorch.tensor([3], dtype=minitorch.int64)
    node._non_differentiable = (marked,)
    link_into_graph(node, (x,), [kept, marked, counts])
    assert kept.grad_fn is node and kept.requires_grad
    assert marked.grad_fn is None and not marked.requires_grad
    assert counts.grad_fn is None and not counts.requires_grad


@pytest.mark.task("4.1")
def test_the_graph_holds_no_outputs():
    """A node has edges to its inputs only: dropping the result frees the node."""
    import weakref
    x = leaf([1.0, 2.0])
    y = (x + 1) - 2
    node = weakref.ref(y.grad_fn)
    inner = weakref.ref(y.grad_fn.next_functions[0][0])
    del y
    assert node() is None and inner() is None


@pytest.mark.task("4.1")
@pytest.mark.parametrize("make", [lambda x: x + 1, lambda x: x.view(2, 2), lambda x: -x,
                                  lambda x: x.unbind(0)[1], lambda x: x.t()],
                         ids=["add", "view", "neg", "unbind", "t"])
def test_results_of_recorded_calls_require_grad(make):
    x = leaf(np.arange(4.0).reshape(2, 2).tolist()).view(2, 2)
    out = make(x)
    assert out.requires_grad and out.grad_fn is not None
    np.testing.assert_array_equal(out.detach().numpy(), make(x.detach()).numpy())


@pytest.mark.task("4.1")
def test_a_node_with_one_input_returns_its_gradient_as_it_is():
    x = leaf([1.0, 2.0])
    g = (-x).grad_fn(minitorch.tensor([1.0, 2.0]))
    assert isinstance(g, minitorch.Tensor) and g.tolist() == [-1.0, -2.0]
    g = x.view(2, 1).grad_fn(minitorch.ones(2, 1))
    assert g.shape == (2,) and g.tolist() == [1.0, 1.0]


@pytest.mark.task("4.1")
def test_a_node_called_without_a_gradient_passes_none_on():
    x = leaf([1.0, 2.0])
    assert (x + 1).grad_fn(None) == (None, None)
    assert (-x).grad_fn(None) is None
