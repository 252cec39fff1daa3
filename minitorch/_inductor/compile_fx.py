"""The default backend: AOT autograd, then numpy code for each graph (chapter 21)."""

import itertools
import linecache
import warnings

from .._tensor import Tensor
from ..autograd import function, grad_mode
from ..fx import Interpreter
from ..fx.graph import fake_value
from .._functorch import aot_autograd
from .codegen import generate
from .decompositions import decompose

__all__ = ["compile_fx", "compile_graph", "CompiledGraph", "output_code"]

_ids = itertools.count()
_recent = []                    # the last compiled graphs, for output_code()


class CompiledGraph:
    """A graph compiled to a numpy function: call it with the graph's inputs.
    ``source`` is the code that runs."""

    def __init__(self, source, globals_, graph_module):
        self.source = source
        self.graph_module = graph_module
        filename = f"<minitorch-inductor-{next(_ids)}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        namespace = dict(globals_)
        exec(compile(source, filename, "exec"), namespace)
        self.fn = namespace["call"]
        _recent.append(self)
        del _recent[:-16]

    def __call__(self, *args):
        return self.fn(list(args))

    def boxed(self, args):
        """Call with the inputs in a list, which the call empties: then each input is
        freed as soon as the code no longer needs it (a backward's saved values)."""
        return self.fn(args)

    def __repr__(self):
        return f"CompiledGraph(\n{self.source})"


def _propagate(gm, examples):
    """Run the graph once on example values and keep each node's value (its shape and
    dtype are what the code generator needs): ShapeProp, keeping the values."""
    class Values(Interpreter):
        def run_node(self, n):
            result = super().run_node(n)
            n.meta["val"] = result
            return result
    saved = function.transform_apply[0]
    function.transform_apply[0] = None
    try:
        with grad_mode.no_grad():
            Values(gm).run(*examples)
    finally:
        function.transform_apply[0] = saved


def compile_graph(gm, example_inputs=None):
    """Decompose, find shapes, and generate the numpy code of one graph."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    examples = [n.meta.get("val") for n in placeholders]
    if example_inputs is not None:
        examples = [e if e is not None else x for e, x in zip(examples, example_inputs)]
    small = decompose(gm)
    for old, new in zip(placeholders, [n for n in small.graph.nodes if n.op == "placeholder"]):
        new.meta = dict(old.meta)
    _propagate(small, examples)
    source, globals_ = generate(small)
    for graph in (gm.graph, small.graph):       # keep shapes, not the traced values
        for node in graph.nodes:
            if "val" in node.meta:
                node.meta["val"] = fake_value(node.meta["val"])
    return CompiledGraph(source, globals_, small)


def compile_fx(gm, example_inputs, **options):
    """What ``backend="inductor"`` (the default) does with a captured graph."""
    try:
        return aot_autograd.aot_module_simplified(gm, example_inputs, compile_graph,
                                                  compile_graph)
    except aot_autograd.Unsupported as e:
        warnings.warn(f"minitorch.compile: AOT autograd cannot trace this graph ({e}); it "
                      "runs as captured, op by op")
        return gm.forward


def output_code(n=2):
    """The source of the last ``n`` graphs compiled (a forward and its backward, say)."""
    return [c.source for c in _recent[-n:]]

