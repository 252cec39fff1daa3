"""The jvp rule of each built-in op: a table, as in an interpreter (chapter 12).

A rule receives the op's inputs (``primals``; for an in-place op, the values
they had before it ran), one tangent per input (None where there is none), the
op's output(s) and the arguments as passed, and returns the output's tangent
(a tuple for several outputs).  Rules compute with ordinary tensor ops, so their
work is itself differentiable.

The table is built from a few kinds of rules:

* ``linear``: ops that are linear in their tensor inputs (views, reshapes,
  indexing, sums, cat...): the tangent is the same op applied to the tangents;
* ``elementwise``: ``y = f(x)``: the tangent is ``t * f'(x)``, with ``f'``
  written from ``x`` or from ``y``;
* rules written out for products, quotients, softmax and the in-place ops;
* ``through_backward``: the fallback for every other op with a backward.  It
  gets ``J t`` from the op's vjp by differentiating it once more (the vjp
  ``u -> J^T u`` is linear in ``u``; its own vjp, taken along ``t``, is ``J t``).
  It costs a recomputation of the op and two backward passes, where a written
  rule costs a few elementwise ops: ``coverage()`` lists which ops use it.
"""

import math

import numpy as np

from .._tensor import Tensor
from .. import _sampling as sampling, ops
from ..nn import functional as F
from ..nn._functions import (activation, conv, loss, normalization, packing, padding,
                              pooling)
from ..ops import (arithmetic as ar, pointwise as pw, reduction as rd, linalg as la,
                   shape as sh, indexing as ix, inplace as ip, trig, exponential as ex,
                   rounding as ro, statistics as st, sorting as so, rearranging as re,
                   random as rnd)

__all__ = ["JVP_RULES", "rule_for", "coverage"]


def _zeros(a):
    return Tensor._wrap(np.zeros(a._data.shape, dtype=a._data.dtype))


def _is_float_tensor(a):
    return isinstance(a, Tensor) and a._data.dtype.kind == "f"


def _or_zeros(t, a):
    return t if t is not None else _zeros(a)


def _fit(t, out):
    """A tangent of an input broadcast against others, in the output's shape."""
    return t if t.shape == out.shape else t.expand(out.shape)


# ----- kinds of rules ---------------------------------------------------------------------
def linear(cls):
    """The op is linear in its floating-point tensor inputs: apply it to the tangents.
    Other arguments (dims, shapes, integer indices) stay as they are."""
    def rule(primals, tangents, out, args):
        return cls.apply(*[_or_zeros(t, a) if _is_float_tensor(a) else a
                           for a, t in zip(primals, tangents)])
    return rule


def elementwise(derivative):
    """``y = f(x, ...)``: the tangent is ``t * f'(x)``; ``derivative(x, y, args)``."""
    def rule(primals, tangents, out, args):
        return tangents[0] * derivative(primals[0], out, args)
    return rule


def zero(primals, tangents, out, args):
    """Piecewise constant (floor, sign...) or random: the tangent is zero."""
    outs = out if type(out) is tuple else (out,)
    result = tuple(_zeros(o) if _is_float_tensor(o) else None for o in outs)
    return result if type(out) is tuple else result[0]


def identity(primals, tangents, out, args):
    """``x + c``: the tangent passes through."""
    return _fit(tangents[0], out)


def through_backward(cls):
    """The fallback: ``J t`` as the vjp of the op's vjp (see the module docstring)."""
    def rule(primals, tangents, out, args):
        from . import grad as autograd_grad
        from .grad_mode import enable_grad
        from .forward_ad import copy_tangents
        with enable_grad():
            xs, leaves, used = list(primals), [], []
            for i, (a, t) in enumerate(zip(primals, tangents)):
                if t is not None:
                    leaf = a.view_as(a) if a.requires_grad else \
                        copy_tangents(a, a.detach()).requires_grad_()
                    xs[i] = leaf.clone() if cls in INPLACE and i == 0 else leaf
                    leaves.append(leaf)
                    used.append(t)
            result = cls.apply(*xs)
            outs = result if type(result) is tuple else (result,)
            floats = [o for o in outs if _is_float_tensor(o) and o.requires_grad]
            if not floats:
                return zero(primals, tangents, out, args)
            us = [_zeros(o).requires_grad_() for o in floats]
            grads = autograd_grad(floats, leaves, us, create_graph=True, allow_unused=True)
            if any(g is not None and not g.requires_grad for g in grads):
                raise RuntimeError(
                    f"{cls.__name__} has no jvp rule, and its backward cannot be "
                    "differentiated (it is once_differentiable), so forward mode cannot go "
                    "through it. Write a rule for it in autograd/forward_rules.py.")
            pairs = [(g if g.shape == t.shape else g.sum_to_size(t.shape), t)
                     for g, t in zip(grads, used) if g is not None]
            if not pairs:
                return zero(primals, tangents, out, args)
            jt = autograd_grad([g for g, _ in pairs], us, [t for _, t in pairs],
                               create_graph=True, allow_unused=True)
        if not any(isinstance(x, Tensor) and x.requires_grad for x in list(primals) + used):
            jt = [None if j is None else copy_tangents(j, j.detach()) for j in jt]
        jt = iter(jt)
        tangents_out = tuple(
            (lambda j, o: _zeros(o) if j is None else j)(next(jt), o)
            if _is_float_tensor(o) and o.requires_grad else None for o in outs)
        return tangents_out if type(result) is tuple else tangents_out[0]
    return rule


