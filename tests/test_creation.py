"""Creating tensors as PyTorch does (chapter 3): the dtype inferred from data, exact
float64 values, explicit dtypes on every creation function, the default dtype."""

import warnings

import numpy as np
import pytest

import minitorch as torch

pytestmark = pytest.mark.chapter3


def name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


INFERRED = [
    ("[]", lambda: torch.tensor([]), "float32", (0,)),
    ("[[]]", lambda: torch.tensor([[]]), "float32", (1, 0)),
    ("[[], []]", lambda: torch.tensor([[], []]), "float32", (2, 0)),
    ("()", lambda: torch.tensor(()), "float32", (0,)),
    ("3", lambda: torch.tensor(3), "int64", ()),
    ("3.5", lambda: torch.tensor(3.5), "float32", ()),
    ("True", lambda: torch.tensor(True), "bool", ()),
    ("[1, 2.5]", lambda: torch.tensor([1, 2.5]), "float32", (2,)),
    ("[True, 1]", lambda: torch.tensor([True, 1]), "int64", (2,)),
    ("[True, 1.0]", lambda: torch.tensor([True, 1.0]), "float32", (2,)),
    ("np.float64 scalar", lambda: torch.tensor(np.float64(0.1)), "float64", ()),
    ("np.float32 scalar", lambda: torch.tensor(np.float32(1.5)), "float32", ()),
    ("list with np.float64", lambda: torch.tensor([np.float64(1.5), 2.0]), "float64", (2,)),
    ("list with np.float32", lambda: torch.tensor([np.float32(1.5), 2.0]), "float32", (2,)),
    ("list of float64 0-d tensors", lambda: torch.tensor([torch.tensor(1.5, dtype=torch.float64)]),
     "float64", (1,)),
    ("list of int 0-d tensors", lambda: torch.tensor([torch.tensor(1), torch.tensor(2)]), "int64",
     (2,)),
    ("ndarray float64", lambda: torch.tensor(np.array([1.0, 2.0])), "float64", (2,)),
    ("ndarray (2, 0)", lambda: torch.tensor(np.zeros((2, 0))), "float64", (2, 0)),
    ("range", lambda: torch.tensor(range(4)), "int64", (4,)),
    ("list of ranges", lambda: torch.tensor([range(2), range(2)]), "int64", (2, 2)),
    ("Tensor()", lambda: torch.Tensor(), "float32", (0,)),
    ("Tensor([1, 2])", lambda: torch.Tensor([1, 2]), "float32", (2,)),
    ("arange(tensor(3))", lambda: torch.arange(torch.tensor(3)), "int64", (3,)),
    ("ones(size=(2,))", lambda: torch.ones(size=(2,)), "float32", (2,)),
    ("zeros(size=[2, 3])", lambda: torch.zeros(size=[2, 3]), "float32", (2, 3)),
]


@pytest.mark.parametrize("make, dtype, shape",
                         [r[1:] for r in INFERRED], ids=[r[0] for r in INFERRED])
def test_inferred_dtype_and_shape(make, dtype, shape):
    t = make()
    assert name(t.dtype) == dtype and tuple(t.shape) == shape


EXACT = [
    # float64 data never passes through float32 on its way in
    ("tensor(0.1, float64).item()", lambda: torch.tensor(0.1, dtype=torch.float64).item(), 0.1),
    ("tensor([0.1, 0.2], float64)", lambda: torch.tensor([0.1, 0.2], dtype=torch.float64).tolist(),
     [0.1, 0.2]),
    ("tensor(1/3, float64)", lambda: torch.tensor(1 / 3, dtype=torch.float64).item(), 1 / 3),
    ("tensor(1e300, float64)", lambda: torch.tensor(1e300, dtype=torch.float64).item(), 1e300),
    ("tensor([1e-300], float64)", lambda: torch.tensor([1e-300], dtype=torch.float64).item(),
     1e-300),
    ("tensor([1.7, -1.7], float64)",
     lambda: torch.tensor([1.7, -1.7], dtype=torch.float64).tolist(), [1.7, -1.7]),
    ("float(tensor(0.1, float64))", lambda: float(torch.tensor(0.1, dtype=torch.float64)), 0.1),
    ("tensor(0.1, float64) * 3", lambda: (torch.tensor(0.1, dtype=torch.float64) * 3).item(),
     0.30000000000000004),
    ("tensor(0.1, float64).numpy()",
     lambda: torch.tensor([0.1], dtype=torch.float64).numpy().tolist(), [0.1]),
    ("as_tensor([0.1], float64)", lambda: torch.as_tensor([0.1], dtype=torch.float64).tolist(),
     [0.1]),
    ("tensor(np.float64(0.1))", lambda: torch.tensor(np.float64(0.1)).item(), 0.1),
    ("full 0.1 float64", lambda: torch.full((2,), 0.1, dtype=torch.float64).tolist(), [0.1, 0.1]),
    ("float64 setitem 0.1", lambda: _set(torch.zeros(2, dtype=torch.float64), 0.1).tolist(),
     [0.1, 0.0]),
    ("float64 fill_ 0.1", lambda: torch.zeros(2, dtype=torch.float64).fill_(0.1).tolist(),
     [0.1, 0.1]),
    # float32 values are the float32 nearest, seen as Python floats
    ("tensor(0.1).item()", lambda: torch.tensor(0.1).item(), 0.10000000149011612),
    ("tensor(0.1).double().item()", lambda: torch.tensor(0.1).double().item(), 0.10000000149011612),
    ("tensor(1e300) is inf", lambda: torch.tensor(1e300).item(), float("inf")),
    ("int64 beyond 2**53", lambda: torch.tensor(2 ** 53 + 1).item(), 2 ** 53 + 1),
    ("float to int truncates",
     lambda: [torch.tensor(3.7).long().item(), torch.tensor(-3.7).long().item()], [3, -3]),
    ("linspace float64", lambda: torch.linspace(0, 1, 11, dtype=torch.float64).tolist(),
     [0.0, 0.1, 0.2, 0.30000000000000004, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]),
    ("linspace float32", lambda: torch.linspace(0, 1, 7).tolist(),
     [0.0, 0.1666666716337204, 0.3333333432674408, 0.5, 0.6666666269302368, 0.8333333134651184, 1.0]),
    ("arange float64", lambda: torch.arange(0, 1, 0.1, dtype=torch.float64).tolist(),
     [0.0, 0.1, 0.2, 0.30000000000000004, 0.4, 0.5, 0.6000000000000001, 0.7000000000000001, 0.8, 0.9]),
]


