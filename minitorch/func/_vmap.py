"""``vmap``: run a function written for one example on a batch of them (chapter 13).

``vmap(f)(xs)`` calls ``f`` **once**, on ``BatchedTensor``s: tensors that look
like one example (their ``shape`` leaves the batch dim out) and hold the whole
batch underneath (``_value``, batch dim first).  Every op that meets a
BatchedTensor is handed by ``Function.apply`` to the op's *batching rule*
(``batching_rules.BATCH_RULES``), which rewrites the call as one call on the
batched values: an elementwise op lines the batch dims up and broadcasts, a
reduction over dim ``d`` reduces dim ``d + 1``, a matrix product becomes a
batched matrix product.  So ``vmap`` costs what one batched op costs, plus a
little Python per op for the rule, whatever the batch size.

An op without a rule falls back to a loop over the examples, with a warning
that names it (PyTorch warns the same way): that costs one call per example,
and the coverage list in ``batching_rules`` says which ops do it.

Levels: each ``vmap`` call opens a level; a BatchedTensor of an outer level
may hold one of an inner level (``vmap(vmap(f))``), and a rule handles the
innermost level first, calling ops on values that may still be batched at
outer levels.

A BatchedTensor's ``_data`` is a stand-in array with the example's shape and
dtype, which says so if something tries to read values from it: code that reads
``.shape`` works as for an example, code that reads values (``.item()``, ``if
x > 0``) raises PyTorch's error.
"""

import functools
import weakref

import numpy as np

from .. import _random
from .._tensor import Tensor
from ..autograd import _interpose, function
from ..autograd import forward_ad

__all__ = ["vmap", "BatchedTensor", "is_batched"]


class _NoValues(np.ndarray):
    """The stand-in ``_data`` of a BatchedTensor: shape and dtype, no values to compute
    with (any numpy computation on it raises)."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "reduce" and ufunc in _BOUNDS and kwargs.get("axis", 0) is None \
                and len(inputs) == 1:
            return ufunc.reduce(_batch_values(self), axis=None)
        raise RuntimeError(_NO_VALUES)

    def __array_function__(self, func, types, args, kwargs):
        if func is np.reshape:      # a view of the example's shape: the rule decides
            shape = args[1] if len(args) > 1 else \
                kwargs.get("shape", kwargs.get("newshape"))
            return _stand_in(np.empty(self.shape, dtype=bool).reshape(shape).shape,
                             self.dtype)
        if func in (np.shares_memory, np.may_share_memory):
            return False            # a stand-in has no memory to share
        if func in (np.shape, np.ndim, np.size, np.result_type):
            return func(*[np.asarray(a) if isinstance(a, _NoValues) else a for a in args],
                        **kwargs)
        raise RuntimeError(_NO_VALUES)


# A bound over every value (the smallest target, whether all are true) holds for each
# example if it holds for the batch: checks written as such reductions work under vmap.
_BOUNDS = (np.minimum, np.maximum, np.logical_and, np.logical_or)


def _batch_values(stand_in):
    owner = owner_of(stand_in)
    if owner is stand_in:
        raise RuntimeError(_NO_VALUES)
    while type(owner) is BatchedTensor:
        owner = owner._value
    return owner._data


_NO_VALUES = ("vmap: an operation read the values of a batched tensor directly instead of "
              "going through an autograd.Function, so it has no batching rule. Use "
              "minitorch ops inside vmap, or move this computation out of vmap.")


def _stand_in(shape, dtype):
    return np.broadcast_to(np.zeros((), dtype=dtype), shape).view(_NoValues)


class BatchedTensor(Tensor):
    """One example's view of a batch of examples, inside ``vmap`` (see the module)."""

    def __repr__(self):
        return f"BatchedTensor(lvl={self._level}, bdim=0, value=\n{self._value!r}\n)"

    def item(self):
        raise RuntimeError(
            "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap "
            "over calling .item() on a Tensor, please try to rewrite what you're doing with "
            "other operations. If error is occurring somewhere inside PyTorch internals, "
            "please file a bug report.")

    def __bool__(self):
        raise RuntimeError(
            "vmap: It looks like you're attempting to use a Tensor in some data-dependent "
            "control flow. We don't support that yet, please file an issue at "
            "https://github.com/pytorch/pytorch/issues .")

    def tolist(self):
        raise RuntimeError("vmap: It looks like you're calling .tolist() on a batched "
                           "Tensor: its values differ per example. Return the tensor instead.")

    numpy = tolist
    __float__ = __int__ = item

    def detach(self):
        return wrap(self._value.detach(), self._level)

    def _alias_without_graph(self):
        return wrap(self._value._alias_without_graph(), self._level)

    def _compare(self, other, compare):
        from .batching_rules import aligned
        level = _top_level_of((self, other))
        values, _ = aligned((self, other), level)
        return wrap(values[0]._compare(values[1], compare), level)


