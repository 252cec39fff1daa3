"""Symbolic tracing: run a module once on proxies and keep what it did (chapter 18).

``Tracer.trace`` calls ``forward`` with a ``Proxy`` for each input.  Operators and
methods on proxies record themselves (``proxy.py``).  Three more things need the
tracer's help, and it provides it by *patching* for the length of the trace:

* ``module(x)``: ``Module.__call__`` asks ``is_leaf_module``: a leaf (minitorch's own
  layers) becomes one ``call_module`` node; any other module is traced through.
* ``self.weight``: reading a parameter gives a ``get_attr`` proxy.
* ``minitorch.relu(p)``: a function knows nothing about proxies.  PyTorch's functions
  ask their arguments (``__torch_function__``); minitorch's do not, so the tracer puts
  a stand-in in front of each public function of ``minitorch`` and
  ``minitorch.nn.functional`` that records a ``call_function`` node when a proxy is
  among the arguments.  ``fx.wrap("name")`` does the same for a function of yours.
"""

import builtins
import functools
import inspect
import math
import sys
import types

import minitorch
from .graph import Graph, _WRAPPED
from .graph_module import GraphModule
from .node import Node, map_aggregate, has_side_effect
from .proxy import Proxy, TraceError

__all__ = ["Tracer", "symbolic_trace", "wrap", "PH"]


class _PlaceholderSentinel:
    def __repr__(self):
        return "PH"


PH = _PlaceholderSentinel()     # in concrete_args: "this argument stays an input"


