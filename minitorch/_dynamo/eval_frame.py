"""What ``minitorch.compile`` returns, and what it does on each call (chapter 19).

A compiled function's code keeps a *cache* of entries (shared, as in PyTorch, by every
``compile`` of the function: ``FrameCache``), each one captured call with its
*guards* (what the capture assumed: the inputs' shapes, dtypes and requires_grad,
grad mode, the modules' training flags) and its compiled graphs.  On a call:

1. the first entry whose guards hold is *replayed* (``Replay``);
2. if none holds, the call is captured (``capture.Capture``) and each of its graphs
   handed to the backend: a *recompile*, up to ``config.recompile_limit`` entries.

Replaying runs the function's Python again, but every op it asks for is *served*:
the first op of a graph runs the compiled graph, which computes all of that graph's
values at once, and each op then gets its value back after a check that it is the
same op on the same values as when captured.  So Python side effects happen as
written, and a call that takes another path (a different branch, another constant)
is noticed at the first op that differs: from there the call runs eagerly, and the
next call captures again.  Views are made again eagerly, so they share memory as
they would have; in-place changes are copied into their tensor when asked for.
"""

import functools
import inspect
import logging
import weakref

import numpy as np

from .._tensor import Tensor
from ..autograd import function, grad_mode
from ..autograd.function import _bind_arguments
from ..nn import Module
from ..ops import aten
from ..ops.aten import op_for
from . import capture as _capture
from . import config
from .exc import BackendCompilerFailed, RecompileError
from .guards import Guards, flatten_inputs
from ..fx.experimental.symbolic_shapes import SymInt, evaluate

__all__ = ["optimize", "OptimizedModule", "disable", "is_compiling", "reset_caches"]

log = logging.getLogger(__name__)   # PyTorch logs the recompile limit; it does not warn
_caches = weakref.WeakSet()     # every FrameCache alive, for reset()
_shared = weakref.WeakKeyDictionary()   # code (or module) -> backend -> FrameCaches
_frame_ids = [0]                # the next compiled function's number in messages (0/1: its
                                # first capture's second recompile); reset() starts again
_live_replay = [None]
_disabled = [0]


def is_compiling():
    """True while minitorch.compile captures a call."""
    return _capture.live_capture() is not None