def wrap(value, level):
    """A new BatchedTensor of ``level`` holding ``value`` (a Tensor, batch dim first;
    it may itself be a BatchedTensor of an outer level).

    It is made with ``object.__new__``, not ``Tensor(...)`` (which makes an array of its
    own), and its Tensor fields are set by hand: ``_data`` is a ``_stand_in`` of one
    example's shape and ``value``'s dtype, whose ``_owner`` is a weakref to the new
    BatchedTensor (an op given a mask as an array, ``where``'s condition, finds its
    tensor again by it: ``owner_of``); ``_requires_grad`` is False, as under PyTorch's
    vmap (gradients flow through ``value``); ``_grad_fn`` None, ``_output_nr`` 0, and a
    version counter of its own, not ``value``'s (``_counter`` None: made when first asked
    for, as every tensor's), as under PyTorch's vmap: an in-place change through it
    bumps ``value``'s, so its own ``_version`` stays 0.  Then its own two: ``_value``
    and ``_level``."""
    ### BEGIN SOLUTION 13.3
    bt = object.__new__(BatchedTensor)
    bt._data = _stand_in(tuple(value.shape)[1:], value._data.dtype)
    bt._data._owner = weakref.ref(bt)   # ops that take a mask as an array find it again
    bt._requires_grad = False
    bt._grad_fn = None
    bt._output_nr = 0
    bt._counter = None                  # its own version counter, when asked for
    bt._value = value
    bt._level = level
    return bt
    ### END SOLUTION 13.3


def is_batched(t, level=None):
    return type(t) is BatchedTensor and (level is None or t._level == level)


def unwrap(t, level):
    """The batched value of ``t`` at ``level`` (its ``_value``, batch dim first), or None
    if ``t`` is not a BatchedTensor of that level (a plain tensor, a number, a
    BatchedTensor of another level).  ``t`` may also be the stand-in ``_data`` of a
    BatchedTensor (a mask handed to an op as an array): ``owner_of`` gives its tensor."""
    ### BEGIN SOLUTION 13.3
    t = owner_of(t)
    return t._value if type(t) is BatchedTensor and t._level == level else None
    ### END SOLUTION 13.3


def owner_of(x):
    """A mask passed to an op as an array (``where``'s condition) may be the stand-in of
    a BatchedTensor: that BatchedTensor; anything else as it is."""
    if type(x) is _NoValues:
        owner = getattr(x, "_owner", None)
        bt = owner() if owner is not None else None
        return bt if bt is not None else x
    return x


def _top_level_of(args):
    top = None
    for a in args:
        a = owner_of(a)
        if type(a) is BatchedTensor:
            if top is None or a._level > top:
                top = a._level
        elif type(a) in (tuple, list):
            inner = _top_level_of(a)
            if inner is not None and (top is None or inner > top):
                top = inner
    return top


# ----- the vmap levels ------------------------------------------------------------------
class _Level:
    def __init__(self, number, size, randomness):
        self.number, self.size, self.randomness = number, size, randomness


_levels = []          # live vmap levels, outermost first
_counter = [0]


def level_info(number):
    for lv in _levels:
        if lv.number == number:
            return lv
    raise RuntimeError(f"vmap level {number} is not live")


def batch_size(level):
    return level_info(level).size


def _push(size, randomness):
    _counter[0] += 1
    lv = _Level(_counter[0] + 10_000, size, randomness)
    _levels.append(lv)
    _interpose.vmap_levels.append(lv.number)
    _interpose.refresh()
    _random.draw_check[0] = _check_draw
    _random.vmap_draws[0] = _Draws
    return lv.number


