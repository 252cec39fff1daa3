"""Storing a leaf's gradient (chapter 4, task 4.4): ``accumulate_grad(variable, grad,
owned)``, called once the whole backward has succeeded (``GraphTask.commit``).

The first gradient becomes ``.grad`` itself when the engine owns it (made it, nobody
else holds it), a copy otherwise; later ones are added in place, so ``.grad`` stays the
same object.  With grad mode on (``create_graph=True``) the copy and the sum are
recorded, so the gradient can be differentiated again.  These call it directly, as the
engine does, without running a backward."""

import pytest

import minitorch
from minitorch.autograd.graph import accumulate_grad

pytestmark = pytest.mark.chapter4


def leaf():
    return minitorch.tensor([1.0, 2.0], requires_grad=True)


@pytest.mark.task("4.4")
def test_a_first_gradient_the_engine_owns_is_kept_as_it_is():
    x, g = leaf(), minitorch.tensor([3.0, 4.0])
    with minitorch.no_grad():
        accumulate_grad(x, g, owned=True)
    assert x.grad is g


@pytest.mark.task("4.4")
def test_a_first_gradient_someone_else_holds_is_copied():
    x, g = leaf(), minitorch.tensor([3.0, 4.0])
    with minitorch.no_grad():
        accumulate_grad(x, g, owned=False)
    assert x.grad is not g and x.grad.tolist() == [3.0, 4.0]
    g.fill_(0.0)
    assert x.grad.tolist() == [3.0, 4.0]


@pytest.mark.task("4.4")
def test_later_gradients_are_added_in_place():
    x = leaf()
    with minitorch.no_grad():
        accumulate_grad(x, minitorch.tensor([3.0, 4.0]), owned=True)
        first = x.grad
        accumulate_grad(x, minitorch.tensor([1.0, 1.0]), owned=True)
        accumulate_grad(x, minitorch.tensor([0.5, 0.5]), owned=False)
    assert x.grad is first and x.grad.tolist() == [4.5, 5.5]


@pytest.mark.task("4.4")
def test_with_grad_mode_on_the_copy_and_the_sum_are_recorded():
    x = leaf()
    g = minitorch.tensor([3.0, 4.0], requires_grad=True)
    accumulate_grad(x, g, owned=True)
    assert x.grad is not g and x.grad.grad_fn.name() == "torch::autograd::CopyBackwards"
    first = x.grad
    accumulate_grad(x, g, owned=True)
    assert x.grad is not first and x.grad.grad_fn.name() == "AddBackward0"
    assert x.grad.tolist() == [6.0, 8.0]


@pytest.mark.task("4.4")
def test_a_grad_that_requires_grad_is_added_to_in_place_with_grad_mode_off():
    # PyTorch 2.13 (tests/autograd/test_engine.py): the same object, its grad_fn kept
    x = leaf()
    g = minitorch.tensor([3.0, 4.0], requires_grad=True)
    accumulate_grad(x, g, owned=False)           # recorded: requires grad
    first = x.grad
    with minitorch.no_grad():
        accumulate_grad(x, minitorch.tensor([1.0, 1.0]), owned=True)
    assert x.grad is first and first.requires_grad
    assert x.grad.tolist() == [4.0, 5.0]
