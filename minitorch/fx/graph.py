"""An fx ``Graph``: a program as a list of nodes, and the Python code it turns back into
(chapter 18).

The nodes form a doubly linked list (in program order) around a sentinel, so a pass
can insert and erase nodes anywhere while it walks.  Where new nodes go is the
graph's *insert point* (``inserting_before``/``inserting_after``).  Names are unique
within a graph and are valid Python identifiers, because ``python_code`` turns the
graph into a Python function whose local variables are the node names: that
generated code is what a ``GraphModule`` runs.
"""

import builtins
import contextlib
import inspect
import keyword
import math
import re

from .node import Node, map_arg, qualified_name, MAGIC_BINARY, MAGIC_UNARY, OPCODES

__all__ = ["Graph", "PythonCode"]

# Functions fx.wrap registered: the generated code says so, so that tracing the
# generated module again keeps them as calls.
_WRAPPED = {}


class Graph:
    """A program as data: nodes in order, from placeholders (inputs) to one output."""

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        self._root = Node(self, "", "root", "", (), {})
        self._len = 0
        self._used_names = {}           # name -> the last number used with it
        self._insert = self._root.prepend
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls

    # ----- the nodes --------------------------------------------------------------------
    @property
    def nodes(self):
        """The nodes in program order (``len``, iteration, ``reversed``)."""
        return _NodeList(self)

    @property
    def owning_module(self):
        return self._owning_module

    @owning_module.setter
    def owning_module(self, module):
        self._owning_module = module

    def find_nodes(self, *, op, target=None, sort=True):
        """The nodes with this ``op`` (and ``target``, if given), in program order."""
        if op == "call_function" and target is None:
            raise AssertionError("target must not be None for call_function op")
        return [n for n in self.nodes
                if n.op == op and (target is None or n.target == target)]

    # ----- making nodes -----------------------------------------------------------------
    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
        """A new node at the insert point, named ``name`` or after its target."""
        if op not in OPCODES:
            raise ValueError(f"Node op must be one of {', '.join(OPCODES)}, not {op!r}")
        candidate = name if name is not None else self._target_to_str(target)
        node = Node(self, self._create_name(candidate), op, target, args or (),
                    kwargs or {}, type_expr)
        self._insert(node)
        self._len += 1
        return node

    def placeholder(self, name, type_expr=None, default_value=inspect.Signature.empty):
        """An input of the program (an argument of ``forward``)."""
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args, type_expr=type_expr)

    def get_attr(self, qualified_name, type_expr=None):
        """Read an attribute of the owning module (a parameter, buffer or constant)."""
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_function", the_function, args, kwargs,
                                type_expr=type_expr)

    def call_method(self, method_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_method", method_name, args, kwargs,
                                type_expr=type_expr)

    def call_module(self, module_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_module", module_name, args, kwargs,
                                type_expr=type_expr)

    def output(self, result, type_expr=None):
        """The program's result (any structure of nodes and values)."""
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def node_copy(self, node, arg_transform=lambda x: x):
        """A copy of ``node`` (from any graph) here, its node arguments mapped by
        ``arg_transform``."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        copied = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        copied.meta = dict(node.meta)
        return copied

    def graph_copy(self, g, val_map, return_output_node=False):
        """Copy the nodes of graph ``g`` here (all but its output), recording in
        ``val_map`` which new node stands for each old one.  Returns what ``g``'s
        output returned, in terms of the new nodes."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                result = map_arg(node.args[0], lambda n: val_map[n])
                return (result, node) if return_output_node else result
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo):
        copied = Graph(tracer_cls=self._tracer_cls)
        val_map = {}
        result = copied.graph_copy(self, val_map, return_output_node=True)
        if result is not None:
            value, old_output = result
            copied.output(value, type_expr=old_output.type)
        memo[id(self)] = copied
        return copied

    # ----- where new nodes go -------------------------------------------------------------
    def inserting_before(self, n=None):
        """New nodes go just before ``n`` (the start of the graph if None).  Usable as a
        context manager, which puts the insert point back afterwards."""
        if n is None:
            return self.inserting_after(self._root)
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n=None):
        """New nodes go just after ``n`` (the end of the graph if None), each after the
        one inserted before it."""
        if n is None:
            return self.inserting_before(self._root)
        return _InsertPoint(self, _After(n))

    # ----- removing nodes ------------------------------------------------------------------
    def erase_node(self, to_erase):
        """Remove a node no one reads."""
        if to_erase.graph is not self or to_erase._erased:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it is not in this graph "
                               f"(or was erased already)")
        if len(to_erase.users) > 0:
            users = "{" + ", ".join(f"{u}: None" for u in to_erase.users) + "}"
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had "
                               f"{len(to_erase.users)} users in the graph: {users}!")
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        to_erase._update_args_kwargs((), {})

    def eliminate_dead_code(self, is_impure_node=None):
        """Erase every node whose value no one reads and that has no side effect
        (``Node.is_impure``); returns whether anything was erased."""
        self.lint()
        impure = is_impure_node or (lambda node: node.is_impure())
        changed = False
        for node in reversed(self.nodes):
            if not node.users and not impure(node):
                self.erase_node(node)
                changed = True
        return changed

    # ----- checking -----------------------------------------------------------------------
    def lint(self):
        """Check the graph is well formed: links, names, and every argument defined
        before it is used; with an owning module, every target exists in it."""
        seen, names = set(), set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            if node._next._prev is not node:
                raise RuntimeError(f"The links around Node '{node}' are inconsistent")
            if node.op not in OPCODES:
                raise RuntimeError(f"Node {node} had unknown opcode {node.op}!")
            for arg in node.all_input_nodes:
                if arg not in seen:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' was used before "
                                       "it has been defined! Please check that Nodes in the "
                                       f"graph are topologically ordered\n{self}")
                if node not in arg.users:
                    raise RuntimeError(f"Node '{arg}' does not list '{node}' among its users")
            if node.name in names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen.add(node)
            names.add(node.name)
            self._lint_target(node)

    def _lint_target(self, node):
        module = self._owning_module
        if module is None or node.op not in ("get_attr", "call_module"):
            return
        seen_qualname = []
        for atom in node.target.split("."):
            module = getattr(module, atom, None)        # None is missing, as in PyTorch
            if module is None:
                raise RuntimeError(f"Node {node} target {node.target} references nonexistent "
                                   f"attribute {atom} of {'.'.join(seen_qualname)}")
            seen_qualname.append(atom)
        if node.op == "call_module" and not _is_module(module):
            raise RuntimeError(f"Node {node} target {node.target} {atom} is not a Module")

    # ----- printing and code --------------------------------------------------------------
    def __str__(self):
        lines = ["graph():"] + ["    " + n.format_node() for n in self.nodes]
        return "\n".join(lines)

    def print_tabular(self):
        """The nodes as a table: opcode, name, target, args, kwargs."""
        rows = [("opcode", "name", "target", "args", "kwargs")]
        rows += [(n.op, n.name, str(n.target if isinstance(n.target, str)
                                    else qualified_name(n.target)),
                  str(n.args), str(n.kwargs)) for n in self.nodes]
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        text = [" ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        text.insert(1, " ".join("-" * w for w in widths))
        print("\n".join(text))

    def python_code(self, root_module="self", verbose=False):
        """The graph as Python source of a ``forward`` function, and the globals it
        needs (see ``_CodeWriter``).  ``verbose``: each value annotated with its dtype
        and shape (``"f32[4, 3]"``) where the node's ``meta["val"]`` holds a tensor."""
        return _CodeWriter(self, root_module, verbose).write()

    # ----- names ------------------------------------------------------------------------
    def _target_to_str(self, target):
        if isinstance(target, str):
            if target.startswith("__") and target.endswith("__"):
                target = target[2:-2]
            return target
        return _snake_case(getattr(target, "_fx_node_name", None) or
                           getattr(target, "__name__", type(target).__name__))

    def _create_name(self, candidate):
        """A unique identifier from ``candidate``: ``relu``, ``relu_1``, ``relu_2``... A
        Python keyword or builtin name (``sum``, ``getattr``) gets a number at once, so
        that the generated code never shadows one."""
        candidate = re.sub(r"[^0-9a-zA-Z_]+", "_", candidate) or "_unnamed"
        if candidate[0].isdigit():
            candidate = "_" + candidate
        match = re.fullmatch(r"(.*)_(\d+)", candidate)
        base, number = (match.group(1), int(match.group(2))) if match else (candidate, None)
        if candidate not in self._used_names and not _reserved(candidate):
            self._used_names[candidate] = 0
            if number is not None:
                self._used_names[base] = max(number, self._used_names.get(base, 0))
            return candidate
        number = max(number or 0, self._used_names.get(base, 0))
        while True:
            number += 1
            name = f"{base}_{number}"
            if name not in self._used_names and not _reserved(name):
                break
        self._used_names[base] = number
        self._used_names[name] = 0
        return name


def _reserved(name):
    return keyword.iskeyword(name) or hasattr(builtins, name) or name in _GLOBAL_NAMES


# The names the generated code uses for itself.
_GLOBAL_NAMES = {"self", "minitorch", "torch", "operator", "inf", "nan", "NoneType"}


def _snake_case(name):
    """``ReLU`` -> ``re_lu``; ``relu`` stays.  The same rule PyTorch uses for names."""
    chars = []
    for i, c in enumerate(name):
        if c.isupper() and i > 0 and not name[i - 1].isupper() and name[i - 1] != "_":
            chars.append("_")
        chars.append(c.lower())
    return "".join(chars)


def _is_module(obj):
    from ..nn import Module
    return isinstance(obj, Module)


class _NodeList:
    """A live view of a graph's nodes."""

    def __init__(self, graph, reverse=False):
        self._graph, self._reverse = graph, reverse

    def __len__(self):
        return self._graph._len

    def __iter__(self):
        root = self._graph._root
        step = "_prev" if self._reverse else "_next"
        node = getattr(root, step)
        while node is not root:
            if not node._erased:
                yield node
            node = getattr(node, step)

    def __reversed__(self):
        return _NodeList(self._graph, not self._reverse)

    def __repr__(self):
        return repr(list(self))


class _After:
    """Insert after ``node``, then after each node inserted, keeping their order."""

    def __init__(self, node):
        self.node = node

    def __call__(self, new):
        self.node.append(new)
        self.node = new


class _InsertPoint:
    def __init__(self, graph, insert):
        self.graph, self.previous = graph, graph._insert
        graph._insert = insert

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.graph._insert = self.previous


# ----- code generation ------------------------------------------------------------------------
class PythonCode:
    """What ``Graph.python_code`` returns: the source and the globals to run it with."""

    def __init__(self, src, globals):
        self.src = src
        self.globals = globals


class _CodeWriter:
    """Turns a graph into the source of ``forward``, one line per node: the node's name
    is the variable, and a variable is set to None after its last use (so the memory of
    an intermediate value can go as soon as nothing needs it)."""

    def __init__(self, graph, root_module, verbose=False):
        self.graph, self.root, self.verbose = graph, root_module, verbose
        self.globals = {"minitorch": _minitorch(), "inf": math.inf, "nan": math.nan,
                        "NoneType": type(None)}
        self.names_of = {}              # id(object) -> its global name

    def write(self):
        """The source of ``forward`` and its globals, as a ``PythonCode`` (chapter 18,
        "The graph back to Python").

        The source starts with three newlines, ``"\n\n\ndef forward(...``, or, when
        there are ``fx.wrap`` header lines (below), with a newline, those lines (each
        ending in a newline) and one more newline. Then comes
        ``def forward(self, x, y = 2):``: the root's name, then one parameter per
        placeholder in graph order, named by its target, with ``: "f32[4, 3]"`` after it
        in verbose mode and `` = <expression>`` (``_expr``) when the placeholder has a
        default (its ``args[0]``). The body, indented by four spaces, has a line
        ``name = target`` first for each placeholder whose node name differs from its
        target (``input_1 = input``), then one line per other node (``_line``; in verbose mode
        the annotation goes after the variable, before `` = ``). After a node's line,
        the variables whose last reader it is are set to None on the same line, in the
        order ``_last_uses`` gives, then the node's own name if nothing reads it:
        ``;  mul = b = None`` (two spaces after the semicolon). The output's line
        (``return ...``) gets no such suffix. A graph with no line gets ``pass``. The
        source ends with a newline and four spaces. Each function fx.wrap'ed by name (a
        value of ``_WRAPPED``) that a call_function node calls gives one header line,
        first use first and once each, ``minitorch.fx._symbolic_trace.wrap("name")``,
        where ``name`` is the name the code calls the function by
        (``_function_name``: ``tests_fx_test_graph_doubled``), not its ``__name__``:
        ``'\nminitorch.fx._symbolic_trace.wrap("f")\n\ndef forward(...'``."""
        ### BEGIN SOLUTION 18.1
        last_use = self._last_uses()
        params, body = [], []
        wrapped = []
        for node in self.graph.nodes:
            if node.op == "placeholder":
                default = node.args[0] if node.args else inspect.Signature.empty
                name = node.target + self._annotation(node, ": ")
                params.append(name if default is inspect.Signature.empty
                              else f"{name} = {self._expr(default)}")
                if node.name != node.target:        # ``input`` is a builtin: ``input_1``
                    body.append(f"{node.name} = {node.target}")
                continue
            line = self._line(node)
            if self.verbose and node.op not in ("output",):
                head, _, tail = line.partition(" = ")
                line = f"{head}{self._annotation(node, ': ')} = {tail}"
            if node.op == "call_function" and node.target in _WRAPPED.values():
                wrapped.append(self._function_name(node.target))
            dead = [n.name for n in last_use.get(node, [])]
            if not node.users and node.op != "output":
                dead.append(node.name)
            if dead and node.op != "output":
                line += f";  {' = '.join(dead)} = None"
            body.append(line)
        header = "".join(f'minitorch.fx._symbolic_trace.wrap("{name}")\n'
                         for name in dict.fromkeys(wrapped))
        lines = "\n".join("    " + b for b in (body or ["pass"]))
        src = (f"\n{header or chr(10)}\ndef forward({', '.join([self.root] + params)}):\n"
               f"{lines}\n    ")
        return PythonCode(src, self.globals)
        ### END SOLUTION 18.1

    def _annotation(self, node, prefix):
        """``prefix + '"f32[4, 3]"'`` in verbose mode for a node whose ``meta["val"]``
        is a tensor (``describe_value``, with its ``meta["shape_names"]``); else ""."""
        ### BEGIN SOLUTION 18.1
        text = describe_value(node.meta.get("val"), node.meta.get("shape_names")) \
            if self.verbose else None
        return f'{prefix}"{text}"' if text else ""
        ### END SOLUTION 18.1

    def _last_uses(self):
        """For each node, the nodes whose last reader it is, in the order its
        ``all_input_nodes`` lists them (``join(sum_1, input_1)`` frees ``sum_1`` then
        ``input_1``). A node's last reader is the last node in the graph that reads it:
        walking the graph backwards, the first reader met."""
        ### BEGIN SOLUTION 18.1
        seen, last_use = set(), {}
        for node in reversed(self.graph.nodes):
            for arg in node.all_input_nodes:
                if arg not in seen:
                    seen.add(arg)
                    last_use.setdefault(node, []).append(arg)
        return last_use
        ### END SOLUTION 18.1

    def _line(self, node):
        """The line of one node that is not a placeholder (chapter 18, "The graph back
        to Python"): ``return <expr>`` for the output; ``name = self.a.b`` for
        get_attr and ``name = self.a.b(args)`` for call_module (``_attribute_path``);
        ``name = <first arg>.method(rest)`` for call_method; ``name = <call>`` for
        call_function (``_call_expr``)."""
        ### BEGIN SOLUTION 18.1
        args, kwargs = node.args, node.kwargs
        if node.op == "output":
            return f"return {self._expr(args[0])}"
        if node.op == "get_attr":
            return f"{node.name} = {_attribute_path(self.root, node.target)}"
        if node.op == "call_module":
            call = _attribute_path(self.root, node.target)
            return f"{node.name} = {call}({self._call_args(args, kwargs)})"
        if node.op == "call_method":
            return (f"{node.name} = {self._expr(args[0])}.{node.target}"
                    f"({self._call_args(args[1:], kwargs)})")
        return f"{node.name} = {self._call_expr(node.target, args, kwargs)}"
        ### END SOLUTION 18.1

    def _call_expr(self, target, args, kwargs):
        """A call_function written as Python: without kwargs, a binary operator of
        ``MAGIC_BINARY`` on two arguments as ``a + b``, a unary one of
        ``MAGIC_UNARY`` as ``-a``, ``getattr(a, "name")`` with an identifier as
        ``a.name``, ``operator.getitem(a, i)`` as ``a[i]``; anything else as
        ``function_name(args, key = value)``."""
        ### BEGIN SOLUTION 18.1
        if not kwargs:
            if target in MAGIC_BINARY and len(args) == 2:
                return f"{self._expr(args[0])} {MAGIC_BINARY[target]} {self._expr(args[1])}"
            if target in MAGIC_UNARY and len(args) == 1:
                return f"{MAGIC_UNARY[target]}{self._expr(args[0])}"
            if target is builtins.getattr and len(args) == 2 and isinstance(args[1], str) \
                    and args[1].isidentifier():
                return f"{self._expr(args[0])}.{args[1]}"
            if target.__module__ == "_operator" and target.__name__ == "getitem" \
                    and len(args) == 2:
                return f"{self._expr(args[0])}[{self._expr(args[1])}]"
        return f"{self._function_name(target)}({self._call_args(args, kwargs)})"
        ### END SOLUTION 18.1

    def _call_args(self, args, kwargs):
        """``a, b, key = value``: the arguments as expressions, joined by ", " (a
        keyword argument with spaces around its ``=``)."""
        ### BEGIN SOLUTION 18.1
        parts = [self._expr(a) for a in args]
        parts += [f"{k} = {self._expr(v)}" for k, v in kwargs.items()]
        return ", ".join(parts)
        ### END SOLUTION 18.1

    def _expr(self, arg):
        """Source for an argument: a node by its name; a tuple as ``(a, b)``, with a
        comma after a single item, tuple subclasses included except namedtuples (a
        ``minitorch.Size([4, 3])`` is written ``(4, 3)``, as PyTorch writes it); a list
        as ``[a, b]``; a dict as ``{'k': a}`` (keys by ``repr``); a slice as
        ``slice(start, stop, step)``; anything else by ``_literal``."""
        ### BEGIN SOLUTION 18.1
        if isinstance(arg, Node):
            return arg.name
        if isinstance(arg, tuple) and not hasattr(arg, "_fields"):
            items = list(map(self._expr, arg))
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        if isinstance(arg, list):
            return "[%s]" % ", ".join(map(self._expr, arg))
        if isinstance(arg, dict):
            return "{%s}" % ", ".join(f"{k!r}: {self._expr(v)}" for k, v in arg.items())
        if isinstance(arg, slice):
            return "slice(%s)" % ", ".join(map(self._expr, (arg.start, arg.stop, arg.step)))
        return self._literal(arg)
        ### END SOLUTION 18.1

    def _literal(self, value):
        """A constant as source: ``repr`` for None, bools, ints, floats, strings and
        bytes (``inf`` and ``nan`` are globals of the code), ``...`` for Ellipsis,
        ``repr`` for values whose repr evaluates (``_evaluable_repr``: dtypes,
        sizes); anything else becomes a global named after its type in snake case,
        with a leading underscore (``_global``)."""
        ### BEGIN SOLUTION 18.1
        if value is None or value is Ellipsis or isinstance(value, (bool, int, str, bytes)):
            return repr(value) if value is not Ellipsis else "..."
        if isinstance(value, float):
            return repr(value)          # inf and nan are globals
        if _evaluable_repr(value):
            return repr(value)          # minitorch.float32, minitorch.Size([2, 3])
        return self._global(value, "_" + _snake_case(type(value).__name__))
        ### END SOLUTION 18.1

    def _function_name(self, fn):
        """How the code names a function: its qualified name when it lives in minitorch
        (``minitorch.relu``), a builtin's bare name (``getattr``), else a global
        named after its qualified name with every character that is not a letter,
        digit or ``_`` replaced by ``_`` (``_global``). A function of Python's
        ``operator`` module is named after the module it really lives in, ``_operator``
        (``abs(x)`` calls ``_operator_abs``, as in PyTorch), though the graph prints it
        as ``operator.abs``."""
        ### BEGIN SOLUTION 18.1
        name = qualified_name(fn)
        if name.startswith("minitorch."):
            return name
        if name.startswith("builtins."):
            return name[len("builtins."):]
        if getattr(fn, "__module__", None) == "_operator":
            name = f"_operator.{fn.__name__}"
        return self._global(fn, re.sub(r"[^0-9a-zA-Z_]", "_", name))
        ### END SOLUTION 18.1

    def _global(self, obj, hint):
        """The name under which ``obj`` is in ``self.globals``: the same name every time
        for the same object; ``hint`` if free (or already ``obj``), else ``hint_1``,
        ``hint_2``..."""
        ### BEGIN SOLUTION 18.1
        if id(obj) in self.names_of:
            return self.names_of[id(obj)]
        name, i = hint, 0
        while name in self.globals and self.globals[name] is not obj:
            i += 1
            name = f"{hint}_{i}"
        self.globals[name] = obj
        self.names_of[id(obj)] = name
        return name
        ### END SOLUTION 18.1


_DTYPE_SHORT = {"float32": "f32", "float64": "f64", "float16": "f16", "int64": "i64",
               "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "b8"}


def fake_value(value):
    """A stand-in for a tensor in ``node.meta["val"]``: same shape and dtype, no memory
    (a broadcast zero), so that a graph's metadata keeps no data alive."""
    import numpy as np
    from .._tensor import Tensor
    if not isinstance(value, Tensor):
        return None
    array = value._data
    return Tensor._wrap(np.broadcast_to(np.zeros((), dtype=array.dtype), array.shape))


def describe_value(value, shape_names=None):
    """``"f32[4, 3]"`` for a tensor (dims named in ``shape_names`` by their names)."""
    from .._tensor import Tensor
    if not isinstance(value, Tensor):
        return None
    shape = [str(n) for n in value._data.shape]
    for d, name in (shape_names or {}).items():
        shape[d] = name
    return f"{_DTYPE_SHORT.get(value._data.dtype.name, value._data.dtype.name)}" \
           f"[{', '.join(shape)}]"


def _evaluable_repr(value):
    import minitorch
    return isinstance(value, (minitorch.dtype, minitorch.Size))


def _attribute_path(root, target):
    """``self.sub.lin``, or ``getattr(self.seq, "0")`` where an atom is not an identifier."""
    ### BEGIN SOLUTION 18.1
    path = root
    for atom in target.split("."):
        path = f"{path}.{atom}" if atom.isidentifier() and not keyword.iskeyword(atom) \
            else f'getattr({path}, "{atom}")'
    return path
    ### END SOLUTION 18.1


def _minitorch():
    import minitorch
    return minitorch