def _pop(number):
    _levels.pop()
    _interpose.vmap_levels.pop()
    _interpose.refresh()
    pending_draw[0] = False
    if not _levels:
        _random.draw_check[0] = None
        _random.vmap_draws[0] = None


drawing_per_example = [False]   # set by the batching rule of an in-place random op


def _check_draw():
    """vmap's randomness rule, before a draw from the generator itself: ``'error'``
    refuses; ``'same'`` lets the draw serve every example; ``'different'`` needs a draw
    per example, which the in-place random ops (``normal_``, ``bernoulli_``...) make on
    the batched value.  The random functions (``randn``, ``dropout``...) apply the rule
    through ``_random.Draw`` and ``_Draws`` below instead."""
    from .batching_rules import random_error
    if drawing_per_example[0]:
        return
    if any(lv.randomness == "error" for lv in _levels):
        raise random_error()
    if any(lv.randomness == "different" for lv in _levels):
        pending_draw[0] = True      # fine if an in-place random op on a batched tensor
                                    # comes next (its rule draws per example)


pending_draw = [False]


class _Draws:
    """vmap's side of a random function's draw (``_random.Draw``)."""

    @staticmethod
    def draw_levels(inputs):
        """The live levels that draw per example, outermost first, after the checks:
        ``'error'`` refuses any draw, ``'same'`` one whose inputs are batched there."""
        from .batching_rules import random_error, same_randomness_error
        if any(lv.randomness == "error" for lv in _levels):
            raise random_error()
        batched_at = set()
        for t in inputs:
            if isinstance(t, Tensor):
                batched_at.update(_peel(t)[1])
        if any(lv.randomness == "same" and lv.number in batched_at for lv in _levels):
            raise same_randomness_error()
        return [lv.number for lv in _levels if lv.randomness == "different"]

    @staticmethod
    def check_in_place_draw(t):
        """An in-place draw under ``'different'`` writes per-example numbers: ``t`` must
        be batched at every such level."""
        from .batching_rules import shared_inplace_draw_error
        levels = set(_peel(t)[1])
        if any(lv.randomness == "different" and lv.number not in levels for lv in _levels):
            raise shared_inplace_draw_error()

    @staticmethod
    def sizes(levels):
        return tuple(batch_size(lv) for lv in levels)

    @staticmethod
    def full(t, levels):
        return to_full(t, levels)

    @staticmethod
    def batched(t, levels):
        return from_full(t, levels)


def refuse_shared_draw(cls, args):
    """A draw under ``randomness='different'`` that was not made per example (an in-place
    random op on an unbatched tensor, or code that takes numbers from the generator
    itself): its numbers would be shared by every example, so refuse them."""
    from .batching_rules import RANDOM_FILLS, shared_inplace_draw_error
    pending_draw[0] = False
    if cls in RANDOM_FILLS and args and _top_level_of(args[:1]) is None:
        raise shared_inplace_draw_error()
    if cls not in RANDOM_FILLS:
        raise NotImplementedError(
            f"vmap(randomness='different'): {cls.__name__} follows a random draw that was not "
            "made per example (minitorch's random functions make theirs per example; this "
            "one came from elsewhere). Draw the noise outside vmap and pass it in batched, "
            "or use randomness='same'.")


def live_levels():
    return [lv.number for lv in _levels]


# ----- moving between the batched and the full form ------------------------------------
def to_full(t, levels):
    """``t`` with one leading dim per level in ``levels`` (ascending): the batch dims it
    has there, and the others made by expanding (no copy).  Batch dims of other levels
    stay batched (wrapped around the result)."""
    physical, dim_levels = _peel(t)
    others = sorted(lv for lv in dim_levels if lv not in levels)
    return _arranged(physical, dim_levels, others + list(levels), others)


def from_full(t, levels):
    """The inverse of ``to_full``: ``t``'s leading dims are batch dims of ``levels``
    (ascending), under whatever levels ``t`` is itself batched at."""
    physical, dim_levels = _peel(t)
    dim_levels = dim_levels + list(levels)
    order = sorted(set(dim_levels))
    return _arranged(physical, dim_levels, order, order)


def _peel(t):
    """The plain tensor under all of ``t``'s wrappers, and the level of each of its
    leading dims (the innermost wrapper's batch dim comes first)."""
    seen = []
    while type(t) is BatchedTensor:
        seen.append(t._level)
        t = t._value
    return t, seen[::-1]


