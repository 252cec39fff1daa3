"""Every misuse gets PyTorch's exception type and a message that says what happened
(and, in minitorch, what to do).  Nothing is left half-updated by an error."""

import numpy as np
import pytest

import minitorch as torch

pytestmark = pytest.mark.chapter3

CASES = [
    # (expression, exception type, a regex the message must match)
    (lambda: torch.tensor(["a"]), ValueError, "too many dimensions 'str'"),
    (lambda: torch.tensor({1: 2}), RuntimeError, "Could not infer dtype of dict"),
    (lambda: torch.tensor(object()), RuntimeError, "Could not infer dtype of object"),
    (lambda: torch.tensor(np.array(["x"])), TypeError, "can't convert np.ndarray of type numpy.str"),
    (lambda: torch.tensor([1, 2], requires_grad=True), RuntimeError,
     "Only Tensors of floating point and complex dtype can require gradients"),
    (lambda: torch.tensor([[1, 2], [3]]), ValueError, r"expected sequence of length 2 at dim 1 \(got 1\)"),
    (lambda: torch.ones(2, 3) + torch.ones(3, 2), RuntimeError,
     r"The size of tensor a \(3\) must match the size of tensor b \(2\) at non-singleton dimension 1"),
    (lambda: torch.ones(2, 3) * torch.ones(3, 2), RuntimeError, "must match the size of tensor b"),
    (lambda: torch.ones(2, 3) @ torch.ones(2, 3), RuntimeError,
     r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x3\)"),
    (lambda: torch.ones(2, 3).mm(torch.ones(2, 3)), RuntimeError, "mat1 and mat2 shapes cannot be multiplied"),
    (lambda: torch.ones(3).item(), RuntimeError, "a Tensor with 3 elements cannot be converted to Scalar"),
    (lambda: torch.ones(2, requires_grad=True).numpy(), RuntimeError,
     r"Can't call numpy\(\) on Tensor that requires grad. Use tensor.detach\(\).numpy\(\) instead."),
    (lambda: (torch.ones(2, requires_grad=True) * 2).requires_grad_(False), RuntimeError,
     "you can only change requires_grad flags of leaf variables"),
    (lambda: torch.ones(2)[5], IndexError, "index 5 is out of bounds for dimension 0 with size 2"),
    (lambda: torch.ones(2, 3).view(4), RuntimeError, r"shape '\[4\]' is invalid for input of size 6"),
    (lambda: torch.ones(2, 3).sum(5), IndexError,
     r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 5\)"),
    (lambda: torch.cat([torch.ones(2, 3), torch.ones(3, 2)]), RuntimeError,
     "Sizes of tensors must match except in dimension 0"),
    (lambda: torch.ones(2, 3).t().view(6), RuntimeError, "view size is not compatible"),
    (lambda: torch.ones(2, 3).expand(3, 3), RuntimeError, r"The expanded size of the tensor \(3\) must match"),
    (lambda: torch.ones(2, requires_grad=True).add_(1), RuntimeError,
     "a leaf Variable that requires grad is being used in an in-place operation"),
    (lambda: torch.ones(2, requires_grad=True)[0].add_(1), RuntimeError,
     "a view of a leaf Variable that requires grad is being used in an in-place operation"),
    (lambda: torch.ones(2) + "a", TypeError, "unsupported operand type"),
    (lambda: torch.stack([torch.ones(2), torch.ones(3)]), RuntimeError, "stack expects each tensor to be equal size"),
    (lambda: torch.ones(2).register_hook(lambda g: g), RuntimeError,
     "cannot register a hook on a tensor that doesn't require gradient"),
    (lambda: torch.ones(2).retain_grad(), RuntimeError, "can't retain_grad on Tensor that has requires_grad=False"),
    (lambda: torch.ones(2).reshape(-1, -1), RuntimeError, "only one dimension can be inferred"),
    (lambda: bool(torch.ones(2)), RuntimeError, "Boolean value of Tensor with more than one value is ambiguous"),
    (lambda: len(torch.tensor(1.0)), TypeError, "len\\(\\) of a 0-d tensor"),
    (lambda: torch.tensor([1, 2]).mean(), RuntimeError, "mean\\(\\): could not infer output dtype.*Got: Long"),
    (lambda: torch.ones(3).add_(torch.ones(2, 3)), RuntimeError,
     r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"),
    (lambda: torch.ones(3, dtype=torch.long).add_(1.5), RuntimeError,
     "result type Float can't be cast to the desired output type Long"),
    (lambda: torch.ones(2)[torch.tensor([0.5])], IndexError, "tensors used as indices must be long"),
    (lambda: torch.zeros(2, -1), RuntimeError, "negative dimension"),
    (lambda: torch.ones(2).backward(), RuntimeError, "element 0 of tensors does not require grad"),
    (lambda: torch.ones(2, 2).max(dim=3), IndexError, "Dimension out of range"),
    (lambda: torch.ones(2, 3).transpose(0, 2), IndexError, "Dimension out of range"),
    (lambda: torch.ones(2, 2, 2).t(), RuntimeError, "t\\(\\) expects a tensor with <= 2 dimensions"),
    (lambda: torch.ones(3).copy_([1, 2, 3]), TypeError, "copy_\\(\\): argument 'other' \\(position 1\\) must be Tensor"),
    (lambda: torch.zeros(2, 2).masked_fill(torch.ones(2, 2), 1.0), RuntimeError, "boolean masks"),
    (lambda: torch.ones(2).grad_fn is None and torch.ones(2).__setattr__("grad", torch.ones(3)), RuntimeError,
     "assigned grad has data of a different size"),
]


@pytest.mark.parametrize("expr, kind, message", CASES, ids=[m[:40] for _, _, m in CASES])
def test_error(expr, kind, message):
    with pytest.raises(kind, match=message):
        expr()


def test_failed_broadcast_in_place_leaves_tensor_untouched():
    x = torch.ones(3)
    with pytest.raises(RuntimeError):
        x.add_(torch.ones(2, 3))
    assert x.tolist() == [1.0, 1.0, 1.0] and x._version == 0


def test_refused_inplace_on_leaf_leaves_it_untouched():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError):
        x.mul_(5)
    assert x.tolist() == [1.0, 1.0] and x._version == 0


def test_failed_backward_leaves_grads_untouched():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError):
        (x * 2).backward()
    assert x.grad is None


def test_leaf_requires_grad_inplace_allowed_under_no_grad():
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        x.sub_(0.5)
    assert x.tolist() == [0.5, 0.5] and x.requires_grad and x.is_leaf


def test_inplace_on_view_in_graph_is_refused_with_advice():
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="clone\\(\\) the base tensor first"):
        y[1:].mul_(2)


@pytest.mark.parametrize("name", ["add_", "sub_", "mul_", "div_"])
def test_inplace_method_with_a_bad_operand_raises(name):
    x = torch.ones(2)
    with pytest.raises(TypeError, match=f"{name}\\(\\): argument 'other' \\(position 1\\) must be Tensor, not str"):
        getattr(x, name)("a")
    assert x.tolist() == [1.0, 1.0]


def test_inplace_operator_with_a_bad_operand_raises_type_error():
    x = torch.ones(2)
    with pytest.raises(TypeError):
        x += "a"


def test_add_and_sub_in_place_with_alpha():
    x = torch.ones(2)
    x.add_(torch.ones(2), alpha=3)
    x.sub_(1.0, alpha=2)
    assert x.tolist() == [2.0, 2.0]


def test_numpy_of_a_tensor_requiring_grad_works_under_no_grad():
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        assert x.numpy().tolist() == [1.0, 1.0]
