"""Tensor-level behaviours matched to PyTorch 2.13 on this branch that the parity tables
do not pin (chapter 3): integer powers, linspace, element views, bool indices, numpy
functions of tensors, alpha, dtypes given as Python types, numpy index arrays.
Expected values were checked against PyTorch 2.13 and are written out."""

import numpy as np
import pytest

import minitorch

pytestmark = pytest.mark.chapter3


def test_integer_powers_with_negative_exponents():
    base = minitorch.tensor([-2, -1, 0, 1, 2])
    assert (base ** minitorch.tensor([-1] * 5)).tolist() == [0, -1, 0, 1, 0]
    assert (base ** minitorch.tensor([-2] * 5)).tolist() == [0, 1, 0, 1, 0]
    assert (minitorch.tensor([True, False]) ** False).tolist() == [True, True]


def test_linspace_fills_from_both_ends():
    assert minitorch.linspace(0, 10, 5, dtype=minitorch.int64).tolist() == [0, 2, 5, 7, 10]
    assert minitorch.linspace(-1, 1, 1).tolist() == [-1.0]
    assert minitorch.linspace(0, 1, 0).tolist() == []


def test_an_element_view_shares_the_version_counter():
    x = minitorch.ones(3)
    v = x[2]
    v.fill_(4.0)
    assert x.tolist() == [1.0, 1.0, 4.0] and x._version == 1 and v._base is x
    assert np.shares_memory(v.numpy(), x.numpy())


def test_a_bool_index_adds_a_dim_and_copies():
    x = minitorch.ones(2, 3)
    assert tuple(x[True].shape) == (1, 2, 3) and tuple(x[False].shape) == (0, 2, 3)
    assert tuple(x[0, True].shape) == (1, 3) and x[True]._base is None


def test_numpy_functions_of_tensors_give_tensors():
    t = minitorch.ones(2)
    assert isinstance(np.exp(t), minitorch.Tensor)
    r = t @ np.ones(2)
    assert isinstance(r, minitorch.Tensor) and r.dtype == minitorch.float64 and r.item() == 2.0


def test_alpha_may_be_a_0d_tensor_but_not_a_bool_for_numbers():
    lr = minitorch.tensor(0.5)
    assert minitorch.ones(2).add_(minitorch.ones(2), alpha=-lr).tolist() == [0.5, 0.5]
    assert minitorch.ones(2).sub(minitorch.ones(2), alpha=lr).tolist() == [0.5, 0.5]
    with pytest.raises(TypeError, match="argument 'alpha' must be Number, not Tensor"):
        minitorch.ones(2).add(minitorch.ones(2), alpha=minitorch.tensor([2.0]))
    with pytest.raises(RuntimeError, match="Boolean alpha only supported for Boolean results"):
        minitorch.ones(2).add_(minitorch.ones(2), alpha=True)


def test_python_types_stand_for_dtypes():
    assert minitorch.ones(2).sum(dtype=float).dtype == minitorch.float64
    assert minitorch.ones(2).to(int).dtype == minitorch.int64
    assert minitorch.tensor([1, 2], dtype=float).dtype == minitorch.float64
    assert minitorch.ones(2).softmax(0, dtype=float).dtype == minitorch.float64


def test_numpy_arrays_index_like_lists():
    x = minitorch.arange(6)
    assert x[np.array([1, 2])].tolist() == [1, 2]
    assert x[np.array([True, False] * 3)].tolist() == [0, 2, 4]


def test_sub_with_alpha_refuses_bools_too():
    with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
        minitorch.sub(minitorch.ones(2), True, alpha=2)


def test_nonzero_lists_the_indices_of_nonzero_elements():
    # PyTorch 2.13: one int64 row per nonzero element; a 0-d tensor counts as 1-D.
    x = minitorch.tensor([[True, False], [False, True]])
    assert x.nonzero().tolist() == [[0, 0], [1, 1]] and x.nonzero().dtype == minitorch.int64
    assert [t.tolist() for t in x.nonzero(as_tuple=True)] == [[0, 1], [0, 1]]
    assert minitorch.tensor([0.0, 1.5, float("nan")]).nonzero().tolist() == [[1], [2]]
    assert tuple(minitorch.tensor(2.0).nonzero().shape) == (1, 0)
    assert tuple(minitorch.tensor(0.0).nonzero().shape) == (0, 0)
    assert [t.tolist() for t in minitorch.tensor(2.0).nonzero(as_tuple=True)] == [[0]]
    assert tuple(minitorch.zeros(0, 3).nonzero().shape) == (0, 2)
    y = minitorch.tensor([1.0, 0.0, 2.0], requires_grad=True)
    assert not y.nonzero().requires_grad
    assert [t.tolist() for t in minitorch.nonzero(y, as_tuple=True)] == [[0, 2]]
    with pytest.raises(TypeError):
        y.nonzero(True)
