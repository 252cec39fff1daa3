"""minitorch's numpy backend (chapter 21): the backward of ReLU and of GELU writes its
gradient into the buffer of the matrix product that made the incoming gradient, when
nothing reads that buffer afterwards; the gradients stay those of eager minitorch, bit
for bit."""

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn
from minitorch._inductor.compile_fx import output_code

pytestmark = pytest.mark.chapter21


def parameter_grads(model, x, compiled):
    model.zero_grad()
    run = minitorch.compile(model) if compiled else model
    run(x).sum().backward()
    return [p.grad.numpy().copy() for p in model.parameters()]


@pytest.mark.parametrize("activation, line", [
    (nn.ReLU, "relu_grad = np.multiply(mm, relu > 0, out=mm)"),
    (nn.GELU, "gelu_backward = (np.multiply(mm, getitem_1, out=mm), None)")])
def test_an_activations_backward_reuses_the_products_buffer(activation, line):
    minitorch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), activation(), nn.Linear(16, 3))
    x = minitorch.randn(64, 6)
    eager = parameter_grads(model, x, compiled=False)
    compiled = parameter_grads(model, x, compiled=True)
    backward = output_code(1)[0]
    assert line in backward
    for e, c in zip(eager, compiled):
        assert np.array_equal(e, c)


def test_a_gradient_that_is_no_buffer_of_its_own_is_not_written_into():
    # relu(...).sum(): the gradient reaching relu is the sum's, broadcast (expand) from
    # one number: no buffer of its own, so relu's backward writes into new memory.
    minitorch.manual_seed(0)
    lin = nn.Linear(5, 8)
    x = minitorch.randn(16, 5)
    minitorch.relu(lin(x)).sum().backward()
    eager = [p.grad.numpy().copy() for p in lin.parameters()]
    lin.zero_grad()
    minitorch.compile(lambda x: minitorch.relu(lin(x)).sum())(x).backward()
    line, = [l for l in output_code(1)[0].splitlines() if "relu_grad = " in l]
    assert "np.multiply(expand, relu > 0)" in line and "out=" not in line
    for e, p in zip(eager, lin.parameters()):
        assert np.array_equal(e, p.grad.numpy())
