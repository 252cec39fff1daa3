"""Gradients of the ops added or reshaped to match PyTorch (chapter 6): every one is
checked against finite differences (gradcheck: backward without a graph, which takes a
built-in op's ``backward_on_arrays`` when it has one) and once more differentiated
(gradgradcheck: backward with ``create_graph=True``, which takes ``backward``)."""

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck, gradgradcheck

pytestmark = pytest.mark.chapter6


def leaf(values):
    return minitorch.tensor(values, dtype=minitorch.float64, requires_grad=True)


A = [[0.5, -1.5, 2.0], [1.25, 0.75, -0.5]]
B = [0.25, -2.0, 1.5]

FUNCTIONS = {
    "add alpha": (lambda a, b: a.add(b, alpha=2.5), (A, B)),
    "sub alpha": (lambda a, b: a.sub(b, alpha=-0.5), (A, B)),
    "torch.add number first": (lambda a: minitorch.add(2.0, a, alpha=3), (A,)),
    "clamp tensor min": (lambda a, b: a.clamp(min=b), (A, B)),
    "clamp tensor both": (lambda a, b: a.clamp(min=b - 1.1, max=b + 0.3), (A, B)),
    "where number": (lambda a: minitorch.where(a > 0, a, 0.5), (A,)),
    "where tensors": (lambda a, b: minitorch.where(a > 1, a * 2, b), (A, B)),
    "masked_fill": (lambda a: a.masked_fill(a < 0, 1.0), (A,)),
    "masked_fill broadcasting a": (lambda b: b.masked_fill(minitorch.tensor([[True], [False]]), 2.0),
                                   (B,)),
    "bool index": (lambda a: a[True] * a[0, True].sum(), (A,)),
    "var": (lambda a: a.var(), (A,)),
    "var dim": (lambda a: a.var(1, keepdim=True), (A,)),
    "std dim": (lambda a: a.std(0), (A,)),
    "std no correction": (lambda a: a.std(1, correction=0), (A,)),
    "unbind": (lambda a: a.unbind(1)[2].sum() * a.unbind(0)[0], (A,)),
    "split": (lambda a: a.split(2, 1)[1].sum() + a.split(1)[0].sum() * 2, (A,)),
    "split sizes": (lambda a: a.split([1, 2], 1)[1] ** 2, (A,)),
    "chunk": (lambda a: a.chunk(3, 1)[1].exp(), (A,)),
    "relu_": (lambda a: (a * 1).relu_() * a, (A,)),
    "vector @ matrix": (lambda b, a: b[:2] @ a, (B, A)),
    "sigmoid": (lambda a: a.sigmoid(), (A,)),
    "tanh": (lambda a: a.tanh(), (A,)),
    "relu": (lambda a: a.relu() * a, (A,)),
    "0-d sum over dim 0": (lambda a: a.sum().sum(0, keepdim=True) * a.mean().mean(0), (A,)),
    "setitem of a 0-d view": (lambda a: _set_element(a), (A,)),
}


def _set_element(a):
    out = a * 1
    out[0, 1] = a[1, 2] * 3
    return out


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_gradient_without_and_with_a_graph(name):
    fn, values = FUNCTIONS[name]
    inputs = tuple(leaf(v) for v in values)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("create_graph", [False, True])
def test_a_sum_or_mean_in_another_dtype_gives_the_input_its_own_dtype(create_graph):
    a = minitorch.tensor([[1.5, 2.5]], requires_grad=True)
    (a.sum(dtype=minitorch.float64) * 2 + a.mean(1, dtype=minitorch.float64).sum()).backward(
        create_graph=create_graph)
    assert a.grad.dtype == minitorch.float32 and a.grad.tolist() == [[2.5, 2.5]]
    (a.sum(0, keepdim=True, dtype=minitorch.float64) ** 2).sum().backward()
    assert a.grad.tolist() == [[5.5, 7.5]]


@pytest.mark.parametrize("create_graph", [False, True])
def test_a_saved_number_is_freed_by_backward(create_graph):
    x = minitorch.ones(2, requires_grad=True)
    y = (x * 3 / 2).sum()
    y.backward(retain_graph=True, create_graph=create_graph)
    y.backward(retain_graph=False, create_graph=create_graph)     # retained: runs again
    assert x.grad.tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.grad_fn.next_functions[0][0]._saved_other


def test_maximum_of_mixed_dtypes_gives_each_input_its_own_gradient_dtype():
    a = minitorch.tensor([2.0, 0.5], requires_grad=True)
    minitorch.maximum(a, minitorch.tensor([3, 0])).sum().backward()
    assert a.grad.dtype == minitorch.float32 and a.grad.tolist() == [0.0, 1.0]