class Tracer:
    """Records a module's ``forward`` (or a function) as a ``Graph``.  Subclass it and
    override ``is_leaf_module`` to choose which submodules stay calls."""

    def __init__(self, autowrap_modules=(math,), autowrap_functions=(),
                 param_shapes_constant=False):
        self._autowrap_ids = {id(v) for m in autowrap_modules for v in vars(m).values()
                              if callable(v)} | {id(f) for f in autowrap_functions}
        self.param_shapes_constant = param_shapes_constant
        self.graph = None
        self.root = None

    # ----- the decisions a subclass may change -----------------------------------------
    def is_leaf_module(self, m, module_qualified_name):
        """minitorch's own layers stay calls (``call_module``); Sequential and every
        module of yours is traced through."""
        ### BEGIN SOLUTION 18.2
        from ..nn import Sequential
        module = type(m).__module__ or ""
        return (module.startswith("minitorch.nn") and not isinstance(m, Sequential))
        ### END SOLUTION 18.2

    def call_module(self, m, forward, args, kwargs):
        """What ``m(*args, **kwargs)`` does while tracing."""
        ### BEGIN SOLUTION 18.2
        path = self.path_of_module(m)
        if self.is_leaf_module(m, path):
            return self.create_proxy("call_module", path, args, kwargs)
        return forward(*args, **kwargs)
        ### END SOLUTION 18.2

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        """What reading ``module.attr`` gives while tracing (``attr_val`` is the real
        value): a Parameter of the root becomes a get_attr node whose target is its
        name in ``root.named_parameters()``, made once per name (kept in
        ``parameter_proxy_cache``) and returned as a proxy; any other value is
        returned as it is."""
        ### BEGIN SOLUTION 18.2
        from ..nn import Parameter
        if not isinstance(attr_val, Parameter):
            return attr_val
        for name, p in self.root.named_parameters():
            if p is attr_val:
                if name not in parameter_proxy_cache:
                    parameter_proxy_cache[name] = self.create_proxy("get_attr", name, (), {})
                return parameter_proxy_cache[name]
        return attr_val
        ### END SOLUTION 18.2

    def to_bool(self, obj):
        """``bool(proxy)`` (``if``, ``while``, ``and``, ``assert``): a ``TraceError``
        whose message starts "symbolically traced variables cannot be used as inputs
        to control flow" and says how to avoid it (concrete_args, a leaf module or an
        fx.wrap'ed function)."""
        ### BEGIN SOLUTION 18.2
        raise TraceError("symbolically traced variables cannot be used as inputs to control "
                         "flow: `if`, `while`, `and`/`or` and `assert` need a True or False "
                         "now, and a traced value has none until the graph runs. Pass the "
                         "deciding value through concrete_args, or make the branch a leaf "
                         "module or an fx.wrap'ed function")
        ### END SOLUTION 18.2

    def iter(self, obj):
        """``iter(proxy)`` where the number of items is unknown: a ``TraceError`` whose
        message starts "Proxy object cannot be iterated" and says to unpack into
        names or index instead."""
        ### BEGIN SOLUTION 18.2
        raise TraceError("Proxy object cannot be iterated: the number of items of a traced "
                         "value is not known while tracing. This happens when a Proxy is "
                         "used in a for loop or passed as *args or **kwargs; unpack it into a "
                         "fixed number of names (a, b = p) or index it instead")
        ### END SOLUTION 18.2

    def keys(self, obj):
        """``**proxy``: a ``TraceError`` whose message starts "Proxy object cannot be
        unpacked with **"."""
        ### BEGIN SOLUTION 18.2
        raise TraceError("Proxy object cannot be unpacked with **: its keys are not known "
                         "while tracing")
        ### END SOLUTION 18.2

    # ----- making nodes ------------------------------------------------------------------
    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def proxy(self, node):
        return Proxy(node, self)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None):
        """A node for this call, as a Proxy (chapter 18, "How tracing works: proxies"):
        the node is made by ``create_node`` with ``args`` turned into a tuple and
        ``kwargs`` into a dict of graph arguments (``create_arg``), then wrapped by
        ``proxy``."""
        ### BEGIN SOLUTION 18.2
        node = self.create_node(kind, target, self.create_arg(tuple(args)),
                                self.create_arg(dict(kwargs)), name, type_expr)
        return self.proxy(node)
        ### END SOLUTION 18.2

    def create_arg(self, a):
        """A value as a graph argument: a proxy becomes its node and a node stays; a
        tensor becomes a get_attr node (``_tensor_arg``); tuples, lists, namedtuples,
        dicts and slices are rebuilt item by item (as in PyTorch, a list subclass
        becomes a list, and a tuple subclass that is not a namedtuple a tuple); None,
        bools, ints, floats, strings, Ellipsis and ``_is_plain_value``s stay as they
        are. Anything else: NotImplementedError naming its type."""
        ### BEGIN SOLUTION 18.2
        from .._tensor import Tensor
        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, Node):
            return a
        if isinstance(a, Tensor):
            return self._tensor_arg(a)
        if isinstance(a, tuple) and hasattr(a, "_fields"):       # a namedtuple
            return type(a)(*[self.create_arg(x) for x in a])
        if isinstance(a, (tuple, list)):
            items = [self.create_arg(x) for x in a]
            return items if isinstance(a, list) else tuple(items)
        if isinstance(a, dict):
            return dict(zip(a.keys(), map(self.create_arg, a.values())))
        if isinstance(a, slice):
            return slice(*map(self.create_arg, (a.start, a.stop, a.step)))
        if a is None or isinstance(a, (bool, int, float, str, type(Ellipsis))) or \
                _is_plain_value(a):
            return a
        raise NotImplementedError(f"argument of type: {type(a)}: fx graphs hold nodes, "
                                  "tensors, numbers, strings and containers of them")
        ### END SOLUTION 18.2

    def _tensor_arg(self, t):
        """A get_attr node for tensor ``t`` (a new node at each use): targeting the name
        of the root's parameter or buffer that is ``t``; for any other tensor, a
        constant kept on the root under ``_tensor_constant0``,
        ``_tensor_constant1``... in order of first use, one name per tensor
        (``self._tensor_constants`` maps ``id(t)`` to it)."""
        ### BEGIN SOLUTION 18.2
        for name, p in self.root.named_parameters():
            if p is t:
                return self.create_node("get_attr", name, (), {})
        for name, b in self.root.named_buffers():
            if b is t:
                return self.create_node("get_attr", name, (), {})
        name = self._tensor_constants.get(id(t))
        if name is None:
            name = f"_tensor_constant{len(self._tensor_constants)}"
            self._tensor_constants[id(t)] = name
            setattr(self.root, name, t)
        return self.create_node("get_attr", name, (), {})
        ### END SOLUTION 18.2

    def path_of_module(self, mod):
        """``mod``'s dotted path in the root (from ``_prepare``); a module that is not
        in the root: NameError saying it "is not installed as a submodule"."""
        ### BEGIN SOLUTION 18.2
        path = self._module_paths.get(id(mod))
        if path is None:
            raise NameError("module is not installed as a submodule: tracing can only "
                            "record calls of modules that are attributes of the root")
        return path
        ### END SOLUTION 18.2

    # ----- tracing ------------------------------------------------------------------------
    def trace(self, root, concrete_args=None):
        """The graph of ``root`` (a Module or a function), chapter 18, "How tracing
        works: proxies". A module is traced by calling ``type(root).forward`` with
        the module as ``self``; a function by calling it, with an empty ``Module`` as
        the root. ``_prepare`` the root and a new ``Graph(tracer_cls=type(self))``,
        make the arguments (``_args_for_root``), call the function inside
        ``_Patches(self, fn)`` with them (positional and keyword), and end the graph
        with an output node whose argument is the result as a graph argument."""
        ### BEGIN SOLUTION 18.2
        from ..nn import Module
        is_module = isinstance(root, Module)
        root, fn = (root, type(root).forward) if is_module else (Module(), root)
        self._prepare(root, Graph(tracer_cls=type(self)))
        args, kwargs = self._args_for_root(fn, is_module, concrete_args or {})
        with _Patches(self, fn):
            result = fn(*args, **kwargs)
        self.create_node("output", "output", (self.create_arg(result),), {})
        return self.graph
        ### END SOLUTION 18.2

    def _prepare(self, root, graph):
        """Start a trace (``trace``, and ``fx.Transformer`` for its new graph): keep
        ``root`` and ``graph``, no tensor constants yet, and the path of every module
        of the root by its ``id`` (``self._module_paths``)."""
        ### BEGIN SOLUTION 18.2
        self.root, self.graph = root, graph
        self._tensor_constants = {}
        self._module_paths = {id(m): name for name, m in root.named_modules()}
        ### END SOLUTION 18.2

    def _args_for_root(self, fn, is_module, concrete_args):
        """The arguments to call ``fn`` with, ``(args, kwargs)`` (the root first in
        ``args`` when ``fn`` is a module's forward): a placeholder proxy per parameter
        of ``fn``, its target the parameter's name and its args ``(default,)`` when the
        parameter has a default; a parameter named in ``concrete_args`` (with a value
        other than ``PH``) is passed as ``_concrete`` makes it. A keyword-only
        parameter (after ``*``) is passed by keyword, in ``kwargs``; its placeholder is
        made like any other, so the generated ``forward`` takes it as an ordinary
        parameter (PyTorch 2.13: ``def forward(self, x, *, scale=2.0)`` becomes ``def
        forward(self, x, scale = 2.0)``). ``*args`` or ``**kwargs`` in the signature:
        NotImplementedError naming the parameter."""
        ### BEGIN SOLUTION 18.2
        params = list(inspect.signature(fn).parameters.values())
        args, by_keyword = ([self.root] if is_module else []), {}
        if is_module:
            params = params[1:]
        for param in params:
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                raise NotImplementedError(
                    f"symbolic_trace does not trace *args or **kwargs ({param.name} of "
                    f"{fn.__name__}): give each input a name")
            if param.name in concrete_args and concrete_args[param.name] is not PH:
                value = self._concrete(param.name, concrete_args[param.name])
            else:
                default = param.default
                value = self.create_proxy("placeholder", param.name,
                                          () if default is param.empty else (default,), {})
            if param.kind is param.KEYWORD_ONLY:
                by_keyword[param.name] = value
            else:
                args.append(value)
        return args, by_keyword
        ### END SOLUTION 18.2

    def _concrete(self, name, value):
        """A concrete argument still has an input (a placeholder), named as if
        ``name`` were already in use: take ``name`` from the graph's names first
        (``self.graph._create_name(name)``), so that the placeholder made next for
        ``name`` gets ``name_1`` (``concrete_args={"flag": True}`` gives ``def
        forward(self, x, flag_1)``). Its target is its node name, its args ``(None,)``
        when the value is None, else ``()``. A None value is checked by a call of
        ``_assert_is_none``, a bool, int, float or str by ``_assert`` of ``placeholder
        == value``, each with the message "<name> has been specialized to have value
        <value> but got another value". Returns the value."""
        ### BEGIN SOLUTION 18.2
        self.graph._create_name(name)
        message = f"{name} has been specialized to have value {value} but got another value"
        ph = self.create_proxy("placeholder", name, (None,) if value is None else (), {})
        ph.node.target = ph.node.name
        if value is None:
            self.create_proxy("call_function", _assert_is_none, (ph, message), {})
        elif isinstance(value, (bool, int, float, str)):
            self.create_proxy("call_function", _assert, (ph == value, message), {})
        return value
        ### END SOLUTION 18.2


