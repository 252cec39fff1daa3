"""The everyday ops PyTorch's tutorials use beyond the core subset: trig, exponentials,
rounding, statistics, sorting, rearranging, random fills.

For each: values against numpy, gradients against finite differences (gradcheck and
gradgradcheck in float64, over hypothesis-drawn shapes), PyTorch 2.13's node names, and
the errors PyTorch raises (types and messages checked against PyTorch 2.13).
"""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck

from tests.strategies import arrays, away_from, shapes

pytestmark = [pytest.mark.tutorials, pytest.mark.chapter6]


def leaf(array):
    return torch.tensor(array, dtype=torch.float64, requires_grad=True)


# name: (minitorch function, numpy reference, domain, points to keep away from, node name)
UNARY = {
    "sin": (lambda x: x.sin(), np.sin, (-3, 3), [], "SinBackward0"),
    "cos": (lambda x: x.cos(), np.cos, (-3, 3), [], "CosBackward0"),
    "tan": (lambda x: x.tan(), np.tan, (-1.2, 1.2), [], "TanBackward0"),
    "asin": (lambda x: x.asin(), np.arcsin, (-0.9, 0.9), [], "AsinBackward0"),
    "acos": (lambda x: x.acos(), np.arccos, (-0.9, 0.9), [], "AcosBackward0"),
    "atan": (lambda x: x.atan(), np.arctan, (-3, 3), [], "AtanBackward0"),
    "sinh": (lambda x: x.sinh(), np.sinh, (-3, 3), [], "SinhBackward0"),
    "cosh": (lambda x: x.cosh(), np.cosh, (-3, 3), [], "CoshBackward0"),
    "log1p": (lambda x: x.log1p(), np.log1p, (-0.8, 3), [], "Log1PBackward0"),
    "expm1": (lambda x: x.expm1(), np.expm1, (-3, 3), [], "Expm1Backward0"),
    "log2": (lambda x: x.log2(), np.log2, (0.2, 3), [], "Log2Backward0"),
    "log10": (lambda x: x.log10(), np.log10, (0.2, 3), [], "Log10Backward0"),
    "exp2": (lambda x: x.exp2(), np.exp2, (-3, 3), [], "Exp2Backward0"),
    "rsqrt": (lambda x: x.rsqrt(), lambda a: 1 / np.sqrt(a), (0.2, 3), [], "RsqrtBackward0"),
    "square": (lambda x: x.square(), np.square, (-3, 3), [], "PowBackward0"),
    "erf": (lambda x: x.erf(), np.vectorize(math.erf), (-3, 3), [], "ErfBackward0"),
    "frac": (lambda x: x.frac(), lambda a: a - np.trunc(a), (-3, 3), [-3, -2, -1, 0, 1, 2, 3],
             "FracBackward0"),
    "std": (lambda x: x.std(), lambda a: np.std(a, ddof=1), (-3, 3), [], "StdBackward0"),
    "var": (lambda x: x.var(), lambda a: np.var(a, ddof=1), (-3, 3), [], "VarBackward0"),
    "norm": (lambda x: x.norm(), np.linalg.norm, (-3, 3), [0.0], "LinalgVectorNormBackward0"),
    "norm1": (lambda x: x.norm(p=1), lambda a: np.abs(a).sum(), (-3, 3), [0.0],
              "LinalgVectorNormBackward0"),
    "prod": (lambda x: x.prod(), np.prod, (-2, 2), [0.0], "ProdBackward0"),
    "logsumexp": (lambda x: x.logsumexp(0) if x.ndim else x.logsumexp(()),
                  lambda a: np.log(np.exp(a).sum(axis=0)) if a.ndim else a, (-3, 3), [],
                  "LogsumexpBackward0"),
    "flip": (lambda x: x.flip(0) if x.ndim else x.flip(), lambda a: np.flip(a, 0) if a.ndim
             else a, (-3, 3), [], "FlipBackward0"),
    "cumsum": (lambda x: x.cumsum(0), lambda a: np.cumsum(a, 0) if a.ndim else a, (-3, 3), [],
               "CumsumBackward0"),
    "cumprod": (lambda x: x.cumprod(0), lambda a: np.cumprod(a, 0) if a.ndim else a, (-2, 2),
                [0.0], "CumprodBackward0"),
}

NEEDS_TWO = {"std", "var"}       # a sample variance needs two elements


@pytest.mark.parametrize("name", UNARY)
@given(data=st.data())
def test_values_and_gradients(name, data):
    fn, reference, (low, high), kinks, node = UNARY[name]
    shape = data.draw(shapes(min_dims=1 if name in NEEDS_TWO else 0, min_side=2 if name in
                             NEEDS_TWO else 1, max_dims=2, max_side=3))
    values = away_from(data.draw(arrays(shape, low, high)), kinks)
    if name in NEEDS_TWO:
        values = values + 10 * np.arange(values.size).reshape(shape)    # all differ: std > 0
    x = leaf(values)
    y = fn(x)
    np.testing.assert_allclose(y.detach().numpy(), reference(values), rtol=1e-10, atol=1e-12)
    assert y.grad_fn.name() == node
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_integer_input_gives_a_float_result_of_the_default_dtype():
    assert torch.tensor([1, 2]).sin().dtype == torch.float32
    assert torch.tensor([1, 2]).log1p().dtype == torch.float32
    assert torch.tensor([1, 2]).erf().dtype == torch.float32