class CompiledCode:
    """``fn`` compiled: the logic of a call, and the cache of captured calls (its
    code's ``FrameCache``, shared with the other compiles of ``fn``)."""

    def __init__(self, fn, backend, fullgraph=False, dynamic=None, module=None):
        from .backends import lookup_backend
        self.fn, self.module = fn, module
        self.backend = lookup_backend(backend)
        self.backend_name = backend if isinstance(backend, str) else \
            getattr(backend, "__name__", type(backend).__name__)
        self.fullgraph, self.dynamic = fullgraph, dynamic
        self.names = _argument_names(fn)
        self.cache = FrameCache.of(module if module is not None else _code_of(fn),
                                   self.backend, dynamic)

    # What is cached lives in the FrameCache, shared by every compile of the same code.
    entries = property(lambda self: self.cache.entries)     # newest first
    recompile_reasons = property(lambda self: self.cache.recompile_reasons)
    captures = property(lambda self: self.cache.captures,
                        lambda self, n: setattr(self.cache, "captures", n))
    frame_id = property(lambda self: self.cache.frame_id,
                        lambda self, n: setattr(self.cache, "frame_id", n))
    auto_dynamic = property(lambda self: self.cache.auto_dynamic,
                            lambda self, dims: setattr(self.cache, "auto_dynamic", dims))
    _warned = property(lambda self: self.cache.warned,
                       lambda self, flag: setattr(self.cache, "warned", flag))

    def __call__(self, *args, **kwargs):
        """One call of the compiled function (chapter 19, "Guards: what a graph
        assumes").

        Inside another compiled call, a capture, a replay or a transform (``_disabled``,
        ``_capture.live_capture()``, ``_live_replay``, ``function.transform_apply``),
        run ``self.fn`` as it is. Otherwise flatten the inputs, and try the cached
        entries newest first: the first whose guards pass (``entry.guards.check(flat,
        self.module)``) and that did not take another path last time is replayed
        (``_replay``). Each entry passed over gives a pair ``(entry, reason)``: its
        failed guard, or, when its guards pass but it took another path, "the last call
        that passed these guards took another path (an op differed from the capture, as
        a graph break can make it)". With ``config.recompile_limit`` entries already,
        log a warning once, as PyTorch does (not a Python warning): ``log.warning(self.
        _limit_message(<the first pair>))`` (the newest entry's reason), set
        ``self._warned``, and run ``self.fn``. Else,
        if entries were passed over: raise ``RecompileError`` with
        ``_recompile_message`` of the pairs when ``config.error_on_recompile`` is set;
        append the last pair's reason (the oldest entry's) to ``recompile_reasons``;
        with ``dynamic`` None and
        ``config.automatic_dynamic_shapes``, add every entry's ``size_changes`` to
        ``auto_dynamic``. Then capture and compile (``_capture_and_compile``)."""
        ### BEGIN SOLUTION 19.1
        if _disabled[0] or _capture.live_capture() is not None or \
                _live_replay[0] is not None or function.transform_apply[0] is not None:
            return self.fn(*args, **kwargs)         # inside another compiled call: inlined
        flat, names = flatten_inputs(args, kwargs, self.names)
        reasons = []
        for entry in self.entries:                  # newest first
            reason = entry.guards.check(flat, self.module)
            if reason is None and not entry.took_another_path:
                return self._replay(entry, args, kwargs, flat)
            if reason is None:
                reason = ("the last call that passed these guards took another path (an op "
                          "differed from the capture, as a graph break can make it)")
            reasons.append((entry, reason))
        if len(self.entries) >= config.recompile_limit:
            if not self._warned:
                log.warning(self._limit_message(reasons[0]))
                self._warned = True
            return self.fn(*args, **kwargs)
        if reasons:
            if config.error_on_recompile:
                raise RecompileError(self._recompile_message(reasons))
            self.recompile_reasons.append(reasons[-1][1])   # the oldest entry's
            if self.dynamic is None and config.automatic_dynamic_shapes:
                for entry in self.entries:
                    self.auto_dynamic |= entry.guards.size_changes(flat)
        return self._capture_and_compile(args, kwargs, flat, names)
        ### END SOLUTION 19.1

    def _replay(self, entry, args, kwargs, flat):
        """Replay ``entry``.  If the call takes another path, the entry is skipped next
        time and the entries it was preferred to get their chance again (so that a
        function whose branch goes both ways settles on one capture per path); when
        every entry whose guards pass has gone astray, the next call captures again."""
        result, derailed = entry.replay(self.fn, args, kwargs, flat)
        entry.took_another_path = derailed
        if derailed:
            for other in self.entries:
                if other is not entry and other.took_another_path and \
                        other.guards.check(flat, self.module) is None:
                    other.took_another_path = False
        return result

    def _limit_message(self, pair):
        """What is logged when the recompile limit is hit: PyTorch's first three lines,
        naming the newest entry's failed guard, and what to do."""
        entry, reason = pair
        code = _code_of(self.module.forward if self.module is not None else self.fn)
        where = f" ({code.co_filename}:{code.co_firstlineno})" if code else ""
        return "\n".join([
            f"minitorch._dynamo hit config.recompile_limit ({config.recompile_limit})",
            f"   function: '{getattr(code, 'co_name', '?')}'{where}",
            f"   last reason: {self.frame_id}/{entry.number}: {reason}",
            "It now runs without compiling: make the sizes that change dynamic "
            "(dynamic=True, mark_dynamic) or raise config.recompile_limit."])

    def _recompile_message(self, reasons):
        """PyTorch's words for the ``(entry, reason)`` pairs of ``__call__``, newest
        first: ``"Recompiling function <name> in <file>:<first line>"``, then
        ``"    triggered by the following guard failure(s):"``, then one line
        ``"    - <frame>/<entry.number>: <reason>"`` per pair, joined by newlines. The
        code is that of ``self.fn``, or of the module's ``forward`` for a compiled
        module (so ``<name>`` is ``forward``); ``<frame>`` is ``self.frame_id`` (taken from
        ``_next_frame_id()`` while it is still None)."""
        ### BEGIN SOLUTION 19.1
        if self.frame_id is None:
            self.frame_id = _next_frame_id()
        code = _code_of(self.module.forward if self.module is not None else self.fn)
        where = f" in {code.co_filename}:{code.co_firstlineno}" if code else ""
        lines = [f"Recompiling function {getattr(code, 'co_name', '?')}{where}",
                 "    triggered by the following guard failure(s):"]
        lines += [f"    - {self.frame_id}/{entry.number}: {reason}"
                  for entry, reason in reasons]
        return "\n".join(lines)
        ### END SOLUTION 19.1

    def dynamic_dims(self, flat):
        """Which dims of which inputs to capture as symbolic sizes, as a dict from an
        input's position in ``flat`` to the set of its dims (inputs with none left
        out): all of them with ``dynamic=True`` (sizes 0 and 1 stay fixed, as in
        PyTorch), those marked with ``mark_dynamic`` whatever ``dynamic`` is (PyTorch
        too makes them symbolic under ``dynamic=False``), and, with ``dynamic=None``
        (the default), those whose size changed before (``auto_dynamic``)."""
        ### BEGIN SOLUTION 19.1
        dims = {}
        for i, x in enumerate(flat):
            if not isinstance(x, Tensor):
                continue
            free = set(getattr(x, "_dynamo_dynamic_indices", ()))
            if self.dynamic:
                free |= {d for d, n in enumerate(x.shape) if n > 1}
            elif self.dynamic is None:
                free |= {d for j, d in self.auto_dynamic if j == i}
            if free:
                dims[i] = free
        return dims
        ### END SOLUTION 19.1

    def _capture_and_compile(self, args, kwargs, flat, names):
        if self.frame_id is None:
            self.frame_id = _next_frame_id()
        dynamic = self.dynamic_dims(flat)
        capture = _capture.Capture(self.fullgraph, dynamic)
        capture.inputs(flat, names)
        if self.module is not None:
            capture.module_state(self.module)
        with capture, _EngineCalls():
            result = self.fn(*args, **kwargs)
        capture.result = result
        entry = CacheEntry(Guards(flat, names, self.module, dynamic), capture,
                           self.captures)
        self.captures += 1
        for segment in entry.segments:
            examples = [v.tensor for v in segment.inputs]
            try:
                segment.compiled = self.backend(segment.graph_module, examples)
            except Exception as e:
                raise BackendCompilerFailed(self.backend_name, e) from e
        capture.forget_values()
        self.entries.insert(0, entry)
        return result

    def reset(self):
        self.cache.reset()


