"""The batching rule of each built-in op: a table (chapter 13).

A rule receives the op's arguments, some of them ``BatchedTensor``s of
``level``, and returns the op's result as BatchedTensors, computed by calling
ops on the batched values (batch dim first).  The kinds of rules:

* ``elementwise``: give each batched value as many dims as the widest argument
  (``x`` of shape ``(B, 3)`` against ``y`` of shape ``(4, 3)`` becomes
  ``(B, 1, 3)``), then call the same op: broadcasting does the rest.
* ``with_dims``: an op on dims (reductions, softmax, transpose, select...):
  each dim argument ``d`` becomes ``d + 1``, past the batch dim.
* rules written out: views with a shape (the batch size is prepended), matrix
  products (``matmul`` broadcasts over the batch dim), ``cat``/``stack``,
  indexing (the key gets a leading ``:``), and *decompositions*, which restate an
  op in other ops on the BatchedTensors themselves (``addmm`` as ``bias + a @ b``).
* random ops follow vmap's ``randomness``.

Every other op uses ``loop_fallback``: once per example, then ``stack``, with
a warning naming the op.  ``coverage()`` lists which ops have rules.
"""

import warnings

import numpy as np

from .._tensor import Tensor
from .. import ops
from ..nn import functional as F
from ..nn._functions import activation, conv, normalization, padding, pooling
from ..ops import (arithmetic as ar, pointwise as pw, reduction as rd, linalg as la,
                   shape as sh, indexing as ix, inplace as ip, trig, exponential as ex,
                   rounding as ro, statistics as st, sorting as so, rearranging as re,
                   random as rnd)
from ._vmap import (wrap, unwrap, batch_size, level_info, owner_of, drawing_per_example,
                    live_levels)

__all__ = ["BATCH_RULES", "apply_rule", "coverage"]


def _wrap_all(result, level):
    if type(result) is tuple:
        return tuple(wrap(r, level) if isinstance(r, Tensor) else r for r in result)
    if type(result) is list:
        return [wrap(r, level) if isinstance(r, Tensor) else r for r in result]
    return wrap(result, level) if isinstance(result, Tensor) else result


def _value_or_self(a, level):
    v = unwrap(a, level)
    return a if v is None else v


def _ndim(a):
    a = owner_of(a)
    return a.ndim if isinstance(a, (Tensor, np.ndarray)) else 0


def aligned(args, level):
    """The arguments for an elementwise op: each batched value with dims added after its
    batch dim up to the widest argument's rank; others unchanged.  Also whether any
    argument was batched."""
    rank = max(_ndim(a) for a in args)
    out, any_batched = [], False
    for a in args:
        v = unwrap(a, level)
        if v is None:
            out.append(a)
            continue
        any_batched = True
        for _ in range(rank - _ndim(a)):
            v = v.unsqueeze(1)
        out.append(v if not isinstance(a, np.ndarray) else v._data)   # a mask stays an array
    
    return out, any_batched


# ----- kinds of rules -----------------------------------------------------------------------
def elementwise(cls):
    """Same op on the aligned values; broadcasting pairs the batch dims up."""
    def rule(args, level):
        return _wrap_all(cls.apply(*aligned(args, level)[0]), level)
    return rule


def elementwise_inplace(cls):
    """``a.op_(b)``: ``a`` itself must be batched when anything is."""
    def rule(args, level):
        if unwrap(args[0], level) is None:
            raise RuntimeError(
                "vmap: inplace arithmetic(self, *extra_args) is not possible because there "
                "exists a Tensor `other` in extra_args that has more elements than `self`. "
                "This happened due to `other` being vmapped over but `self` not being vmapped "
                "over in a vmap. Please try to use out-of-place operators instead of inplace "
                "arithmetic.")
        values, _ = aligned(args, level)
        cls.apply(*values)
        return args[0]
    return rule


def _shift_dim(d, ndim):
    if d is None:
        return None
    if d < 0:
        d += max(ndim, 1)
    return d + 1


def _shift(dims, ndim):
    if dims is None:
        return tuple(range(1, ndim + 1))
    if isinstance(dims, (tuple, list)):
        return type(dims)(_shift_dim(d, ndim) for d in dims)
    return _shift_dim(dims, ndim)


