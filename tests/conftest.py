"""Shared test set-up: hypothesis profiles and strategies for shapes and tensors.

The strategies here are used across the test files, so every op is tested
over the same space of shapes, including broadcasting pairs and 0-d tensors.
"""

import os

import numpy as np
import pytest
from hypothesis import settings, strategies as st, HealthCheck

settings.register_profile("default", max_examples=25, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=300, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def shapes(min_dims=0, max_dims=3, min_side=1, max_side=4):
    return st.lists(st.integers(min_side, max_side), min_size=min_dims, max_size=max_dims).map(tuple)


@st.composite
def broadcastable_shapes(draw, max_dims=3):
    """Two shapes that broadcast together: the second is the first with some
    dims dropped from the front or set to 1."""
    shape = draw(shapes(min_dims=0, max_dims=max_dims))
    drop = draw(st.integers(0, len(shape)))
    other = [1 if draw(st.booleans()) else s for s in shape[drop:]]
    pair = (shape, tuple(other))
    return pair if draw(st.booleans()) else pair[::-1]


@st.composite
def arrays(draw, shape, low=-3.0, high=3.0, dtype=np.float64):
    n = int(np.prod(shape)) if shape else 1
    values = draw(st.lists(st.floats(low, high, allow_nan=False, width=64), min_size=n, max_size=n))
    return np.asarray(values, dtype=dtype).reshape(shape)


def away_from(values, points, margin=0.1):
    """Nudge values off points where a function is not differentiable (finite differences would lie)."""
    out = values.copy()
    for p in points:
        close = np.abs(out - p) < margin
        out[close] = p + margin * np.where(out[close] >= p, 1, -1) * 2
    return out


@pytest.fixture(autouse=True)
def _seed():
    import minitorch
    minitorch.manual_seed(0)
    yield
