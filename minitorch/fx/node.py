"""A node of an fx graph: one step of a program held as data (chapter 18).

A ``Node`` says what one line of the program does: its ``op`` (one of six kinds),
its ``target`` (which function, method, submodule or attribute), its ``args`` and
``kwargs`` (other nodes, or plain Python values), and its ``users`` (the nodes that
read its value).  The arguments and the users are two views of the same edges;
every change of ``args`` updates the users on both sides, so a pass can rewrite a
graph without bookkeeping of its own.
"""

import builtins
import inspect
import operator
import types

__all__ = ["Node", "map_arg", "map_aggregate", "OPCODES"]

# The six kinds of node.  ``root`` is the graph's own sentinel, never a real node.
OPCODES = ("placeholder", "get_attr", "call_function", "call_method", "call_module",
           "output")


class Node:
    """One step of a graph.  Make nodes with ``Graph.create_node`` (or the helpers
    ``placeholder``, ``call_function``...), not directly."""

    def __init__(self, graph, name, op, target, args, kwargs, type_expr=None):
        if op not in OPCODES and op != "root":
            raise ValueError(f"Node op must be one of {', '.join(OPCODES)}, not {op!r}")
        if op in ("call_method", "call_module", "get_attr", "placeholder") \
                and not isinstance(target, str):
            raise ValueError(f"Node target of a {op} node must be a string, got "
                             f"{type(target).__name__}")
        if op == "call_function" and not callable(target):
            raise ValueError(f"Node target of a call_function node must be callable, got "
                             f"{type(target).__name__}")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self.type = type_expr
        self.users = {}             # node -> None: an ordered set of the nodes reading this one
        self.meta = {}
        self._input_nodes = {}      # the nodes this one reads, in order of first appearance
        self._args, self._kwargs = (), {}
        self._prev = self._next = self
        self._erased = False
        self._update_args_kwargs(tuple(args), dict(kwargs))

    # ----- arguments and users: two sides of one edge ----------------------------------
    @property
    def args(self):
        return self._args

    @args.setter
    def args(self, value):
        self._update_args_kwargs(tuple(value), self._kwargs)

    @property
    def kwargs(self):
        return self._kwargs

    @kwargs.setter
    def kwargs(self, value):
        self._update_args_kwargs(self._args, dict(value))

    def _update_args_kwargs(self, args, kwargs):
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._input_nodes = {}
        self._args, self._kwargs = args, kwargs
        map_arg((args, kwargs), self._input_nodes.setdefault)
        for new in self._input_nodes:
            new.users.setdefault(self)

    @property
    def all_input_nodes(self):
        """The nodes this one reads, each once, in the order they appear in its arguments."""
        return list(self._input_nodes)

    def update_arg(self, idx, arg):
        args = list(self._args)
        args[idx] = arg
        self.args = args

    def update_kwarg(self, key, arg):
        self.kwargs = {**self._kwargs, key: arg}

    def replace_input_with(self, old_input, new_input):
        """Read ``new_input`` wherever this node read ``old_input``."""
        swap = (lambda n: new_input if n is old_input else n)
        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    def replace_all_uses_with(self, replace_with, delete_user_cb=lambda user: True, *,
                              propagate_meta=False):
        """Make every user of this node read ``replace_with`` instead; returns the users
        changed.  ``delete_user_cb(user)`` may keep some users as they are."""
        if propagate_meta:
            for key, value in self.meta.items():
                replace_with.meta.setdefault(key, value)
        changed = [user for user in self.users if delete_user_cb(user)]
        for user in changed:
            user.replace_input_with(self, replace_with)
        return changed

    # ----- place in the graph's list ---------------------------------------------------
    @property
    def next(self):
        return self._next

    @property
    def prev(self):
        return self._prev

    def prepend(self, x):
        """Move (or insert) node ``x`` just before this one."""
        if x is self:
            raise RuntimeError("Cannot prepend a node to itself")
        x._remove_from_list()
        before = self._prev
        before._next, x._prev, x._next, self._prev = x, before, self, x

    def append(self, x):
        """Move (or insert) node ``x`` just after this one."""
        self._next.prepend(x)

    def _remove_from_list(self):
        """Unlink the node.  Its own links stay as they were, so a loop over the graph's
        nodes that erases the node it stands on still finds the next one."""
        before, after = self._prev, self._next
        before._next, after._prev = after, before

    # ----- what it is --------------------------------------------------------------------
    def is_impure(self):
        """Whether dead-code elimination must keep the node although no one reads its
        value: inputs, the output, and calls marked as having side effects.  As in
        PyTorch, an in-place method (``x.add_(1)``) whose result is unused is *not*
        kept: a graph is meant to be functional."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_function":
            return self.target in _SIDE_EFFECTS or getattr(self.target, "_is_impure", False)
        if self.op == "call_module":
            module = self.graph.owning_module
            sub = _fetch(module, self.target) if module is not None else None
            return bool(getattr(sub, "_is_impure", False))
        return False

    def format_node(self, placeholder_names=None, maybe_return_typename=None):
        """The line ``print(graph)`` shows for this node."""
        if self.op == "placeholder":
            text = f"%{self.name} : {self._users_text()} = placeholder[target={self.target}]"
            if self._args and self._args[0] is not inspect.Signature.empty:
                text += f"(default={self._args[0]})"
            return text
        if self.op == "get_attr":
            return f"%{self.name} : {self._users_text()} = get_attr[target={self.target}]"
        if self.op == "output":
            return f"return {_format_output(self._args[0])}"
        return (f"%{self.name} : {self._users_text()} = {self.op}"
                f"[target={_pretty_target(self.target)}](args = {_format_arg(self._args)}, "
                f"kwargs = {_format_arg(self._kwargs)})")

    def _users_text(self):
        kind = "" if self.type is None else f"{_type_name(self.type)} "
        return f"{kind}[num_users={len(self.users)}]"

    def __repr__(self):
        return self.name


_SIDE_EFFECTS = {print, builtins.setattr}


def has_side_effect(fn):
    """Mark ``fn`` so that dead-code elimination never removes a call to it."""
    _SIDE_EFFECTS.add(fn)
    return fn


def _fetch(module, target):
    for atom in target.split("."):
        module = getattr(module, atom, None)
    return module


# ----- walking arguments ---------------------------------------------------------------
def map_aggregate(a, fn):
    """Apply ``fn`` to every leaf of the nested tuples, lists, dicts and slices in ``a``,
    keeping their structure."""
    if isinstance(a, tuple):
        mapped = tuple(map_aggregate(x, fn) for x in a)
        return type(a)(*mapped) if hasattr(a, "_fields") else mapped
    if isinstance(a, list):
        return [map_aggregate(x, fn) for x in a]
    if isinstance(a, dict):
        return {k: map_aggregate(v, fn) for k, v in a.items()}
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn),
                     map_aggregate(a.step, fn))
    return fn(a)


def map_arg(a, fn):
    """Apply ``fn`` to every Node inside the argument structure ``a``."""
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


# ----- printing ----------------------------------------------------------------------------
def _format_arg(arg):
    """An argument as a node prints it: a node as ``%name``, dict keys as they are (no
    quotes), anything else by ``str``."""
    if isinstance(arg, Node):
        return "%" + arg.name
    if isinstance(arg, dict):
        pairs = [str(key) + ": " + _format_arg(value) for key, value in arg.items()]
        return "{" + ", ".join(pairs) + "}"
    if isinstance(arg, (list, tuple)):
        opening, closing = ("[", "]") if isinstance(arg, list) else ("(", ")")
        text = ", ".join(_format_arg(item) for item in arg)
        if isinstance(arg, tuple) and len(arg) == 1:
            text += ","
        return opening + text + closing
    return str(arg)


class _Named:
    """Prints as a node's name: what the output's structure holds in ``_format_output``."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