def with_dims(cls, *positions):
    """An op whose arguments at ``positions`` are dims of its first input."""
    def rule(args, level):
        value = unwrap(args[0], level)
        if value is None or any(unwrap(a, level) is not None for a in args[1:]):
            return loop_fallback(cls)(args, level)
        ### BEGIN SOLUTION 13.1
        n = args[0].ndim
        new = [value] + list(args[1:])
        for p in positions:
            if p < len(new):
                new[p] = _shift(new[p], n)
        return _wrap_all(cls.apply(*new), level)
        ### END SOLUTION 13.1
    return rule


def full_reduction(reduce):
    """An op over every element (``x.sum()``): the same over every dim but the batch's."""
    def rule(args, level):
        value = unwrap(args[0], level)
        dims = tuple(range(1, value.ndim))
        return wrap(reduce(value, dims) if dims else reduce(value.unsqueeze(1), (1,)), level)
    return rule


def decomposition(restated):
    """The op restated in other ops, called on the BatchedTensors themselves."""
    def rule(args, level):
        return restated(*args)
    return rule


def _with_shape(cls):
    """``view``/``reshape``-like ops: the batch size goes in front of the new shape."""
    def rule(args, level):
        value, shape = unwrap(args[0], level), tuple(args[1])
        return wrap(value.reshape(batch_size(level), *shape), level)
    return rule


def _expand(args, level):
    value, shape = unwrap(args[0], level), tuple(args[1])
    for _ in range(len(shape) - args[0].ndim):
        value = value.unsqueeze(1)
    sizes = [value.shape[i + 1] if s == -1 else s for i, s in enumerate(shape)]
    return wrap(value.expand(value.shape[0], *sizes), level)


def _permute(args, level):
    value = unwrap(args[0], level)
    n = args[0].ndim
    return wrap(value.permute(0, *[_shift_dim(d, n) for d in args[1]]), level)


def _t(args, level):
    value = unwrap(args[0], level)
    return wrap(value.transpose(1, 2) if args[0].ndim == 2 else value.view_as(value), level)


def _unsqueeze(args, level):
    value = unwrap(args[0], level)
    d = args[1]
    if d < 0:
        d += args[0].ndim + 1
    return wrap(value.unsqueeze(d + 1), level)


def _matmul_like(args, level):
    """Mm, Bmm, Mv: ``matmul`` on the batched values broadcasts over the batch dim."""
    a, b = args[0], args[1]
    va, vb = _value_or_self(a, level), _value_or_self(b, level)
    if b.ndim == 1 and unwrap(b, level) is not None:      # (.., n, k) @ (B, k)
        return wrap(ops.matmul(va, vb.unsqueeze(-1)).squeeze(-1), level)
    return wrap(ops.matmul(va, vb), level)


def _tensors_join(kind):
    """``cat``/``stack``: unbatched tensors are expanded to the batch, then dim + 1."""
    def rule(args, level):
        dim, tensors = args[0], args[1:]
        size = batch_size(level)
        n = tensors[0].ndim + (1 if kind is sh.Stack else 0)
        values = [unwrap(t, level) if unwrap(t, level) is not None else
                  t.unsqueeze(0).expand(size, *t.shape) for t in tensors]
        return wrap(kind.apply(_shift_dim(dim, n), *values), level)
    return rule


def _index(args, level):
    """``x[key]`` with basic indices and at most one unbatched index tensor."""
    a, key = args
    value = unwrap(a, level)
    parts = key if type(key) is tuple else (key,)
    tensors = [k for k in parts if isinstance(k, Tensor)]
    if value is None or len(tensors) > 1 or any(unwrap(k, level) is not None
                                                 for k in tensors):
        return loop_fallback(ix.Index)(args, level)
    return wrap(ix.Index.apply(value, (slice(None),) + parts), level)


def _setitem(args, level):
    a, key, v = args
    value = unwrap(a, level)
    if value is None:
        return elementwise_inplace(ix.SetItem)(args, level)
    parts = key if type(key) is tuple else (key,)
    if any(isinstance(k, Tensor) for k in parts):
        return loop_fallback(ix.SetItem)(args, level)
    target_rank = a[key].ndim
    if isinstance(v, Tensor) and unwrap(v, level) is not None:
        v_value = unwrap(v, level)
        for _ in range(target_rank - v.ndim):
            v_value = v_value.unsqueeze(1)
        v = v_value
    ix.SetItem.apply(value, (slice(None),) + parts, v)
    return a


