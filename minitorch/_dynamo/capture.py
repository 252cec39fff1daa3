"""Capturing a call: run it once for real and record every op it makes (chapter 19).

PyTorch's dynamo reads a function's bytecode and interprets it symbolically.
minitorch takes a shorter road with what it already has: *every op passes through
``Function.apply``*, and ``apply`` hands the call to whoever sits in
``function.transform_apply`` (the interposition point of chapters 12-13).  While a
``Capture`` sits there, the function runs as usual, on real values, and each op it
makes becomes a ``Step``: which op, on which values, giving which values.

What a graph cannot hold is Python reading a value (``if x.sum() > 0``,
``x.item()``, ``print(x)``).  To notice it, the capture gives every tensor it tracks
a *stand-in* array: the same memory, but a numpy subclass that reports each read
(``_StandIn``), the way vmap's stand-ins refuse them (chapter 13).  Inside an op
the real arrays are swapped back in, so the op computes as usual.  A read is a
*graph break*: the steps before it and after it go to different graphs
(``segments``), and the value is read for real, so this first call finishes as
if nothing had happened.  With ``fullgraph=True`` a read is an error instead.

At the end, every tensor gets its real array back, and each segment becomes an fx
``Graph`` of ``minitorch.ops.aten`` calls (``segment_graph``): what a backend
compiles.
"""

import operator
import os
import re
import sys
import traceback

import numpy as np

from .._tensor import Tensor
from ..autograd import function, grad_mode
from ..autograd.function import _bind_arguments
from ..fx import Graph, GraphModule
from ..fx.graph import fake_value
from ..fx.node import has_side_effect
from ..fx.experimental.symbolic_shapes import SymInt, OPERATORS
from ..nn import Module
from ..ops import aten
from .exc import Unsupported

__all__ = ["Capture", "Step", "Value", "GraphBreak", "live_capture"]

_live = [None]          # the capture running now, if any


def live_capture():
    return _live[0]