@given(data=st.data())
def test_atan2_and_lerp(data):
    shape = data.draw(shapes(max_dims=2, max_side=3))
    y = leaf(data.draw(arrays(shape, 0.5, 3)))
    x = leaf(data.draw(arrays(shape, 0.5, 3)))
    np.testing.assert_allclose(torch.atan2(y, x).detach().numpy(),
                               np.arctan2(y.detach().numpy(), x.detach().numpy()))
    assert gradcheck(torch.atan2, (y, x)) and gradgradcheck(torch.atan2, (y, x))
    w = leaf(data.draw(arrays(shape, 0, 1)))
    assert gradcheck(torch.lerp, (y, x, w)) and gradgradcheck(torch.lerp, (y, x, w))
    assert gradcheck(lambda a, b: torch.lerp(a, b, 0.3), (y, x))


def test_rounding_has_zero_gradient_and_keeps_integers():
    x = torch.tensor([-1.5, -0.4, 0.5, 2.5], requires_grad=True)
    assert x.floor().tolist() == [-2.0, -1.0, 0.0, 2.0]
    assert x.ceil().tolist() == [-1.0, -0.0, 1.0, 3.0]
    assert x.round().tolist() == [-2.0, -0.0, 0.0, 2.0]        # half to even
    assert x.trunc().tolist() == [-1.0, -0.0, 0.0, 2.0]
    assert torch.tensor([1.2345]).round(decimals=2).tolist() == [pytest.approx(1.23)]
    (x.floor() + x.ceil() + x.round() + x.trunc()).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0, 0.0]
    assert torch.tensor([3, -2]).floor().tolist() == [3, -2]
    assert x.floor().grad_fn.name() == "FloorBackward0"


# ----- reductions over dims -----------------------------------------------------------------
@given(data=st.data())
def test_var_std_norm_over_dims(data):
    shape = data.draw(shapes(min_dims=2, max_dims=3, min_side=2, max_side=3))
    values = data.draw(arrays(shape, -3, 3)) + 10 * np.arange(int(np.prod(shape))).reshape(shape)
    x = leaf(values)
    for correction in (0, 1):
        np.testing.assert_allclose(x.var(1, correction=correction).detach().numpy(),
                                   values.var(axis=1, ddof=correction))
        np.testing.assert_allclose(x.std(1, keepdim=True, correction=correction)
                                   .detach().numpy(),
                                   values.std(axis=1, ddof=correction, keepdims=True))
    np.testing.assert_allclose(x.norm(dim=1).detach().numpy(), np.linalg.norm(values, axis=1))
    np.testing.assert_allclose(x.norm(p=math.inf, dim=0).detach().numpy(),
                               np.abs(values).max(axis=0))
    assert gradcheck(lambda t: t.var((0, 1), keepdim=True), (x,))
    assert gradcheck(lambda t: t.std(1, unbiased=False), (x,))
    assert gradcheck(lambda t: t.norm(p=3, dim=0), (x,))
    assert gradgradcheck(lambda t: t.std(1), (x,))


def test_prod_with_zeros_has_the_product_of_the_others_as_gradient():
    x = torch.tensor([2.0, 0.0, 3.0], dtype=torch.float64, requires_grad=True)
    x.prod().backward()
    assert x.grad.tolist() == [0.0, 6.0, 0.0]
    m = torch.tensor([[2.0, 0.0], [0.0, 0.0]], dtype=torch.float64, requires_grad=True)
    m.prod(1).sum().backward()
    assert m.grad.tolist() == [[0.0, 2.0], [0.0, 0.0]]
    c = torch.tensor([2.0, 0.0, 3.0], dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda t: t.cumprod(0), (c,))
    c.cumprod(0).sum().backward()
    assert c.grad.tolist() == [1.0, 8.0, 0.0]


def test_sort_topk_amax_and_their_indices():
    x = torch.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 5.0]], requires_grad=True)
    values, indices = x.sort(1)
    assert values.tolist() == [[1.0, 2.0, 3.0], [0.0, 5.0, 5.0]]
    assert indices.tolist() == [[1, 2, 0], [0, 1, 2]]
    assert not indices.requires_grad and indices.dtype == torch.int64
    top = x.topk(2, dim=1)
    assert top.values.tolist() == [[3.0, 2.0], [5.0, 5.0]] and top.indices.tolist()[0] == [0, 2]
    (values[:, -1].sum() + top.values.sum()).backward()
    assert x.grad.tolist() == [[2.0, 0.0, 1.0], [0.0, 1.0, 2.0]]
    y = torch.tensor([1.0, 3.0, 3.0], requires_grad=True)
    y.amax().backward()
    assert y.grad.tolist() == [0.0, 0.5, 0.5]          # ties share, as in PyTorch