def folded_into_first_dim(cls):
    """Ops on ``(N, C, ...)`` inputs (convolution, pooling, padding, group norm): the
    batch dim joins N (``(B, N, ...)`` becomes ``(B*N, ...)``), and is split off after."""
    def rule(args, level):
        value = unwrap(args[0], level)
        if value is None or any(unwrap(a, level) is not None for a in args[1:]):
            return loop_fallback(cls)(args, level)
        size, n = value.shape[0], value.shape[1]
        result = cls.apply(value.reshape(size * n, *value.shape[2:]), *args[1:])

        def split(r):
            return wrap(r.reshape(size, n, *r.shape[1:]), level) \
                if isinstance(r, Tensor) else r
        return tuple(split(r) for r in result) if type(result) is tuple else split(result)
    return rule


def on_trailing_dims(cls):
    """Ops that act on the last dims only (layer norm): the batch dim is one more leading
    dim, so the op runs on the batched value as it is."""
    def rule(args, level):
        if any(unwrap(a, level) is not None for a in args[1:]):
            return loop_fallback(cls)(args, level)
        return _wrap_all(cls.apply(unwrap(args[0], level), *args[1:]), level)
    return rule


def _embedding(args, level):
    weight, indices = args[0], args[1]
    if unwrap(weight, level) is not None:
        return loop_fallback(normalization.Embedding)(args, level)
    return _wrap_all(normalization.Embedding.apply(weight, unwrap(indices, level), *args[2:]),
                     level)


def _repeat(args, level):
    value, repeats = unwrap(args[0], level), tuple(args[1])
    for _ in range(len(repeats) - args[0].ndim):
        value = value.unsqueeze(1)
    return wrap(re.Repeat.apply(value, (1,) + repeats), level)


def _sum_to_size(args, level):
    value, shape = unwrap(args[0], level), tuple(args[1])
    lead = (1,) * (args[0].ndim - len(shape))
    summed = value.sum_to_size(value.shape[0], *lead, *shape)
    return wrap(summed.reshape(value.shape[0], *shape), level)


def _index_put_accumulate(args, level):
    grad, key, shape = args
    value = unwrap(grad, level)
    parts = key if type(key) is tuple else (key,)
    if value is None or any(owner_of(k) is not k for k in parts
                            if isinstance(k, np.ndarray)) or \
            sum(isinstance(k, np.ndarray) for k in parts) > 1:
        return loop_fallback(ix.IndexPutAccumulate)(args, level)
    size = batch_size(level)
    return wrap(ix.IndexPutAccumulate.apply(value, (slice(None),) + parts,
                                            (size,) + tuple(shape)), level)


def _nll_loss(args, level):
    """``nll_loss`` on (N, C) scores: the batch joins N with ``reduction='none'``, then
    each example's losses are reduced on their own."""
    input, target, weight, ignore_index, reduction = args
    target_bt = owner_of(target)
    target_value = unwrap(target_bt, level)
    scores = unwrap(input, level)
    if input.ndim != 2 or (scores is None and target_value is None):
        return loop_fallback(F.NllLoss)(args, level)
    size, n = batch_size(level), input.shape[0]
    if scores is None:
        scores = input.unsqueeze(0).expand(size, *input.shape)
    labels = target_value._data if target_value is not None else \
        np.broadcast_to(np.asarray(target), (size, n))
    losses = F.NllLoss.apply(scores.reshape(size * n, -1), np.reshape(labels, -1), weight,
                             ignore_index, "none").reshape(size, n)
    if reduction == "none":
        return wrap(losses, level)
    if reduction == "sum":
        return wrap(losses.sum(1), level)
    counted = np.ones(labels.shape) if weight is None else np.asarray(weight)[labels]
    if ignore_index is not None:
        counted = counted * (labels != ignore_index)
    total = Tensor._wrap(counted.sum(1).astype(losses._data.dtype))
    return wrap(losses.sum(1) / total, level)


def _gather(args, level):
    a, dim, index = args
    size = batch_size(level)
    va = unwrap(a, level)
    vi = unwrap(index, level)
    va = va if va is not None else a.unsqueeze(0).expand(size, *a.shape)
    vi = vi if vi is not None else index.unsqueeze(0).expand(size, *index.shape)
    return wrap(ix.Gather.apply(va, _shift_dim(dim, a.ndim), vi), level)


