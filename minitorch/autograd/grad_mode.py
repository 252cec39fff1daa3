"""Grad modes: switches that decide whether operations are recorded (chapter 3).

Every operation asks one question before it builds a graph node: "is grad
mode on in *this thread*?"  The answer lives in a ``threading.local`` so that a
``no_grad()`` block in one thread never changes what another thread records.

* ``no_grad`` / ``enable_grad`` / ``set_grad_enabled`` flip grad mode.
* ``inference_mode`` also turns grad mode off, and marks the tensors it makes
  as inference tensors, which autograd refuses to record later.

Each is a context manager and also a decorator.  ``Module.eval()`` is *not* a
grad mode: it only changes how layers such as Dropout behave.
"""

import functools
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
           "inference_mode", "is_inference_mode_enabled"]


class _GradState(threading.local):
    """Per-thread flags; every new thread starts with grad mode on."""
    enabled = True
    inference = False


_state = _GradState()


def is_grad_enabled():
    """True when operations in this thread are being recorded for backward."""
    return _state.enabled


def is_inference_mode_enabled():
    return _state.inference


class _ModeContext:
    """Base for the grad-mode switches: a context manager that also decorates functions."""

    def __call__(self, func):
        @functools.wraps(func)
        def run_in_mode(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return run_in_mode

    def clone(self):
        return self.__class__()


class _NoArgumentMode(_ModeContext):
    """A switch without arguments, usable as ``@no_grad()`` and also as bare ``@no_grad``."""

    def __new__(cls, func=None):
        mode = super().__new__(cls)
        return mode if func is None else mode(func)

    def __init__(self, func=None):
        pass


class no_grad(_NoArgumentMode):
    """Run a block (or a decorated function) without recording any operation.

    Results computed inside have ``requires_grad=False`` even when their inputs
    require grad.  Use it for evaluation and for updating parameters in place.
    """

    def __enter__(self):
        self.prev = _state.enabled
        _state.enabled = False

    def __exit__(self, *exc):
        _state.enabled = self.prev
        return False


class enable_grad(_NoArgumentMode):
    """Turn grad mode back on inside a ``no_grad`` block."""

    def __enter__(self):
        self.prev = _state.enabled
        _state.enabled = True

    def __exit__(self, *exc):
        _state.enabled = self.prev
        return False


class set_grad_enabled(_ModeContext):
    """Set grad mode to ``mode``.  Takes effect at once, and as a context manager
    restores the previous mode on exit: ``with set_grad_enabled(is_train): ...``"""

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled expects a bool (True or False), got {type(mode).__name__}")
        self.prev = _state.enabled
        self.mode = mode
        _state.enabled = mode

    def __enter__(self):
        _state.enabled = self.mode

    def __exit__(self, *exc):
        _state.enabled = self.prev
        return False

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_ModeContext):
    """No-grad mode's stricter sibling.

    Inside it nothing is recorded, and every tensor created is an *inference
    tensor*: using one later in an operation that autograd records raises a
    RuntimeError.  ``inference_mode(False)`` does nothing, as in PyTorch.
    """

    def __init__(self, mode=True):
        if not isinstance(mode, bool):
            raise TypeError(f"inference_mode expects a bool (True or False), got {type(mode).__name__}")
        self.mode = mode

    def __enter__(self):
        self.prev = (_state.enabled, _state.inference)
        if self.mode:
            _state.enabled = False
            _state.inference = True

    def __exit__(self, *exc):
        _state.enabled, _state.inference = self.prev
        return False

    def clone(self):
        return self.__class__(self.mode)
