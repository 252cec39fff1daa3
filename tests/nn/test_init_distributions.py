"""nn.init: the distributions checked statistically, PyTorch 2.13's fans, gains and errors (chapter 10).

Each random fill is compared with its target distribution by a
Kolmogorov-Smirnov statistic (the largest gap between the empirical and the
exact CDF), which for n samples stays below 1.95/sqrt(n) with probability
0.999 when the distribution is right; the seed is fixed, so the tests are
deterministic.  Fans, gains and messages were printed by PyTorch 2.13.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import minitorch as torch
import minitorch.nn as nn
from minitorch.nn import init
from tests.strategies import shapes

pytestmark = pytest.mark.chapter10

_erf = np.vectorize(math.erf)


def ks_statistic(samples, cdf):
    x = np.sort(np.asarray(samples, dtype=np.float64).ravel())
    n = x.size
    exact = cdf(x)
    return max(np.max(np.arange(1, n + 1) / n - exact), np.max(exact - np.arange(n) / n))


def uniform_cdf(a, b):
    return lambda x: np.clip((x - a) / (b - a), 0, 1)


def normal_cdf(mean, std):
    return lambda x: 0.5 * (1 + _erf((x - mean) / (std * math.sqrt(2))))


def assert_distributed(tensor, cdf):
    values = tensor.detach().numpy()
    assert ks_statistic(values, cdf) < 1.95 / math.sqrt(values.size)


# (shape, fan_in, fan_out) from PyTorch 2.13.
FANS = [((3, 4), 4, 3), ((64, 3, 5, 5), 75, 1600), ((10, 20, 3), 60, 30), ((2, 3, 1, 1, 2), 6, 4)]


@pytest.mark.parametrize("shape, fan_in, fan_out", FANS)
def test_fans_match_pytorch(shape, fan_in, fan_out):
    assert init._calculate_fan_in_and_fan_out(torch.empty(*shape)) == (fan_in, fan_out)


@pytest.mark.parametrize("nonlinearity, param, gain", [
    ("linear", None, 1), ("conv2d", None, 1), ("sigmoid", None, 1), ("conv_transpose2d", None, 1),
    ("tanh", None, 1.6666666666666667), ("relu", None, 1.4142135623730951),
    ("leaky_relu", None, 1.4141428569978354), ("leaky_relu", 0.2, 1.3867504905630728),
    ("leaky_relu", math.sqrt(5), 0.5773502691896257), ("selu", None, 0.75),
])
def test_gains_match_pytorch(nonlinearity, param, gain):
    assert init.calculate_gain(nonlinearity, param) == gain


# ----- distributions -----------------------------------------------------------------------------
def test_uniform_and_normal():
    assert_distributed(init.uniform_(torch.empty(20000), -0.5, 2.0), uniform_cdf(-0.5, 2.0))
    assert_distributed(init.uniform_(torch.empty(100, 200)), uniform_cdf(0.0, 1.0))
    assert_distributed(init.normal_(torch.empty(20000, dtype=torch.float64), 1.0, 2.0), normal_cdf(1.0, 2.0))
    assert_distributed(init.normal_(torch.empty(50, 400)), normal_cdf(0.0, 1.0))


@pytest.mark.parametrize("shape, fan_in, fan_out", FANS[:2])
@pytest.mark.parametrize("gain", [1.0, 0.5])
def test_xavier(shape, fan_in, fan_out, gain):
    big = (shape[0] * 40,) + shape[1:]         # more samples, same fan_in; fan_out grows with it
    fan_out = fan_out * 40
    bound = gain * math.sqrt(6 / (fan_in + fan_out))
    assert_distributed(init.xavier_uniform_(torch.empty(*big), gain=gain), uniform_cdf(-bound, bound))
    std = gain * math.sqrt(2 / (fan_in + fan_out))
    assert_distributed(init.xavier_normal_(torch.empty(*big), gain=gain), normal_cdf(0.0, std))


@pytest.mark.parametrize("a, mode, nonlinearity", [
    (0, "fan_in", "leaky_relu"), (math.sqrt(5), "fan_in", "leaky_relu"), (0, "fan_out", "relu"),
    (0.2, "fan_out", "leaky_relu"), (0, "fan_in", "tanh"), (0, "FAN_IN", "linear"),
])
def test_kaiming(a, mode, nonlinearity):
    shape = (300, 64, 3)                        # fan_in 192, fan_out 900
    fan = 192 if mode.lower() == "fan_in" else 900
    std = init.calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3) * std
    assert_distributed(init.kaiming_uniform_(torch.empty(*shape), a, mode, nonlinearity),
                       uniform_cdf(-bound, bound))
    assert_distributed(init.kaiming_normal_(torch.empty(*shape), a, mode, nonlinearity),
                       normal_cdf(0.0, std))


def test_linear_default_init_is_uniform_in_one_over_sqrt_fan_in():
    layer = nn.Linear(400, 500)
    bound = 1 / math.sqrt(400)
    assert_distributed(layer.weight, uniform_cdf(-bound, bound))
    assert np.abs(layer.bias.detach().numpy()).max() <= bound


@pytest.mark.parametrize("shape", [(5, 5), (3, 7), (8, 2), (4, 2, 3, 3), (1, 6)])
@pytest.mark.parametrize("gain", [1, 2.5])
def test_orthogonal_rows_or_columns_are_orthonormal(shape, gain):
    w = init.orthogonal_(torch.empty(*shape, dtype=torch.float64), gain=gain)
    flat = w.numpy().reshape(shape[0], -1) / gain
    small = min(flat.shape)
    gram = flat @ flat.T if flat.shape[0] <= flat.shape[1] else flat.T @ flat
    assert np.allclose(gram, np.eye(small), atol=1e-12)
    assert w.shape == shape


def test_orthogonal_matrices_are_spread_uniformly():
    # For a uniformly random orthogonal n x n matrix, each entry times sqrt(n) is about N(0, 1).
    entries = np.concatenate([init.orthogonal_(torch.empty(40, 40, dtype=torch.float64)).numpy().ravel()
                              for _ in range(5)])
    assert ks_statistic(entries * math.sqrt(40), normal_cdf(0.0, 1.0)) < 1.95 / math.sqrt(entries.size) + 0.02


@given(shape=shapes(min_dims=2, max_dims=4, max_side=5))
def test_fans_for_any_shape(shape):
    fan_in, fan_out = init._calculate_fan_in_and_fan_out(torch.empty(*shape))
    receptive = int(np.prod(shape[2:]))
    assert (fan_in, fan_out) == (shape[1] * receptive, shape[0] * receptive)


# ----- in place, unrecorded, reproducible ----------------------------------------------------------
@pytest.mark.parametrize("fill", [
    lambda t: init.uniform_(t), lambda t: init.normal_(t), lambda t: init.constant_(t, 0.3),
    lambda t: init.zeros_(t), lambda t: init.ones_(t), lambda t: init.xavier_uniform_(t),
    lambda t: init.xavier_normal_(t), lambda t: init.kaiming_uniform_(t), lambda t: init.kaiming_normal_(t),
])
def test_fills_in_place_under_no_grad_and_return_the_tensor(fill):
    w = nn.Parameter(torch.zeros(4, 6))
    assert fill(w) is w
    assert w.is_leaf and w.grad_fn is None and w.requires_grad and w._version == 1
    assert w.dtype == torch.float32
    plain = torch.zeros(4, 6, dtype=torch.float64)
    assert fill(plain) is plain and plain.dtype == torch.float64


def test_orthogonal_copies_then_scales_in_place():
    w = nn.Parameter(torch.zeros(4, 6))
    assert init.orthogonal_(w, gain=2) is w
    assert w.is_leaf and w.grad_fn is None and w._version == 2        # copy_, then mul_(gain)


def test_generators_make_fills_reproducible():
    def draw(seed):
        g = torch.Generator().manual_seed(seed)
        return [init.uniform_(torch.empty(3), generator=g).tolist(),
                init.kaiming_normal_(torch.empty(2, 3), generator=g).tolist(),
                init.orthogonal_(torch.empty(3, 3), generator=g).tolist()]
    assert draw(1) == draw(1) and draw(1) != draw(2)
    torch.manual_seed(4)
    first = init.normal_(torch.empty(5)).tolist()
    torch.manual_seed(4)
    assert init.normal_(torch.empty(5)).tolist() == first


# ----- errors, as in PyTorch ------------------------------------------------------------------------
@pytest.mark.parametrize("call, message", [
    (lambda: init.xavier_normal_(torch.empty(3)),
     "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"),
    (lambda: init._calculate_fan_in_and_fan_out(torch.empty(())),
     "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"),
    (lambda: init.kaiming_normal_(torch.empty(3, 3), mode="x"),
     "Mode x not supported, please use one of ['fan_in', 'fan_out']"),
    (lambda: init.orthogonal_(torch.empty(3)), "Only tensors with 2 or more dimensions are supported"),
    (lambda: init.calculate_gain("leaky_relu", True), "negative_slope True not a valid number"),
    (lambda: init.calculate_gain("leaky_relu", "a"), "negative_slope a not a valid number"),
    (lambda: init.calculate_gain("softsign"), "Unsupported nonlinearity softsign"),
])
def test_errors_match_pytorch(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


def test_zero_element_tensors():
    with pytest.warns(UserWarning, match="^Initializing zero-element tensors is a no-op$"):
        init.kaiming_normal_(torch.empty(2, 0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert init.orthogonal_(torch.empty(0, 3)).shape == (0, 3)
        assert init.xavier_uniform_(torch.empty(0, 3)).shape == (0, 3)


@given(st.floats(-5, 5, allow_nan=False), shapes(max_dims=3))
def test_constant_fills_any_shape(value, shape):
    t = init.constant_(torch.empty(shape, dtype=torch.float64), value)
    assert np.all(t.numpy() == value)
