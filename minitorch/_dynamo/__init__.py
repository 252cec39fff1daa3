"""``minitorch._dynamo``: capturing calls as graphs (chapter 19).

``capture.py`` records one call through the ops' interposition point,
``guards.py`` says when a capture can be reused, ``eval_frame.py`` is what a
compiled function does on each call (replay or capture again), ``backends.py``
names the compilers a graph can go to, and ``explain`` reports what a capture
found: its graphs and its graph breaks.
"""

from . import config  # noqa: F401
from .backends import list_backends, lookup_backend, register_backend
from .eval_frame import OptimizedModule, optimize, disable, is_compiling
from .exc import Unsupported  # noqa: F401
from . import exc  # noqa: F401

__all__ = ["reset", "explain", "optimize", "disable", "is_compiling", "OptimizedModule",
           "list_backends", "lookup_backend", "register_backend", "config", "exc",
           "mark_dynamic", "ExplainOutput"]


def reset():
    """Forget every captured graph: each compiled function captures again on its next
    call."""
    from .eval_frame import reset_caches
    reset_caches()


def mark_dynamic(t, index, min=None, max=None):
    """Mark dim ``index`` of ``t`` free: a compiled call captures it as a symbolic size."""
    dims = getattr(t, "_dynamo_dynamic_indices", None)
    if dims is None:
        dims = set()
        t._dynamo_dynamic_indices = dims
    dims.update([index] if isinstance(index, int) else index)


class ExplainOutput:
    """What ``explain`` found: the graphs, the graph breaks and their reasons."""

    def __init__(self, graphs, break_reasons, guards):
        self.graphs = graphs
        self.graph_count = len(graphs)
        self.graph_break_count = len(break_reasons)
        self.break_reasons = break_reasons
        self.ops_per_graph = [[n.target for n in g.graph.nodes if n.op == "call_function"]
                              for g in graphs]
        self.op_count = sum(len(ops) for ops in self.ops_per_graph)
        self.out_guards = guards
        self.compile_times = None

    def __str__(self):
        lines = [f"Graph Count: {self.graph_count}",
                 f"Graph Break Count: {self.graph_break_count}",
                 f"Op Count: {self.op_count}", "Break Reasons:"]
        for i, b in enumerate(self.break_reasons, 1):
            lines += [f"  Break Reason {i}:", f"    Reason: {b.reason}", "    User Stack:"]
            lines += [f"      {frame!r}" for frame in b.user_stack]
        lines.append("Ops per Graph:")
        for i, ops in enumerate(self.ops_per_graph, 1):
            lines.append(f"  Ops {i}:")
            lines += [f"    {op}" for op in ops]
        lines.append("Out Guards:")
        lines += [f"  Guard {i}: {g}" for i, g in enumerate(self.out_guards, 1)]
        return "\n".join(lines) + "\n"


def explain(f, *extra_args, **extra_kwargs):
    """``explain(f)(*args)``: capture one call of ``f`` and report its graphs and graph
    breaks (the call runs, as any first call of a compiled function does).

    As PyTorch's, it first forgets every compiled graph (``reset()``): functions compiled
    before it capture again on their next call."""
    from ..nn import Module
    from .eval_frame import CompiledCode

    def inner(*args, **kwargs):
        reset()
        graphs = []

        def record(gm, example_inputs):
            graphs.append(gm)
            return gm.forward
        module = f if isinstance(f, Module) else None
        code = CompiledCode(f.__call__ if module is not None else f, record, module=module)
        code(*(extra_args + args), **{**extra_kwargs, **kwargs})
        entry = code.entries[0]
        return ExplainOutput(graphs, entry.breaks, entry.guards.describe())
    return inner
