"""Where ``Function.apply`` goes while a transform is live (chapters 12 and 13).

Outside of ``forward_ad.dual_level`` and ``func.vmap``, ``function.transform_apply``
holds None and every op takes its usual path.  Inside, it holds ``transform_apply``
below, which decides, like a small interpreter, who handles the call:

1. an argument is a ``BatchedTensor`` of a live vmap level: the op's *batching rule*
   (``minitorch.func.batching_rules``) runs it on the batched values underneath;
2. an argument carries a tangent of a visible dual level: the op runs on the primals
   and its *jvp rule* (``forward_rules``) computes the tangent;
3. otherwise the op runs as usual.

The rules themselves call ordinary ops, which come back here: that is how vmap
of vmap, and forward mode over a batched tangent, compose.
"""

from . import function

vmap_levels = []            # the live vmap levels (BatchedTensor levels), innermost last
batched_apply = [None]      # set by minitorch.func._vmap


def refresh():
    from .forward_ad import _levels
    live = bool(_levels.live) or bool(vmap_levels)
    function.transform_apply[0] = transform_apply if live else None


def plain_apply(cls, args):
    """Run ``cls`` the usual way (no transform sees this call; its forward may still
    call ops, which a custom Function's forward does, and those are seen)."""
    saved = function.transform_apply[0]
    function.transform_apply[0] = None
    try:
        if issubclass(cls, _builtin()):
            return cls.apply(*args)
        function.transform_apply[0] = saved
        return cls._apply_with_ctx(args, {})[0]
    finally:
        function.transform_apply[0] = saved


_builtin_cls = []


def _builtin():
    if not _builtin_cls:
        from ..ops._common import BuiltinFunction
        _builtin_cls.append(BuiltinFunction)
    return _builtin_cls[0]


def transform_apply(cls, args, kwargs):
    from . import forward_ad
    if kwargs:
        from .function import _bind_arguments
        args = _bind_arguments(cls, args, kwargs)
    if vmap_levels and batched_apply[0] is not None:
        if batched_apply[0].pending_draw[0]:
            batched_apply[0].refuse_shared_draw(cls, args)
        level = batched_apply[0].top_level(args)
        if level is not None:
            return batched_apply[0](cls, args, level)
    if forward_ad.has_tangents(args):
        return forward_ad.apply_with_tangents(cls, args, plain_apply)
    return plain_apply(cls, args)