# ----- rearranging ----------------------------------------------------------------------------
@given(data=st.data())
def test_rearranging_ops_move_gradients_back(data):
    shape = data.draw(shapes(min_dims=2, max_dims=2, min_side=2, max_side=3))
    x = leaf(data.draw(arrays(shape, -3, 3)))
    mask = x.detach() > 0
    for fn in (lambda t: t.repeat(2, 1, 2), lambda t: t.flip(0, 1), lambda t: t.roll(1, 0),
               lambda t: t.diagonal(), lambda t: t.tril(), lambda t: t.triu(1),
               lambda t: t.trace(), lambda t: t.split(1, 0)[0] * 2 + t.split(1, 0)[-1],
               lambda t: t.chunk(2, 1)[0], lambda t: t.unbind(1)[1],
               lambda t: t.masked_select(mask), lambda t: t.movedim(0, 1),
               lambda t: t.index_select(1, torch.tensor([0, 0, 1]))):
        assert gradcheck(fn, (x,))


def test_rearranging_values_and_names():
    m = torch.arange(6.0).reshape(2, 3).requires_grad_()
    assert m.repeat(1, 2).tolist() == [[0, 1, 2, 0, 1, 2], [3, 4, 5, 3, 4, 5]]
    assert [p.tolist() for p in m.split([1, 2], dim=1)] == [[[0], [3]], [[1, 2], [4, 5]]]
    assert [p.shape[1] for p in m.chunk(2, 1)] == [2, 1]
    assert m.roll(1, 1).tolist() == [[2, 0, 1], [5, 3, 4]]
    assert m.diagonal().tolist() == [0, 4] and m.trace().item() == 4
    assert m.split(1)[0].grad_fn.name() == "SplitBackward0"
    assert m.unbind(0)[0].grad_fn.name() == "UnbindBackward0"
    assert m.index_select(1, torch.tensor([0, 2])).grad_fn.name() == "IndexSelectBackward0"
    assert m.movedim(0, 1).grad_fn.name() == "PermuteBackward0"
    assert m.tile(2).shape == (2, 6)


# ----- random fills ---------------------------------------------------------------------------
def test_random_fills_are_seeded_in_place_and_refused_on_leaves_that_need_grad():
    torch.manual_seed(0)
    a = torch.empty(1000).uniform_(-2, 3)
    torch.manual_seed(0)
    b = torch.empty(1000).uniform_(-2, 3)
    assert a.equal(b) and -2 <= a.min().item() and a.max().item() < 3
    assert a._version == 1
    n = torch.empty(5000).normal_(1.0, 2.0)
    assert abs(n.mean().item() - 1.0) < 0.2 and abs(n.std().item() - 2.0) < 0.2
    ints = torch.zeros(100, dtype=torch.long).random_(0, 5)
    assert set(ints.tolist()) <= {0, 1, 2, 3, 4}
    assert torch.empty(1000).exponential_(2.0).min().item() >= 0
    assert set(torch.empty(100).bernoulli_(0.5).tolist()) <= {0.0, 1.0}
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in"):
        torch.ones(3, requires_grad=True).uniform_()
    with pytest.raises(NotImplementedError, match='"check_uniform_bounds" not implemented for '
                                                  "'Long'"):
        torch.zeros(3, dtype=torch.long).uniform_()
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to', but got "
                                           "from=5 >= to=2"):
        torch.zeros(3).random_(5, 2)


# ----- errors, as PyTorch raises them -----------------------------------------------------
@pytest.mark.parametrize("call, error, message", [
    (lambda: torch.ones(2, 3).split([1, 1], dim=1), RuntimeError,
     r"split_with_sizes expects split_sizes to sum exactly to 3"),
    (lambda: torch.ones(2).chunk(0), RuntimeError, "chunk expects `chunks` to be greater than 0"),
    (lambda: torch.ones(2, 3).repeat(2), RuntimeError,
     "Number of dimensions of repeat dims can not be smaller than number of dimensions of "
     "tensor"),
    (lambda: torch.ones(3).topk(4), RuntimeError, "selected index k out of range"),
    (lambda: torch.ones(2, 2).diagonal(0, 1, 1), RuntimeError,
     "diagonal dimensions cannot be identical 1, 1"),
    (lambda: torch.ones(3).tril(), RuntimeError, "tril: input tensor must have at least 2 "
                                                 "dimensions"),
    (lambda: torch.tensor([1, 2]).std(), RuntimeError,
     "std\\(\\): could not infer output dtype. Input dtype must be either a floating point"),
    (lambda: torch.ones(2).roll((1, 2), (0,)), RuntimeError, "shifts and dimensions must align"),
])
def test_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()
