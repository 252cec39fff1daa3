"""draw_module: the tree of an ``nn.Module`` (chapter 7).

Uses only what every Module has: ``named_children()``, ``_parameters``,
``_buffers`` and ``_non_persistent_buffers_set``.  With ``details=True``
(chapter "Module surgery") it also shows what module surgery adds outside
those dicts: tensors stored as plain attributes, forward pre-hooks, and
properties that the module's class computes.
"""

import html

from ._render import new_digraph

__all__ = ["draw_module"]


def draw_module(module, details=False):
    """One box per module, ``name: ClassName`` (the top one: its class name),
    listing the parameters it registered itself (name, shape, requires_grad)
    and its buffers (name, shape, persistent or not); arrows go from each
    module to its children.  Boxes are numbered n0, n1, ... in the order
    ``named_modules()`` visits them (depth first), so the DOT text is stable.
    A module registered in two places is one box with two arrows.
    ``details=True`` adds rows for plain tensor attributes (in the instance's
    ``__dict__``), forward pre-hooks (by class or function name) and
    properties defined by a class generated on the fly (``Parametrized...``).
    """
    graph = new_digraph("module_tree")
    graph.attr("node", shape="plaintext")
    ids = {}
    stack = [(None, "", module)]          # (parent's DOT id, name in the parent, module)
    while stack:
        parent_id, name, mod = stack.pop()
        known = ids.get(id(mod))
        if known is not None:             # met before under another name: say which
            graph.edge(parent_id, known, label=name)
            continue
        node_id = ids[id(mod)] = f"n{len(ids)}"
        graph.node(node_id, _module_label(name, mod, details))
        if parent_id is not None:
            graph.edge(parent_id, node_id)
        children = list(mod.named_children())
        stack.extend((node_id, child_name, child) for child_name, child in reversed(children))
    return graph


def _module_label(name, module, details=False):
    title = f"{name}: {type(module).__name__}" if name else type(module).__name__
    rows = [_row(f"<b>{html.escape(title)}</b>", "#dde7f5")]
    for pname, p in module._parameters.items():
        rows.append(_row(html.escape(_parameter_text(pname, p))))
    non_persistent = getattr(module, "_non_persistent_buffers_set", set())
    for bname, b in module._buffers.items():
        rows.append(_row(html.escape(_buffer_text(bname, b, bname not in non_persistent)), "#f3f3f3"))
    if details:
        rows += [_row(html.escape(text), "#fbeedd") for text in _surgery_texts(module)]
    return ('<<table border="1" cellborder="0" cellspacing="0" cellpadding="4">'
            + "".join(rows) + "</table>>")


def _row(content, color=None):
    background = f' bgcolor="{color}"' if color else ""
    return f'<tr><td align="left"{background}>{content}</td></tr>'


def _parameter_text(name, p):
    if p is None:
        return f"{name}: None"
    return f"{name} {_shape(p.shape)} requires_grad={p.requires_grad}"


def _buffer_text(name, b, persistent):
    kind = "buffer" if persistent else "buffer, not persistent"
    if b is None:
        return f"{name}: None ({kind})"
    return f"{name} {_shape(b.shape)} {kind}"


def _shape(shape):
    shape = tuple(shape)
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def _surgery_texts(module):
    """Rows for what lives outside the registries: plain tensor attributes, forward
    pre-hooks, and the properties of a class made for this one instance."""
    texts = [f"{name} {_shape(value.shape)} plain attribute"
             for name, value in vars(module).items()
             if not name.startswith("_") and hasattr(value, "shape")]
    for hook in getattr(module, "_forward_pre_hooks", {}).values():
        kind = getattr(hook, "__name__", type(hook).__name__)
        texts.append(f"forward pre-hook: {kind}")
    cls = type(module)
    if cls.__name__.startswith("Parametrized"):
        texts += [f"{name}: property of {cls.__name__}" for name, value in vars(cls).items()
                  if isinstance(value, property)]
    return texts