_assert = has_side_effect(minitorch._assert)     # PyTorch's torch._assert


@has_side_effect
def _assert_is_none(value, message):
    if value is not None:
        raise AssertionError(message)


def _is_plain_value(a):
    """Other constants a graph may hold: dtypes, devices, sizes, functions, and numpy
    arrays and numbers (some of minitorch's ops take an array, e.g. a mask)."""
    import numpy as np
    import minitorch
    return isinstance(a, (minitorch.dtype, minitorch.device, minitorch.Size, complex,
                          types.FunctionType, type, range, np.ndarray, np.generic))


# ----- patching for the length of a trace ------------------------------------------------------
# Functions of these modules that take tensors but compute nothing on them, or that set
# global state: a proxy passed to one of them is a mistake the function reports itself.
_NOT_RECORDED = {"get_default_dtype", "set_default_dtype", "promote_types", "result_type",
                 "can_cast", "set_default_device", "get_default_device", "manual_seed",
                 "seed", "initial_seed", "get_rng_state", "set_rng_state",
                 "is_grad_enabled", "is_inference_mode_enabled", "is_anomaly_enabled",
                 "is_anomaly_check_nan_enabled", "set_printoptions", "save", "load",
                 "is_tensor", "broadcast_shapes", "compile"}
_NAMESPACES = ("minitorch", "minitorch.nn.functional", "minitorch.linalg")