# ----- rules written out ----------------------------------------------------------------
def _binary(da, db):
    """``y = f(a, b)``: ``ta * da + tb * db``.  ``tangents`` has one entry per argument,
    None where there is no tangent: an input without one at this level, or ``b`` given
    as a Python number (``primals[1]`` is then that number, and ``da`` gets it as it
    is); so either term may be missing, never both.  The result has ``out``'s shape:
    for mul and div each term already has it (a tangent times a factor of the other
    input's shape), and ``_fit`` expands a term that does not, should a rule built
    here have a factor that does not broadcast to ``out``."""
    def rule(primals, tangents, out, args):
        ### BEGIN SOLUTION 12.1
        a, b = primals[0], primals[1]
        total = None
        if tangents[0] is not None:
            total = tangents[0] * da(a, b, out)
        if len(tangents) > 1 and tangents[1] is not None:
            term = tangents[1] * db(a, b, out)
            total = term if total is None else total + term
        return _fit(total, out)
        ### END SOLUTION 12.1
    return rule


def _add_alpha(sign):
    """``a + alpha * b`` (``sign`` -1 for subtraction): the tangents add, ``b``'s scaled."""
    def rule(primals, tangents, out, args):
        scale = sign * (args[2] if len(args) > 2 else 1)
        ta, tb = tangents[0], tangents[1] if len(tangents) > 1 else None
        if tb is not None and scale != 1:
            tb = tb * scale
        if ta is None or tb is None:
            return _fit(tb if ta is None else ta, out)
        return _fit(ta + tb, out)
    return rule


def _bilinear(cls):
    """``op(a, b)`` linear in each: ``op(ta, b) + op(a, tb)``."""
    def rule(primals, tangents, out, args):
        a, b = primals[0], primals[1]
        ta, tb = tangents[0], tangents[1]
        total = None if ta is None else cls.apply(ta, b, *args[2:])
        if tb is not None:
            term = cls.apply(a, tb, *args[2:])
            total = term if total is None else total + term
        return total
    return rule


def _addmm(primals, tangents, out, args):
    bias, a, b = primals
    tbias, ta, tb = tangents
    total = None if tbias is None else _fit(tbias, out)
    for term in ((ta.mm(b) if ta is not None else None),
                 (a.mm(tb) if tb is not None else None)):
        if term is not None:
            total = term if total is None else total + term
    return total


def _convolution(primals, tangents, out, args):
    x, w, bias, geometry = primals
    tx, tw, tb = tangents[:3]
    total = None
    if tx is not None or tb is not None:
        total = conv.Convolution.apply(_or_zeros(tx, x), w,
                                       None if bias is None else _or_zeros(tb, bias), geometry)
    if tw is not None:
        term = conv.Convolution.apply(x, tw, None, geometry)
        total = term if total is None else total + term
    return total