class FrameCache:
    """The captures of one function's code (chapter 19): as in PyTorch, every
    ``compile`` of the same function shares them (a module: of the same module), so a
    second ``compile(f)`` replays what the first captured, and the recompile count and
    limit are the function's, not the wrapper's.  Wrappers with another backend or
    ``dynamic`` keep their own (PyTorch keeps them in the same cache, guarded by a
    backend check that fails, so switching counts as a recompile there)."""

    def __init__(self):
        self.entries = []               # newest first
        self.captures = 0
        self.frame_id = None
        self.recompile_reasons = []
        self.auto_dynamic = set()       # (input position, dim) that changed size before
        self.warned = False
        _caches.add(self)

    @classmethod
    def of(cls, owner, backend, dynamic):
        """The cache of ``owner`` (a code object or a module) for this backend and
        ``dynamic``.  Held as long as the owner and the backend live (weakly), so a
        backend made for one call (a lambda) takes its captures with it."""
        try:
            per_backend = _shared.setdefault(owner, weakref.WeakKeyDictionary())
            caches = per_backend.setdefault(backend, {})
        except TypeError:               # no code of its own, or a backend that cannot
            return cls()                # be referred to weakly: a cache of its own
        if dynamic not in caches:
            caches[dynamic] = cls()
        return caches[dynamic]

    def reset(self):
        self.entries.clear()
        self.captures = 0
        self.frame_id = None
        self.recompile_reasons.clear()
        self.warned = False


