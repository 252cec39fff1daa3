"""``Interpreter`` and ``Transformer``: run a graph node by node (chapter 18).

An Interpreter runs a graph the way the generated code does, but one node at a time
through a method per opcode (``call_function``, ``call_module``...), so a subclass
can change what any kind of node does: print it, time it, record shapes
(``passes.shape_prop``), or hand back something else.  A ``Transformer`` is an
Interpreter whose values are proxies: running it *writes a new graph*, so the same
overriding turns into a graph-to-graph rewrite.
"""

import inspect

from .graph import Graph
from .graph_module import GraphModule
from .node import map_aggregate, map_arg
from .proxy import Proxy

__all__ = ["Interpreter", "Transformer"]


class Interpreter:
    """Runs ``module.graph`` (or ``graph``) on concrete values with ``run(*args)``."""

    def __init__(self, module, garbage_collect_values=True, graph=None):
        self.module = module
        self.submodules = dict(module.named_modules())
        self.graph = graph if graph is not None else module.graph
        self.env = {}
        self.garbage_collect_values = garbage_collect_values

    def run(self, *args, initial_env=None, enable_io_processing=True):
        """Run the graph on ``args``; returns what its output node returns.  With
        ``garbage_collect_values``, a value leaves ``env`` once every node that reads
        it has run (each run counts down its inputs' readers), so its memory can go
        before the graph ends."""
        self.env = initial_env if initial_env is not None else {}
        self.args_iter = iter(args)
        readers_left = {node: len(node.users) for node in self.graph.nodes}
        for node in self.graph.nodes:
            if node in self.env:
                continue
            try:
                self.env[node] = self.run_node(node)
            except Exception as e:
                note = f"While executing {node.format_node()}"
                if not any(note in str(a) for a in e.args):
                    e.args = ((f"{e.args[0]}\n\n{note}" if e.args else note),) + e.args[1:]
                raise
            if self.garbage_collect_values:
                for value in node.all_input_nodes:
                    readers_left[value] -= 1
                    if readers_left[value] == 0:
                        self.env.pop(value, None)
            if node.op == "output":
                return self.env[node]
        return None

    def run_node(self, n):
        """Run one node: its arguments from the values computed so far, then the
        method named after its opcode."""
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        return getattr(self, n.op)(n.target, args, kwargs)

    # ----- one method per opcode -----------------------------------------------------------
    def placeholder(self, target, args, kwargs):
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration:
            if args:
                return args[0]
            raise RuntimeError(f"Expected positional argument for parameter {target}, but "
                               "one was not passed in!") from None

    def get_attr(self, target, args, kwargs):
        return self.fetch_attr(target)

    def call_function(self, target, args, kwargs):
        return target(*args, **kwargs)

    def call_method(self, target, args, kwargs):
        self_obj, *rest = args
        return getattr(self_obj, target)(*rest, **kwargs)

    def call_module(self, target, args, kwargs):
        return self.fetch_attr(target)(*args, **kwargs)

    def output(self, target, args, kwargs):
        return args[0]

    # ----- helpers ------------------------------------------------------------------------
    def fetch_attr(self, target):
        obj = self.module
        atoms = target.split(".")
        for i, atom in enumerate(atoms):
            if not hasattr(obj, atom):
                raise RuntimeError("Node referenced nonexistent target "
                                   f"{'.'.join(atoms[:i + 1])}")
            obj = getattr(obj, atom)
        return obj

    def fetch_args_kwargs_from_env(self, n):
        return self.map_nodes_to_values(n.args, n), self.map_nodes_to_values(n.kwargs, n)

    def map_nodes_to_values(self, args, n):
        def load(arg):
            if arg not in self.env:
                raise RuntimeError(f"Node {n} referenced nonexistent value {arg}! Run "
                                   "Graph.lint() to diagnose such issues")
            return self.env[arg]
        return map_arg(args, load)


class Transformer(Interpreter):
    """Runs the graph on proxies, so that what each method returns becomes a node of a
    new graph; ``transform()`` returns it as a new GraphModule."""

    def __init__(self, module):
        super().__init__(module)
        from ._symbolic_trace import Tracer
        self.new_graph = Graph()

        class TransformerTracer(Tracer):
            def is_leaf_module(self, m, qualified_name):
                return True
        self.tracer = TransformerTracer()
        self.tracer._prepare(module, self.new_graph)

    def placeholder(self, target, args, kwargs):
        default = args[0] if args else inspect.Signature.empty
        return Proxy(self.new_graph.placeholder(target, default_value=default), self.tracer)

    def get_attr(self, target, args, kwargs):
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_module(self, target, args, kwargs):
        submod = self.fetch_attr(target)
        return self.tracer.call_module(submod, submod.forward, args, kwargs)

    def call_function(self, target, args, kwargs):
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def transform(self):
        from ._symbolic_trace import _Patches
        with _Patches(self.tracer, modules=False):     # minitorch.relu(proxy) records
            result = super().run(enable_io_processing=False)
        if result is not None:
            self.new_graph.output(map_aggregate(
                result, lambda x: x.node if isinstance(x, Proxy) else x))
        return GraphModule(self.module, self.new_graph)
