"""Operands for generated cases: literal source text for tensors of every dtype and
dimensionality, and for Python scalars, drawn from a seeded ``random.Random``."""

DTYPES = ("float32", "float64", "int64", "bool")
FLOAT_VALUES = (-2.5, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.25)
INT_VALUES = (-3, -2, -1, 0, 1, 2, 3, 5)
POSITIVE_FLOATS = (0.25, 0.5, 1.0, 1.5, 2.0, 3.25)
NONNEG_INTS = (0, 1, 2, 3)


def value(rng, dtype, positive=False):
    if dtype == "bool":
        return rng.choice((True, False))
    if dtype == "int64":
        return rng.choice(NONNEG_INTS if positive else INT_VALUES)
    return rng.choice(POSITIVE_FLOATS if positive else FLOAT_VALUES)


def nested(rng, shape, dtype, positive=False):
    if not shape:
        return value(rng, dtype, positive)
    return [nested(rng, shape[1:], dtype, positive) for _ in range(shape[0])]


def tensor_src(rng, dtype, shape, grad=True, positive=False):
    """``torch.tensor(<literal>, dtype=torch.<dtype>[, requires_grad=True])``."""
    data = nested(rng, shape, dtype, positive)
    rg = ", requires_grad=True" if grad and dtype.startswith("float") else ""
    if shape and 0 in shape:
        return f"torch.zeros({tuple(shape)}, dtype=torch.{dtype}{rg})"
    return f"torch.tensor({data!r}, dtype=torch.{dtype}{rg})"


# Operand kinds: a tensor of a dtype with dims ("nd") or 0-d ("0d"), or a Python scalar.
TENSOR_KINDS = [(d, nd) for d in DTYPES for nd in ("nd", "0d")]
SCALAR_KINDS = [("int", "py"), ("float", "py"), ("bool", "py")]
ALL_KINDS = TENSOR_KINDS + SCALAR_KINDS


def kind_name(kind):
    dtype, nd = kind
    return f"py{dtype}" if nd == "py" else f"{dtype}[{nd}]"


def operand_src(rng, kind, shape=(3,), positive=False):
    """Source for an operand of ``kind``; tensors are meant to be bound to a name first."""
    dtype, nd = kind
    if nd == "py":
        if dtype == "int":
            return repr(rng.choice(NONNEG_INTS[1:] if positive else (-2, -1, 1, 2, 3)))
        if dtype == "float":
            return repr(rng.choice(POSITIVE_FLOATS if positive else (-1.5, 0.5, 2.5)))
        return repr(rng.choice((True, False)))
    return tensor_src(rng, dtype, shape if nd == "nd" else (), positive=positive)
