"""``out=`` on the module-level functions (``minitorch/_functions.py``): the result is written
into ``out``, which is returned; PyTorch 2.13's resizing, dtype and autograd rules."""

import warnings

import pytest

import minitorch as torch

pytestmark = pytest.mark.chapter3


def test_out_receives_the_result_and_is_returned():
    a = torch.ones(2, 2)
    o = torch.empty(2, 2)
    assert torch.matmul(a, a, out=o) is o and o.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    o = torch.empty(2)
    assert torch.sin(torch.zeros(2), out=o) is o and o.tolist() == [0.0, 0.0]
    o = torch.empty(2, 3)
    assert torch.cat([torch.ones(1, 3), torch.zeros(1, 3)], out=o) is o
    assert o.tolist() == [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]
    o = torch.empty(2, 3)
    assert torch.stack([torch.ones(3), torch.zeros(3)], out=o) is o and o.sum().item() == 3


def test_out_is_resized_with_a_warning_when_it_held_values():
    a = torch.ones(2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        empty = torch.empty(0)
        torch.add(a, 1, out=empty)                # zero elements: quietly resized
    assert empty.shape == (2, 2)
    with pytest.warns(UserWarning, match=r"An output with one or more elements was resized "
                                         r"since it had shape \[3\]"):
        small = torch.empty(3)
        torch.mul(a, a, out=small)
    assert small.shape == (2, 2) and small.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_out_dtype_rules():
    r = torch.zeros(2, dtype=torch.float64)
    torch.add(torch.tensor([1, 2]), 1, out=r)                 # int64 into float64: fine
    assert r.dtype == torch.float64 and r.tolist() == [2.0, 3.0]
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                           "output type Long"):
        torch.mul(torch.ones(2), 2, out=torch.empty(2, dtype=torch.int64))


def test_out_takes_no_part_in_autograd():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"mul\(\): functions with out=\.\.\. arguments "
                                           r"don't support automatic differentiation"):
        torch.mul(x, 2, out=torch.empty(2))
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        torch.mul(torch.ones(2), 2, out=torch.empty(2, requires_grad=True))
    with torch.no_grad():
        o = torch.empty(2)
        torch.mul(x, 2, out=o)
    assert o.tolist() == [2.0, 2.0] and not o.requires_grad


def test_out_must_be_a_tensor():
    with pytest.raises(TypeError, match="argument 'out' must be Tensor, not list"):
        torch.add(torch.ones(1), 1, out=[0.0])


def test_in_place_functions_are_the_methods():
    s = torch.tensor([0.5, 1.0])
    assert torch.sin_(s) is s
    assert s.tolist() == pytest.approx([0.479426, 0.841471], abs=1e-6)       # PyTorch
    assert torch.zero_(s) is s and s.tolist() == [0.0, 0.0]
    assert torch.fill_(s, 3.0).tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        torch.exp_(torch.ones(1, requires_grad=True))
    for name in torch._functions.INPLACE_FUNCTIONS:
        assert callable(getattr(torch, name))