class _Patches:
    """Everything the tracer changes while it traces, put back afterwards."""

    def __init__(self, tracer, fn=None, modules=True):
        self.tracer, self.fn, self.modules = tracer, fn, modules
        self.saved = []

    def _set(self, owner, name, value, setter=setattr):
        """Set ``owner.name`` to ``value`` and remember how to put back the old value (a
        class's own ``__dict__`` entry, or the attribute) with ``setter``."""
        ### BEGIN SOLUTION 18.2
        self.saved.append((owner, name, owner.__dict__[name] if isinstance(owner, type)
                           else getattr(owner, name), setter))
        setter(owner, name, value)
        ### END SOLUTION 18.2

    def __enter__(self):
        """Patch everything for the trace (chapter 18, "How tracing works: proxies"):
        with ``modules``, ``Module.__call__`` goes through ``tracer.call_module`` (its
        ``forward`` argument runs the module's original ``__call__``, hooks included,
        on the arguments it is given: ``functools.partial(original_call, module)``) and
        ``Module.__getattr__`` through ``tracer.getattr`` (one cache for the trace);
        every public function of ``_NAMESPACES`` not in ``_NOT_RECORDED`` becomes
        ``_recording`` of it; in ``fn``'s globals, every value whose id is in the
        tracer's ``_autowrap_ids``; and each name ``fx.wrap`` was given, in the
        globals of the module where ``wrap`` was called (``_WRAP_SITES`` keeps them;
        that module's function may be called from anywhere in the trace), becomes a
        recording stand-in too (for a builtin like ``len`` that those globals do not
        define, the stand-in is added to them). Returns self."""
        ### BEGIN SOLUTION 18.2
        from ..nn import Module
        tracer = self.tracer
        original_call, original_getattr = Module.__call__, Module.__getattr__
        cache = {}

        def module_call(mod, *args, **kwargs):
            return tracer.call_module(mod, functools.partial(original_call, mod),
                                      args, kwargs)

        def module_getattr(mod, name):
            return tracer.getattr(name, original_getattr(mod, name), cache)

        if self.modules:
            self._set(Module, "__call__", module_call)
            self._set(Module, "__getattr__", module_getattr)
        for home in _NAMESPACES:
            module = sys.modules.get(home)
            for name, fn in list(vars(module).items()):
                if isinstance(fn, types.FunctionType) and not name.startswith("_") \
                        and name not in _NOT_RECORDED:
                    self._set(module, name, _recording(tracer, fn))
        fn_globals = getattr(self.fn, "__globals__", {})
        for name, value in list(fn_globals.items()):
            if id(value) in tracer._autowrap_ids:
                self._set_global(fn_globals, name, _recording(tracer, value))
        for (globals_id, name), globals_ in list(_WRAP_SITES.items()):
            if name in globals_:
                self._set_global(globals_, name, _recording(tracer, globals_[name]))
            elif name in vars(builtins):     # fx.wrap("len")
                self._set_global(globals_, name, _recording(tracer, vars(builtins)[name]))
        return self
        ### END SOLUTION 18.2

    def _set_global(self, globals_, name, value):
        """Set ``globals_[name]``, remembering the old value or that there was none."""
        ### BEGIN SOLUTION 18.2
        missing = object()
        old = globals_.get(name, missing)
        self.saved.append((globals_, name, old, _restore_global(missing)))
        globals_[name] = value
        ### END SOLUTION 18.2

    def __exit__(self, *exc):
        """Put everything back, last change first, and forget the changes."""
        ### BEGIN SOLUTION 18.2
        for owner, name, value, setter in reversed(self.saved):
            setter(owner, name, value)
        self.saved.clear()
        ### END SOLUTION 18.2