def _format_output(arg):
    """The output's structure as Python would show it, each node by its name."""
    return repr(map_arg(arg, lambda node: _Named(node.name)))


def _pretty_target(target):
    return target if isinstance(target, str) else qualified_name(target)


def _type_name(t):
    return t.__qualname__ if isinstance(t, type) else str(t)


def qualified_name(obj):
    """The dotted name that finds ``obj``: ``operator.add``, ``minitorch.relu``,
    ``minitorch.nn.functional.gelu``, ``builtins.getattr``.  A function minitorch
    exports is named where the user finds it, not in the private module defining it."""
    name = getattr(obj, "_fx_name", None)
    if name is not None:
        return name
    if getattr(obj, "__module__", None) == "_operator":
        return f"operator.{obj.__name__}"
    if isinstance(obj, types.BuiltinFunctionType) and getattr(builtins, obj.__name__,
                                                               None) is obj:
        return f"builtins.{obj.__name__}"
    module = getattr(obj, "__module__", None) or ""
    if module.startswith("minitorch"):
        public = _public_home(obj)
        if public is not None:
            return public
    qualname = getattr(obj, "__qualname__", getattr(obj, "__name__", repr(obj)))
    return f"{module}.{qualname}" if module else qualname


_PUBLIC_HOMES = ("minitorch", "minitorch.nn.functional", "minitorch.linalg",
                 "minitorch.special", "minitorch.fft")


def _public_home(obj):
    import sys
    name = getattr(obj, "__name__", None)
    for home in _PUBLIC_HOMES:
        module = sys.modules.get(home)
        if module is not None and name is not None and \
                module.__dict__.get(name) is obj:
            return f"{home}.{name}"
    return None


# For the names of magic methods: ``operator.add`` -> ``+``.
MAGIC_BINARY = {operator.add: "+", operator.sub: "-", operator.mul: "*",
                operator.truediv: "/", operator.floordiv: "//", operator.mod: "%",
                operator.pow: "**", operator.matmul: "@", operator.and_: "&",
                operator.or_: "|", operator.xor: "^", operator.lshift: "<<",
                operator.rshift: ">>", operator.eq: "==", operator.ne: "!=",
                operator.lt: "<", operator.le: "<=", operator.gt: ">", operator.ge: ">="}
MAGIC_UNARY = {operator.neg: "-", operator.pos: "+", operator.invert: "~"}