def _batch_norm(primals, tangents, out, args):
    """``(x - mean) / sqrt(var + eps) * weight + bias``; in training the mean and variance
    are the batch's own, so they move with ``x`` too."""
    x, weight, bias, mean, var, eps, training = primals
    dims = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    as_array = (lambda v: v._data if isinstance(v, Tensor) else np.asarray(v))  # noqa: E731
    inv_std = Tensor._wrap((1 / np.sqrt(as_array(var) + eps)).reshape(shape)
                           .astype(x._data.dtype))
    xhat = (x - Tensor._wrap(as_array(mean).reshape(shape).astype(x._data.dtype))) * inv_std
    total = None
    if tangents[0] is not None:
        t = tangents[0]
        if training:
            t = t - t.mean(dims, keepdim=True) - xhat * (xhat * t).mean(dims, keepdim=True)
        total = t * inv_std
        if weight is not None:
            total = total * weight.reshape(shape)
    if weight is not None and tangents[1] is not None:
        term = xhat * tangents[1].reshape(shape)
        total = term if total is None else total + term
    if bias is not None and tangents[2] is not None:
        term = _fit(tangents[2].reshape(shape), out)
        total = term if total is None else total + term
    return total


def _softmax(primals, tangents, out, args):
    t, dim = tangents[0], args[1]
    return out * (t - (t * out).sum(dim, keepdim=True))


def _log_softmax(primals, tangents, out, args):
    t, dim = tangents[0], args[1]
    return t - (t * out.exp()).sum(dim, keepdim=True)


def _as_mask(mask):
    """``where``'s condition and ``masked_fill``'s mask reach the op as arrays."""
    if isinstance(mask, np.ndarray):
        from ..func._vmap import owner_of
        owner = owner_of(mask)
        return owner if isinstance(owner, Tensor) else Tensor._wrap(mask)
    return mask


def _where(primals, tangents, out, args):
    condition, a, b = primals
    condition = _as_mask(condition)
    ta = tangents[1] if tangents[1] is not None else (_zeros(a) if isinstance(a, Tensor) else 0.)
    tb = tangents[2] if tangents[2] is not None else (_zeros(b) if isinstance(b, Tensor) else 0.)
    return ops.where(condition, ta, tb) if isinstance(ta, Tensor) or isinstance(tb, Tensor) \
        else _zeros(out)


def _masked_fill(primals, tangents, out, args):
    a, mask, value = primals
    mask = _as_mask(mask)
    tvalue = tangents[2] if len(tangents) > 2 and tangents[2] is not None else 0.
    return _or_zeros(tangents[0], a).masked_fill(mask, tvalue)


def _max_min(pick):
    """maximum/minimum: the tangent of the chosen input; half of each on a tie (as the
    gradient splits it)."""
    def rule(primals, tangents, out, args):
        a, b = primals
        ta, tb = _or_zeros(tangents[0], a), _or_zeros(tangents[1], b)
        chose_a = pick(a, b).double()
        tie = (a == b).double()
        weight_a = chose_a + 0.5 * tie
        weight_b = 1 - chose_a - 0.5 * tie
        return _fit(ta * weight_a.to(ta.dtype) + tb * weight_b.to(tb.dtype), out)
    return rule


def _atan2(primals, tangents, out, args):
    y, x = primals
    ty, tx = _or_zeros(tangents[0], y), _or_zeros(tangents[1], x)
    return _fit((x * ty - y * tx) / (x * x + y * y), out)


def _pow(primals, tangents, out, args):
    a, b = primals
    terms = []
    if tangents[0] is not None:
        terms.append(tangents[0] * b * a ** (b - 1))     # d(a**b)/da = b * a**(b-1)
    if tangents[1] is not None:
        terms.append(tangents[1] * out * a.log())        # d(a**b)/db = a**b * log(a)
    return _fit(sum(terms[1:], terms[0]) if terms else None, out)


# in-place ops: ``primals[0]`` is the value before the change
def _div_inplace(primals, tangents, out, args):
    """``a /= b``: ``ta / b - tb * a / b**2``, rounded as PyTorch's (``b`` may be a number)."""
    a, b = primals
    ta = tangents[0]
    tb = tangents[1] if len(tangents) > 1 and isinstance(b, Tensor) else None
    if tb is None:
        return _fit(ta / b, out)
    if ta is None:
        return _fit(-tb * a / (b * b), out)
    return _fit(ta / b - tb * a / (b * b), out)


def _copy(primals, tangents, out, args):
    return _fit(_or_zeros(tangents[1], primals[1]).to(out.dtype), out).clone()


def _fill_tensor(primals, tangents, out, args):
    return _fit(_or_zeros(tangents[1], primals[1]).to(out.dtype), out).clone()


def _setitem(primals, tangents, out, args):
    a, key, value = primals
    t = _or_zeros(tangents[0], a).clone()
    tvalue = tangents[2] if isinstance(value, Tensor) and tangents[2] is not None else 0.
    t[key] = tvalue
    return t