# ----- stand-ins: the same memory, every read reported ------------------------------------
class _StandIn(np.ndarray):
    """A tracked tensor's array while a capture runs: numpy computations on it report a
    read of values, then compute on the real array."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if "out" in kwargs:
            if any(type(x) is _StandIn for x in kwargs["out"]):
                _write(f"minitorch's own code writing into a tensor outside an op "
                       f"(numpy.{ufunc.__name__}, as batch_norm does to running_mean in "
                       "training)")
            kwargs["out"] = tuple(_real(x) for x in kwargs["out"])
        internal = not _read(f"numpy.{ufunc.__name__} on a tensor's values")
        return _derived(getattr(ufunc, method)(*[_real(x) for x in inputs], **kwargs),
                        internal)

    def __array_function__(self, func, types, args, kwargs):
        internal = func in _NO_VALUES_READ or \
            not _read(f"numpy.{func.__name__} on a tensor's values")
        return _derived(func(*_reals(args), **_reals(kwargs)), internal)


class _Derived(np.ndarray):
    """An array computed by minitorch's own code from a tensor's values outside an op
    (batch_norm's batch statistics, say).  Used for a check, it is harmless; handed to
    an op, it is a value the graph did not compute, which ``Capture._spec`` treats as a
    graph break.  numpy keeps the class through further computations."""


def _derived(result, internal):
    if internal and _live[0] is not None and type(result) is np.ndarray:
        return result.view(_Derived)
    return result


def _shape(self):
    """A tracked array's shape; in a capture with dynamic sizes, SymInts."""
    capture = _live[0]
    if capture is not None:
        sym = capture.sym_shapes.get(id(self))
        if sym is not None:
            return sym
    return _NDARRAY_SHAPE.__get__(self)


_NDARRAY_SHAPE = np.ndarray.shape
_StandIn.shape = property(_shape, lambda self, value: _NDARRAY_SHAPE.__set__(self, value))

# numpy functions that look at shapes only.
_NO_VALUES_READ = {np.shape, np.ndim, np.size, np.result_type, np.may_share_memory,
                   np.shares_memory}


def _reading(name, what):
    method = getattr(np.ndarray, name)

    def read(self, *args, **kwargs):
        _read(what)
        return method(_real(self), *args, **kwargs)
    read.__name__ = name
    return read


_READS = {"__bool__": "data-dependent control flow: a tensor's value decides an if or "
                      "a while (Tensor.__bool__)",
          "item": "Tensor.item(): a tensor's value as a Python number",
          "tolist": "Tensor.tolist(): a tensor's values as Python numbers",
          "__float__": "float() of a tensor", "__int__": "int() of a tensor",
          "__index__": "a tensor used as a Python index", "__complex__": "complex() of a tensor",
          "__repr__": "printing a tensor's values", "__str__": "printing a tensor's values",
          "__format__": "formatting a tensor's values"}
for _name in ("item", "tolist", "tobytes", "copy", "astype", "fill", "__bool__", "__float__",
              "__int__", "__index__", "__complex__", "__iter__", "__getitem__",
              "__setitem__", "__repr__", "__str__", "__format__", "__contains__"):
    setattr(_StandIn, _name, _reading(_name, _READS.get(_name, f"reading a tensor's values "
                                                              f"(ndarray.{_name})")))
del _name


def _real(x):
    return x.view(np.ndarray) if type(x) is _StandIn else x


def _reals(value):
    if type(value) is _StandIn:
        return value.view(np.ndarray)
    if isinstance(value, (list, tuple)):
        return type(value)(_reals(v) for v in value)
    if isinstance(value, dict):
        return {k: _reals(v) for k, v in value.items()}
    return value


def _read(what):
    """Report a read; True if it was a read for the user's code (a graph break)."""
    capture = _live[0]
    if capture is None or capture.in_op:
        return True
    if _read_for_the_user():
        capture.value_read(what)
        return True
    return False


def _write(what):
    """A tracked tensor written outside an op: the graph cannot see it (a break)."""
    capture = _live[0]
    if capture is not None and not capture.in_op:
        capture.value_read(what)


# Reads made by these modules hand values to the user's code (item, bool, tolist, print).
_HANDED_OVER = ("_tensor.py", "_tensor_str.py")


def _read_for_the_user():
    """Is the read being made for the user's code, or by one of minitorch's functions
    for its own checks (an index in range, a target in bounds)?  The latter need no
    graph break: a replay runs those checks again on the real values, and an op that
    then differs is noticed (eval_frame.Replay)."""
    frame = sys._getframe(3)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_NUMPY) and not filename.endswith("capture.py"):
            if not filename.startswith(_PACKAGE):
                return True
            return filename.endswith(_HANDED_OVER) or filename.startswith(_DYNAMO)
        frame = frame.f_back
    return True


# ----- what a capture records -------------------------------------------------------------
class Value:
    """One tensor value of the captured call.  ``kind``: an argument (``input``), a
    parameter or buffer of the compiled module, another tensor from outside the call
    (``external``: a global, a constant made by Python), the result of a step, or an
    ``alias`` Python made without an op (``x.detach()``, ``x.data``: same memory, no
    gradient), which records its ``source``."""

    __slots__ = ("index", "kind", "name", "tensor", "position", "step", "snapshot",
                 "requires_grad", "source")

    def __init__(self, index, kind, name, tensor, position=None, step=None):
        self.index, self.kind, self.name = index, kind, name
        self.tensor, self.position, self.step = tensor, position, step
        self.requires_grad = tensor._requires_grad
        self.snapshot = self.source = None

    def __repr__(self):
        return f"Value({self.name})"