def _index_select(args, level):
    a, dim, index = args
    if unwrap(index, level) is not None:
        return loop_fallback(re.IndexSelect)(args, level)
    return wrap(re.IndexSelect.apply(unwrap(a, level), _shift_dim(dim, a.ndim), index), level)


def _masked_fill(args, level):
    if isinstance(args[2], Tensor) and unwrap(args[2], level) is not None:
        return loop_fallback(pw.MaskedFill)(args, level)
    return elementwise(pw.MaskedFill)(args, level)


def _random_fill(cls):
    """``x.normal_()`` and friends, by vmap's ``randomness``: refused, drawn per example,
    or drawn once and shared."""
    def rule(args, level):
        randomness = level_info(level).randomness
        if randomness == "error":
            raise random_error()
        value = unwrap(args[0], level)
        if value is None:
            if randomness == "different":
                raise shared_inplace_draw_error()
            cls.apply(*args)
            return args[0]
        drawing_per_example[0] = True
        try:
            if randomness == "different":
                cls.apply(value, *args[1:])
            else:
                # one draw for the example's shape, unbatched at the outer levels too (as
                # PyTorch draws it): an outer 'different' level cannot fill it per example
                if any(lv.randomness == "different" and lv.number < level
                       for lv in _live_levels_info()):
                    raise shared_inplace_draw_error()
                first = value.select(0, 0)
                cls.apply(first, *args[1:])
                value.copy_(first.clone().unsqueeze(0).expand_as(value))
        finally:
            drawing_per_example[0] = False
        return args[0]
    return rule


def _live_levels_info():
    return [level_info(number) for number in live_levels()]


def shared_inplace_draw_error():
    return RuntimeError(
        "vmap: Cannot ask for different inplace randomness on an unbatched tensor. This will "
        "appear like same randomness. If this is necessary for your usage, please file an "
        "issue with functorch.")


def same_randomness_error():
    return RuntimeError(
        "Vmap does not currently support same randomness with a batched tensor input. "
        "Please file an issue with functorch")


def random_error():
    return RuntimeError(
        "vmap: called random operation while in randomness error mode. Please either use the "
        "'same' or 'different' randomness flags on vmap or perform the randomness operation "
        "out of vmap")


# ----- the fallback ---------------------------------------------------------------------------
_warned = set()


def loop_fallback(cls):
    """The rule of an op without one: returns a function ``rule(args, level)`` (what
    ``BATCH_RULES`` holds) that calls ``cls.apply`` once per example (``_example``) and
    stacks the results (``_stack_or_same``; an op that returns a tuple or list gives
    one of the same type, its results stacked position by position).  An op in
    ``INPLACE_FALLBACK`` changes each example's slice in place, a view of its first
    argument's batched value; the rule returns that argument.  Costs one op call per
    example (a Python loop).

    When the rule runs, it first gives PyTorch's UserWarning (with the op's class name
    where PyTorch has its ``aten::`` name): ``There is a performance drop because we
    have not yet implemented the batching rule for Einsum. Please file us an issue on
    GitHub so that we can prioritize its implementation.``  Only once per op:
    ``_warned`` holds the names of the ops already warned about."""
    ### BEGIN SOLUTION 13.3
    def rule(args, level):
        name = cls.__name__
        if name not in _warned:
            _warned.add(name)
            warnings.warn(
                f"There is a performance drop because we have not yet implemented the "
                f"batching rule for {name}. Please file us an issue on GitHub so that we can "
                f"prioritize its implementation.", UserWarning, stacklevel=4)
        size = batch_size(level)
        results = [cls.apply(*_example(args, level, i)) for i in range(size)]
        if any(cls is c for c in INPLACE_FALLBACK):
            return args[0]
        first = results[0]
        if type(first) in (tuple, list):
            return type(first)(_stack_or_same([r[j] for r in results], level)
                               for j in range(len(first)))
        return _stack_or_same(results, level)
    return rule
    ### END SOLUTION 13.3


