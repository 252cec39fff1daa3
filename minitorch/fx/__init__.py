"""``minitorch.fx``: programs as data (chapter 18, the first of Part VI).

* ``symbolic_trace`` runs a module on ``Proxy`` values and records a ``Graph`` of
  ``Node``\\ s (``_symbolic_trace.py``, ``proxy.py``, ``graph.py``, ``node.py``);
* ``GraphModule`` turns a graph back into Python code and runs it
  (``graph_module.py``);
* ``Interpreter``/``Transformer`` run a graph node by node, to observe it or to
  rewrite it (``interpreter.py``); ``passes.shape_prop`` and ``subgraph_rewriter``
  are two such passes.

The same ``Graph`` also holds the op-level programs that ``minitorch.compile``
captures (``minitorch._dynamo``) and compiles (``minitorch._functorch``,
``minitorch._inductor``).
"""

from .graph import Graph, PythonCode
from .graph_module import GraphModule
from .node import Node, map_arg, map_aggregate, has_side_effect
from .proxy import Proxy, Attribute, TraceError
from ._symbolic_trace import Tracer, symbolic_trace, wrap, PH
from .interpreter import Interpreter, Transformer
from .subgraph_rewriter import replace_pattern
from . import passes, subgraph_rewriter  # noqa: F401

__all__ = ["Graph", "GraphModule", "Node", "Proxy", "Tracer", "symbolic_trace", "wrap",
           "Interpreter", "Transformer", "replace_pattern", "map_arg", "map_aggregate",
           "has_side_effect", "PythonCode", "TraceError", "Attribute", "PH"]
