"""An in-place change through a view of a tensor that needed no gradient gives the base a
``CopySlices`` node (ops/inplace.py ``record_change_in_base``, chapter 5).

Expected values from PyTorch 2.13 (the same code run with ``import torch``): the base's
requires_grad, is_leaf, grad_fn name and _version, and the operand's gradient.  PyTorch
names the view's new grad_fn ``AsStridedBackward0``; minitorch keeps the op's own node
there (book/differences.md), so the view's node name is not compared.
"""

import pytest

import minitorch as torch

pytestmark = pytest.mark.chapter5

COPY_SLICES = "torch::autograd::CopySlices"


def weights(*shape):
    return torch.arange(float(torch.Size(shape).numel())).view(*shape)


def grad_fn_name(t):
    return t.grad_fn.name() if t.grad_fn is not None else None


def test_copy_into_a_row_gives_the_base_a_copy_slices_node():
    p = torch.tensor([1., 2., 3.], requires_grad=True)
    buf = torch.zeros(2, 3)
    row = buf[0]
    row.copy_(p * 2)
    assert (buf.requires_grad, buf.is_leaf, grad_fn_name(buf)) == (True, False, COPY_SLICES)
    assert row.requires_grad and buf._version == 1
    (buf * torch.tensor([[1., 2., 3.], [4., 5., 6.]])).sum().backward()
    assert p.grad.tolist() == [2., 4., 6.]


@pytest.mark.parametrize("write, expected", [
    (lambda row, p: row.add_(p), [1., 1., 1.]),
    (lambda row, p: row.sub_(p), [-1., -1., -1.]),
    (lambda row, p: row.mul_(p), [2., 2., 2.]),
    (lambda row, p: row.div_(p), [-2., -0.5, -2 / 9]),
    (lambda row, p: row.copy_(p), [1., 1., 1.]),
])
def test_every_in_place_op_reaches_the_operand_through_the_base(write, expected):
    p = torch.tensor([1., 2., 3.], requires_grad=True)
    buf = torch.full((2, 3), 2.)
    write(buf[1], p)
    assert grad_fn_name(buf) == COPY_SLICES
    buf.sum().backward()
    assert torch.allclose(p.grad, torch.tensor(expected))


def test_fill_with_a_tensor_into_a_column():
    p = torch.tensor(2., requires_grad=True)
    buf = torch.zeros(2, 3)
    buf[:, 2].fill_(p)
    assert grad_fn_name(buf) == COPY_SLICES
    (buf * weights(2, 3)).sum().backward()
    assert p.grad.item() == 7.0


def test_gradient_through_the_view_alone():
    p = torch.tensor([1., 2., 3.], requires_grad=True)
    buf = torch.zeros(2, 3)
    row = buf[1]
    row.add_(p)
    (row * row).sum().backward()
    assert p.grad.tolist() == [2., 4., 6.]


def test_gradient_through_the_base_and_the_view_together():
    p = torch.tensor([1., 2., 3.], requires_grad=True)
    buf = torch.ones(2, 3)
    row = buf[1]
    row.mul_(p)
    ((buf * buf).sum() + (row * 3).sum()).backward()
    assert p.grad.tolist() == [5., 7., 9.]


@pytest.mark.parametrize("write, expected", [
    (lambda buf, p: buf[:, 1].copy_(p[:2]), [1., 4., 0.]),
    (lambda buf, p: buf.view(6)[1:4].copy_(p), [1., 2., 3.]),
    (lambda buf, p: buf.t()[1].copy_(p[:2]), [1., 4., 0.]),
    (lambda buf, p: buf[1][1:].copy_(p[1:]), [0., 4., 5.]),
])
def test_columns_flat_ranges_and_views_of_views(write, expected):
    p = torch.tensor([1., 2., 3.], requires_grad=True)
    buf = torch.ones(2, 3)
    write(buf, p)
    (buf * weights(2, 3)).sum().backward()
    assert p.grad.tolist() == expected


def test_two_rows_written_from_two_tensors():
    p = torch.tensor([1., 2., 3.], requires_grad=True)
    q = torch.tensor([4., 5., 6.], requires_grad=True)
    buf = torch.zeros(2, 3)
    buf[0].copy_(p)
    buf[1].copy_(q * 2)
    assert grad_fn_name(buf) == COPY_SLICES and buf._version == 2
    (buf * weights(2, 3)).sum().backward()
    assert p.grad.tolist() == [0., 1., 2.]
    assert q.grad.tolist() == [6., 8., 10.]