def _next_frame_id():
    _frame_ids[0] += 1
    return _frame_ids[0] - 1


def _code_of(fn):
    fn = inspect.unwrap(getattr(fn, "__func__", fn))
    return getattr(fn, "__code__", None)


class CacheEntry:
    """One captured call: its guards, steps and compiled segments."""

    def __init__(self, guards, capture, number=0):
        self.guards, self.number = guards, number     # number: in messages, 0/number
        self.steps = capture.steps
        self.breaks = capture.breaks
        self.segments = _capture.segments_of(capture)
        self.bound = [v for v in capture.values if v.kind in ("param", "buffer", "external")]
        self.inputs = [v for v in capture.values if v.kind == "input"]
        self.misses = 0
        self.took_another_path = False

    def replay(self, fn, args, kwargs, flat):
        """Run ``fn`` served from this entry: its result, and whether it took another
        path than the capture (then it finished eagerly)."""
        replay = Replay(self, flat)
        with replay:
            result = fn(*args, **kwargs)
        if replay.derailed:
            self.misses += 1
        return result, bool(replay.derailed)


class Replay:
    """One call served from a cache entry (see the module's docstring)."""

    def __init__(self, entry, flat):
        self.entry, self.steps = entry, entry.steps
        self.value = {}             # Value index -> tensor of this call
        self.index_of = {}          # id(tensor) -> Value index
        self.computed = set()
        self.pos = 0
        self.derailed = None
        for v in entry.inputs:
            self._bind(v.index, flat[v.position])
        for v in entry.bound:
            self._bind(v.index, v.tensor)

    def __enter__(self):
        self._saved = function.transform_apply[0]
        function.transform_apply[0] = self.apply
        _live_replay[0] = self
        self._engine = _EngineCalls().__enter__()
        self._methods = aten.patch_methods().__enter__()
        return self

    def __exit__(self, *exc):
        self._methods.__exit__()
        self._engine.__exit__()
        function.transform_apply[0] = self._saved
        _live_replay[0] = None

    def eager_call(self, fn, args, kwargs):
        """A call the capture ran as written (``disable``, ``backward``): run it so."""
        step = self.steps[self.pos] if self.pos < len(self.steps) else None
        if self.derailed is None and (step is None or step.how != "call"):
            self.derailed = "a call that was not captured"
        saved, _live_replay[0] = function.transform_apply[0], None
        function.transform_apply[0] = None
        try:
            result = fn(*args, **kwargs)
        finally:
            function.transform_apply[0], _live_replay[0] = saved, self
        if self.derailed is None:
            self.pos += 1
            self._bind_result(step.result, result)
        return result

    def _bind(self, index, t):
        self.value[index] = t
        self.index_of[id(t)] = index

    def apply(self, cls, args, kwargs):
        if kwargs:
            args = _bind_arguments(cls, args, kwargs)
        if self.derailed is not None:
            return _capture.run_unrecorded(cls, args)
        steps, pos = self.steps, self.pos
        step = steps[pos] if pos < len(steps) else None
        if step is None or step.op is not op_for(cls) or not self._same(step.args, args):
            return self._derail(cls, args, step)
        self.pos = pos + 1
        how = step.how
        if how == "view" or how == "eager":
            result = _capture.run_unrecorded(cls, args)
            self._bind_result(step.result, result)
            return result
        segment = step.segment
        if segment not in self.computed:
            if not self._compute(self.entry.segments[segment]):
                return self._derail(cls, args, step)
        if how == "copy_in":
            return self._copy_in(step, args)
        return self._served(step.result)

    def _same(self, spec, arg):
        """Is ``arg`` what the capture saw at this place?"""
        if isinstance(spec, SymInt):        # a size: computed again from this call's values
            return isinstance(arg, int) and evaluate(spec.expr, self._size_of) == arg
        if isinstance(spec, _capture.Value):
            if not isinstance(arg, Tensor):
                return False
            index = self.index_of.get(id(arg))
            if index == spec.index:
                return True
            if spec.kind == "alias":
                source = self.value.get(spec.source.index)
                if source is not None and arg._data is source._data:
                    self._bind(spec.index, arg)
                    return True
                return False
            if spec.kind == "external" and spec.snapshot is not None and index is None:
                return arg._data.shape == spec.snapshot.shape and \
                    arg._data.dtype == spec.snapshot.dtype and \
                    np.array_equal(arg._data, spec.snapshot)
            return False
        if isinstance(spec, _capture.ArrayOf):
            t = self.value.get(spec.value.index)
            return t is not None and arg is t._data
        if isinstance(spec, (list, tuple)):
            return isinstance(arg, (list, tuple)) and len(spec) == len(arg) and \
                all(self._same(s, a) for s, a in zip(spec, arg))
        if type(spec) is not type(arg):
            return False
        if isinstance(spec, np.ndarray):
            return spec.shape == arg.shape and spec.dtype == arg.dtype and \
                np.array_equal(spec, arg)
        return spec == arg or (spec != spec and arg != arg)       # nan is nan

    def _size_of(self, index, dim):
        return self.value[index]._data.shape[dim]

    def _compute(self, segment):
        """Run a segment's compiled graph (no interposer looking): all its values at once.
        If it fails, the call goes on eagerly, so that an error is raised by the op
        that raises it in eager mode."""
        if grad_mode.is_grad_enabled() != segment.grad_enabled:
            return False
        function.transform_apply[0] = None
        try:
            outputs = segment.compiled(*[self.value[v.index] for v in segment.inputs])
        except Exception:
            return False
        finally:
            function.transform_apply[0] = self.apply
        for v, t in zip(segment.outputs, outputs):
            self._bind(v.index, t)
        self.computed.add(segment.index)
        return True

    def _served(self, result):
        if isinstance(result, _capture.Value):
            return self.value[result.index]
        if isinstance(result, (tuple, list)):
            items = [self._served(r) for r in result]
            return type(result)(*items) if hasattr(result, "_fields") else type(result)(items)
        return result

    def _copy_in(self, step, args):
        """The in-place change the graph computed, written into the tensor now."""
        t = args[step.mutated]
        new = self.value[step.result.index]
        t._data[...] = new._data
        t._version_counter.version += 1
        self._bind(step.result.index, t)
        return t

    def _bind_result(self, spec, result):
        if isinstance(spec, _capture.Value):
            self._bind(spec.index, result)
        elif isinstance(spec, (tuple, list)):
            for s, r in zip(spec, result):
                self._bind_result(s, r)

    def _derail(self, cls, args, step):
        self.derailed = "an op differed from the capture" if step is not None else \
            "more ops than captured"
        return _capture.run_unrecorded(cls, args)


