"""Anomaly mode: find the forward operation whose backward produced nan (chapter 5).

With anomaly detection on, every recorded node keeps the stack of the Python
code that created it (``node.metadata["traceback_"]``), and the engine checks
each gradient a node returns.  The first nan stops backward with an error
naming the node, after a warning that shows where its forward ran: that is
usually the line to fix (a ``log(0)``, a ``sqrt`` at 0, a division by 0).
It slows everything down, so turn it on only to debug.
"""

import os
import traceback
import warnings

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled"]


class _AnomalyState:
    """One switch for the whole process, as in PyTorch."""
    enabled = False
    check_nan = True


_state = _AnomalyState()


def is_anomaly_enabled():
    return _state.enabled


def is_anomaly_check_nan_enabled():
    return _state.check_nan


class set_detect_anomaly:
    """Turn anomaly detection on or off: at once, or for a ``with`` block."""

    def __init__(self, mode, check_nan=True):
        self.prev = (_state.enabled, _state.check_nan)
        _state.enabled, _state.check_nan = bool(mode), bool(check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _state.enabled, _state.check_nan = self.prev
        return False


class detect_anomaly:
    """Context manager and decorator that turns anomaly detection on inside it."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        self.prev = (_state.enabled, _state.check_nan)
        _state.enabled, _state.check_nan = True, self.check_nan
        return self

    def __exit__(self, *exc):
        _state.enabled, _state.check_nan = self.prev
        return False

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def run_detecting(*args, **kwargs):
            with self.__class__(self.check_nan):
                return func(*args, **kwargs)
        return run_detecting


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def remember_forward(node):
    """Keep the stack of the code that is recording ``node`` (anomaly mode only): the
    caller's frames, up to the line that called into minitorch, as PyTorch shows them."""
    frames = traceback.extract_stack()
    while frames and os.path.abspath(frames[-1].filename).startswith(_PACKAGE + os.sep):
        frames.pop()
    node.metadata["traceback_"] = traceback.format_list(frames)


def run_backward(node, grad_outputs):
    """``node``'s backward, under anomaly mode: if it raises, first warn where its
    forward ran (the error is often an in-place change of a tensor it saved)."""
    try:
        return node._forward_cls.backward(node, *grad_outputs)
    except Exception:
        warn_forward_trace(node)
        raise


def warn_forward_trace(node):
    """The warning that shows the code whose backward failed, as PyTorch words it."""
    stack = node.metadata.get("traceback_") if hasattr(node, "metadata") else None
    if stack:
        where = "Traceback of forward call that caused the error:\n" + "".join(stack)
    else:
        where = ("No forward pass information available. Enable detect anomaly during "
                 "forward pass for more information.")
    warnings.warn(f"Error detected in {node.name()}. {where}", UserWarning, stacklevel=3)


def check_gradients(node, grads):
    """Raise if a gradient ``node`` returned holds nan, after showing where its forward ran."""
    if not _state.check_nan:
        return
    for i, g in enumerate(grads):
        if g is not None and g._data.dtype.kind == "f" and g.isnan().any():
            warn_forward_trace(node)
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th "
                               "output.")
