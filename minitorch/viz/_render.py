"""Finding a Graphviz renderer, and the Digraph subclass every picture is (all chapters' pictures).

The ``graphviz`` Python package writes DOT text and runs a ``dot`` program to
turn it into SVG.  A reader may have Debian's Graphviz (``dot`` on PATH) or
only the pip package ``graphviz-pure`` (a self-contained program named
``graphviz-pure``).  :func:`find_renderer` looks for them in that order; the
first picture rendered points the ``graphviz`` package at what was found.
Without any renderer, rendering raises :class:`RendererNotFoundError`, one
clear error saying how to install one; the DOT text (``.source``) still works.
"""

import os
import pathlib
import shutil
import sysconfig

__all__ = ["RendererNotFoundError", "find_renderer", "new_digraph", "to_svg"]

INSTALL_HINT = (
    "No Graphviz renderer was found to draw this picture: there is no `dot` program on PATH "
    "and no `graphviz-pure` program. Install one with `apt-get install graphviz` (Debian/Ubuntu) "
    "or `pip install graphviz-pure`, then draw again. The picture's DOT source is still "
    "available as `.source`.")


class RendererNotFoundError(RuntimeError):
    """No program that can render DOT (Graphviz ``dot`` or ``graphviz-pure``) was found."""

    def __init__(self, message=INSTALL_HINT):
        super().__init__(message)


def find_renderer():
    """The path of a program that renders DOT, or None.

    Looks for ``dot`` on PATH, then ``graphviz-pure`` on PATH, then
    ``graphviz-pure`` next to this Python (a virtual environment's scripts
    folder, which is not on PATH unless the environment is activated).
    """
    for program in ("dot", "graphviz-pure"):
        found = shutil.which(program)
        if found:
            return pathlib.Path(found)
    suffix = ".exe" if os.name == "nt" else ""
    candidate = os.path.join(sysconfig.get_path("scripts"), "graphviz-pure" + suffix)
    if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
        return pathlib.Path(candidate)
    return None


_configured = None   # the renderer the graphviz package was pointed at, once one was found


def use_renderer():
    """Point the graphviz package at a renderer (once); raise RendererNotFoundError if none exists."""
    global _configured
    if _configured is not None:
        return _configured
    found = find_renderer()
    if found is None:
        raise RendererNotFoundError()
    if found.name.startswith("graphviz-pure"):
        # graphviz reads backend.dot_command.DOT_BINARY when it builds each
        # command; graphviz.DOT_BINARY is only a copy, setting it does nothing.
        from graphviz.backend import dot_command
        dot_command.DOT_BINARY = found
    _configured = found
    return found


def _forget_renderer():
    """Look for a renderer again on the next render (for tests)."""
    global _configured
    _configured = None


def import_graphviz():
    try:
        import graphviz
    except ModuleNotFoundError as e:
        raise ModuleNotFoundError(
            "minitorch.viz draws pictures with the graphviz Python package, which is not "
            "installed: run `pip install graphviz graphviz-pure` (or `pip install -e \".[viz]\"` "
            "in the book's repository).", name="graphviz") from e
    return graphviz


_picture_class = None


def _picture():
    """The Digraph subclass returned by every draw_* function (made on first use, so that
    importing minitorch.viz does not import graphviz)."""
    global _picture_class
    if _picture_class is None:
        graphviz = import_graphviz()

        class Picture(graphviz.Digraph):
            """A ``graphviz.Digraph`` that finds a renderer before rendering, and
            reports a missing one with :class:`RendererNotFoundError`."""

            def pipe(self, *args, **kwargs):
                return _rendering(super().pipe, *args, **kwargs)

            def render(self, *args, **kwargs):
                return _rendering(super().render, *args, **kwargs)

            def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
                # Jupyter's display: the message instead of a traceback when nothing can render.
                try:
                    return super()._repr_mimebundle_(include, exclude, **kwargs)
                except RendererNotFoundError as e:
                    return {"text/plain": str(e)}

        Picture.__module__ = __name__
        _picture_class = Picture
    return _picture_class


def _rendering(method, *args, **kwargs):
    graphviz = import_graphviz()
    use_renderer()
    try:
        return method(*args, **kwargs)
    except graphviz.ExecutableNotFound as e:
        _forget_renderer()
        raise RendererNotFoundError() from e


def new_digraph(name, **graph_attr):
    """An empty picture with the book's look."""
    try:
        use_renderer()      # lazily, on the first draw; a missing renderer only matters when rendering
    except RendererNotFoundError:
        pass
    return _picture()(name=name,
                      graph_attr={"rankdir": "TB", **graph_attr},
                      node_attr={"fontname": "Helvetica", "fontsize": "11"},
                      edge_attr={"fontname": "Helvetica", "fontsize": "9"})


def to_svg(graph):
    """Render a picture (any ``graphviz`` graph) to SVG text."""
    if isinstance(graph, _picture()):
        return graph.pipe(format="svg", encoding="utf-8")
    return _rendering(graph.pipe, format="svg", encoding="utf-8")


def label(*lines):
    """A node label from lines of text: escaped for DOT, never mistaken for an HTML label."""
    text = "\\n".join(str(line).replace("\\", "\\\\") for line in lines)
    if text.startswith("<") and text.endswith(">"):
        text = " " + text
    return text