def _relu_inplace(primals, tangents, out, args):
    return tangents[0] * (out > 0).to(out.dtype)


def _no_forward_derivative(name):
    """An op PyTorch 2.13 has no forward derivative for: refused as PyTorch refuses it."""
    def rule(primals, tangents, out, args):
        raise NotImplementedError(
            f"Trying to use forward AD with {name} that does not support it.")
    return rule


def _of_before(rule):
    """An in-place activation: the out-of-place rule, on the value before the change."""
    return lambda primals, tangents, out, args: rule(primals, tangents, out, args)


def _float(mask, like):
    return mask.to(like.dtype)


# ----- derivatives of elementwise ops: f'(x) from x (a), the output (y) and the args ------
_LN2, _LN10 = math.log(2.0), math.log(10.0)
DERIVATIVES = {
    pw.Exp: lambda a, y, args: y,
    pw.Log: lambda a, y, args: 1 / a,
    pw.Sqrt: lambda a, y, args: 0.5 / y,
    pw.Sigmoid: lambda a, y, args: y * (1 - y),
    pw.Tanh: lambda a, y, args: 1 - y * y,
    pw.Relu: lambda a, y, args: _float(a > 0, a),
    pw.Abs: lambda a, y, args: a.sign(),
    pw.Clamp: lambda a, y, args: _float(_clamp_mask(a, args[1], args[2]), a),
    trig.Sin: lambda a, y, args: a.cos(),
    trig.Cos: lambda a, y, args: -a.sin(),
    trig.Tan: lambda a, y, args: 1 + y * y,
    trig.Asin: lambda a, y, args: (1 - a * a).rsqrt(),
    trig.Acos: lambda a, y, args: -(1 - a * a).rsqrt(),
    trig.Atan: lambda a, y, args: 1 / (1 + a * a),
    trig.Sinh: lambda a, y, args: a.cosh(),
    trig.Cosh: lambda a, y, args: a.sinh(),
    ex.Erf: lambda a, y, args: (2 / math.sqrt(math.pi)) * (-(a * a)).exp(),
    activation.Erf: lambda a, y, args: (2 / math.sqrt(math.pi)) * (-(a * a)).exp(),
    ex.Exp2: lambda a, y, args: y * _LN2,
    ex.Expm1: lambda a, y, args: y + 1,
    ex.Log10: lambda a, y, args: 1 / (a * _LN10),
    ex.Log2: lambda a, y, args: 1 / (a * _LN2),
    ex.Log1p: lambda a, y, args: 1 / (1 + a),
    activation.Log1p: lambda a, y, args: 1 / (1 + a),
    ex.Rsqrt: lambda a, y, args: -0.5 * y * y * y,
    ar.Reciprocal: lambda a, y, args: -(y * y),
    ar.PowScalar: lambda a, y, args: args[1] * a ** (args[1] - 1),
    ar.RPow: lambda a, y, args: y * math.log(args[1]),
    ro.Frac: lambda a, y, args: 1.0,
    activation.Silu: lambda a, y, args: _silu_derivative(a),
    activation.LogSigmoid: lambda a, y, args: (-a).sigmoid(),
    activation.Softplus: lambda a, y, args: _softplus_derivative(a, args[1], args[2]),
    activation.Elu: lambda a, y, args: ops.where(a > 0, 1.0, y + args[1]),
    activation.LeakyRelu: lambda a, y, args: _float(a > 0, a) * (1 - args[1]) + args[1],
    activation.Hardtanh: lambda a, y, args: _float((a > args[1]) & (a < args[2]), a),
}


def _clamp_mask(a, low, high):
    mask = a == a
    if low is not None:
        mask = mask & (a >= low)
    if high is not None:
        mask = mask & (a <= high)
    return mask


def _silu_derivative(a):
    s = a.sigmoid()
    return s * (1 + a * (1 - s))


def _softplus_derivative(a, beta, threshold):
    return ops.where(a * beta > threshold, 1.0, (a * beta).sigmoid())


