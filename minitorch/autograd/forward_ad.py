"""Forward-mode automatic differentiation: dual tensors (chapter 12).

Reverse mode (chapters 4 to 6) records the graph and walks it backwards once
per output.  Forward mode walks *with* the computation: each tensor may carry a
tangent, the directional derivative of its value along a chosen direction, and
every op computes its output's tangent from its inputs' tangents at the moment it
runs.  A Jacobian-vector product then costs one forward pass, and nothing is
stored for later.

The API is PyTorch's::

    with forward_ad.dual_level():
        x = forward_ad.make_dual(primal, tangent)
        y = f(x)
        y_primal, y_tangent = forward_ad.unpack_dual(y)

How an op finds its tangent: while a dual level is live, every
``Function.apply`` is handed to ``transform_apply`` below (one check of a
global list; nothing else changes on the usual path).  If an argument carries a
tangent of the level, the op runs as usual on the primal values and then the
op's *jvp rule*, looked up in ``forward_rules.JVP_RULES``, computes the output's
tangent with ordinary tensor ops.  Because those ops are ordinary, they are
recorded by reverse mode when the primals require grad (reverse over forward),
and a rule's ops see the tangents of lower levels (forward over forward, used
by ``minitorch.func.jvp`` inside another ``jvp``).

Levels: a tangent is kept per level, in ``tensor._fw_grads`` (a dict).  The
public API allows one level at a time, as PyTorch's does;
``minitorch.func`` nests them.  Tangents of a level are dropped when it exits.

Cost: a written rule costs a few elementwise ops per op; the fallback rule
(``forward_rules.through_backward``) reruns the op and two backward passes.
The state of the levels is global (not per thread, unlike grad mode).
"""

import collections
import weakref

import numpy as np

from .._tensor import Tensor
from . import function

__all__ = ["dual_level", "make_dual", "unpack_dual", "enter_dual_level", "exit_dual_level",
           "UnpackedDualTensor"]


class UnpackedDualTensor(collections.namedtuple("UnpackedDualTensor", ["primal", "tangent"])):
    """What ``unpack_dual`` returns: the primal (a view without tangent) and the tangent."""
    __slots__ = ()


class _Levels:
    """The live dual levels (innermost last), the levels a jvp rule may see, and the
    tensors that hold a tangent of each level (to drop them when the level exits)."""

    def __init__(self):
        self.live = []
        self.visible = []
        self.holders = {}
        self.next_id = 0


_levels = _Levels()


def _refresh_transform():
    """Hand every ``apply`` to ``transform_apply`` while any transform is live."""
    from . import _interpose
    _interpose.refresh()


def enter_dual_level():
    """Open a new dual level and return its number.  Only one may be open at a time."""
    if _levels.live and not _nesting_allowed[0]:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    return _push_level()


_nesting_allowed = [False]       # set by minitorch.func, whose jvp nests levels


def _push_level():
    _levels.next_id += 1
    level = _levels.next_id
    _levels.live.append(level)
    _levels.visible.append(level)
    _levels.holders[level] = weakref.WeakSet()
    _refresh_transform()
    return level


def exit_dual_level(*, level=None):
    """Close a dual level: every tangent of that level is dropped."""
    if level is None:
        level = _levels.live[-1] if _levels.live else -1
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if not _levels.live or level != _levels.live[-1]:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one "
                           "that was created. This is not supported.")
    _levels.live.pop()
    _levels.visible.remove(level)
    for t in list(_levels.holders.pop(level)):
        grads = t._fw_grads
        if grads is not None:
            grads.pop(level, None)
    _refresh_transform()


class dual_level:
    """Context manager: ``with dual_level():`` opens a level and closes it at the end."""

    def __enter__(self):
        self.level = enter_dual_level()
        return self.level

    def __exit__(self, *exc):
        exit_dual_level(level=self.level)