def _arranged(physical, dim_levels, order, wrapped):
    """Put the leading batch dims in ``order`` (expanding any level missing), then wrap
    the first ``len(wrapped)`` of them as BatchedTensors (innermost first).  A level
    that labels two dims (a tangent batched at the level its primal was expanded to)
    means example ``b`` of one goes with example ``b`` of the other: the diagonal."""
    for level in set(dim_levels):
        while dim_levels.count(level) > 1:
            i = dim_levels.index(level)
            j = dim_levels.index(level, i + 1)
            physical = physical.diagonal(0, i, j).movedim(-1, 0)
            dim_levels = [level] + [lv for k, lv in enumerate(dim_levels) if k not in (i, j)]
    for level in order:
        if level not in dim_levels:
            physical = physical.unsqueeze(0).expand(batch_size(level), *physical.shape)
            dim_levels = [level] + dim_levels
    source = [dim_levels.index(level) for level in order]
    if source != list(range(len(order))):
        physical = physical.permute(*source, *range(len(order), physical.ndim))
    for level in wrapped:
        physical = wrap(physical, level)
    return physical


# ----- dual tensors under vmap --------------------------------------------------------------
def make_dual_batched(tensor, tangent, level):
    levels = live_levels()
    full_primal, full_tangent = to_full(tensor, levels), to_full(tangent, levels)
    return from_full(forward_ad.make_dual(full_primal, full_tangent, level=level), levels)


def unpack_dual_batched(tensor, level):
    levels = live_levels()
    primal, tangent = forward_ad.unpack_dual(to_full(tensor, levels), level=level)
    return forward_ad.UnpackedDualTensor(
        from_full(primal, levels), None if tangent is None else from_full(tangent, levels))


# ----- the hook ------------------------------------------------------------------------------
class _BatchedApply:
    """What ``_interpose`` calls for an op with a batched argument."""

    @staticmethod
    def top_level(args):
        return _top_level_of(args)

    pending_draw = pending_draw
    refuse_shared_draw = staticmethod(refuse_shared_draw)

    def __call__(self, cls, args, level):
        from . import batching_rules
        return batching_rules.apply_rule(cls, args, level)


_interpose.batched_apply[0] = _BatchedApply()


# ----- pytrees: nested tuples, lists and dicts ----------------------------------------------
def tree_flatten(tree):
    """The leaves of nested tuples/lists/dicts, and a spec to rebuild it."""
    if isinstance(tree, (tuple, list)) and not _is_namedtuple(tree):
        leaves, specs = [], []
        for x in tree:
            lv, sp = tree_flatten(x)
            leaves += lv
            specs.append(sp)
        return leaves, (type(tree), specs)
    if _is_namedtuple(tree):
        leaves, specs = tree_flatten(tuple(tree))
        return leaves, (("namedtuple", type(tree)), specs[1])
    if isinstance(tree, dict):
        keys = list(tree)
        leaves, spec = tree_flatten([tree[k] for k in keys])
        return leaves, (("dict", type(tree), tuple(keys)), spec[1])
    return [tree], None


def tree_unflatten(leaves, spec):
    it = iter(leaves)
    result = _rebuild(it, spec)
    return result


def _rebuild(it, spec):
    if spec is None:
        return next(it)
    kind, children = spec
    values = [_rebuild(it, c) for c in children]
    if isinstance(kind, type):      # tuple, list, or a tuple type such as max(dim)'s pair
        return kind(values)
    if kind[0] == "namedtuple":
        return kind[1](*values)
    return kind[1](zip(kind[2], values))


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(x, "_fields")


def _spec_repr(spec):
    if spec is None:
        return "*"
    kind, children = spec
    name = kind.__name__ if isinstance(kind, type) else kind[1].__name__
    return f"TreeSpec({name}, [{', '.join(_spec_repr(c) for c in children)}])"


