"""Generated cases: every binary op, unary op and reduction of the subset over every
operand kind (float32, float64, int64, bool tensors with dims or 0-d, and Python
int/float/bool), broadcasting shape pairs with empty dims, and in-place ops."""

from ..case import add
from ._operands import (ALL_KINDS, TENSOR_KINDS, DTYPES, kind_name, operand_src, tensor_src)

BINARY_OPERATORS = {
    "add": "{a} + {b}", "sub": "{a} - {b}", "mul": "{a} * {b}", "div": "{a} / {b}",
    "pow": "{a} ** {b}", "eq": "{a} == {b}", "lt": "{a} < {b}", "ge": "{a} >= {b}",
}
# Functional and method spellings, with a tensor first.
BINARY_CALLS = {
    "torch.add": "torch.add({a}, {b})", "torch.mul": "torch.mul({a}, {b})",
    "torch.sub.alpha": "torch.sub({a}, {b}, alpha=2)", "torch.div": "torch.div({a}, {b})",
    "torch.pow": "torch.pow({a}, {b})", "torch.maximum": "torch.maximum({a}, {b})",
    "method.add": "{a}.add({b})", "method.div": "{a}.div({b})",
}


def _bind(rng, kind, name, positive=False, shape=(3,)):
    """(setup line, expression) for one operand: tensors are bound to ``name``."""
    src = operand_src(rng, kind, shape, positive=positive)
    if kind[1] == "py":
        return "", src
    return f"{name} = {src}\n", name


def binary_cases(rng):
    for op, template in BINARY_OPERATORS.items():
        for left in ALL_KINDS:
            for right in ALL_KINDS:
                if left[1] == "py" and right[1] == "py":
                    continue
                sa, ea = _bind(rng, left, "a")
                sb, eb = _bind(rng, right, "b", positive=op == "pow")
                add("promotion/binary", sa + sb + template.format(a=ea, b=eb),
                    id=f"binary:{op}:{kind_name(left)}:{kind_name(right)}")
    for op, template in BINARY_CALLS.items():
        for left in TENSOR_KINDS:
            for right in ALL_KINDS:
                sa, ea = _bind(rng, left, "a")
                sb, eb = _bind(rng, right, "b", positive=op == "torch.pow")
                add("promotion/calls", sa + sb + template.format(a=ea, b=eb),
                    id=f"call:{op}:{kind_name(left)}:{kind_name(right)}")
    # A Python number first: torch.pow(2, t) exists; torch.add(2, t) and friends are probed too.
    for fn in ("torch.pow", "torch.add", "torch.mul", "torch.maximum"):
        for right in TENSOR_KINDS:
            for scalar in ("2", "2.5", "True"):
                sb, eb = _bind(rng, right, "b", positive=True)
                add("promotion/calls", sb + f"{fn}({scalar}, {eb})",
                    id=f"call:{fn}:py{scalar}:{kind_name(right)}")


UNARY = {
    "exp": "x.exp()", "log": "x.log()", "sqrt": "x.sqrt()", "abs": "x.abs()", "relu": "x.relu()",
    "sigmoid": "x.sigmoid()", "tanh": "x.tanh()", "neg": "-x", "neg_method": "x.neg()",
    "torch.exp": "torch.exp(x)", "torch.sigmoid": "torch.sigmoid(x)", "torch.abs": "torch.abs(x)",
    "builtin_abs": "abs(x)", "sign": "x.sign()", "clamp_min0": "x.clamp(min=0)",
    "clamp_pm1": "x.clamp(min=-1, max=1)", "clamp_float": "x.clamp(min=0.5)",
    "pow2": "x ** 2", "pow_half": "x ** 0.5", "pow0": "x ** 0", "pow_neg1": "x ** -1",
    "rpow2": "2 ** x", "rpow_float": "2.5 ** x", "torch.pow_scalar_base": "torch.pow(2, x)",
    "torch.pow": "torch.pow(x, 2)", "softmax": "x.softmax(0)", "log_softmax": "x.log_softmax(-1)",
    "F.relu": "F.relu(x)", "F.softmax": "F.softmax(x, dim=-1)", "F.log_softmax": "F.log_softmax(x, -1)",
    "F.sigmoid": "torch.sigmoid(x)", "F.tanh": "torch.tanh(x)",
    "float": "x.float()", "double": "x.double()", "long": "x.long()", "bool": "x.bool()",
    "to_f64": "x.to(torch.float64)", "clone": "x.clone()", "detach": "x.detach()",
    "radd": "1 + x", "rsub": "1 - x", "rmul": "2 * x", "rdiv": "1 / x", "rdiv_float": "1.5 / x",
}
UNARY_SHAPES = [(3,), (), (0,), (2, 3)]


def unary_cases(rng):
    for op, template in UNARY.items():
        for dtype in DTYPES:
            for shape in UNARY_SHAPES:
                setup = f"x = {tensor_src(rng, dtype, shape)}\n"
                add("promotion/unary", setup + template, id=f"unary:{op}:{dtype}:{list(shape)}")


