"""The tensors page: the accelerator branch, ``out=`` arguments and the in-place forms
spelled as functions (``torch.sin_(t)``)."""

import pytest

import minitorch as torch

pytestmark = [pytest.mark.tutorials, pytest.mark.chapter3]


def test_out_arguments_and_in_place_functions():
    t = torch.arange(1., 7.).reshape(2, 3)
    if torch.accelerator.is_available():
        t = t.to(torch.accelerator.current_accelerator())
    r1 = torch.empty(2, 2)
    assert torch.matmul(t, t.T, out=r1) is r1
    assert r1.tolist() == [[14.0, 32.0], [32.0, 77.0]]
    r2 = torch.empty(0)                         # no elements: resized without a warning
    torch.mul(t, t, out=r2)
    assert r2.shape == (2, 3) and r2.tolist() == [[1.0, 4.0, 9.0], [16.0, 25.0, 36.0]]
    r3 = torch.zeros(3, dtype=torch.float64)    # an int64 result stored as float64
    torch.add(torch.tensor([1, 2, 3]), 1, out=r3)
    assert r3.tolist() == [2.0, 3.0, 4.0] and r3.dtype == torch.float64
    s = torch.tensor([0.5, 1.0])
    assert torch.sin_(s) is s
    assert s.tolist() == pytest.approx([0.479426, 0.841471], abs=1e-6)
    torch.exp_(s)
    torch.clamp_(s, max=2.0)
    assert s.tolist() == pytest.approx([1.615146, 2.0], abs=1e-6)       # PyTorch's values
    assert torch.cat([t, t], dim=0, out=torch.empty(4, 3)).shape == (4, 3)