def broadcast_to_tree(prefix, spec, what, fname):
    """``in_dims``/``out_dims`` (a prefix of the tree) as one value per leaf."""
    if spec is None:
        if isinstance(prefix, bool) and what == "in_dims":
            raise TypeError(f"vmap({fname}, ...): in_dims holds the bool {prefix}, not a "
                            "dim: give the dim to map over as an int, or None for an "
                            "input that is not mapped.")
        if isinstance(prefix, (int, type(None))) and not isinstance(prefix, bool):
            return [prefix]
        raise ValueError(f"vmap({fname}, ...): {what} is not compatible with the structure "
                         f"of the values: expected an int or None, got {prefix!r}.")
    if isinstance(prefix, int) and not isinstance(prefix, bool) or prefix is None:
        return [prefix] * _count(spec)
    kind, children = spec
    if isinstance(kind, type) and isinstance(prefix, (tuple, list)) and \
            len(prefix) == len(children):
        parts = prefix
    elif not isinstance(kind, type) and kind[0] == "dict" and isinstance(prefix, dict) and \
            set(prefix) == set(kind[2]):
        parts = [prefix[k] for k in kind[2]]
    elif not isinstance(kind, type) and kind[0] == "namedtuple" and \
            isinstance(prefix, tuple) and len(prefix) == len(children):
        parts = prefix
    else:
        raise _structure_error(prefix, spec, what, fname)
    result = []
    for p, child in zip(parts, children):
        result += broadcast_to_tree(p, child, what, fname)
    return result


def _structure_error(prefix, spec, what, fname):
    values = "inputs" if what == "in_dims" else "outputs"
    return ValueError(
        f"vmap({fname}, {what}={prefix!r}, ...)(<inputs>): {what} is not compatible with the "
        f"structure of `{values}`. {what} has structure {_spec_of_prefix(prefix)} but "
        f"{values} has structure {_spec_repr(spec)}.")


def _spec_of_prefix(prefix):
    return _spec_repr(tree_flatten(prefix)[1])


def _count(spec):
    if spec is None:
        return 1
    return sum(_count(c) for c in spec[1])