def _example(args, level, i):
    """Example ``i`` of the arguments, as a list: each argument batched at ``level``
    (also a tensor inside a tuple argument, one level deep) replaced by its
    ``i``-th slice along the batch dim (a view), the others (plain tensors,
    BatchedTensors of other levels, numbers) as they are."""
    ### BEGIN SOLUTION 13.3
    out = []
    for a in args:
        v = unwrap(a, level)
        if v is not None:
            out.append(v.select(0, i))
        elif type(a) is tuple:
            out.append(tuple(unwrap(k, level).select(0, i) if unwrap(k, level) is not None
                             else k for k in a))
        else:
            out.append(a)
    return out
    ### END SOLUTION 13.3


def _stack_or_same(values, level):
    """The per-example results (a list, one per example) stacked along a new first dim
    into one BatchedTensor of ``level`` (``wrap``); results that are not tensors are the
    same for every example: the first one is returned."""
    ### BEGIN SOLUTION 13.3
    if not isinstance(values[0], Tensor):
        return values[0]
    return wrap(ops.stack(values, 0), level)
    ### END SOLUTION 13.3


# ----- the table ------------------------------------------------------------------------------
ELEMENTWISE = [
    ar.Add, ar.AddAlpha, ar.AddScalar, ar.Sub, ar.SubAlpha, ar.SubScalar, ar.RSub, ar.Mul,
    ar.MulByNumber, ar.MulScalar, ar.Div, ar.DivByNumber, ar.DivScalar, ar.Neg, ar.Pow,
    ar.PowScalar, ar.RPow, ar.Reciprocal, ar.Remainder, ar.RemainderScalar, ar.FloorDivide,
    pw.Exp, pw.Log, pw.Sqrt, pw.Sigmoid, pw.Tanh, pw.Relu, pw.Abs, pw.Sign, pw.Clamp,
    pw.ClampTensor, pw.Maximum, pw.Minimum, pw.Where, pw.ReluGrad, pw.SigmoidGrad,
    pw.TanhGrad, pw.OutputDerivative,
    trig.Sin, trig.Cos, trig.Tan, trig.Asin, trig.Acos, trig.Atan, trig.Sinh, trig.Cosh,
    trig.Atan2,
    ex.Erf, ex.Exp2, ex.Expm1, ex.Log10, ex.Log1p, ex.Log2, ex.Rsqrt, ex.Lerp,
    ro.Floor, ro.Ceil, ro.Round, ro.Trunc, ro.Frac, ro._Step,
    activation.Elu, activation.Erf, activation.Gelu, activation.Hardtanh,
    activation.LeakyRelu, activation.Log1p, activation.LogSigmoid, activation.Silu,
    activation.Softplus,
    sh.Clone, sh.Alias, sh.ToCopy,
]

ELEMENTWISE_INPLACE = [ip.AddInplace, ip.SubInplace, ip.MulInplace, ip.DivInplace, ip.Copy,
                       ip.Fill, ip.FillTensor, ip.Zero, ip.ReluInplace,
                       activation.EluInplace, activation.LeakyReluInplace,
                       activation.HardtanhInplace]

RANDOM_FILLS = (rnd.Uniform, rnd.Normal, rnd.Bernoulli, rnd.Exponential, rnd.RandomIntegers)

INPLACE_FALLBACK = ELEMENTWISE_INPLACE + [ix.SetItem, rnd.Uniform, rnd.Normal,
                                          rnd.Bernoulli, rnd.Exponential,
                                          rnd.RandomIntegers]

WITH_DIMS = {   # op: positions of its dim arguments
    rd.SumDim: (1,), rd.MeanDim: (1,), rd._IN_DTYPE[rd.SumDim]: (1,),
    rd._IN_DTYPE[rd.MeanDim]: (1,), rd.MaxDim: (1,), rd.MinDim: (1,),
    rd.Softmax: (1,), rd.LogSoftmax: (1,),
    st.Amax: (1,), st.Amin: (1,), st.Logsumexp: (1,), st.ProdDim: (1,), st.Std: (1,),
    st.Var: (1,), st.VectorNorm: (2,), st.Cumsum: (1,), st.Cumprod: (1,),
    so.Sort: (1,), so.Topk: (2,),
    re.Flip: (1,), re.Roll: (2,), re.Diagonal: (2, 3), re.Split: (2,),
    re.SplitWithSizes: (2,), re.Unbind: (1,), re.Tril: (), re.Triu: (),
    ix.Select: (1,), ix.Slice: (1,),
    sh.Squeeze: (1,), sh.SqueezeAll: (1,), sh.SqueezeDims: (1,), sh.Transpose: (1, 2),
    la.SqueezeProduct: (1,),
}


