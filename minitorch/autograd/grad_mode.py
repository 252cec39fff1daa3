"""Grad modes: switches that decide whether operations are recorded (chapter 5).

Every operation asks one question before it builds a graph node: "is grad
mode on in *this thread*?"  The answer lives in a ``threading.local`` so that a
``no_grad()`` block in one thread never changes what another thread records.

* ``no_grad`` / ``enable_grad`` / ``set_grad_enabled`` flip grad mode.
* ``inference_mode`` also turns grad mode off, and marks the tensors it makes
  as inference tensors, which autograd refuses to record later.

Each is a context manager and also a decorator; a decorated function runs in
the mode each time it is called, and decorating changes nothing by itself.
``Module.eval()`` is *not* a grad mode: it only changes how layers such as
Dropout behave.
"""

import functools
import inspect
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
           "inference_mode", "is_inference_mode_enabled"]


class _GradState(threading.local):
    """Per-thread flags; every new thread starts with grad mode on."""
    enabled = True
    inference = False


_state = _GradState()

# How many inference_mode blocks are open, in all threads.  While none is, an operation
# need not read this thread's inference flag: reading a threading.local costs about as
# much as a small numpy call, and every operation under no_grad would pay it.
_inference_blocks = [0]
_inference_lock = threading.Lock()


def inference_may_be_on():
    """Is inference mode on in this thread?  Reads the thread's flag only while some
    thread is inside ``inference_mode`` (the operations' check, chapter 5)."""
    return _inference_blocks[0] and _state.inference


def is_grad_enabled():
    """True when operations in this thread are being recorded for backward."""
    return _state.enabled


def is_inference_mode_enabled():
    """True inside an ``inference_mode()`` block of this thread."""
    return _state.inference


class _Mode:
    """A grad-mode switch: a context manager that also decorates functions.

    Subclasses say which flags they set in ``_switch_on`` and restore the
    previous ones on exit.  As a decorator it makes a fresh copy of itself for
    every call, so the decorated function may be re-entered or run in threads.
    """

    def __enter__(self):
        ### BEGIN SOLUTION 5.1
        self._saved = (_state.enabled, _state.inference)
        self._switch_on()
        ### END SOLUTION 5.1
        return None

    def __exit__(self, *exc):
        ### BEGIN SOLUTION 5.1
        _state.enabled, _state.inference = self._saved
        ### END SOLUTION 5.1
        return False

    def _switch_on(self):
        raise NotImplementedError

    def clone(self):
        return self.__class__()

    def __call__(self, func):
        if inspect.isclass(func):
            raise TypeError(f"{type(self).__name__} can decorate functions, not classes")
        if inspect.isgeneratorfunction(func):
            return self._wrap_generator(func)

        @functools.wraps(func)
        def run_in_mode(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return run_in_mode

    def _wrap_generator(self, func):
        @functools.wraps(func)
        def generate_in_mode(*args, **kwargs):
            generator = func(*args, **kwargs)
            with self.clone():
                response = generator.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    generator.close()
                    raise
                with self.clone():
                    response = generator.send(request)
        return generate_in_mode


class _NoArgumentMode(_Mode):
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

    def _switch_on(self):
        _state.enabled = False


class enable_grad(_NoArgumentMode):
    """Turn grad mode back on inside a ``no_grad`` block."""

    def _switch_on(self):
        _state.enabled = True


class set_grad_enabled(_Mode):
    """Set grad mode to ``mode``.

    Called as a function it takes effect at once; as a context manager it
    restores the mode of before the call on exit (``with set_grad_enabled(is_train):``);
    as a decorator it sets the mode only while the function runs.
    """

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be "
                            f"bool, not {type(mode).__name__}. Pass True or False.")
        self.mode = mode
        self.prev = _state.enabled
        _state.enabled = mode

    def __call__(self, func):
        _state.enabled = self.prev          # decorating must not change the mode
        return super().__call__(func)

    def __enter__(self):
        _state.enabled = self.mode

    def __exit__(self, *exc):
        _state.enabled = self.prev
        return False

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_Mode):
    """No-grad mode's stricter sibling.

    Inside it nothing is recorded, and every tensor created is an *inference
    tensor*: using one later in an operation that autograd records raises a
    RuntimeError.  ``inference_mode(False)`` switches inference mode off and grad
    mode on inside the block (inside an ``inference_mode()`` block it makes normal
    tensors again), as in PyTorch.
    """

    def __new__(cls, mode=True):
        mode_switch = super().__new__(cls)
        if callable(mode):                  # used bare, as @inference_mode
            mode_switch.__init__(True)
            return mode_switch(mode)
        return mode_switch

    def __init__(self, mode=True):
        if not isinstance(mode, bool):
            raise TypeError(f"inference_mode expects a bool (True or False), "
                            f"got {type(mode).__name__}")
        self.mode = mode

    def __enter__(self):
        result = super().__enter__()        # counted once the flags are switched
        with _inference_lock:
            _inference_blocks[0] += 1
        return result

    def __exit__(self, *exc):
        try:
            return super().__exit__(*exc)
        finally:
            with _inference_lock:
                _inference_blocks[0] -= 1

    def _switch_on(self):
        _state.enabled = not self.mode
        _state.inference = self.mode

    def clone(self):
        return self.__class__(self.mode)
