"""Every op's backward agrees with finite differences (gradcheck) in float64,
over random shapes, including broadcasting pairs and 0-d tensors."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import minitorch
from minitorch.autograd import gradcheck, gradgradcheck

from tests.strategies import shapes, broadcastable_shapes, arrays, away_from

pytestmark = pytest.mark.chapter6


def leaf(array):
    return minitorch.tensor(array, dtype=minitorch.float64, requires_grad=True)


UNARY = {
    # name: (function, kinks to keep away from, (low, high) domain)
    "neg": (lambda x: -x, [], (-3, 3)),
    "exp": (lambda x: x.exp(), [], (-3, 3)),
    "log": (lambda x: x.log(), [], (0.2, 3)),
    "sqrt": (lambda x: x.sqrt(), [], (0.2, 3)),
    "abs": (lambda x: x.abs(), [0.0], (-3, 3)),
    "relu": (lambda x: x.relu(), [0.0], (-3, 3)),
    "sigmoid": (lambda x: x.sigmoid(), [], (-3, 3)),
    "tanh": (lambda x: x.tanh(), [], (-3, 3)),
    "pow_scalar": (lambda x: x ** 3, [], (-3, 3)),
    "pow_frac": (lambda x: x ** 0.5, [], (0.2, 3)),
    "rpow": (lambda x: 2.0 ** x, [], (-3, 3)),
    "add_scalar": (lambda x: x + 2.5, [], (-3, 3)),
    "rsub_scalar": (lambda x: 1.5 - x, [], (-3, 3)),
    "mul_scalar": (lambda x: x * -1.5, [], (-3, 3)),
    "div_scalar": (lambda x: x / 4.0, [], (-3, 3)),
    "rdiv_scalar": (lambda x: 2.0 / x, [], (0.3, 3)),
    "clamp": (lambda x: x.clamp(-1.0, 1.0), [-1.0, 1.0], (-3, 3)),
    "clone": (lambda x: x.clone(), [], (-3, 3)),
    "sum": (lambda x: x.sum(), [], (-3, 3)),
    "mean": (lambda x: x.mean(), [], (-3, 3)),
    "max": (lambda x: x.max(), [], (-3, 3)),
    "min": (lambda x: x.min(), [], (-3, 3)),
    "flatten": (lambda x: x.reshape(-1), [], (-3, 3)),
    "unsqueeze": (lambda x: x.unsqueeze(0), [], (-3, 3)),
    "squeeze": (lambda x: x.squeeze(), [], (-3, 3)),
    "expand": (lambda x: x.expand(2, *x.shape), [], (-3, 3)),
    "T": (lambda x: x.T, [], (-3, 3)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@given(data=st.data())
def test_unary_gradients(name, data):
    fn, kinks, (low, high) = UNARY[name]
    shape = data.draw(shapes(max_dims=3))
    values = away_from(data.draw(arrays(shape, low, high)), kinks)
    if name in ("max", "min"):       # ties split the gradient: keep the drawn order, 0.1 apart
        ranks = values.ravel().argsort(kind="stable").argsort()
        values = (low + 0.1 * ranks).reshape(shape)
    assert gradcheck(fn, (leaf(values),))


BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a ** b,
}


@pytest.mark.parametrize("name", sorted(BINARY))
@given(data=st.data())
def test_binary_gradients_with_broadcasting(name, data):
    shape_a, shape_b = data.draw(broadcastable_shapes())
    a = data.draw(arrays(shape_a, 0.5, 2.0))
    b = data.draw(arrays(shape_b, 0.5, 2.0))
    assert gradcheck(BINARY[name], (leaf(a), leaf(b)))


@given(data=st.data())
def test_reductions_over_dims(data):
    shape = data.draw(shapes(min_dims=1, max_dims=3))
    x = leaf(data.draw(arrays(shape)) + np.arange(int(np.prod(shape))).reshape(shape) * 1e-2)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    keepdim = data.draw(st.booleans())
    assert gradcheck(lambda t: t.sum(dim, keepdim=keepdim), (x,))
    assert gradcheck(lambda t: t.mean(dim=dim, keepdim=keepdim), (x,))
    # max and min are not differentiable where two values tie: finite differences across a
    # near-tie lie, so they get values at least 0.09 apart (a shuffled ramp, nudged).
    order = data.draw(st.permutations(range(x.numel())))
    apart = leaf(np.reshape(order, shape) * 0.1 + data.draw(arrays(shape)) * 1e-3)
    assert gradcheck(lambda t: t.max(dim, keepdim)[0], (apart,))
    assert gradcheck(lambda t: t.min(dim=dim, keepdim=keepdim).values, (apart,))
    assert gradcheck(lambda t: t.softmax(dim), (x,))
    assert gradcheck(lambda t: t.log_softmax(dim), (x,))


@given(data=st.data())
def test_matmul_all_dims(data):
    n, k, m, batch = (data.draw(st.integers(1, 3)) for _ in range(4))
    cases = [((k,), (k,)), ((n, k), (k,)), ((k,), (k, m)), ((n, k), (k, m)),
             ((batch, n, k), (k, m)), ((batch, n, k), (batch, k, m)), ((n, k), (batch, k, m))]
    shape_a, shape_b = data.draw(st.sampled_from(cases))
    a, b = leaf(data.draw(arrays(shape_a))), leaf(data.draw(arrays(shape_b)))
    assert gradcheck(lambda x, y: x @ y, (a, b))
    if len(shape_a) == 2 and len(shape_b) == 2:
        assert gradcheck(lambda x, y: x.mm(y), (a, b))


@given(data=st.data())
def test_shape_ops(data):
    shape = data.draw(shapes(min_dims=2, max_dims=3, min_side=2))
    x = leaf(away_from(data.draw(arrays(shape)), [0.0]))   # masks below use t > 0
    assert gradcheck(lambda t: t.transpose(0, -1), (x,))
    assert gradcheck(lambda t: t.view(-1).reshape(*reversed(shape)), (x,))
    assert gradcheck(lambda t: t.transpose(0, 1).reshape(-1), (x,))   # non-contiguous reshape copies
    assert gradcheck(lambda t: t[0], (x,))
    assert gradcheck(lambda t: t[..., 1:], (x,))
    assert gradcheck(lambda t: t[:, None, :1], (x,))
    assert gradcheck(lambda t: t[[0, 1, 0]], (x,))                     # repeated index adds up
    assert gradcheck(lambda t: t[t > 0], (x,))
    assert gradcheck(lambda t: minitorch.cat([t, t * 2], dim=1), (x,))
    assert gradcheck(lambda t: minitorch.stack([t, t.exp()], dim=-1), (x,))
    assert gradcheck(lambda t: t.masked_fill(t > 0, 0.5), (x,))
    assert gradcheck(lambda t: t.permute(*reversed(range(len(shape)))), (x,))


def test_setitem_gradient():
    def f(a, v):
        out = a * 1
        out[0] = v
        out[1, :2] = v[:2] * 3
        return out
    a = leaf(np.arange(9.0).reshape(3, 3))
    v = leaf(np.array([1.0, 2.0, 3.0]))
    assert gradcheck(f, (a, v))


def test_inplace_gradients():
    def f(a, b):
        out = a * 1
        out.add_(b)
        out.mul_(b)
        out.sub_(a)
        out.div_(b + 3)
        out *= 2.0
        return out
    a = leaf(np.array([[0.5, 1.5], [2.0, -1.0]]))
    b = leaf(np.array([1.0, 2.0]))
    assert gradcheck(f, (a, b))


def test_copy_and_fill_gradients():
    def f(a, b):
        out = a * 1
        out.fill_(2.0)
        out = out * a
        out.copy_(b)
        return out * a
    a = leaf(np.array([[0.5, 1.5], [2.0, -1.0]]))
    b = leaf(np.array([1.0, 2.0]))
    assert gradcheck(f, (a, b))


@pytest.mark.parametrize("fn", [
    lambda x: (x * x).exp().sum(),
    lambda x: (x.sigmoid() * x.tanh()).sum(),
    lambda x: (x.log_softmax(0) * x).sum(),
    lambda x: (x @ x.t()).sum() if x.ndim == 2 else (x @ x),
    lambda x: (x / (x ** 2 + 1)).sqrt().sum(),
])
def test_second_derivatives(fn):
    x = leaf(np.array([[0.3, 1.2], [0.7, 0.4]]))
    assert gradgradcheck(fn, (x,))