def _build_table():
    table = {}
    for cls in ELEMENTWISE:
        table[cls] = elementwise(cls)
    for cls in ELEMENTWISE_INPLACE:
        table[cls] = elementwise_inplace(cls)
    for cls, positions in WITH_DIMS.items():
        table[cls] = with_dims(cls, *positions)
    for cls in (rnd.Uniform, rnd.Normal, rnd.Bernoulli, rnd.Exponential,
                rnd.RandomIntegers):
        table[cls] = _random_fill(cls)
    table.update({
        sh.View: _with_shape(sh.View), sh.UnsafeView: _with_shape(sh.UnsafeView),
        sh.Expand: _expand, sh.Permute: _permute, sh.T: _t, sh.Unsqueeze: _unsqueeze,
        sh.Cat: _tensors_join(sh.Cat), sh.Stack: _tensors_join(sh.Stack),
        la.Mm: _matmul_like, la.Bmm: _matmul_like, la.Mv: _matmul_like,
        ix.Index: _index, ix.SetItem: _setitem, ix.Gather: _gather,
        re.IndexSelect: _index_select, pw.MaskedFill: _masked_fill,
        rd.Sum: full_reduction(lambda v, d: v.sum(d)),
        rd.Mean: full_reduction(lambda v, d: v.mean(d)),
        rd.MaxAll: full_reduction(lambda v, d: v.amax(d)),
        rd.MinAll: full_reduction(lambda v, d: v.amin(d)),
        st.Prod: full_reduction(lambda v, d: v.reshape(v.shape[0], -1).prod(1)),
        la.Dot: decomposition(lambda a, b: (a * b).sum(-1)),
        la.Addmm: decomposition(lambda bias, a, b: bias + a.mm(b)),
        re.Trace: decomposition(lambda a: a.diagonal().sum()),
        F.MseLoss: decomposition(_mse_loss),
        normalization.NativeLayerNorm: on_trailing_dims(normalization.NativeLayerNorm),
        normalization.Embedding: _embedding, re.Repeat: _repeat,
        rd.SumToSize: _sum_to_size, ix.IndexPutAccumulate: _index_put_accumulate,
        F.NllLoss: _nll_loss,
    })
    for cls in (conv.Convolution, F._ConvolutionOfNoChannels, pooling.MaxPool2d, pooling.AvgPool2d,
                pooling.AdaptiveAvgPool2d, normalization.NativeGroupNorm,
                padding.ConstantPadNd, padding.CircularPad, padding.ReflectionPad1D,
                padding.ReflectionPad2D, padding.ReflectionPad3D, padding.ReplicationPad1D,
                padding.ReplicationPad2D, padding.ReplicationPad3D,
                padding.SeparableLinearMap):
        table[cls] = folded_into_first_dim(cls)
    return table


def _mse_loss(input, target, reduction):
    squared = (input - target) ** 2
    return squared.mean() if reduction == "mean" else squared.sum() \
        if reduction == "sum" else squared


BATCH_RULES = _build_table()


def apply_rule(cls, args, level):
    """Run the op ``cls`` on ``args`` (as passed to ``cls.apply``), some batched at
    ``level``, and return its outputs batched at ``level``: by its rule in
    ``BATCH_RULES`` (a function ``rule(args, level)``), or, for an op without one, by
    ``_custom_function_rule(cls)`` (below): the loop fallback for a built-in op, the
    Function's own ``vmap`` staticmethod or its ``generate_vmap_rule``, else it raises
    PyTorch's RuntimeError for a custom Function without vmap support."""
    ### BEGIN SOLUTION 13.3
    rule = BATCH_RULES.get(cls)
    if rule is None:
        rule = _custom_function_rule(cls)
    return rule(args, level)
    ### END SOLUTION 13.3


def _custom_function_rule(cls):
    if issubclass(cls, ops.BuiltinFunction):
        return loop_fallback(cls)
    if getattr(cls, "vmap", None) is not None and \
            not getattr(cls.vmap, "_is_default", False):
        return _user_vmap_rule(cls)
    if getattr(cls, "generate_vmap_rule", False):
        return lambda args, level: _generated(cls, args, level)
    if getattr(cls, "_setup_context_style", False):
        raise RuntimeError(
            f"You tried to vmap over {cls.__name__}, but it does not have vmap support. "
            "Please override and implement the vmap staticmethod or set "
            "generate_vmap_rule=True. For more details, please see "
            "https://pytorch.org/docs/main/notes/extending.func.html")
    raise RuntimeError(
        "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
        "jacrev, ...), it must override the setup_context staticmethod. For more details, "
        "please see https://pytorch.org/docs/main/notes/extending.func.html")


