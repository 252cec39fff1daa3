"""``cat`` and ``stack`` always return a contiguous tensor, as PyTorch 2.13 does, whatever
the layout of their inputs (expanded, with stride 0, or transposed); numpy lays out a result
made from one such input like it.  Strides checked against PyTorch 2.13."""

import pytest

import minitorch as torch

pytestmark = pytest.mark.chapter3


def column():
    return torch.tensor([[1.], [2.]]).expand(2, 3)      # strides (1, 0)


def row():
    return torch.tensor([5., 6., 7.]).expand(2, 3)      # strides (0, 1)


def transposed():
    return torch.arange(12.).reshape(3, 4).t()          # (4, 3), strides (1, 4)


@pytest.mark.parametrize("make, dim, stride", [
    (lambda: [row()], 0, (3, 1)),
    (lambda: [column()], 1, (3, 1)),
    (lambda: [column(), row()], 0, (3, 1)),
    (lambda: [column(), row()], 1, (6, 1)),
    (lambda: [transposed()], 0, (3, 1)),
    (lambda: [transposed()], 1, (3, 1)),
    (lambda: [transposed(), transposed()], 0, (3, 1)),
    (lambda: [transposed(), transposed()], 1, (6, 1)),
    (lambda: [torch.ones(1).expand(3)], 0, (1,)),
])
def test_cat_returns_a_contiguous_tensor(make, dim, stride):
    tensors = make()
    result = torch.cat(tensors, dim)
    assert result.is_contiguous()
    assert result.stride() == stride
    assert result.tolist() == torch.cat([t.contiguous() for t in tensors], dim).tolist()


@pytest.mark.parametrize("make, dim, stride", [
    (lambda: [transposed()], 0, (12, 3, 1)),
    (lambda: [transposed()], 1, (3, 3, 1)),
    (lambda: [transposed()], 2, (3, 1, 1)),
    (lambda: [row()], 0, (6, 3, 1)),
    (lambda: [row()], 2, (3, 1, 1)),
    (lambda: [transposed(), transposed()], 2, (6, 2, 1)),
])
def test_stack_returns_a_contiguous_tensor(make, dim, stride):
    tensors = make()
    result = torch.stack(tensors, dim)
    assert result.is_contiguous()
    assert result.stride() == stride
    assert result.tolist() == torch.stack([t.contiguous() for t in tensors], dim).tolist()

