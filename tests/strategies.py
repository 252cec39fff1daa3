"""Hypothesis strategies shared by every test that draws shapes, values or dtypes.

Import them as ``from tests.strategies import shapes, arrays``.  Keeping them in
one module means every op is tested over the same space: broadcasting pairs,
0-d tensors, empty dims where an op allows them, and values kept away from
points where finite differences would lie.
"""

import numpy as np
from hypothesis import strategies as st


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
