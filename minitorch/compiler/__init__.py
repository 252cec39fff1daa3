"""``minitorch.compiler``: the public switches of ``minitorch.compile`` (chapter 19)."""

__all__ = ["reset", "disable", "is_compiling", "is_dynamo_compiling", "list_backends"]


def reset():
    """Forget every captured graph (``minitorch._dynamo.reset``)."""
    from .._dynamo import reset as _reset
    _reset()


def disable(fn=None, recursive=True, *, reason=None):
    """Never compile ``fn``: inside a compiled call it runs as written (a graph break)."""
    from .._dynamo import disable as _disable
    return _disable(fn, recursive, reason=reason)


def is_compiling():
    """True while minitorch.compile is capturing a call (code can take another path)."""
    import sys
    capture = sys.modules.get("minitorch._dynamo.capture")
    return capture is not None and capture.live_capture() is not None


is_dynamo_compiling = is_compiling


def list_backends(exclude_tags=("debug", "experimental")):
    from .._dynamo import list_backends as _list
    return _list(exclude_tags)
