"""Hypothesis strategies shared by every test that draws shapes, values or dtypes.

Import them as ``from tests.strategies import shapes, arrays``.  Keeping them in
one module means every op is tested over the same space: broadcasting pairs,
0-d tensors, empty dims where an op allows them, and values kept away from
points where finite differences would lie.
"""

import numpy as np
from hypothesis import strategies as st


def shapes(min_dims=0, max_dims=3, min_side=1, max_side=4):
    return st.lists(st.integers(min_side, max_side), min_size=min_dims,
                    max_size=max_dims).map(tuple)


@st.composite
def broadcastable_shapes(draw, max_dims=3, min_side=1):
    """Two shapes that broadcast together: the second is the first with some
    dims dropped from the front or set to 1.  ``min_side=0`` allows empty dims."""
    shape = draw(shapes(min_dims=0, max_dims=max_dims, min_side=min_side))
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


# ----- dtypes and operands (PyTorch's type promotion, chapter 3) ----------------------
#
# An operand is described by an ``Operand``: a tensor of one of the four dtypes of the
# subset, with dims or 0-d, or a Python number.  PyTorch's promotion depends only on
# that description, so tests compute the expected dtype from it (tests/test_promotion.py).

DTYPE_NAMES = ("float32", "float64", "int64", "bool")
SCALAR_TYPES = ("int", "float", "bool")


class Operand(tuple):
    """``("tensor", dtype_name, ndim)`` or ``("scalar", type_name, None)``."""

    __slots__ = ()

    def __new__(cls, kind, dtype, ndim=None):
        return super().__new__(cls, (kind, dtype, ndim))

    kind = property(lambda self: self[0])
    dtype = property(lambda self: self[1])
    ndim = property(lambda self: self[2])

    @property
    def is_tensor(self):
        return self[0] == "tensor"

    def __repr__(self):
        if not self.is_tensor:
            return f"py{self.dtype}"
        return f"{self.dtype}[{self.ndim}-d]"


def dtype_names(names=DTYPE_NAMES):
    return st.sampled_from(names)


def operand_kinds(tensors=True, scalars=True, dtypes=DTYPE_NAMES, max_dims=2):
    """Descriptions of operands: tensors of ``dtypes`` with 0 to ``max_dims`` dims, and
    Python int/float/bool scalars."""
    options = []
    if tensors:
        options.append(st.builds(lambda d, n: Operand("tensor", d, n), st.sampled_from(dtypes),
                                 st.integers(0, max_dims)))
    if scalars:
        options.append(st.sampled_from(SCALAR_TYPES).map(lambda t: Operand("scalar", t)))
    return st.one_of(*options)


_VALUES = {
    "float": st.sampled_from([-2.5, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.25]),
    "int": st.integers(-3, 5),
    "bool": st.booleans(),
}
_NONNEGATIVE = {"float": st.sampled_from([0.25, 0.5, 1.0, 1.5, 2.0]), "int": st.integers(0, 3),
                "bool": st.booleans()}


def _python_type(dtype_name):
    return {"float32": "float", "float64": "float", "int64": "int", "bool": "bool"}.get(dtype_name,
                                                                                        dtype_name)


@st.composite
def operand_values(draw, kind, shape=None, nonnegative=False):
    """Python data for an operand: a number, or nested lists for a tensor of ``shape``
    (default: 3 elements per dim)."""
    values = (_NONNEGATIVE if nonnegative else _VALUES)[_python_type(kind.dtype)]
    if not kind.is_tensor:
        return draw(values)
    shape = (3,) * kind.ndim if shape is None else tuple(shape)
    n = int(np.prod(shape)) if shape else 1
    flat = draw(st.lists(values, min_size=n, max_size=n))
    return np.asarray(flat, dtype=object).reshape(shape).tolist() if shape else flat[0]


def build_operand(torch, kind, data, requires_grad=False, shape=None):
    """The operand itself: ``torch.tensor(data, dtype=...)`` (zeros of ``shape`` when the
    shape is empty, which nested lists cannot express) or the Python number."""
    if not kind.is_tensor:
        return data
    dtype = getattr(torch, kind.dtype)
    grad = requires_grad and kind.dtype.startswith("float")
    if shape is not None and 0 in shape:
        return torch.zeros(tuple(shape), dtype=dtype, requires_grad=grad)
    return torch.tensor(data, dtype=dtype, requires_grad=grad)


# ----- convolution and pooling geometries (chapter 11) ------------------------------------
@st.composite
def conv_geometries(draw, dims=2, max_side=6):
    """A valid convolution: ``batch``, ``groups``, channels divisible by it, and per spatial
    dim a kernel, stride, padding (symmetric) and dilation with at least one output."""
    groups = draw(st.integers(1, 2))
    g = {"batch": draw(st.integers(1, 2)), "groups": groups,
         "in_channels": groups * draw(st.integers(1, 2)),
         "out_channels": groups * draw(st.integers(1, 2))}
    kernel, stride, padding, dilation, spatial = [], [], [], [], []
    for _ in range(dims):
        k, d = draw(st.integers(1, 3)), draw(st.integers(1, 2))
        p = draw(st.integers(0, 2))
        extent = d * (k - 1) + 1
        size = draw(st.integers(max(1, extent - 2 * p), max(max_side, extent)))
        kernel.append(k), dilation.append(d), padding.append(p), spatial.append(size)
        stride.append(draw(st.integers(1, 3)))
    g.update(kernel=tuple(kernel), stride=tuple(stride), padding=tuple(padding),
             dilation=tuple(dilation), spatial=tuple(spatial))
    return g


@st.composite
def pool_geometries(draw, max_side=7, dilation=True):
    """A valid 2-D pooling: kernel, stride, padding (at most half the effective kernel),
    dilation, ceil_mode, and an input size with at least one output per dim."""
    kernel, stride, padding, dil, spatial = [], [], [], [], []
    for _ in range(2):
        k = draw(st.integers(1, 3))
        d = draw(st.integers(1, 2)) if dilation else 1
        extent = d * (k - 1) + 1
        p = draw(st.integers(0, extent // 2))
        size = draw(st.integers(max(1, extent - 2 * p), max(max_side, extent)))
        kernel.append(k), dil.append(d), padding.append(p), spatial.append(size)
        stride.append(draw(st.integers(1, 3)))
    return {"kernel": tuple(kernel), "stride": tuple(stride), "padding": tuple(padding),
            "dilation": tuple(dil), "spatial": tuple(spatial), "ceil_mode": draw(st.booleans()),
            "batch": draw(st.integers(1, 2)), "channels": draw(st.integers(1, 2))}