REDUCTIONS = {
    "sum": "x.sum()", "sum0": "x.sum(0)", "sum_keep": "x.sum(dim=-1, keepdim=True)",
    "sum_tuple": "x.sum((0, -1))", "sum_dtype": "x.sum(dtype=torch.float64)",
    "torch.sum": "torch.sum(x)", "torch.sum_dim": "torch.sum(x, 0)",
    "mean": "x.mean()", "mean0": "x.mean(0)", "mean_keep": "x.mean(-1, keepdim=True)",
    "mean_dtype": "x.mean(dtype=torch.float64)",
    "max": "x.max()", "max0": "x.max(0)", "max_keep": "x.max(dim=-1, keepdim=True)",
    "min": "x.min()", "min0": "x.min(dim=0)", "torch.max": "torch.max(x)",
    "torch.max_dim": "torch.max(x, 0)", "torch.max_pair": "torch.max(x, x)",
    "argmax": "x.argmax()", "argmax0": "x.argmax(0)", "argmin": "x.argmin()",
    "argmin_keep": "x.argmin(dim=-1, keepdim=True)", "any": "x.any()", "all": "x.all()",
    "numel": "x.numel()", "softmax0": "torch.softmax(x, 0)", "log_softmax0": "torch.log_softmax(x, 0)",
}
REDUCTION_SHAPES = [(), (3,), (2, 3), (0,), (2, 0), (0, 3)]


def reduction_cases(rng):
    for op, template in REDUCTIONS.items():
        for dtype in DTYPES:
            for shape in REDUCTION_SHAPES:
                setup = f"x = {tensor_src(rng, dtype, shape)}\n"
                add("promotion/reduction", setup + template, id=f"reduce:{op}:{dtype}:{list(shape)}")


def _shape(rng, ndim, sides=(0, 1, 2, 3)):
    return tuple(rng.choice(sides) for _ in range(ndim))


def broadcast_pair(rng):
    """Two shapes that broadcast (mostly), drawn with empty and size-1 dims."""
    a = _shape(rng, rng.randint(0, 3))
    b = list(a[rng.randint(0, len(a)):])
    b = [1 if rng.random() < 0.35 else s for s in b]
    if rng.random() < 0.3:
        b = [1] * rng.randint(1, 2) + b           # more dims on the second operand
    if rng.random() < 0.15 and b:                 # sometimes a pair that does not broadcast
        i = rng.randrange(len(b))
        b[i] = b[i] + 2
    pair = (a, tuple(b))
    return pair if rng.random() < 0.5 else pair[::-1]


def broadcast_cases(rng, scale):
    n = max(1, int(60 * scale))
    ops = ("{a} + {b}", "{a} * {b}", "{a} / {b}", "{a} - {b}", "torch.where({a} > 0, {a}, {b})")
    for i in range(n):
        sa, sb = broadcast_pair(rng)
        da, db = rng.choice(("float32", "float32", "float64", "int64")), rng.choice(("float32", "int64"))
        setup = f"a = {tensor_src(rng, da, sa)}\nb = {tensor_src(rng, db, sb)}\n"
        for j, op in enumerate(ops):
            add("broadcast", setup + op.format(a="a", b="b"), id=f"broadcast:{i}:{j}:{list(sa)}:{list(sb)}")
        add("broadcast", setup + "torch.broadcast_shapes(a.shape, b.shape)", id=f"broadcast:{i}:shapes")


def join_cases(rng):
    """cat, stack, matmul, where across dtype pairs."""
    for da in DTYPES:
        for db in DTYPES:
            a, b = tensor_src(rng, da, (2,), grad=False), tensor_src(rng, db, (2,), grad=False)
            add("promotion/join", f"torch.cat([{a}, {b}])", id=f"cat:{da}:{db}")
            add("promotion/join", f"torch.stack([{a}, {b}])", id=f"stack:{da}:{db}")
            m, v = tensor_src(rng, da, (2, 2), grad=False), tensor_src(rng, db, (2,), grad=False)
            add("promotion/join", f"{m} @ {v}", id=f"matmul:{da}:{db}")
            add("promotion/join", f"torch.mm({m}, {tensor_src(rng, db, (2, 2), grad=False)})",
                id=f"mm:{da}:{db}")
    for a in ALL_KINDS:
        for b in ALL_KINDS:
            sa, ea = _bind(rng, a, "a")
            sb, eb = _bind(rng, b, "b")
            add("promotion/where", sa + sb + f"torch.where(torch.tensor([True, False, True]), {ea}, {eb})",
                id=f"where:{kind_name(a)}:{kind_name(b)}")


INPLACE = {"add_": "{a}.add_({b})", "sub_": "{a}.sub_({b})", "mul_": "{a}.mul_({b})",
           "div_": "{a}.div_({b})", "iadd": "{a} += {b}\n{a}", "imul": "{a} *= {b}\n{a}",
           "itruediv": "{a} /= {b}\n{a}", "fill_": "{a}.fill_({b})", "copy_": "{a}.copy_({b})",
           "setitem": "{a}[0] = {b}\n{a}"}


def inplace_cases(rng):
    """In-place ops keep self's dtype, or refuse a result type that cannot be cast to it."""
    for op, template in INPLACE.items():
        for left in TENSOR_KINDS:
            for right in ALL_KINDS:
                if op == "copy_" and right[1] == "py":
                    continue
                ldtype, lnd = left
                if op in ("fill_", "setitem") and right[1] != "py":
                    right_src = tensor_src(rng, right[0], ())    # only 0-d tensors are values
                    sb, eb = f"b = {right_src}\n", "b"
                else:
                    sb, eb = _bind(rng, right, "b")
                shape = (3,) if lnd == "nd" else ()
                if op == "setitem" and lnd == "0d":
                    continue
                sa = f"a = {tensor_src(rng, ldtype, shape, grad=False)}\n"
                add("promotion/inplace", sa + sb + template.format(a="a", b=eb), grad=False,
                    id=f"inplace:{op}:{kind_name(left)}:{kind_name(right)}")


def generate(rng, scale):
    binary_cases(rng)
    unary_cases(rng)
    reduction_cases(rng)
    broadcast_cases(rng, scale)
    join_cases(rng)
    inplace_cases(rng)