# ----- vmap itself ---------------------------------------------------------------------------
_RANDOMNESS = ("error", "different", "same")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` mapped over a dim of its inputs, as one batched call (see the module).

    ``in_dims``: for each positional argument the dim to map over (None: the same
    value for every example), as an int for all or a tree matching the arguments.
    ``out_dims``: where the batch dim goes in each output (None: the output must
    not depend on the batch).  ``randomness``: what a random op inside does:
    ``'error'`` refuses, ``'different'`` draws per example, ``'same'`` draws once
    for the whole batch.  ``chunk_size``: map that many examples per call of
    ``func`` (less memory for large batches, more calls).

    Refused at once, by ``vmap(...)`` itself, as in PyTorch: a ``randomness`` not
    among the three, RuntimeError ``Only allowed values for randomness are 'error',
    'different', or 'same'. Got foo``; a ``chunk_size`` that is not None and not above
    0, ValueError ``vmap: chunk_size should be None or greater than 0. (got 0)``.

    Returns a function of ``(*args, **kwargs)`` (the keyword arguments go to ``func``
    as they are, never mapped), wrapped as ``functools.wraps(func)`` wraps (its
    ``__name__``, ``__doc__`` and ``__wrapped__`` are ``func``'s).  Called without
    positional arguments it raises ValueError ``vmap(f)(<inputs>): got no inputs.
    Maybe you forgot to add inputs, or you are trying to vmap over a function with no
    inputs. The latter is unsupported.`` (``f`` is ``func``'s name).  Otherwise it
    checks ``in_dims`` (``_check_in_dims_type``), gives each leaf of the arguments
    (``tree_flatten``) its dim (a tuple ``in_dims`` through ``broadcast_to_tree``,
    which raises the structure errors), finds the batch size (``_batch_size``) and
    calls ``_run``: once, or, when ``chunk_size`` is below the batch size, once per
    chunk of ``chunk_size`` examples (the last one shorter), joined by
    ``_concat_chunks``.
    """
    ### BEGIN SOLUTION 13.3
    if randomness not in _RANDOMNESS:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', "
                           f"or 'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. "
                         f"(got {chunk_size})")
    fname = getattr(func, "__name__", repr(func))

    def wrapped(*args, **kwargs):
        if not args:
            raise ValueError(f"vmap({fname})(<inputs>): got no inputs. Maybe you forgot to "
                             "add inputs, or you are trying to vmap over a function with no "
                             "inputs. The latter is unsupported.")
        _check_in_dims_type(in_dims, fname)
        flat, spec = tree_flatten(args)
        if isinstance(in_dims, tuple):
            dims = broadcast_to_tree(in_dims, spec, "in_dims", fname)
        else:
            dims = [in_dims] * len(flat)
        size = _batch_size(flat, dims, fname, in_dims)
        if chunk_size is not None and chunk_size < size:
            return _chunked(func, flat, spec, dims, size, kwargs, fname)
        return _run(func, flat, spec, dims, size, kwargs, fname, out_dims, randomness)

    def _chunked(func, flat, spec, dims, size, kwargs, fname):
        pieces = []
        for start in range(0, size, chunk_size):
            stop = min(start + chunk_size, size)
            part = [a if d is None else a.narrow(d, start, stop - start)
                    for a, d in zip(flat, dims)]
            pieces.append(_run(func, part, spec, dims, stop - start, kwargs, fname, out_dims,
                               randomness))
        return _concat_chunks(pieces, out_dims, fname)

    return functools.wraps(func)(wrapped)
    ### END SOLUTION 13.3


def _bad_in_dims(in_dims, fname):
    raise ValueError(f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to "
                     f"be int or a (potentially nested) tuple matching the structure of "
                     f"inputs, got: {type(in_dims)}.")


def _bool_in_dims(in_dims, fname):
    raise TypeError(f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>): in_dims={in_dims} is "
                    "a bool, not a dim: give the dim to map over as an int, or None for "
                    "an input that is not mapped.")


def _check_in_dims_type(in_dims, fname):
    """``in_dims`` must be None, an int or a tuple.  A bool (Python's ints include
    them) goes to ``_bool_in_dims`` (given above; a TypeError, PyTorch's type);
    anything else to ``_bad_in_dims`` (given above), which raises PyTorch's ValueError
    ``vmap(f, in_dims=0.5, ...)(<inputs>): expected `in_dims` to be int or a
    (potentially nested) tuple matching the structure of inputs, got: <class
    'float'>.``  Returns None."""
    ### BEGIN SOLUTION 13.3
    if isinstance(in_dims, bool):
        _bool_in_dims(in_dims, fname)
    if not (in_dims is None or isinstance(in_dims, (int, tuple))):
        _bad_in_dims(in_dims, fname)
    ### END SOLUTION 13.3


def _batch_size(flat, dims, fname, in_dims):
    """The size of the mapped dim, the same for every input mapped over: ``flat`` holds
    the inputs (the leaves of the arguments), ``dims`` each one's dim (None for inputs
    not mapped), ``in_dims`` is what the user passed (for the messages).

    ValueErrors, PyTorch's, checked input by input in order (here ``f`` is ``fname``,
    ``in_dims=(0, 2)`` the user's ``in_dims``, 2 the input's dim and 2 its ndim):

    - a dim for a non-tensor: ``vmap(f, in_dims=(0, 2), ...)(<inputs>): Got in_dim=2
      for an input but the input is of type <class 'float'>. We cannot vmap over
      non-Tensor arguments, please use None as the respective in_dim``;
    - a dim out of range: ``vmap(f, in_dims=(0, 2), ...)(<inputs>): Got in_dim=2 for
      some input, but that input is a Tensor of dimensionality 2 so expected in_dim to
      satisfy -2 <= in_dim < 2.`` (a 0-d tensor reads ``-0 <= in_dim < 0``);

    then, over all inputs: none mapped, ``vmap: Expected at least one Tensor to vmap
    over``; sizes that differ, ``vmap: Expected all tensors to have the same size in
    the mapped dimension, got sizes [3, 3, 4] for the mapped dimension`` (the size of
    each mapped input, in order)."""
    ### BEGIN SOLUTION 13.3
    sizes = []
    for a, d in zip(flat, dims):
        if d is None:
            continue
        if not isinstance(a, Tensor):
            raise ValueError(
                f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an "
                f"input but the input is of type {type(a)}. We cannot vmap over non-Tensor "
                "arguments, please use None as the respective in_dim")
        n = a.ndim
        if not -n <= d < n:
            raise ValueError(
                f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some "
                f"input, but that input is a Tensor of dimensionality {n} so expected in_dim "
                f"to satisfy -{n} <= in_dim < {n}.")
        sizes.append(a.shape[d])
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0]
    ### END SOLUTION 13.3


def _run(func, flat, spec, dims, size, kwargs, fname, out_dims, randomness):
    """One batched call of ``func``, returning its outputs as plain tensors in
    ``func``'s structure: open a level (``_push(size, randomness)`` returns the new
    level's number, an int larger than any live level's), move each mapped input's dim
    to the front and wrap it at that level (``wrap``; an input whose dim is None goes
    in as it is), call ``func`` on the inputs put back in their structure
    (``tree_unflatten(leaves, spec)``) with ``kwargs``, turn the outputs back into plain
    tensors (``_unbatch_outputs``), and close the level (``_pop(number)``) even if
    ``func`` raised."""
    ### BEGIN SOLUTION 13.3
    level = _push(size, randomness)
    try:
        batched = [a if d is None else wrap(a.movedim(d, 0), level)
                   for a, d in zip(flat, dims)]
        output = func(*tree_unflatten(batched, spec), **kwargs)
        return _unbatch_outputs(output, level, size, out_dims, fname)
    finally:
        _pop(level)
    ### END SOLUTION 13.3


def _unbatch_outputs(output, level, size, out_dims, fname):
    """``func``'s outputs (``output``: a tensor, or a tree of them) in the same structure,
    each output the plain batched value (``unwrap``) with the level's batch dim moved to
    its out_dim.  ``out_dims`` is an int or None for all, or a tree matching the outputs
    (``broadcast_to_tree``, given, makes it one per leaf and raises the structure
    error; its ``what`` is ``"out_dims"``).  An output that is not batched at the
    level (the same for every example) is expanded to ``size`` examples (a view, not a
    copy).

    With an out_dim of None an output may be any value and is returned as it is, but a
    tensor batched at the level is a ValueError, PyTorch's ``vmap(f, ...): `f` can not
    return a BatchedTensor when out_dim is None``.  With an int out_dim, an output that
    is not a tensor is a ValueError, PyTorch's ``vmap(f, ...): `f` must only return
    Tensors, got type <class 'float'>. Did you mean to set out_dims= to None for
    output?`` (``f`` is ``fname`` both times)."""
    ### BEGIN SOLUTION 13.3
    flat, spec = tree_flatten(output)
    if isinstance(out_dims, int) or out_dims is None:
        dims = [out_dims] * len(flat)
    else:
        dims = broadcast_to_tree(out_dims, spec, "out_dims", fname)
    results = []
    for out, d in zip(flat, dims):
        if not isinstance(out, Tensor):
            if d is None:
                results.append(out)
                continue
            raise ValueError(f"vmap({fname}, ...): `{fname}` must only return Tensors, got "
                             f"type {type(out)}. Did you mean to set out_dims= to None for "
                             "output?")
        value = unwrap(out, level)
        if d is None:
            if value is not None:
                raise ValueError(f"vmap({fname}, ...): `{fname}` can not return a "
                                 "BatchedTensor when out_dim is None")
            results.append(out)
            continue
        if value is None:           # the same for every example: broadcast it
            value = out.unsqueeze(0).expand(size, *out.shape)
        results.append(value.movedim(0, d) if d != 0 else value)
    return tree_unflatten(results, spec)
    ### END SOLUTION 13.3


def _concat_chunks(pieces, out_dims, fname):
    """The outputs of the chunks of a ``chunk_size`` run, joined: ``pieces`` holds each
    chunk's outputs (what ``_run`` returned, all in the same structure); the result has
    that structure, each output the chunks' ones joined along its out_dim (``cat``; an
    ``out_dims`` tree as in ``_unbatch_outputs``).  An output with out_dim None is the
    first chunk's."""
    ### BEGIN SOLUTION 13.3
    from .. import cat
    flats = [tree_flatten(p) for p in pieces]
    spec = flats[0][1]
    if isinstance(out_dims, int) or out_dims is None:
        dims = [out_dims] * len(flats[0][0])
    else:
        dims = broadcast_to_tree(out_dims, spec, "out_dims", fname)
    joined = []
    for i, d in enumerate(dims):
        parts = [f[0][i] for f in flats]
        joined.append(parts[0] if d is None else cat(parts, d))
    return tree_unflatten(joined, spec)
    ### END SOLUTION 13.3