def _user_vmap_rule(cls):
    """A Function's own ``vmap(info, in_dims, *args) -> (outputs, out_dims)``."""
    def rule(args, level):
        info = _VmapInfo(batch_size(level), level_info(level).randomness)
        values = [_value_or_self(a, level) for a in args]
        in_dims = tuple(0 if unwrap(a, level) is not None else None for a in args)
        outputs, out_dims = cls.vmap(info, in_dims, *values)
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        dims = (out_dims,) * len(outs) if isinstance(out_dims, int) or out_dims is None \
            else out_dims
        result = tuple(o if d is None else wrap(o.movedim(d, 0), level)
                       for o, d in zip(outs, dims))
        return result[0] if single else result
    return rule


def _generated(cls, args, level):
    """``generate_vmap_rule=True``: ``cls`` is applied once to the whole batch, as a
    Function whose forward, setup_context and backward are ``cls``'s own run under vmap
    (PyTorch's rule does the same), so a gradient comes from ``cls.backward``.  Running
    ``forward``'s ops on the BatchedTensors instead would record them, and the gradient
    would be forward's derivative, not what ``backward`` says."""
    values = [_value_or_self(a, level) for a in args]
    in_dims = tuple(0 if unwrap(a, level) is not None else None for a in args)
    vmapped = _vmapped_function(cls, in_dims, level_info(level).randomness)
    return _wrap_all(vmapped.apply(*values), level)


def _vmapped_function(cls, in_dims, randomness):
    """A Function on whole batches (batch dim first where ``in_dims`` says 0) that runs
    ``cls.forward``, ``cls.setup_context`` and ``cls.backward`` per example with vmap.
    What setup_context saves or sets on ctx comes out of its vmap as whole batches,
    saved on the new node; backward gets each example's share back."""
    from ..autograd.function import Function
    from ._vmap import vmap

    def run(function, dims, *flat):
        return vmap(function, in_dims=dims, randomness=randomness)(*flat)

    def forward(*values):
        return run(cls.forward, in_dims, *values)

    def setup_context(ctx, inputs, output):
        outputs = output if type(output) is tuple else (output,)
        inner = _GeneratedCtx(ctx.needs_input_grad)

        def record(*flat):
            ins, outs = flat[:len(inputs)], flat[len(inputs):]
            cls.setup_context(inner, ins, outs if type(output) is tuple else outs[0])
            return inner.tensors()

        tensors = run(record, in_dims + (0,) * len(outputs), *inputs, *outputs)
        kept = inner.by_kind(tensors)
        ctx.save_for_backward(*kept["backward"])        # packed, and version-checked
        ctx.save_for_forward(*kept["forward"])
        ctx.attributes = kept["attribute"]              # as the Function set them: neither
        ctx.generated = inner.layout()
        ctx.set_materialize_grads(inner.materialize)

    def replaying(ctx, reading, call, given, given_dims):
        """Run ``call(example ctx, *one example's given)`` under vmap, with what was kept
        for ``reading`` ("backward" or "forward")."""
        saved, attributes = ctx.saved_tensors, ctx.attributes

        def replay(*flat):
            example = ctx.generated.replayed(reading, flat[:len(saved)],
                                             flat[len(saved):len(saved) + len(attributes)],
                                             ctx.needs_input_grad)
            return call(example, *flat[len(saved) + len(attributes):])

        dims = (0,) * (len(saved) + len(attributes)) + tuple(given_dims)
        return run(replay, dims, *saved, *attributes, *given)

    def backward(ctx, *grads):
        nones = []

        def call(example, *grads):
            result = cls.backward(example, *grads)
            result = result if type(result) is tuple else (result,)
            nones[:] = [r is None for r in result]
            return tuple(r for r in result if r is not None)

        found = iter(replaying(ctx, "backward", call, grads,
                               [None if g is None else 0 for g in grads]))
        result = [None if none else next(found) for none in nones]
        return tuple(g if g is None or d is not None else g.sum(0)
                     for g, d in zip(result, in_dims))

    def jvp(ctx, *tangents):
        return replaying(ctx, "forward", cls.jvp, tangents,
                         [None if t is None else d for t, d in zip(tangents, in_dims)])

    methods = {"generate_vmap_rule": True,       # under an outer vmap level, the same again
               "forward": staticmethod(forward), "setup_context": staticmethod(setup_context),
               "backward": staticmethod(backward)}
    if cls.jvp is not Function.jvp:
        methods["jvp"] = staticmethod(jvp)
    return type(f"Vmapped{cls.__name__}", (Function,), methods)