# ----- the table --------------------------------------------------------------------------
LINEAR_OPS = [
    sh.View, sh.UnsafeView, sh.Expand, sh.Permute, sh.Transpose, sh.T, sh.Squeeze,
    sh.SqueezeAll, sh.SqueezeDims, sh.Unsqueeze, sh.Alias, sh.Clone, sh.Cat, sh.Stack,
    sh.ToCopy, ix.Select, ix.Slice, ix.Index, ix.Gather, ix.IndexPutAccumulate,
    ar.Neg, ar.MulByNumber, ar.MulScalar, ar.DivByNumber, ar.DivScalar,
    rd.Sum, rd.SumDim, rd.Mean, rd.MeanDim, rd.SumToSize, *rd._IN_DTYPE.values(),
    re.Flip, re.Roll, re.Repeat, re.Diagonal, re.DiagonalEmbed, re.Trace, re.Tril, re.Triu,
    re.Split, re.SplitWithSizes, re.Unbind, re.IndexSelect, re.MaskedSelect,
    st.Cumsum, la.SqueezeProduct,
    padding.CircularPad, padding.ReflectionPad1D, padding.ReflectionPad2D,
    padding.ReflectionPad3D, padding.ReplicationPad1D, padding.ReplicationPad2D,
    padding.ReplicationPad3D, padding.SeparableLinearMap,
    pooling.AdaptiveAvgPool2d, pooling.AvgPool2d, pooling.AvgPoolAdjoint,
    pooling.MaxPoolGather, pooling.MaxPoolScatter,
    normalization.Embedding, normalization.EmbeddingDenseBackward,
    packing.PackPaddedSequence, packing.PadPackedSequence,
]

ZERO_OPS = [pw.Sign, ro.Floor, ro.Ceil, ro.Round, ro.Trunc, ro._Step, ar.FloorDivide,
            ip.Fill, ip.Zero, rnd.Uniform, rnd.Normal, rnd.Bernoulli, rnd.Exponential,
            rnd.RandomIntegers, sampling.Bernoulli, F._ConvolutionOfNoChannels]

INPLACE = {ip.AddInplace, ip.SubInplace, ip.MulInplace, ip.DivInplace, ip.Copy, ip.Fill,
           ip.FillTensor, ip.Zero, ip.ReluInplace, activation.EluInplace,
           activation.LeakyReluInplace, activation.HardtanhInplace, ix.SetItem,
           rnd.Uniform, rnd.Normal, rnd.Bernoulli, rnd.Exponential, rnd.RandomIntegers}


def _view(primals, tangents, out, args):
    """``a.view(shape)``: the same view of the tangent when its memory allows one (the
    tangent of a view stays a view of the base's tangent); else a reshaped copy (a
    tangent laid out otherwise than its primal, as a transform's can be)."""
    t = tangents[0]
    if t is None:
        return None
    return sh.View.apply(t, args[1]) if sh._viewable(t._data, out.shape) else \
        t.reshape(out.shape)


def _output_derivative(cls):
    """``grad * f'(y)`` (relu's, sigmoid's, tanh's backward): linear in ``grad``, with
    ``f''`` in terms of ``y`` for ``y``'s tangent; written out so that reverse mode
    over it (``jacrev(jacfwd(jacrev(f)))``) differentiates ``f'`` and ``f''`` in ``y``."""
    return _binary(lambda grad, y, out: cls.slope(y),
                   lambda grad, y, out: grad * cls.curvature(y))


def _build_table():
    table = {}
    for cls in LINEAR_OPS:
        table[cls] = linear(cls)
    for cls in ZERO_OPS:
        table[cls] = zero
    for cls, derivative in DERIVATIVES.items():
        table[cls] = elementwise(derivative)
    table.update({
        ar.Add: _add_alpha(1), ar.AddAlpha: _add_alpha(1), ar.Sub: _add_alpha(-1),
        ar.SubAlpha: _add_alpha(-1), ar.AddScalar: identity, ar.SubScalar: identity,
        ar.RSub: lambda p, t, out, args: -t[0],
        ar.Mul: _binary(lambda a, b, y: b, lambda a, b, y: a),
        ar.Div: _binary(lambda a, b, y: 1 / b, lambda a, b, y: -y / b),
        ar.Pow: _pow, trig.Atan2: _atan2,
        pw.Maximum: _max_min(lambda a, b: a > b), pw.Minimum: _max_min(lambda a, b: a < b),
        pw.Where: _where, pw.MaskedFill: _masked_fill,
        la.Mm: _bilinear(la.Mm), la.Bmm: _bilinear(la.Bmm), la.Dot: _bilinear(la.Dot),
        la.Mv: _bilinear(la.Mv), la.Addmm: _addmm, conv.Convolution: _convolution,
        rd.Softmax: _softmax, rd.LogSoftmax: _log_softmax, F.NativeBatchNorm: _batch_norm,
        ip.AddInplace: _add_alpha(1), ip.SubInplace: _add_alpha(-1),
        ip.MulInplace: _binary(lambda a, b, y: b, lambda a, b, y: a),
        ip.DivInplace: _div_inplace,
        ip.Copy: _copy,
        ip.FillTensor: _fill_tensor, ix.SetItem: _setitem,
        ip.ReluInplace: _relu_inplace,
        activation.EluInplace: elementwise(DERIVATIVES[activation.Elu]),
        activation.LeakyReluInplace: elementwise(DERIVATIVES[activation.LeakyRelu]),
        activation.HardtanhInplace: elementwise(DERIVATIVES[activation.Hardtanh]),
        re.TrilInplace: linear(re.Tril), re.TriuInplace: linear(re.Triu),
        sampling.BernoulliWithP: _no_forward_derivative("aten::bernoulli"),
    })
    for cls in (pw.ReluGrad, pw.SigmoidGrad, pw.TanhGrad):
        table[cls] = _output_derivative(cls)
    table[sh.View] = _view
    return table