def _argument_names(fn):
    """The names ``flatten_inputs`` gives positional arguments: ``fn``'s parameters up
    to a ``*rest`` (written with its star); none when the signature cannot be read."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return []
    names = []
    for p in params:
        if p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD):
            break
        names.append("*" + p.name if p.kind is p.VAR_POSITIONAL else p.name)
    return names


# ----- the public wrappers ------------------------------------------------------------------------
def optimize(fn, backend="inductor", fullgraph=False, dynamic=None, module=None):
    """A function that runs ``fn`` compiled (``minitorch.compile`` on a function)."""
    code = CompiledCode(fn, backend, fullgraph, dynamic, module)

    @functools.wraps(fn)
    def compiled(*args, **kwargs):
        return code(*args, **kwargs)
    compiled._minitorch_compiled = code
    compiled._torchdynamo_orig_callable = fn
    return compiled


class OptimizedModule(Module):
    """A module compiled by ``minitorch.compile(module)``: calling it runs the compiled
    ``module(...)``.  The module itself is ``_orig_mod`` (so the state dict's keys start
    with ``_orig_mod.``); other attributes are read from it."""

    def __init__(self, mod, backend="inductor", fullgraph=False, dynamic=None):
        super().__init__()
        self._orig_mod = mod
        code = CompiledCode(mod.__call__, backend, fullgraph, dynamic, module=mod)
        code.names = _argument_names(mod.forward)
        object.__setattr__(self, "_compiled", code)

    def forward(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def __getattr__(self, name):
        if name in ("_orig_mod", "_parameters", "_buffers", "_modules"):
            return super().__getattr__(name)
        return getattr(self._orig_mod, name)


def disable(fn=None, recursive=True, *, reason=None):
    """``fn`` never compiled: inside a compiled call it runs as written, between two
    graphs (a graph break)."""
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason)

    @functools.wraps(fn)
    def not_compiled(*args, **kwargs):
        return eager_call(fn, args, kwargs)
    not_compiled._torchdynamo_disable = True
    return not_compiled


def eager_call(fn, args, kwargs):
    """Run ``fn`` as written, outside any capture or replay: a step of its own."""
    capture, replay = _capture.live_capture(), _live_replay[0]
    if capture is not None:
        return capture.eager_call(fn, args, kwargs)
    if replay is not None:
        return replay.eager_call(fn, args, kwargs)
    _disabled[0] += 1
    try:
        return fn(*args, **kwargs)
    finally:
        _disabled[0] -= 1


class _EngineCalls:
    """While capturing or replaying, ``backward`` and ``autograd.grad`` run as eager
    calls: the engine reads values, so a graph cannot hold it (PyTorch breaks the
    graph there too)."""

    def __enter__(self):
        from .. import autograd
        self.saved = (Tensor.backward, autograd.backward, autograd.grad)
        backward, grad = autograd.backward, autograd.grad
        Tensor.backward = lambda *a, **k: eager_call(self.saved[0], a, k)
        autograd.backward = lambda *a, **k: eager_call(backward, a, k)
        autograd.grad = lambda *a, **k: eager_call(grad, a, k)
        return self

    def __exit__(self, *exc):
        from .. import autograd
        Tensor.backward, autograd.backward, autograd.grad = self.saved


def reset_caches():
    for code in list(_caches):
        code.reset()
    _frame_ids[0] = 0



_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def compile_model(model=None, *, fullgraph=False, dynamic=None, backend=None,
                  mode=None, options=None, disable=False):
    """``minitorch.compile``: a compiled function, an ``OptimizedModule``, or (called
    without a model) a decorator.  ``backend=None`` means ``"inductor"``."""
    if backend is None:
        backend = "inductor"
    if model is None:
        return functools.partial(compile_model, fullgraph=fullgraph, dynamic=dynamic,
                                 backend=backend, mode=mode, options=options,
                                 disable=disable)
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is "
                             "provided.")
    if disable:
        return model
    from .backends import lookup_backend
    lookup_backend(backend)                 # an unknown name fails now, not at the call
    if options:
        backend = functools.partial(lookup_backend(backend), **options)
    if isinstance(model, Module):
        return OptimizedModule(model, backend, fullgraph, dynamic)
    return optimize(model, backend, fullgraph, dynamic)
