"""nn.init: in-place fills, bounds, gains, errors, reproducibility."""

import math

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn as nn
from minitorch.nn import init

pytestmark = pytest.mark.chapter10


def test_uniform_in_place_with_bounds_and_version_bump():
    p = nn.Parameter(torch.zeros(1000))
    assert init.uniform_(p, -0.1, 0.2) is p
    values = p.detach().numpy()
    assert values.min() >= -0.1 and values.max() < 0.2 and values.std() > 0.05
    assert p.requires_grad and p._version == 1 and p.dtype == torch.float32


def test_zeros_ones_constant_normal():
    t = torch.empty(3, 2)
    assert init.zeros_(t).tolist() == [[0.0, 0.0]] * 3
    assert init.ones_(t).tolist() == [[1.0, 1.0]] * 3
    assert init.constant_(t, 2.5).tolist() == [[2.5, 2.5]] * 3
    big = init.normal_(torch.empty(20000), 1.0, 2.0).numpy()
    assert abs(big.mean() - 1.0) < 0.1 and abs(big.std() - 2.0) < 0.1


def test_kaiming_uniform_bound_is_gain_times_sqrt_3_over_fan_in():
    w = init.kaiming_uniform_(torch.empty(50, 400), a=math.sqrt(5))
    bound = 1 / math.sqrt(400)           # Linear's default works out to 1/sqrt(in_features)
    values = w.numpy()
    assert values.max() <= bound and values.min() >= -bound and values.max() > 0.95 * bound
    relu = init.kaiming_uniform_(torch.empty(50, 400), nonlinearity="relu").numpy()
    assert relu.max() <= math.sqrt(6 / 400) and relu.max() > 0.95 * math.sqrt(6 / 400)
    fan_out = init.kaiming_uniform_(torch.empty(400, 50), mode="fan_out", nonlinearity="relu").numpy()
    assert fan_out.max() <= math.sqrt(6 / 400) and fan_out.max() > 0.95 * math.sqrt(6 / 400)


def test_calculate_gain_values():
    assert init.calculate_gain("linear") == 1 and init.calculate_gain("sigmoid") == 1
    assert init.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert init.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert init.calculate_gain("leaky_relu") == pytest.approx(1.4141428569978354)
    assert init.calculate_gain("leaky_relu", math.sqrt(5)) == pytest.approx(math.sqrt(1 / 3))
    with pytest.raises(ValueError, match="^Unsupported nonlinearity foo$"):
        init.calculate_gain("foo")


def test_init_errors():
    with pytest.raises(ValueError, match="^Fan in and fan out can not be computed for tensor with fewer than 2 dimensions$"):
        init.kaiming_uniform_(torch.zeros(3))
    with pytest.raises(ValueError, match=r"^Mode x not supported, please use one of \['fan_in', 'fan_out'\]$"):
        init.kaiming_uniform_(torch.zeros(3, 3), mode="x")
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_uniform_(torch.zeros(0, 3))


def test_seeded_init_is_reproducible():
    torch.manual_seed(7)
    a = nn.Linear(4, 3)
    torch.manual_seed(7)
    b = nn.Linear(4, 3)
    assert a.weight.equal(b.weight) and a.bias.equal(b.bias)
    c = nn.Linear(4, 3)
    assert not c.weight.equal(a.weight)


def test_xavier_uniform_bound():
    w = init.xavier_uniform_(torch.empty(30, 70)).numpy()
    bound = math.sqrt(6 / 100)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