def _restore_global(missing):
    def restore(globals_, name, value):
        """Put back ``value`` under ``name``, or remove the name if it was ``missing``."""
        ### BEGIN SOLUTION 18.2
        if value is missing:
            globals_.pop(name, None)
        else:
            globals_[name] = value
        ### END SOLUTION 18.2
    return restore


def _recording(tracer, fn):
    """``fn`` as it behaves while tracing: a ``call_function`` node when a proxy is among
    its arguments, the function itself otherwise."""
    @functools.wraps(fn)
    def stand_in(*args, **kwargs):
        ### BEGIN SOLUTION 18.2
        if _has_proxy((args, kwargs)):
            return tracer.create_proxy("call_function", fn, args, kwargs)
        return fn(*args, **kwargs)
        ### END SOLUTION 18.2
    return stand_in


def _has_proxy(value):
    """Whether a Proxy is anywhere in ``value`` (nested tuples, lists, dicts, slices)."""
    ### BEGIN SOLUTION 18.2
    found = []
    map_aggregate(value, lambda x: found.append(x) if isinstance(x, Proxy) else None)
    return bool(found)
    ### END SOLUTION 18.2


# ----- fx.wrap ---------------------------------------------------------------------------------
_WRAP_SITES = {}        # (id of the globals, name) -> the globals dict where wrap was called


def wrap(fn_or_name):
    """Keep calls of a function as ``call_function`` nodes instead of tracing into it.
    Call it at module scope with the function or its name; it returns its argument."""
    name = fn_or_name if isinstance(fn_or_name, str) else getattr(fn_or_name, "__name__",
                                                                      None)
    if name is None or not isinstance(name, str):
        raise NotImplementedError("wrap must be called with a function or its name")
    caller = sys._getframe(1)
    if caller.f_code.co_name != "<module>" and caller.f_globals is not caller.f_locals:
        raise NotImplementedError("wrap must be called at the top level of a module")
    globals_ = caller.f_globals
    _WRAP_SITES[(id(globals_), name)] = globals_
    fn = globals_.get(name, vars(builtins).get(name))
    if fn is not None:
        _WRAPPED[(id(globals_), name)] = fn
    return fn_or_name


def symbolic_trace(root, concrete_args=None):
    """Trace ``root`` (a Module or a function) into a ``GraphModule``."""
    from ..nn import Module
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)