def test_several_changes_through_one_view():
    p = torch.tensor([1., 2., 3.], requires_grad=True)
    buf = torch.zeros(2, 3)
    row = buf[0]
    row.zero_()
    row.add_(p)
    row.mul_(2)
    (buf * weights(2, 3)).sum().backward()
    assert p.grad.tolist() == [0., 2., 4.]


def test_relu_after_copy_keeps_one_version_bump_per_op():
    p = torch.tensor([-1., 2., -3.], requires_grad=True)
    buf = torch.zeros(2, 3)
    buf[0].copy_(p).relu_()
    assert buf._version == 2
    (buf * weights(2, 3)).sum().backward()
    assert p.grad.tolist() == [0., 1., 0.]


def test_indexed_assignment_into_a_view():
    p = torch.tensor([1., 2.], requires_grad=True)
    buf = torch.zeros(2, 3)
    row = buf[1]
    row[1:] = p
    assert grad_fn_name(buf) == COPY_SLICES
    (buf * weights(2, 3)).sum().backward()
    assert p.grad.tolist() == [4., 5.]


def test_gradient_of_a_float64_base_has_the_operand_dtype():
    p = torch.tensor([1., 2., 3.], requires_grad=True)
    buf = torch.zeros(2, 3, dtype=torch.float64)
    buf[0].copy_(p)
    buf.sum().backward()
    assert p.grad.dtype == torch.float32 and p.grad.tolist() == [1., 1., 1.]


def test_no_grad_and_detached_views_leave_the_base_alone():
    p = torch.tensor([1., 2., 3.], requires_grad=True)
    buf = torch.zeros(2, 3)
    with torch.no_grad():
        buf[0].copy_(p)
    assert not buf.requires_grad
    detached = buf[1].detach()
    detached.copy_(p)
    assert not buf.requires_grad and grad_fn_name(detached) == "torch::autograd::CopyBackwards"


def test_a_view_taken_before_another_write_is_refused():
    # PyTorch 2.13 refuses this one too (with another message).
    p = torch.tensor([1., 2., 3.], requires_grad=True)
    q = torch.tensor([4., 5., 6.], requires_grad=True)
    buf = torch.zeros(2, 3)
    first, second = buf[0], buf[1]
    first.copy_(p)
    with pytest.raises(RuntimeError, match="taken before another in-place change"):
        second.copy_(q)
    assert buf[1].tolist() == [0., 0., 0.]


def test_a_view_of_a_recorded_tensor_stays_refused():
    # PyTorch accepts this (it rewrites y's graph); minitorch refuses it: differences.md.
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="part of the autograd graph"):
        y[0:2].mul_(10)


def test_double_backward_through_the_base():
    p = torch.tensor([1., 2., 3.], requires_grad=True)
    buf = torch.zeros(2, 3)
    buf[0].copy_(p * p)
    g, = torch.autograd.grad((buf * weights(2, 3)).sum(), p, create_graph=True)
    g.sum().backward()
    assert g.tolist() == [0., 4., 12.] and p.grad.tolist() == [0., 2., 4.]


def test_a_base_that_is_not_contiguous():
    import numpy as np
    p = torch.tensor([1., 2.], requires_grad=True)
    buf = torch.from_numpy(np.zeros((2, 3), dtype=np.float32).T)   # not a view: its own base
    assert buf._base is None and not buf.is_contiguous()
    buf[1].copy_(p * 3)
    assert grad_fn_name(buf) == COPY_SLICES
    (buf * weights(3, 2)).sum().backward()
    assert p.grad.tolist() == [6., 9.]


def test_a_base_with_a_backward_step_is_refused_before_any_change():
    # minitorch only: PyTorch's from_numpy refuses negative strides.
    import numpy as np
    p = torch.tensor([1., 2.], requires_grad=True)
    buf = torch.from_numpy(np.zeros(4, dtype=np.float32)[::-1])
    with pytest.raises(RuntimeError, match="steps forward through its memory"):
        buf[1:3].copy_(p)
    assert buf.tolist() == [0., 0., 0., 0.] and not buf.requires_grad


def test_a_view_of_the_written_view_taken_after_the_write():
    p = torch.tensor([1., 2., 3.], requires_grad=True)
    q = torch.tensor([4., 5., 6.], requires_grad=True)
    buf = torch.zeros(2, 3)
    row = buf[0]
    row.copy_(p)
    row[1:].mul_(q[:2])
    (buf * weights(2, 3)).sum().backward()
    assert p.grad.tolist() == [0., 4., 10.]
    assert q.grad.tolist() == [2., 6., 0.]
