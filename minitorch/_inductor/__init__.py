"""``minitorch._inductor``: minitorch's compiler backend, which writes numpy code
(chapter 21).

``compile_fx`` is what the default backend runs on a captured graph: AOT autograd
(chapter 20) splits it into a forward and a backward graph, and each is compiled by
``compile_graph``: decompositions to a small set of ops (``decompositions.py``),
shapes from one run (``fx.passes.shape_prop``), then code generation
(``codegen.py``): one numpy statement per op, elementwise ops written into a buffer
that is free instead of a new one, chains of them fused into one kernel that works
block by block, and minitorch's own kernels called for the rest.  The source is
kept (``CompiledGraph.source``) so that you can read what runs.
"""

from .compile_fx import compile_fx, compile_graph, CompiledGraph, output_code  # noqa: F401
