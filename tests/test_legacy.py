"""``FloatTensor`` and its kin (``minitorch/_legacy.py``): dtypes, the forms of call PyTorch
2.13 accepts, type tests and refusals, as PyTorch answers them."""

import numpy as np
import pytest

import minitorch as torch

pytestmark = pytest.mark.chapter3

DTYPES = {"FloatTensor": torch.float32, "DoubleTensor": torch.float64,
          "HalfTensor": torch.float16, "LongTensor": torch.int64, "IntTensor": torch.int32,
          "ShortTensor": torch.int16, "CharTensor": torch.int8, "ByteTensor": torch.uint8,
          "BoolTensor": torch.bool}


@pytest.mark.parametrize("name", sorted(DTYPES))
def test_each_constructor_makes_its_dtype_and_is_a_type_test(name):
    cls = getattr(torch, name)
    t = cls([1, 0])
    assert t.dtype == DTYPES[name] and t.tolist() == [1, 0]
    assert isinstance(t, cls) and t.type() == "torch." + name
    others = [n for n in DTYPES if n != name]
    assert not any(isinstance(t, getattr(torch, n)) for n in others)
    assert not isinstance([1], cls)


def test_forms_of_call():
    F = torch.FloatTensor
    assert F().shape == (0,)
    assert F(2, 3).shape == (2, 3) and F(0).shape == (0,)
    assert F(torch.Size([2, 1])).shape == (2, 1)
    assert F((1, 2)).tolist() == [1.0, 2.0] and F([[1, 2], [3, 4]]).shape == (2, 2)
    assert F(np.array([1., 2.])).dtype == torch.float32
    assert torch.LongTensor([1.7]).tolist() == [1]


def test_a_tensor_argument_is_a_view_of_it():
    t = torch.ones(2)
    a = torch.FloatTensor(t)
    a[0] = 5
    assert a is not t and t.tolist() == [5.0, 1.0]
    r = torch.ones(2, requires_grad=True)
    f = torch.FloatTensor(r)
    assert f.requires_grad and not f.is_leaf        # PyTorch: AliasBackward0
    (f * 2).sum().backward()
    assert r.grad.tolist() == [2.0, 2.0]


def test_refusals():
    with pytest.raises(TypeError):
        torch.FloatTensor(torch.ones(2, dtype=torch.float64))
    with pytest.raises(TypeError, match="invalid data type 'str'"):
        torch.FloatTensor("a")
    with pytest.raises(TypeError, match=r"data must be a sequence \(got float\)"):
        torch.FloatTensor(2.5)
    with pytest.raises(TypeError):
        torch.FloatTensor([1], requires_grad=True)
    with pytest.raises(TypeError):
        torch.FloatTensor(2, "a")
    with pytest.raises(RuntimeError, match="cuda"):
        torch.FloatTensor([1], device="cuda")