class _GeneratedCtx:
    """The ctx that ``setup_context``, ``backward`` and ``jvp`` see under a generated vmap
    rule: what it saves (for backward, for forward) and the tensors set on it as
    attributes are per example (BatchedTensors) in setup_context, given back per example
    in backward or jvp; other attributes are kept as they are."""

    def __init__(self, needs_input_grad):
        self.needs_input_grad = needs_input_grad
        self.materialize = True
        self._kept = {"backward": (), "forward": ()}
        self._reading, self._names, self._slots = "backward", [], {}

    def save_for_backward(self, *tensors):
        self._kept["backward"] = tensors

    def save_for_forward(self, *tensors):
        self._kept["forward"] = tensors

    @property
    def saved_tensors(self):
        """What was saved for the pass that reads it: backward's, or jvp's."""
        return self._kept[self._reading]

    def mark_non_differentiable(self, *tensors):
        """Taken and not passed on: PyTorch 2.13's generated rule does the same (the
        outputs require grad)."""

    def set_materialize_grads(self, value):
        self.materialize = value

    def mark_dirty(self, *tensors):
        raise RuntimeError(
            "mark_dirty under vmap: a Function with generate_vmap_rule=True cannot change "
            "its inputs in place (PyTorch refuses it too); return a new tensor instead, or "
            "give the Function a vmap staticmethod")

    def tensors(self):
        """The tensors saved for backward, for forward, then those set as attributes, in
        order (None left out: ``_names`` says where each goes back)."""
        self._slots = {kind: len(kept) for kind, kept in self._kept.items()}
        self._names = [(kind, i) for kind, kept in self._kept.items()
                       for i, t in enumerate(kept) if t is not None]
        self._names += [("attribute", name) for name, value in vars(self).items()
                        if isinstance(value, Tensor)]
        return tuple(getattr(self, i) if kind == "attribute" else self._kept[kind][i]
                     for kind, i in self._names)

    def layout(self):
        """Itself without the per-example tensors of the vmap that ran setup_context
        (``tensors`` gave them out as whole batches): where each goes back is kept."""
        for kind, name in self._names:
            if kind == "attribute":
                delattr(self, name)
        self._kept = {"backward": (), "forward": ()}
        return self

    def by_kind(self, tensors):
        """``tensors`` (as ``tensors()`` gave them, now whole batches) by what they were:
        saved for backward, for forward, or set as attributes."""
        return {kind: tuple(t for (of, _), t in zip(self._names, tensors) if of == kind)
                for kind in ("backward", "forward", "attribute")}

    def replayed(self, reading, kept, attributes, needs_input_grad):
        """A ctx for backward (``reading`` "backward") or jvp ("forward") that holds one
        example's share of what was kept for it and of the attributes."""
        example = object.__new__(_GeneratedCtx)
        example.__dict__.update(vars(self))
        example.needs_input_grad, example._reading = needs_input_grad, reading
        saved = [None] * self._slots[reading]
        places = [where for kind, where in self._names if kind == reading]
        for where, tensor in zip(places, kept):
            saved[where] = tensor
        names = [name for kind, name in self._names if kind == "attribute"]
        for name, tensor in zip(names, attributes):
            setattr(example, name, tensor)
        example._kept = {"backward": (), "forward": (), reading: tuple(saved)}
        return example


class _VmapInfo:
    def __init__(self, batch_size, randomness):
        self.batch_size, self.randomness = batch_size, randomness


def coverage():
    """Every built-in op and its kind of batching rule (or ``loop fallback``)."""
    from ..autograd.forward_rules import builtin_ops
    return {cls: ("rule" if cls in BATCH_RULES else "loop fallback") for cls in builtin_ops()}
