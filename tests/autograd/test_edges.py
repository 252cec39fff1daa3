"""The edges a new node records to its inputs (chapter 4): ``next_functions``.

An input that requires grad leads to its ``grad_fn`` (as the output number it is of
that node), or, for a leaf, to the leaf's one AccumulateGrad node; a tensor that needs
no gradient has the empty edge ``(None, 0)``; an argument of a custom Function that is
not a tensor has no edge at all.  The values were checked with PyTorch 2.13.
"""

import pytest

import minitorch
from minitorch.autograd import Function

pytestmark = pytest.mark.chapter4


class Scale(Function):
    """``t * k`` for a tensor and a number; the number gets no gradient."""

    @staticmethod
    def forward(ctx, t, k):
        ctx.k = k
        return t * k

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None


class Combine(Function):
    """``a * 2 + b``: two tensor inputs, for edges of either kind."""

    @staticmethod
    def forward(ctx, a, b):
        return a * 2 + b

    @staticmethod
    def backward(ctx, g):
        return g * 2, g


@pytest.mark.task("4.1")
def test_a_leaf_leads_to_its_one_accumulate_grad_node():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = minitorch.tensor([3.0, 4.0], requires_grad=True)
    first, second = (x + y).grad_fn.next_functions
    assert type(first[0]).__name__ == "AccumulateGrad" and first[0].variable is x
    assert second[0].variable is y and first[1] == second[1] == 0
    assert (x + 1).grad_fn.next_functions[0][0] is first[0]      # the same node every time


@pytest.mark.task("4.1")
def test_a_tensor_that_needs_no_gradient_has_the_empty_edge():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    c = minitorch.tensor([5.0, 6.0])
    assert (x + c).grad_fn.next_functions[1] == (None, 0)
    assert (c - x).grad_fn.next_functions[0] == (None, 0)


@pytest.mark.task("4.2")
def test_backward_leaves_a_tensor_that_needs_no_gradient_alone():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    c = minitorch.tensor([5.0, 6.0])
    (x - c).backward(minitorch.ones(2))
    assert c.grad is None and x.grad.tolist() == [1.0, 1.0]


@pytest.mark.task("4.1")
def test_a_result_leads_to_the_node_that_made_it():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = x + 2
    z = -y
    assert z.grad_fn.next_functions == ((y.grad_fn, 0),)
    w = z + y
    assert [node for node, _ in w.grad_fn.next_functions] == [z.grad_fn, y.grad_fn]


@pytest.mark.task("4.1")
def test_an_edge_names_the_output_it_came_from():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    a, b = x.unbind(0)
    edges = (b + a).grad_fn.next_functions
    assert [nr for _, nr in edges] == [1, 0]
    assert edges[0][0] is edges[1][0] is a.grad_fn


@pytest.mark.task("4.2")
def test_gradients_return_to_the_output_they_came_from():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    a, b = x.unbind(0)
    (b * 10 - a).backward()
    assert x.grad.tolist() == [-1.0, 10.0]


@pytest.mark.task("6.8")
def test_a_custom_function_records_edges_for_its_tensors_only():
    x = minitorch.tensor([1.0], requires_grad=True)
    y = Scale.apply(x, 2.0)
    assert len(y.grad_fn.next_functions) == 1
    assert y.grad_fn.next_functions[0][0].variable is x
    c = minitorch.tensor([3.0])
    z = Combine.apply(y, c)
    assert z.grad_fn.next_functions == ((y.grad_fn, 0), (None, 0))


@pytest.mark.task("6.8")
def test_a_custom_function_passes_gradients_to_its_tensors_only():
    x = minitorch.tensor([1.0], requires_grad=True)
    c = minitorch.tensor([3.0])
    Combine.apply(Scale.apply(x, 2.0), c).backward(minitorch.ones(1))
    assert x.grad.tolist() == [4.0] and c.grad is None


@pytest.mark.task("4.2")
def test_gradients_flow_only_into_inputs_that_require_them():
    w = minitorch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    x = minitorch.tensor([[1.0, 1.0]])
    out = (x + w).relu().sum()
    out.backward()
    assert w.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]] and x.grad is None
    assert not x.requires_grad and out.requires_grad
