"""draw_graph: the backward graph autograd recorded (chapter 4).

Nodes are numbered n0, n1, ... in the order a breadth-first walk from the
results meets them, so the same code always gives the same DOT text.
"""

import re
from collections import deque

from ._render import new_digraph, label

RESULT_STYLE = {"shape": "box", "style": "filled", "fillcolor": "#c9e7c4"}
LEAF_STYLE = {"shape": "box", "style": "filled", "fillcolor": "#cfe2f3"}
NODE_STYLE = {"shape": "box", "style": "rounded,filled", "fillcolor": "#eeeeee"}
SAVED_STYLE = {"shape": "box", "style": "filled", "fillcolor": "#fce5cd"}
MODIFIED_STYLE = {**SAVED_STYLE, "color": "red", "fontcolor": "red"}
FREED_STYLE = {"shape": "box", "style": "dashed", "fontcolor": "#777777"}


def draw_graph(*tensors, names=None, show_saved=False, show_versions=False, show_leaves=True,
               show_values=False):
    """The autograd graph behind ``tensors``, drawn in the backward direction.

    Result tensors are green boxes (their name from ``names``, else "result"),
    each ``grad_fn`` node is labelled with ``node.name()`` (without its C++ namespace), edges follow
    ``next_functions`` toward the leaves, and each ``AccumulateGrad`` points
    to its leaf (blue box) unless ``show_leaves=False``.  ``names`` is a dict
    ``{"x": x, ...}``; a tensor gets a name when it *is* one of these objects.
    ``show_saved=True`` adds the tensors each node saved for backward (orange),
    ``show_versions=True`` the version counters (saved version vs now).
    ``show_values=True`` writes the numbers in: each result and leaf shows its
    value and, once backward has stored one, its ``.grad``; a node that made
    a tensor named in ``names`` shows that tensor's value, and its gradient
    when the tensor keeps one (``retain_grad()``).  Tensors of more than four
    numbers show their shape instead.
    """
    from .._tensor import Tensor
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"draw_graph expects tensors, but argument {i} is a {type(t).__name__}: "
                            "pass the result tensors, e.g. draw_graph(loss), and name tensors "
                            "with names={'x': x}")
    drawing = _GraphDrawing(names or {}, show_saved, show_versions, show_leaves, show_values)
    for i, t in enumerate(tensors):
        default = "result" if len(tensors) == 1 else f"result {i}"
        drawing.add_result(t, default)
    drawing.walk()
    return drawing.graph


def shape_text(t):
    shape = tuple(t.shape)
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def numbers_text(t):
    """A tensor's numbers, to 4 significant digits: ``2.5`` or ``[1, -0.5]``; its shape if large."""
    if t.numel() > 4:
        return shape_text(t)
    numbers = [format(float(v), ".4g") for v in t.detach().numpy().ravel()]
    return numbers[0] if t.ndim == 0 else "[" + ", ".join(numbers) + "]"


def value_lines(t):
    """``value ...`` and, when the tensor holds one, ``grad ...`` (read without a warning)."""
    lines = [f"value {numbers_text(t)}"]
    if (t.is_leaf or t.retains_grad) and t.grad is not None:
        lines.append(f"grad {numbers_text(t.grad)}")
    return lines


def dtype_text(t):
    return getattr(t.dtype, "name", str(t.dtype))