class ArrayOf:
    """An op argument that is a tracked tensor's numpy array (not the tensor)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return f"ArrayOf({self.value.name})"


class Step:
    """One op call: ``op(*args)`` gave ``result`` (Values in place of tensors).
    ``how``: ``graph`` (served from the compiled segment), ``view`` (made again
    eagerly when replayed, so that views still share memory), ``copy_in`` (an
    in-place change: the new value is copied into the tensor) or ``eager`` (run as
    is, between segments)."""

    __slots__ = ("index", "op", "args", "result", "segment", "how", "mutated", "grad_enabled")

    def __init__(self, index, op, args, segment, grad_enabled):
        self.index, self.op, self.args = index, op, args
        self.segment, self.grad_enabled = segment, grad_enabled
        self.result, self.how, self.mutated = None, "graph", None


class GraphBreak:
    """Where Python read a value: before step ``step``; ``user_stack`` is where in the
    user's code."""

    def __init__(self, step, reason, user_stack):
        self.step, self.reason, self.user_stack = step, reason, user_stack

    def __repr__(self):
        return f"GraphCompileReason(reason={self.reason!r}, user_stack={self.user_stack!r}, " \
               "graph_break=True)"


class Capture:
    """Records one call of ``fn``.  ``with capture: result = fn(*args)``."""

    def __init__(self, fullgraph=False, dynamic_inputs=None, break_error=None):
        self.fullgraph = fullgraph
        self.break_error = break_error      # what a read raises with fullgraph=True
        self.dynamic_inputs = dynamic_inputs or {}      # input position -> dims left free
        self.dynamic = bool(self.dynamic_inputs)
        self.sym_shapes = {}        # id(stand-in) -> its shape, with SymInts
        self.sym_guards = []        # (expression, comparison, other, result) Python asked
        self.values, self.steps, self.breaks = [], [], []
        self.value_of = {}          # id(tensor) -> Value, for the tensors Python holds
        self.by_stand_in = {}       # id(stand-in) -> Value: aliases made outside ops
        self.real_of = {}           # id(stand-in) -> the real array
        self.tracked = []           # every tensor given a stand-in (kept alive)
        self.in_op = 0
        self.view_bases = set()     # ids of tensors that views were taken of
        self.segment = 0
        self.grad_enabled = grad_mode.is_grad_enabled()
        self.result = None

    def forget_values(self):
        """After compiling: let go of the tensors this call made or was given.  A replay
        reads only the tensors it binds (parameters, buffers, constants from outside);
        keeping the others would keep the first call's activations alive as long as
        the compiled code."""
        for value in self.values:
            if value.kind not in ("param", "buffer", "external"):
                value.tensor = None
        self.result = None

    # ----- tensors in and out -------------------------------------------------------------
    def track(self, t, kind, name, position=None, step=None):
        """A new Value for ``t`` (a tensor Python holds), its array replaced by a stand-in."""
        value = Value(len(self.values), kind, name, t, position, step)
        self.values.append(value)
        self.value_of[id(t)] = value
        real = t._data
        if type(real) is _StandIn:          # already tracked under another Value
            real = self.real_of[id(real)]
        stand_in = real.view(_StandIn)
        self.real_of[id(stand_in)] = real
        self.by_stand_in[id(stand_in)] = value
        t._data = stand_in
        if self.dynamic:
            free = self.dynamic_inputs.get(position, ()) if kind == "input" else \
                range(real.ndim) if kind == "op" else ()
            if free:
                self.sym_shapes[id(stand_in)] = tuple(
                    SymInt(n, ("size", value.index, d), self.sym_guards) if d in free else n
                    for d, n in enumerate(real.shape))
        self.tracked.append((t, stand_in))
        return value

    def inputs(self, flat, names):
        """Track the call's tensors, each named after its input as an identifier (the
        graph's parameter names): ``xs[0]`` becomes ``xs_0_``."""
        for i, (t, name) in enumerate(zip(flat, names)):
            if isinstance(t, Tensor) and id(t) not in self.value_of:
                self.track(t, "input", re.sub(r"[^0-9a-zA-Z_]+", "_", name), position=i)

    def module_state(self, module):
        """The module's parameters and buffers, tracked from the start (named as
        export names them: ``p_lin_weight``, ``b_running_mean``)."""
        self.paths = {}
        persistent = {name for name in module.state_dict(keep_vars=True)}
        for name, p in module.named_parameters(remove_duplicate=True):
            self.paths[self.track(p, "param", "p_" + name.replace(".", "_")).index] = name
        for name, b in module.named_buffers():
            if b is not None and id(b) not in self.value_of:
                v = self.track(b, "buffer", "b_" + name.replace(".", "_"))
                self.paths[v.index] = (name, name in persistent)

    def _spec(self, a):
        """An argument as the step records it: tracked tensors by their Value."""
        if isinstance(a, Tensor):
            value = self.value_of.get(id(a))
            if value is not None and value.tensor is a:
                return value
            if type(a._data) is _StandIn:       # an alias made outside ops (.data, detach)
                return self._alias(a)
            value = self.track(a, "external", f"c_{len(self.values)}")
            if a._data.size <= 4096:
                value.snapshot = self.real_of[id(a._data)].copy()
            return value
        if type(a) is _StandIn:
            return ArrayOf(self.by_stand_in[id(a)])
        if type(a) is _Derived:
            self.value_read("a value computed from a tensor's values outside an op")
            return a.view(np.ndarray)
        if isinstance(a, (list, tuple)):
            items = [self._spec(x) for x in a]
            return type(a)(*items) if hasattr(a, "_fields") else type(a)(items)
        return a

    def _alias(self, a):
        source = self.by_stand_in[id(a._data)]
        value = Value(len(self.values), "alias", f"detach_{len(self.values)}", a)
        value.source = source
        self.values.append(value)
        self.value_of[id(a)] = value
        self.tracked.append((a, a._data))
        return value

    # ----- the interposition point ------------------------------------------------------------
    def __enter__(self):
        if _live[0] is not None:
            raise RuntimeError("one capture at a time")
        self._saved_transform = function.transform_apply[0]
        function.transform_apply[0] = self.apply
        _live[0] = self
        self._methods = aten.patch_methods().__enter__()
        return self

    def __exit__(self, *exc):
        self._methods.__exit__()
        function.transform_apply[0] = self._saved_transform
        _live[0] = None
        for t, stand_in in self.tracked:        # every tensor gets its real array back
            if t._data is stand_in:
                t._data = self.real_of[id(stand_in)]

    def apply(self, cls, args, kwargs):
        """Every op while capturing: run it on real arrays, record it as a Step."""
        if kwargs:
            args = _bind_arguments(cls, args, kwargs)
        self.grad_enabled = grad_mode.is_grad_enabled()     # (no_grad inside: kept)
        specs = self._spec(args)
        step = self._new_step(aten.op_for(cls), specs)
        swapped = [(t, t._data) for t in _tensors(args) if type(t._data) is _StandIn]
        for t, stand_in in swapped:
            t._data = self.real_of[id(stand_in)]
        if any(type(a) in (_StandIn, _Derived) for a in args):     # arrays as arguments
            args = tuple(self.real_of[id(a)] if type(a) is _StandIn else
                         a.view(np.ndarray) if type(a) is _Derived else a for a in args)
        self.in_op += 1
        result = None
        try:
            result = run_unrecorded(cls, args)
        finally:
            self.in_op -= 1
            mutated = [t for t, _ in swapped if _contains(result, t)]
            for t, stand_in in swapped:
                if not any(t is m for m in mutated):
                    t._data = stand_in
        step.result = self._results(result, step, mutated)
        if mutated:
            self._mutation(step, args, mutated[0])
        elif step.op.is_view:
            step.how = "view"
            if args and isinstance(args[0], Tensor):
                self.view_bases.add(id(args[0]))
        return result

    def _new_step(self, op, specs):
        step = Step(len(self.steps), op, specs, self.segment, self.grad_enabled)
        self.steps.append(step)
        return step

    def _results(self, result, step, mutated):
        if isinstance(result, Tensor):
            if any(result is m for m in mutated):
                self.value_of.pop(id(result), None)     # a new value of the same tensor
            return self.track(result, "op", _node_name(step.op), step=step.index)
        if isinstance(result, (tuple, list)):
            items = [self._results(r, step, mutated) for r in result]
            return type(result)(*items) if hasattr(result, "_fields") else type(result)(items)
        return result

    def _mutation(self, step, args, t):
        """An in-place op: the new value is copied into the tensor when replayed, unless
        autograd must see the change happen (the tensor takes part in a recorded graph)
        or other tensors share its memory: then the op runs as is, between segments."""
        step.mutated = next(i for i, a in enumerate(args) if a is t)
        shares = t._base is not None or id(t) in self.view_bases
        recorded = self.grad_enabled and any(
            isinstance(a, Value) and a.requires_grad for a in step.args)
        if shares or recorded:
            step.how = "eager"
            step.segment = None
            self.segment += 1
        else:
            step.how = "copy_in"

    def eager_call(self, fn, args, kwargs):
        """A call that runs as written, between two graphs (``compiler.disable``,
        ``backward``): its ops are not recorded; what it returns is tracked."""
        self.value_read(f"a call of {getattr(fn, '__qualname__', fn)}, which is not compiled")
        saved, _live[0] = function.transform_apply[0], None
        function.transform_apply[0] = self._saved_transform
        stand_ins = [(t, s) for t, s in self.tracked if t._data is s]
        for t, s in stand_ins:              # real arrays while it runs
            t._data = self.real_of.get(id(s), t._data)
        try:
            result = fn(*args, **kwargs)
        finally:
            function.transform_apply[0], _live[0] = saved, self
            for t, s in stand_ins:
                if t._data is self.real_of.get(id(s)):
                    t._data = s
        step = Step(len(self.steps), None, (), None, self.grad_enabled)
        step.how = "call"
        self.steps.append(step)
        self.segment += 1
        step.result = self._results(result, step, [])
        return result

    # ----- reading values: graph breaks -----------------------------------------------------------
    def value_read(self, what):
        if self.fullgraph and self.break_error is not None:
            raise self.break_error(what)
        if self.fullgraph:
            raise Unsupported(
                f"Graph break with fullgraph=True: {what}. A graph holds tensor operations, "
                "not the values Python reads while the function runs, so the capture "
                "would have to stop here. Keep the computation in tensor operations (e.g. "
                "minitorch.where instead of an if on a tensor), or compile without "
                "fullgraph=True to let the graph break.")
        if self.breaks and self.breaks[-1].step == len(self.steps):
            return                          # still the same break
        self.breaks.append(GraphBreak(len(self.steps), what, _user_stack()))
        self.segment += 1


