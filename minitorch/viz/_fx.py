"""draw_fx: an fx ``Graph`` as a picture (chapters 18-20).

One box per node, in program order from top to bottom, coloured by its opcode:
inputs (``placeholder``) and attributes (``get_attr``) in blue, calls in white,
the ``output`` in grey.  A box shows the node's name and what it calls; when a
pass has recorded a shape in ``node.meta`` (``ShapeProp``'s ``tensor_meta``, or a
captured value's ``val``), that too.  An arrow goes from each node to every node
that uses its value, so the arrows are the graph's ``users``.  Nodes that a compiler
backend fused into one kernel (``node.meta["kernel"]``, chapter 21) sit in one dashed
box named after the kernel.
"""

import html

from ._render import new_digraph

__all__ = ["draw_fx"]

_COLOURS = {"placeholder": "#dde7f5", "get_attr": "#dde7f5", "output": "#e6e6e6"}
_KINDS = {"call_function": "", "call_method": ".", "call_module": "module "}


def draw_fx(graph, highlight=()):
    """The picture of ``graph`` (an fx ``Graph`` or a ``GraphModule``).  The nodes
    named in ``highlight`` are drawn in orange.  Boxes are numbered n0, n1, ... in
    program order, so the DOT text is the same on every run."""
    graph = getattr(graph, "graph", graph)
    picture = new_digraph("fx_graph")
    picture.attr("node", shape="box", style="rounded,filled", fontname="Helvetica",
                 fontsize="11")
    ids, kernels = {}, {}
    for node in graph.nodes:
        ids[node] = f"n{len(ids)}"
        colour = "#fbd9a9" if node.name in highlight else _COLOURS.get(node.op, "white")
        kernel = node.meta.get("kernel")
        box = picture if kernel is None else kernels.setdefault(kernel, _kernel_box(kernel))
        box.node(ids[node], _label(node), fillcolor=colour)
        for used in node.all_input_nodes:
            picture.edge(ids[used], ids[node])
    for box in kernels.values():
        picture.subgraph(box)
    return picture


def _kernel_box(name):
    """A dashed box (a DOT cluster) for the nodes of one fused kernel."""
    box = new_digraph(f"cluster_{name}")
    box.attr(label=name, labeljust="l", style="dashed", fontname="Helvetica", fontsize="11")
    return box


def _label(node):
    lines = [f"<b>{html.escape(node.name)}</b>"]
    what = _what(node)
    if what:
        lines.append(html.escape(what))
    shape = _shape(node)
    if shape:
        lines.append(f'<font color="#555555">{html.escape(shape)}</font>')
    return "<" + "<br/>".join(lines) + ">"


def _what(node):
    """What the node does, in a few words: ``mm``, ``.sum``, ``module lin``."""
    if node.op == "placeholder":
        return "input"
    if node.op == "output":
        return "output"
    if node.op == "get_attr":
        return f"self.{node.target}"
    target = node.target if isinstance(node.target, str) else \
        getattr(node.target, "__name__", str(node.target))
    return _KINDS.get(node.op, "") + target


def _shape(node):
    meta = node.meta.get("tensor_meta")
    shape = getattr(meta, "shape", None)
    if shape is None:
        value = node.meta.get("val")
        shape = getattr(value, "shape", None)
    if shape is None:
        return None
    return "[" + ", ".join(str(n) for n in shape) + "]"