class _GraphDrawing:
    def __init__(self, names, show_saved, show_versions, show_leaves, show_values=False):
        self.graph = new_digraph("autograd_graph")
        self.names = [(name, t) for name, t in names.items()]
        self.show_saved = show_saved
        self.show_versions = show_versions
        self.show_leaves = show_leaves
        self.show_values = show_values
        self.ids = {}        # id(object) -> DOT node id
        self.keep = []       # the objects drawn, kept alive so that id() stays unique
        self.queue = deque()

    def new_id(self, obj):
        node_id = f"n{len(self.keep)}"
        self.keep.append(obj)
        if obj is not None:
            self.ids[id(obj)] = node_id
        return node_id

    def name_of(self, t):
        for name, candidate in self.names:
            if candidate is t:
                return name
        return None

    def version_line(self, t):
        return [f"version {t._version}"] if self.show_versions else []

    def value_lines(self, t):
        return value_lines(t) if self.show_values else []

    def output_lines(self, node):
        """For show_values: the value (and gradient) of the named tensor ``node`` made."""
        if not self.show_values:
            return []
        for name, t in self.names:
            if t.grad_fn is node:
                return [f"{name}: " + line for line in value_lines(t)]
        return []

    # ----- tensors ---------------------------------------------------------
    def add_result(self, t, default):
        if id(t) in self.ids:
            return
        if t.grad_fn is None and t.requires_grad:
            self.add_leaf(t)
            return
        node_id = self.new_id(t)
        lines = ([self.name_of(t) or default, shape_text(t), dtype_text(t)]
                 + self.version_line(t) + self.value_lines(t))
        self.graph.node(node_id, label(*lines), **RESULT_STYLE)
        if t.grad_fn is not None:
            self.graph.edge(node_id, self.node_id(t.grad_fn))

    def add_leaf(self, t):
        if id(t) in self.ids:
            return self.ids[id(t)]
        node_id = self.new_id(t)
        name = self.name_of(t)
        lines = ([name] if name else []) + [shape_text(t)]
        if name is None:
            lines.append(dtype_text(t))
        lines += self.version_line(t) + self.value_lines(t)
        self.graph.node(node_id, label(*lines), **LEAF_STYLE)
        return node_id

    # ----- graph nodes -----------------------------------------------------
    def node_id(self, node):
        """The DOT id of a graph node, drawing it (and queueing its edges) when first met."""
        known = self.ids.get(id(node))
        if known is not None:
            return known
        node_id = self.new_id(node)
        self.graph.node(node_id, label(short_name(node), *self.output_lines(node)), **NODE_STYLE)
        self.queue.append((node_id, node))
        return node_id

    def walk(self):
        """Breadth-first, with a queue: deep graphs need no recursion."""
        while self.queue:
            node_id, node = self.queue.popleft()
            variable = getattr(node, "variable", None)
            if variable is not None and self.show_leaves:
                self.graph.edge(node_id, self.add_leaf(variable))
            if self.show_saved:
                self.draw_saved(node_id, node)
            for next_node, _ in node.next_functions:
                if next_node is not None:
                    self.graph.edge(node_id, self.node_id(next_node))

    # ----- saved tensors ---------------------------------------------------
    def draw_saved(self, node_id, node):
        for text, style in saved_labels(node, self.show_versions, self.name_of):
            saved_id = self.new_id(None)
            self.graph.node(saved_id, label(*text), **style)
            self.graph.edge(node_id, saved_id, style="dotted", arrowhead="none")


def short_name(node):
    """``node.name()`` without a C++ namespace: ``AccumulateGrad``, not
    ``torch::autograd::AccumulateGrad`` (the name PyTorch's nodes report)."""
    return node.name().rsplit("::", 1)[-1]


def saved_labels(node, show_versions, name_of):
    """One (label lines, style) per tensor ``node`` saved for backward.

    Built-in ops name them (``grad_fn._saved_self``..., the names listed in
    ``_forward_cls._saved_names``); a custom Function's are read from
    ``ctx.saved_tensors``.  Reading them is what backward does, so it checks
    them: a tensor released by backward is labelled "freed", one modified in
    place since it was saved shows both versions (from autograd's message).
    """
    forward_cls = getattr(type(node), "_forward_cls", None)
    if forward_cls is None:
        return []
    names = tuple(getattr(forward_cls, "_saved_names", ()))
    if names:
        return [saved_label(f"_saved_{n}", lambda n=n: getattr(node, "_saved_" + n),
                            show_versions, name_of) for n in names]
    if getattr(forward_cls, "_returns_new_gradients", False):   # a built-in op
        return []
    try:
        tensors = node.saved_tensors
    except RuntimeError as e:
        return [unreadable_label("saved_tensors", e)]
    return [saved_label(f"saved_tensors[{i}]", lambda t=t: t, show_versions, name_of)
            for i, t in enumerate(tensors)]


def saved_label(title, read, show_versions, name_of):
    try:
        t = read()
    except RuntimeError as e:
        return unreadable_label(title, e)
    if t is None:
        return [title, "None"], SAVED_STYLE
    name = name_of(t)
    lines = [title + (f" (is {name})" if name else ""), shape_text(t), dtype_text(t)]
    if show_versions:
        lines.append(f"version {t._version}")
    return lines, SAVED_STYLE


_VERSIONS = re.compile(r"is at version (\d+); expected version (\d+)")


def unreadable_label(title, error):
    message = str(error)
    if "freed" in message:
        return [title, "freed"], FREED_STYLE
    versions = _VERSIONS.search(message)
    if versions:
        now, saved = versions.groups()
        return ([title, f"saved at version {saved}, now {now}", "modified in place"],
                MODIFIED_STYLE)
    return [title, "unreadable: " + message.split(". ")[0][:60]], FREED_STYLE