def _tensors(args):
    for a in args:
        if isinstance(a, Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from _tensors(a)


def _contains(result, t):
    if result is t:
        return True
    if isinstance(result, (tuple, list)):
        return any(_contains(r, t) for r in result)
    return False


def _node_name(op):
    return op.__name__ if op is not None else "call"


def run_unrecorded(cls, args):
    """``cls.apply(*args)`` with no transform looking (a custom Function's own ops
    included: it is one op of the graph)."""
    saved = function.transform_apply[0]
    function.transform_apply[0] = None
    try:
        return cls.apply(*args)
    finally:
        function.transform_apply[0] = saved


# Folders as the interpreter names code files (os.sep: backslashes on Windows).
_DYNAMO = os.path.dirname(os.path.abspath(__file__)) + os.sep
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_NUMPY = os.path.dirname(os.path.abspath(np.__file__)) + os.sep


def _user_stack():
    """The frames of the user's code at this point (minitorch's own left out)."""
    stack = traceback.extract_stack(sys._getframe(2))
    return [f for f in stack if not f.filename.startswith(_PACKAGE)][-1:]


# ----- from steps to graphs ---------------------------------------------------------------
class Segment:
    """The steps served by one graph: its inputs (Values made elsewhere), its outputs
    (every value a graph step makes, which the replay hands to Python), its graph."""

    def __init__(self, index, steps):
        self.index, self.steps = index, steps
        self.inputs, self.outputs = [], []
        self.grad_enabled = steps[0].grad_enabled if steps else True
        self.graph_module = None
        self.compiled = None


def segments_of(capture):
    """The captured steps grouped by segment, each with its fx graph."""
    groups = {}
    for step in capture.steps:
        if step.segment is not None:
            groups.setdefault(step.segment, []).append(step)
    segments = []
    for index in sorted(groups):
        steps = groups[index]
        if all(s.how == "view" for s in steps):
            for s in steps:
                s.segment = None            # nothing to compile: made again when replayed
            continue
        segment = Segment(len(segments), steps)
        for s in steps:
            s.segment = segment.index
        segment.graph_module = segment_graph(capture, segment)
        segments.append(segment)
    escaping = _escaping(capture)
    for segment in segments:
        segment.graph_module.meta["tangent_outputs"] = [
            i for i, v in enumerate(segment.outputs) if v.index in escaping]
    return segments


def _escaping(capture):
    """The values whose gradient can come from outside their graph: returned, or used by
    another graph or by a step that runs eagerly, or viewed by a view that is."""
    steps = capture.steps
    escaping = set()
    for t in _leaves(capture.result):
        value = capture.value_of.get(id(t))
        if value is not None and value.tensor is t:
            escaping.add(value.index)

    def segment_of(v):
        return steps[v.step].segment if v.step is not None else None
    for step in steps:
        if step.how in ("eager", "call"):
            escaping.update(v.index for v in _values(step.args))
        elif step.how != "view":
            escaping.update(v.index for v in _values(step.args)
                            if segment_of(v) not in (None, step.segment))
    for step in reversed(steps):
        if step.how == "view" and any(v.index in escaping for v in _values(step.result)):
            escaping.update(v.index for v in _values(step.args))
    for v in reversed(capture.values):
        if v.kind == "alias" and v.index in escaping:
            escaping.add(v.source.index)
    return escaping


def _leaves(result):
    if isinstance(result, Tensor):
        yield result
    elif isinstance(result, (list, tuple)):
        for r in result:
            yield from _leaves(r)
    elif isinstance(result, dict):
        for r in result.values():
            yield from _leaves(r)


_KIND_ORDER = {"input": 0, "param": 1, "buffer": 2, "external": 3, "op": 4, "alias": 5}


def segment_graph(capture, segment, returned=None, kind_order=None):
    """The fx graph of a segment: a placeholder per value made elsewhere, a node per op,
    and every value Python will ask for as an output (or the ``returned`` Values)."""
    kind_order = kind_order or _KIND_ORDER
    made_here, used = set(), []
    values = capture.values
    for step in segment.steps:
        for v in _values(step.args, values):
            while v.kind == "alias" and v.index not in made_here:
                v = v.source
            if v.index not in made_here and v not in used:
                used.append(v)
        for v in _values(step.result, values):
            made_here.add(v.index)
    inputs = sorted(used, key=lambda v: (kind_order[v.kind], v.index))
    graph, env = Graph(), {}
    for v in inputs:
        env[v.index] = graph.placeholder(v.name)
        env[v.index].meta["val"] = fake_value(v.tensor)

    def node_of(v):
        if isinstance(v, SymInt):
            return sym_node(v.expr)
        if isinstance(v, ArrayOf):
            return graph.call_function(aten.method_op("array_of"), (node_of(v.value),))
        if v.index not in env:          # an alias: detach its source
            env[v.index] = graph.call_function(aten.method_op("detach"), (node_of(v.source),))
        return env[v.index]
    def sym_node(expr):
        if isinstance(expr, int):
            return expr
        if expr[0] == "size":
            return graph.call_function(aten.method_op("sym_size"),
                                       (node_of(values[expr[1]]), expr[2]))
        return graph.call_function(OPERATORS[expr[0]], (sym_node(expr[1]), sym_node(expr[2])))
    outputs = []
    mode = segment.grad_enabled
    for step in segment.steps:
        if step.grad_enabled != mode:      # a ``with no_grad():`` inside: the graph says so
            mode = step.grad_enabled
            graph.call_function(_set_grad_enabled, (mode,))
        node = graph.call_function(step.op, tuple(_map_values(step.args, node_of)))
        _bind_outputs(graph, node, step.result, env)
        if step.mutated is not None:
            node.meta["mutates"] = True         # an in-place change: kept without readers
        for v in _values(step.result):
            env[v.index].meta["val"] = fake_value(v.tensor)
        if step.how in ("graph", "copy_in"):
            outputs += [v for v in _values(step.result)]
    if mode != segment.grad_enabled:
        graph.call_function(_set_grad_enabled, (segment.grad_enabled,))
    if returned is not None:
        outputs = returned
    graph.output(tuple(node_of(v) for v in outputs))
    graph.eliminate_dead_code(lambda n: n.is_impure() or n.meta.get("mutates", False))
    segment.inputs, segment.outputs = inputs, outputs
    return GraphModule(Module(), graph, "GraphModule")


_EXPORT_ORDER = {"param": 0, "buffer": 1, "external": 2, "input": 3, "op": 4, "alias": 5}


def whole_graph(capture, outputs):
    """Every step of a capture as one graph returning ``outputs`` (Values): what
    ``export`` keeps, to run without the Python that made it.  Inputs come in export's
    order: parameters, buffers, constants, then the user's inputs."""
    if any(step.how == "call" for step in capture.steps):
        raise Unsupported("export: the function calls something that cannot be captured "
                          "(a function marked compiler.disable, or backward)")
    segment = Segment(0, capture.steps)
    segment.graph_module = segment_graph(capture, segment, outputs, _EXPORT_ORDER)
    return segment


@has_side_effect
def _set_grad_enabled(mode):
    """Grad mode switched inside a captured graph (a ``no_grad`` block)."""
    grad_mode.set_grad_enabled(mode)


def _bind_outputs(graph, node, result, env):
    if isinstance(result, Value):
        env[result.index] = node
    elif isinstance(result, (tuple, list)):
        for i, r in enumerate(result):
            if isinstance(r, Value):
                env[r.index] = graph.call_function(operator.getitem, (node, i))


def _values(spec, values=None):
    """The Values an argument refers to (those its SymInts read too, given ``values``)."""
    if isinstance(spec, Value):
        yield spec
    elif isinstance(spec, ArrayOf):
        yield spec.value
    elif isinstance(spec, SymInt):
        if values is not None:
            yield from _expr_values(spec.expr, values)
    elif isinstance(spec, (list, tuple)):
        for s in spec:
            yield from _values(s, values)


def _expr_values(expr, values):
    if isinstance(expr, int):
        return
    if expr[0] == "size":
        yield values[expr[1]]
    else:
        yield from _expr_values(expr[1], values)
        yield from _expr_values(expr[2], values)


def _map_values(spec, fn):
    if isinstance(spec, (Value, ArrayOf, SymInt)):
        return fn(spec)
    if isinstance(spec, (list, tuple)):
        items = [_map_values(s, fn) for s in spec]
        return type(spec)(*items) if hasattr(spec, "_fields") else type(spec)(items)
    return spec