def _current_level(level, what):
    if level is None:
        if not _levels.live:
            return None
        return _levels.live[-1]
    if level not in _levels.live:
        raise RuntimeError(f"Invalid level given to {what}")
    return level


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` that carries ``tangent`` at the current dual level."""
    from ..func import _vmap
    if _vmap.is_batched(tensor):
        return _vmap.make_dual_batched(tensor, tangent, level)
    level = _current_level(level, "_make_dual")
    if level is None:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    if not isinstance(tensor, Tensor):
        raise TypeError(f"make_dual(): argument 'tensor' must be Tensor, not "
                        f"{type(tensor).__name__}")
    if not isinstance(tangent, Tensor):
        raise AttributeError(f"'{type(tangent).__name__}' object has no attribute "
                             "'is_floating_point'")
    if not tensor.is_floating_point():
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    if not tangent.is_floating_point():
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype}")
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}.")
    dual = _plain_view(tensor, level)
    set_tangent(dual, level, tangent)
    return dual


def _plain_view(tensor, level):
    """``tensor.view_as(tensor)``: a new tensor object, with the tangents of other levels
    than ``level``."""
    saved = function.transform_apply[0]
    function.transform_apply[0] = None
    try:
        view = tensor.view_as(tensor)
    finally:
        function.transform_apply[0] = saved
    view._fw_grads = None
    view._tangent_free_alias = True     # its tangents are its own, not its base's
    for other, tangent in (tensor._fw_grads or {}).items():
        if other != level and other in _levels.holders:
            set_tangent(view, other, tangent)
    return view


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)``: a view of ``tensor`` without tangent, and its tangent at the
    current level (None if it has none, or if no level is open)."""
    from ..func import _vmap
    if _vmap.is_batched(tensor):
        return _vmap.unpack_dual_batched(tensor, level)
    if not isinstance(tensor, Tensor):
        return UnpackedDualTensor(tensor, None)
    level = _current_level(level, "_unpack_dual")
    if level is None:
        return UnpackedDualTensor(tensor, None)
    tangent = tangent_of(tensor, level)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(_plain_view(tensor, level), tangent)


# ----- tangents on tensors --------------------------------------------------------------
def tangent_of(t, level):
    """``t``'s tangent at ``level``.  A view without one of its own looks into its base's
    tangent, as it looks into its base's memory (see "Views share their tangents")."""
    if not isinstance(t, Tensor):
        return None
    grads = t._fw_grads
    if grads is not None and level in grads:
        return grads[level]
    base = t._base
    if base is not None and base._fw_grads and level in base._fw_grads:
        return _tangent_through_base(t, base, level)
    return None


def set_tangent(t, level, tangent):
    grads = t._fw_grads
    if grads is None:
        grads = t._fw_grads = {}
    grads[level] = tangent
    _levels.holders[level].add(t)


def has_tangents(args):
    """Does an argument carry a tangent of a level a rule may now see?"""
    visible = _levels.visible
    if not visible:
        return False
    for a in args:
        if isinstance(a, Tensor):
            grads = a._fw_grads
            if not grads and a._base is not None:
                grads = a._base._fw_grads        # a view sees its base's tangent
            if grads:
                for level in grads:
                    if level in visible and tangent_of(a, level) is not None:
                        return True
    return False


# ----- views share their tangents ---------------------------------------------------------
# A view looks into its base's memory; in forward mode its tangent looks into its base's
# tangent the same way, so that an in-place change through the view (``buf[0].copy_(x)``)
# moves the base's tangent too, and every view of the base, made before or after, sees it.
# Aliases made by ``detach()`` and ``unpack_dual`` are views without tangents.
def _tangent_through_base(view, base, level):
    """The part of ``base``'s tangent that ``view`` covers, as a view of it (kept as
    ``view``'s tangent); None for an alias that has no tangent by design, or a view
    whose memory is not laid out inside its base's."""
    if view._tangent_free_alias or _is_batched(view):
        return None
    base_tangent = base._fw_grads[level]
    if _is_batched(base_tangent):
        return None
    array = _same_place(view._data, base._data, base_tangent._data)
    if array is None:
        return None
    tangent = Tensor._wrap(array)
    tangent._base = base_tangent if base_tangent._base is None else base_tangent._base
    tangent._version_counter = base_tangent._version_counter
    set_tangent(view, level, tangent)
    return tangent


def _same_place(view, base, other):
    """The elements of ``other`` (laid out as ``base``) at the places ``view`` covers in
    ``base``'s memory, as a view of ``other``; None if the layouts differ or ``view``
    lies outside ``base``."""
    if other.strides != base.strides or other.shape != base.shape \
            or other.dtype.itemsize != base.dtype.itemsize:
        return None
    low, high = _byte_bounds(base)
    if view.size and not (low <= _byte_bounds(view)[0] and _byte_bounds(view)[1] <= high):
        return None
    shift = _address(view) - _address(base)
    return _array_at(other, _address(other) + shift, view.shape, view.strides)


def _zeros_laid_out_as(array):
    """Zeros with ``array``'s shape, dtype and strides (so a view of ``array`` has a
    matching view of them)."""
    low, high = _byte_bounds(array)
    memory = np.zeros(max(high - low, 1), dtype=np.uint8)
    first = _address(memory) + (_address(array) - low)
    return _array_at(memory, first, array.shape, array.strides, array.dtype)


def _byte_bounds(array):
    """The first byte ``array`` uses and one past its last (numpy's ``byte_bounds``)."""
    low = high = _address(array)
    for size, stride in zip(array.shape, array.strides):
        if size == 0:
            return low, low
        if stride < 0:
            low += (size - 1) * stride
        else:
            high += (size - 1) * stride
    return low, high + array.dtype.itemsize


def _address(array):
    return array.__array_interface__["data"][0]


class _Memory:
    """What ``np.asarray`` reads an array from: an address inside ``owner``'s memory, a
    shape and strides (``owner`` stays alive as long as the array does)."""

    def __init__(self, interface, owner):
        self.__array_interface__ = interface
        self.base = owner


def _array_at(owner, address, shape, strides, dtype=None):
    dtype = owner.dtype if dtype is None else dtype
    interface = {"data": (address, not owner.flags.writeable), "shape": tuple(shape),
                 "strides": tuple(strides), "typestr": dtype.str, "version": 3}
    return np.asarray(_Memory(interface, owner))


def _is_batched(t):
    return getattr(t, "_value", None) is not None


def _tangent_for_changed_view(view, level):
    """An in-place op gives a tangent to a view whose base has none: the base gets a zero
    tangent, and the view's tangent is the part of it the view covers."""
    base = view._base
    if base is None or view._tangent_free_alias or _is_batched(view) \
            or not base.is_floating_point():
        return None
    zeros = Tensor._wrap(_zeros_laid_out_as(base._data))
    if _same_place(view._data, base._data, zeros._data) is None:
        return None
    set_tangent(base, level, zeros)
    return _tangent_through_base(view, base, level)


def copy_tangents(source, target):
    """Give ``target`` the tangents ``source`` has (an alias made for a transform).  Under
    vmap both are BatchedTensors whose tangents live on the values underneath: those are
    copied, level by level."""
    s, t = source, target
    while True:
        if s._fw_grads:
            for level, tangent in s._fw_grads.items():
                set_tangent(t, level, tangent)
        inner_s, inner_t = getattr(s, "_value", None), getattr(t, "_value", None)
        if inner_s is None or inner_t is None:
            return target
        s, t = inner_s, inner_t


# ----- the forward-mode step of every op ------------------------------------------------
def apply_with_tangents(cls, args, plain_apply):
    """Run the op on the primals, then each visible level's jvp rule, outermost first.

    A rule for level L runs with only the levels below L visible: its ops compute
    L's tangent, and carry the lower levels' tangents of it (second derivatives).
    """
    from . import forward_rules
    levels = [lv for lv in _levels.visible if _any_tangent(args, lv)]
    rule = forward_rules.rule_for(cls)
    before = forward_rules.inputs_before(cls, args)
    if getattr(cls, "_setup_context_style", None) is not None and \
            not forward_rules.is_builtin(cls):
        outputs, ctx = _apply_custom(cls, args, plain_apply)
        rule = forward_rules.custom_function_rule(ctx)
    else:
        outputs = plain_apply(cls, args)
    visible = _levels.visible
    try:
        for level in levels:
            _levels.visible = [lv for lv in visible if lv < level]
            tangents = [tangent_of(a, level) for a in args]
            result = rule(before, tangents, outputs, args)
            _attach(outputs, result, level, cls)
    finally:
        _levels.visible = visible
    return outputs


def _apply_custom(cls, args, plain_apply):
    """A user's Function: run it as usual, keeping the ctx for its ``jvp``."""
    saved = function.transform_apply[0]
    function.transform_apply[0] = None
    try:
        return cls._apply_with_ctx(args, {})
    finally:
        function.transform_apply[0] = saved


def _any_tangent(args, level):
    return any(tangent_of(a, level) is not None for a in args)


def _attach(outputs, result, level, cls):
    """Set each output's tangent; an output that was an input changed in place gets the
    new tangent written into its existing one, so that views of it see the change."""
    outs = outputs if type(outputs) is tuple else (outputs,)
    tans = result if type(result) is tuple else (result,)
    for out, tan in zip(outs, tans):
        if tan is None or not isinstance(out, Tensor) or not out.is_floating_point():
            continue
        if tan.dtype != out.dtype:
            tan = tan.to(out.dtype)
        if _changes_in_place(cls):          # maybe through a view of a tensor
            old = tangent_of(out, level)
            if old is None:
                old = _tangent_for_changed_view(out, level)
        else:                               # a new tensor: the rule's tangent is its own
            old = (out._fw_grads or {}).get(level)
        if old is not None and old is not tan and old.shape == tan.shape:
            _write_into(old, tan)
        else:
            set_tangent(out, level, tan)
        _keep_for_saved_output(out, level)


def _changes_in_place(cls):
    """Does ``cls`` change its first input in place (and return it)?"""
    from .forward_rules import INPLACE
    return cls in INPLACE


def _write_into(old, new):
    saved = _levels.visible
    _levels.visible = []
    try:
        from .grad_mode import no_grad
        with no_grad():
            old.copy_(new)
    finally:
        _levels.visible = saved


def _keep_for_saved_output(out, level):
    """A node that saved ``out`` keeps its memory, not the object: give the saved entry
    the tangents too, so that a backward run inside the level sees them (forward over
    reverse, as in a Hessian-vector product)."""
    node = out._grad_fn
    saved = getattr(node, "_saved", None) if node is not None else None
    if not saved:
        return
    for entry in saved:
        if entry is not None and entry.output_nr == out._output_nr and entry.tensor is None:
            # graph-free aliases: a tangent's own graph may hold ``out`` (``t * out``),
            # and through it this entry: a cycle
            entry.tangents = {level: copy_tangents(t, t.detach())
                              for level, t in out._fw_grads.items()}
