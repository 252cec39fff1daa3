"""``GraphModule``: a Module whose ``forward`` is generated from a graph (chapter 18).

It holds a ``Graph`` and the attributes its nodes read (submodules, parameters,
buffers, constants), copied from the module that was traced.  ``recompile()`` turns
the graph into Python source (``Graph.python_code``), compiles it and installs it as
the class's ``forward``; ``code`` is that source.  Edit the graph, call
``recompile()``, and the module runs the new program.

Each GraphModule gets a class of its own (``forward`` is a class attribute, and two
graph modules run different code).  Copying (``copy.deepcopy``) and pickling carry
the graph as data, never its source: loading rebuilds the graph node by node and
generates the code again (see ``_graph_to_data``).
"""

import copy
import itertools
import linecache

from ..nn import Module
from .._tensor import Tensor
from .graph import Graph
from .node import map_arg

__all__ = ["GraphModule"]

_source_ids = itertools.count()


class GraphModule(Module):
    """``GraphModule(root, graph, class_name)``: ``root`` a Module (or a dict from names
    to values) that has every attribute the graph's nodes read."""

    def __new__(cls, *args, **kwargs):
        base = next(t for t in cls.__mro__ if not t.__dict__.get("_one_instance_class"))

        class GraphModuleImpl(base):
            _one_instance_class = True
        return super().__new__(GraphModuleImpl)

    def __init__(self, root, graph, class_name="GraphModule"):
        super().__init__()
        type(self).__name__ = class_name
        type(self).__qualname__ = class_name
        targets = [n.target for n in graph.nodes if n.op in ("get_attr", "call_module")]
        if isinstance(root, Module):
            for target in targets:
                _copy_attr(root, self, target)
        elif isinstance(root, dict):
            for target in targets:
                if target not in root:
                    raise RuntimeError(f"Node target {target!r} is not in the dict of "
                                       "attributes given as root")
                _assign_attr(root[target], self, target)
        else:
            raise RuntimeError(f"Unsupported type {type(root).__name__} for root: pass a "
                               "Module or a dict")
        self.meta = {}
        self.graph = graph

    # ----- the graph and its code -------------------------------------------------------
    @property
    def graph(self):
        return self._graph

    @graph.setter
    def graph(self, g):
        if not isinstance(g, Graph):
            raise TypeError(f"GraphModule.graph must be a Graph, not {type(g).__name__}")
        self._graph = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self):
        """The Python source of ``forward``, generated from the graph."""
        return self._code

    def recompile(self):
        """Generate ``forward`` again from the graph (after you changed the graph)."""
        python_code = self._graph.python_code(root_module="self")
        self._code = python_code.src
        type(self).forward = _forward_from_source(self._code, python_code.globals)
        return python_code

    def print_readable(self, print_output=True, include_stride=False, include_device=False,
                       colored=False):
        """The module as a class with its generated ``forward``: what you would write."""
        text = _readable(self, self._get_name(), verbose=True)
        if print_output:
            print(text)
        return text

    def __str__(self):
        return "\n".join([super().__str__(), self._code,
                          "# To see more debug info, please use "
                          "`graph_module.print_readable()`"])

    # ----- submodules ------------------------------------------------------------------
    def add_submodule(self, target, m):
        """Install ``m`` at the dotted path ``target``, making empty modules on the way."""
        *path, field = target.split(".")
        module = self
        for item in path:
            sub = getattr(module, item, None)
            if sub is None:
                sub = Module()
                module.add_module(item, sub)
            if not isinstance(sub, Module):
                return False
            module = sub
        module.add_module(field, m)
        return True

    def delete_submodule(self, target):
        *path, field = target.split(".")
        module = self
        for item in path:
            module = getattr(module, item, None)
            if not isinstance(module, Module):
                return False
        if field not in module._modules:
            return False
        delattr(module, field)
        return True

    def delete_all_unused_submodules(self):
        used = set()
        for node in self._graph.nodes:
            if node.op in ("call_module", "get_attr"):
                atoms = node.target.split(".")
                used.update(".".join(atoms[:i]) for i in range(1, len(atoms) + 1))
        for name, _ in list(self.named_modules()):
            if name and name not in used:
                self.delete_submodule(name)

    # ----- copies ------------------------------------------------------------------------
    def __deepcopy__(self, memo):
        fake = Module()
        fake.__dict__ = copy.deepcopy({k: v for k, v in self.__dict__.items()
                                       if k != "_graph"}, memo)
        graph = copy.deepcopy(self._graph, memo)
        copied = GraphModule(fake, graph)
        copied.meta = copy.deepcopy(getattr(self, "meta", {}), memo)
        return copied

    def __copy__(self):
        copied = GraphModule(self, self._graph)
        copied.meta = getattr(self, "meta", {})
        return copied

    def __reduce__(self):
        """Pickled as its attributes and the graph as data (no source code): loading
        rebuilds the graph and generates ``forward`` again."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("_graph", "_code")}
        return _rebuild, (state, _graph_to_data(self._graph), self._get_name())


def _rebuild(state, graph_data, class_name):
    fake = Module()
    fake.__dict__ = state
    gm = GraphModule(fake, _graph_from_data(graph_data), class_name)
    for key, value in state.items():     # attributes the graph does not read
        if key not in gm.__dict__:
            gm.__dict__[key] = value
    return gm


class _NodeRef:
    """A node named in pickled graph data."""

    def __init__(self, name):
        self.name = name


def _graph_to_data(graph):
    rows = []
    for n in graph.nodes:
        ref = (lambda node: _NodeRef(node.name))
        rows.append((n.op, n.name, n.target, map_arg(n.args, ref), map_arg(n.kwargs, ref),
                     n.type))
    return rows


def _graph_from_data(rows):
    from .node import map_aggregate
    graph, nodes = Graph(), {}
    for op, name, target, args, kwargs, type_expr in rows:
        def resolve(x):
            return nodes[x.name] if isinstance(x, _NodeRef) else x
        node = graph.create_node(op, target, map_aggregate(args, resolve),
                                 map_aggregate(kwargs, resolve), name, type_expr)
        nodes[name] = node
    return graph


# ----- attributes ------------------------------------------------------------------------------
def _copy_attr(from_module, to_module, target):
    """Copy ``from_module``'s attribute at the dotted path ``target`` to the same path of
    ``to_module``, with empty modules for the levels on the way.  A tensor that is not a
    parameter becomes a buffer."""
    *path, field = target.split(".")
    for item in path:
        source = getattr(from_module, item)
        dest = getattr(to_module, item, None)
        if dest is None or dest is source:
            dest = Module()
            setattr(to_module, item, dest)
        from_module, to_module = source, dest
    value = getattr(from_module, field)
    persistent = field not in from_module.__dict__.get("_non_persistent_buffers_set", ())
    _install(to_module, field, value, persistent)


def _assign_attr(value, to_module, target):
    *path, field = target.split(".")
    for item in path:
        dest = getattr(to_module, item, None)
        if dest is None:
            dest = Module()
            setattr(to_module, item, dest)
        to_module = dest
    _install(to_module, field, value)


def _install(module, field, value, persistent=True):
    from ..nn import Parameter
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        module.register_buffer(field, value, persistent=persistent)
    else:
        setattr(module, field, value)


def _forward_from_source(src, globals_):
    """Compile generated source.  Its lines are registered with ``linecache`` under a
    made-up file name, so tracebacks and ``inspect.getsource`` show them."""
    filename = f"<eval_with_key>.{next(_source_ids)}"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    namespace = dict(globals_)
    exec(compile(src, filename, "exec"), namespace)
    return namespace["forward"]


def _readable(gm, name, verbose=False):
    """The module as a class; with ``verbose``, values annotated with dtypes and shapes
    (where the graph's nodes know them)."""
    code = gm._graph.python_code("self", verbose=verbose).src if verbose else gm.code
    body = code.strip("\n").rstrip()
    lines = [f"class {name}(minitorch.nn.Module):"]
    for sub_name, sub in gm.named_children():
        if isinstance(sub, GraphModule):
            nested = _readable(sub, sub_name, verbose).splitlines()
            lines += ["    " + line for line in nested]
    lines += ["    " + line if line else line for line in body.splitlines()]
    return "\n".join(lines) + "\n"