JVP_RULES = _build_table()
_fallbacks = {}


def rule_for(cls):
    """The op's rule from the table, or the fallback through its backward."""
    rule = JVP_RULES.get(cls)
    if rule is None:
        rule = _fallbacks.get(cls)
        if rule is None:
            rule = _fallbacks[cls] = through_backward(cls)
    return rule


def is_builtin(cls):
    return issubclass(cls, ops.BuiltinFunction)


def inputs_before(cls, args):
    """The inputs as the rule needs them: for an in-place op, a copy of the changed
    input taken before the change (with its tangents)."""
    if cls not in INPLACE or not isinstance(args[0], Tensor):
        return args
    from .forward_ad import copy_tangents
    before = Tensor._wrap(args[0]._data.copy())
    return (copy_tangents(args[0], before),) + tuple(args[1:])


def custom_function_rule(ctx):
    """A user's Function: its own ``jvp(ctx, *tangents)``, with zeros for inputs
    without a tangent (None after ``ctx.set_materialize_grads(False)``, as in
    backward) and ``ctx.saved_tensors`` reading what save_for_forward kept."""
    def rule(primals, tangents, out, args):
        materialize = ctx.materialize_grads
        tans = [_or_zeros(t, a) if materialize and _is_float_tensor(a) else t
                for a, t in zip(primals, tangents)]
        ctx._in_jvp = True
        try:
            result = ctx._forward_cls.jvp(ctx, *tans)
        finally:
            ctx._in_jvp = False
        return _checked_jvp_result(result, out)
    return rule


def _checked_jvp_result(result, out):
    """What a user's ``jvp`` returned, refused as PyTorch refuses it: one tangent per
    output, each a tensor (or None) of its output's size."""
    outs = out if type(out) is tuple else (out,)
    tans = result if type(result) is tuple else (result,)
    if len(tans) != len(outs):
        raise RuntimeError("Function's jvp returned an invalid number of forward gradients "
                           f"(expected {len(outs)} but got {len(tans)})")
    for i, (output, tangent) in enumerate(zip(outs, tans)):
        if tangent is None:
            continue
        if not isinstance(tangent, Tensor):
            raise RuntimeError(f"expected Variable or None (got {type(tangent).__name__}) "
                               f"for grad output {i}.")
        if isinstance(output, Tensor) and tangent.shape != output.shape:
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of "
                "the original Tensor, this is not supported. Tensor is of size "
                f"{list(output.shape)} while the given forward gradient is of size "
                f"{list(tangent.shape)}.")
    return result


def coverage():
    """For the report and the chapter: every built-in op, and whether its jvp rule is
    written in the table or derived through its backward."""
    return {cls: ("table" if cls in JVP_RULES else "through backward")
            for cls in builtin_ops()}


def builtin_ops():
    """Every built-in op class: the subclasses of ``BuiltinFunction`` that minitorch
    defines (not one a test or a user defines), without shared bases."""
    seen, stack = [], [ops.BuiltinFunction]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in seen:
                seen.append(sub)
                stack.append(sub)
    return [cls for cls in seen if not _is_base(cls) and cls.__module__.startswith("minitorch.")]


def _is_base(cls):
    """A shared base of several ops (``_OfInput``, ``InPlaceOp``...), never applied itself."""
    return cls.__name__.startswith("_") or cls.__name__ in ("InPlaceOp", "ViewFunction")
