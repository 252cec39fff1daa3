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


# ----- a catalogue of differentiable ops (chapters 12 and 13) -------------------------------
#
# Each entry: name -> (function of tensors, input specs).  An input spec is
# ``(shape, low, high, kinks)``: a float64 input of that shape, values drawn in
# [low, high] and kept away from the points ``kinks`` where the op is not
# differentiable.  Forward mode, reverse mode and finite differences are compared
# on every entry, and vmap against a loop.  The functions are written against the
# ``torch`` module they receive, so the same catalogue reads as PyTorch code.

def _spec(shape, low=-2.0, high=2.0, kinks=()):
    return (tuple(shape), low, high, tuple(kinks))


def _op_catalogue():
    import minitorch as torch
    F = torch.nn.functional
    X = _spec((2, 3))
    P = _spec((2, 3), 0.3, 2.0)
    U = _spec((2, 3), -0.9, 0.9)
    M = _spec((3, 4))
    V3 = _spec((3,))
    V4 = _spec((4,))
    img = _spec((1, 2, 5, 5))
    long = lambda values: torch.tensor(values)          # noqa: E731
    mask = lambda shape: torch.arange(int(np.prod(shape))).reshape(shape) % 2 == 0  # noqa
    unary = {
        "neg": lambda x: -x, "exp": torch.exp, "sigmoid": torch.sigmoid, "tanh": torch.tanh,
        "sin": torch.sin, "cos": torch.cos, "atan": torch.atan, "sinh": torch.sinh,
        "cosh": torch.cosh, "erf": torch.erf, "exp2": torch.exp2, "expm1": torch.expm1,
        "pow_scalar": lambda x: x ** 3, "rpow": lambda x: 2.0 ** x,
        "softplus": F.softplus, "elu": F.elu, "silu": F.silu, "logsigmoid": F.logsigmoid,
        "gelu": F.gelu, "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
        "add_scalar": lambda x: x + 2.5, "rsub": lambda x: 1.5 - x,
        "mul_scalar": lambda x: x * 1.5, "div_scalar": lambda x: x / 4.0,
        "clone": torch.clone, "double": lambda x: x.double(), "square": torch.square,
    }
    cases = {name: (fn, [X]) for name, fn in unary.items()}
    cases.update({
        "log": (torch.log, [P]), "sqrt": (torch.sqrt, [P]), "rsqrt": (torch.rsqrt, [P]),
        "log2": (torch.log2, [P]), "log10": (torch.log10, [P]), "log1p": (torch.log1p, [P]),
        "reciprocal": (torch.reciprocal, [P]), "tan": (torch.tan, [U]),
        "asin": (torch.asin, [U]), "acos": (torch.acos, [U]),
        "abs": (torch.abs, [_spec((2, 3), kinks=[0.0])]),
        "relu": (torch.relu, [_spec((2, 3), kinks=[0.0])]),
        "leaky_relu": (lambda x: F.leaky_relu(x, 0.1), [_spec((2, 3), kinks=[0.0])]),
        "hardtanh": (F.hardtanh, [_spec((2, 3), kinks=[-1.0, 1.0])]),
        "clamp": (lambda x: x.clamp(-0.5, 0.5), [_spec((2, 3), kinks=[-0.5, 0.5])]),
        "frac": (torch.frac, [_spec((2, 3), kinks=[-2.0, -1.0, 0.0, 1.0, 2.0])]),
        "floor": (torch.floor, [_spec((2, 3), kinks=[-2.0, -1.0, 0.0, 1.0, 2.0])]),
        "round": (torch.round, [_spec((2, 3), kinks=[-1.5, -0.5, 0.5, 1.5])]),
        "sign": (torch.sign, [_spec((2, 3), kinks=[0.0])]),
        "add": (torch.add, [X, _spec((3,))]), "sub": (torch.sub, [X, X]),
        "add_alpha": (lambda a, b: torch.add(a, b, alpha=2.0), [X, X]),
        "mul": (torch.mul, [X, _spec((2, 1))]), "div": (torch.div, [X, P]),
        "pow": (torch.pow, [P, X]), "atan2": (torch.atan2, [X, P]),
        "maximum": (torch.maximum, [X, _spec((2, 3), 2.5, 3.0)]),
        "minimum": (torch.minimum, [X, _spec((2, 3), 2.5, 3.0)]),
        "where": (lambda a, b: torch.where(mask((2, 3)), a, b), [X, X]),
        "masked_fill": (lambda a: a.masked_fill(mask((2, 3)), 0.5), [X]),
        "lerp": (lambda a, b: torch.lerp(a, b, 0.3), [X, X]),
        "sum": (torch.sum, [X]), "sum_dim": (lambda x: x.sum(1, keepdim=True), [X]),
        "mean": (torch.mean, [X]), "mean_dims": (lambda x: x.mean((0, 1)), [X]),
        "max": (torch.max, [X]), "max_dim": (lambda x: x.max(1)[0], [X]),
        "min_dim": (lambda x: x.min(0).values, [X]), "amax": (lambda x: x.amax(1), [X]),
        "logsumexp": (lambda x: x.logsumexp(1), [X]), "prod": (torch.prod, [P]),
        "prod_dim": (lambda x: x.prod(1), [P]), "var": (lambda x: x.var(1), [X]),
        "std": (torch.std, [X]), "norm": (lambda x: x.norm(), [X]),
        "cumsum": (lambda x: x.cumsum(1), [X]), "cumprod": (lambda x: x.cumprod(1), [P]),
        "softmax": (lambda x: x.softmax(1), [X]),
        "log_softmax": (lambda x: x.log_softmax(0), [X]),
        "mm": (torch.mm, [X, M]), "mv": (torch.mv, [M, V4]), "dot": (torch.dot, [V3, V3]),
        "bmm": (torch.bmm, [_spec((2, 2, 3)), _spec((2, 3, 2))]),
        "matmul_3d_2d": (torch.matmul, [_spec((2, 2, 3)), M]),
        "matmul_1d_2d": (torch.matmul, [V3, M]),
        "addmm": (torch.addmm, [V4, X, M]),
        "linear": (F.linear, [X, _spec((4, 3)), V4]),
        "view": (lambda x: x.view(3, 2), [X]), "reshape": (lambda x: x.reshape(-1), [X]),
        "flatten": (torch.flatten, [_spec((2, 2, 2))]),
        "transpose": (lambda x: x.transpose(0, 1), [X]), "t": (torch.t, [X]),
        "permute": (lambda x: x.permute(2, 0, 1), [_spec((2, 3, 2))]),
        "unsqueeze": (lambda x: x.unsqueeze(-1), [X]),
        "squeeze": (lambda x: x.squeeze(1), [_spec((2, 1, 3))]),
        "squeeze_all": (torch.squeeze, [_spec((2, 1, 3))]),
        "expand": (lambda x: x.expand(4, 2, 3), [_spec((2, 1))]),
        "getitem_slice": (lambda x: x[:, 1:], [X]),
        "getitem_int": (lambda x: x[1], [X]),
        "getitem_tensor": (lambda x: x[long([1, 0, 1])], [X]),
        "select": (lambda x: x.select(1, 2), [X]),
        "narrow": (lambda x: x.narrow(1, 1, 2), [X]),
        "cat": (lambda a, b: torch.cat([a, b], 1), [X, _spec((2, 2))]),
        "stack": (lambda a, b: torch.stack([a, b], 0), [X, X]),
        "split": (lambda x: x.split(2, 1)[1], [X]),
        "chunk": (lambda x: x.chunk(3, 1)[0], [X]),
        "unbind": (lambda x: x.unbind(0)[1], [X]),
        "flip": (lambda x: x.flip(1), [X]), "roll": (lambda x: x.roll(1, 1), [X]),
        "repeat": (lambda x: x.repeat(2, 1), [X]),
        "diagonal": (torch.diagonal, [_spec((3, 3))]),
        "tril": (torch.tril, [_spec((3, 3))]), "triu": (torch.triu, [_spec((3, 3))]),
        "trace": (torch.trace, [_spec((3, 3))]),
        "gather": (lambda x: x.gather(1, long([[0, 2], [1, 1]])), [X]),
        "index_select": (lambda x: x.index_select(1, long([2, 0])), [X]),
        "masked_select": (lambda x: x.masked_select(mask((2, 3))), [X]),
        "sort": (lambda x: x.sort(1)[0], [X]), "topk": (lambda x: x.topk(2)[0], [X]),
        "mul_": (lambda a, b: a.clone().mul_(b), [X, X]),
        "add_": (lambda a, b: a.clone().add_(b, alpha=0.5), [X, X]),
        "sub_": (lambda a, b: a.clone().sub_(b), [X, X]),
        "div_": (lambda a, b: a.clone().div_(b), [X, P]),
        "copy_": (lambda a, b: a.clone().copy_(b) * a, [X, X]),
        "setitem": (lambda a, b: _setitem(a.clone(), b), [X, _spec((3,))]),
        "relu_": (lambda a: a.clone().relu_(), [_spec((2, 3), kinks=[0.0])]),
        "mse_loss": (F.mse_loss, [X, X]),
        "cross_entropy": (lambda x: F.cross_entropy(x, long([2, 0])), [X]),
        "nll_loss": (lambda x: F.nll_loss(x, long([1, 2])), [X]),
        "bce": (lambda x, t: F.binary_cross_entropy(x.sigmoid(), t.sigmoid()), [X, X]),
        "bce_logits": (F.binary_cross_entropy_with_logits, [X, _spec((2, 3), 0.1, 0.9)]),
        "huber": (F.huber_loss, [X, _spec((2, 3), 5.0, 6.0)]),
        "layer_norm": (lambda x, w, b: F.layer_norm(x, (3,), w, b), [X, V3, V3]),
        "group_norm": (lambda x: F.group_norm(x, 1), [_spec((2, 2, 3))]),
        "batch_norm": (lambda x: F.batch_norm(x, None, None, training=True), [M]),
        "conv2d": (lambda x, w, b: F.conv2d(x, w, b, padding=1),
                   [img, _spec((3, 2, 3, 3)), V3]),
        "max_pool2d": (lambda x: F.max_pool2d(x, 2), [img]),
        "avg_pool2d": (lambda x: F.avg_pool2d(x, 2), [img]),
        "adaptive_avg_pool2d": (lambda x: F.adaptive_avg_pool2d(x, 2), [img]),
        "pad_constant": (lambda x: F.pad(x, (1, 2)), [X]),
        "pad_reflect": (lambda x: F.pad(x, (1, 1), mode="reflect"), [_spec((1, 2, 4))]),
        "embedding": (lambda w: F.embedding(long([[0, 2], [1, 1]]), w), [M]),
    })
    return cases


def _setitem(a, b):
    a[1] = b
    return a


_CATALOGUE = []


def op_catalogue():
    """The catalogue, built once (it needs minitorch)."""
    if not _CATALOGUE:
        _CATALOGUE.append(_op_catalogue())
    return _CATALOGUE[0]


# ops that are not differentiable where two values tie (max, sort...) or all are equal
# (std, norms): their inputs get a spread of distinct offsets
NEEDS_DISTINCT = {"max", "max_dim", "min_dim", "amax", "sort", "topk", "max_pool2d", "std",
                  "var", "norm", "layer_norm", "group_norm", "batch_norm", "huber"}


@st.composite
def op_inputs(draw, specs, distinct=False):
    """Float64 arrays for the input specs of a catalogue entry, away from its kinks."""
    out = []
    for shape, low, high, kinks in specs:
        values = draw(arrays(shape, low, high))
        if distinct:
            n = int(np.prod(shape)) if shape else 1
            values = values + np.random.default_rng(n).permutation(n).reshape(shape) * 0.07
        out.append(away_from(values, kinks, margin=0.05) if kinks else values)
    return out