def _set(t, value):
    t[0] = value
    return t


@pytest.mark.parametrize("make, expected", [r[1:] for r in EXACT], ids=[r[0] for r in EXACT])
def test_exact_values(make, expected):
    assert make() == expected


def test_copy_constructing_from_a_tensor_warns():
    with pytest.warns(UserWarning,
                      match="To copy construct from a tensor, it is recommended to use sourceTensor.detach"):
        torch.tensor(torch.ones(2))


def test_mean_of_an_empty_tensor_is_nan_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = torch.zeros(0).mean()
    assert np.isnan(result.item())


REFUSED = [
    ("arange bool", lambda: torch.arange(4, dtype=torch.bool), NotImplementedError,
     "\"arange_cpu\" not implemented for 'Bool'"),
    ("linspace bool", lambda: torch.linspace(0, 1, 3, dtype=torch.bool), NotImplementedError,
     "not implemented for 'Bool'"),
    ("randint bool", lambda: torch.randint(0, 5, (3,), dtype=torch.bool), RuntimeError,
     "out of bounds for bool"),
    ("rand int64", lambda: torch.rand(2, dtype=torch.int64), NotImplementedError,
     "not implemented for 'Long'"),
    ("randn bool", lambda: torch.randn(2, dtype=torch.bool), NotImplementedError,
     "not implemented for 'Bool'"),
]


@pytest.mark.parametrize("make, kind, pattern",
                         [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_creation_refused_for_a_dtype(make, kind, pattern):
    with pytest.raises(kind, match=pattern):
        make()


def test_default_dtype_float64_reaches_every_float_creation():
    torch.set_default_dtype(torch.float64)
    try:
        got = [torch.tensor(1.0), torch.ones(2), torch.zeros(1), torch.arange(0.0, 1, 0.5), torch.rand(1),
               torch.full((1,), 2.0), torch.linspace(0, 1, 2), torch.eye(1), torch.Tensor([1]), torch.empty(1)]
        ints = [torch.tensor([1]), torch.arange(3)]
        value = torch.tensor(0.1).item()
    finally:
        torch.set_default_dtype(torch.float32)
    assert [name(t.dtype) for t in got] == ["float64"] * len(got)
    assert [name(t.dtype) for t in ints] == ["int64", "int64"]
    assert value == 0.1


def test_random_functions_exist_with_pytorch_signatures():
    assert tuple(torch.randint(10, (3,)).shape) == (3,)
    assert tuple(torch.randint(5, size=(2, 2)).shape) == (2, 2)
    p = torch.randperm(5)
    assert name(p.dtype) == "int64" and sorted(p.tolist()) == [0, 1, 2, 3, 4]


def test_randint_takes_its_bounds_by_keyword_as_pytorch_does():
    # PyTorch 2.13 accepts each of these calls (checked there) and draws from [low, high).
    calls = [lambda: torch.randint(low=2, high=5, size=(200,)),
             lambda: torch.randint(2, high=5, size=(200,)),
             lambda: torch.randint(2, 5, size=(200,))]
    for call in calls:
        values = call().tolist()
        assert set(values) == {2, 3, 4}
    assert set(torch.randint(high=3, size=(200,)).tolist()) == {0, 1, 2}
    torch.manual_seed(7)
    by_name = torch.randint(low=2, high=50, size=(6,))
    torch.manual_seed(7)
    assert by_name.equal(torch.randint(2, 50, (6,)))


@pytest.mark.parametrize("call, error", [
    # exception types from PyTorch 2.13 for the same calls
    (lambda: torch.randint(low=2, size=(3,)), TypeError),           # no high
    (lambda: torch.randint(low=2, high=5), TypeError),              # no size
    (lambda: torch.randint(2, low=1, size=(3,)), TypeError),        # low given twice
    (lambda: torch.randint(2, 5, size=(3,), high=1), TypeError),    # high given twice
    (lambda: torch.randint(low=5, high=2, size=(3,)), RuntimeError),
    (lambda: torch.randint(low=2.0, high=5, size=(3,)), TypeError),
])
def test_randint_keyword_misuse(call, error):
    with pytest.raises(error, match="randint|random_"):
        call()


def test_manual_seed_returns_a_generator():
    assert type(torch.manual_seed(3)).__name__ == "Generator"


def test_dtype_attributes():
    assert torch.float32.is_signed and torch.int64.is_signed and not torch.bool.is_signed
    assert not torch.float64.is_complex
    assert torch.float64.itemsize == 8 and torch.bool.itemsize == 1
