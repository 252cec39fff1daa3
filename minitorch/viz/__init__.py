"""Pictures for the minitorch book: autograd graphs, object references, module trees.

Used by chapters 1 and 2 (memory: :func:`draw_refs` shows which objects
reference which, with reference counts, weak references and cycles),
chapter 3 (autograd: :func:`draw_graph` shows the backward graph, saved
tensors and their versions) and chapter 5 (modules: :func:`draw_module`
shows the module tree with parameters and buffers) and Part VI (:func:`draw_fx`
shows an fx graph: a traced or compiled program).

Every function returns a ``graphviz.Digraph``: Jupyter displays it as SVG,
``.source`` is its DOT text (the same on every run: nodes are numbered n0,
n1, ... in the order they are found, never by address), and :func:`to_svg`
renders it.  Rendering needs Graphviz's ``dot`` or the pip package
``graphviz-pure``, found on first use; without either, rendering raises
:class:`RendererNotFoundError`, which says how to install one.

``import minitorch`` does not import this package; this package imports
``graphviz`` only when a picture is made.

objgraph was evaluated for :func:`draw_refs` and is not used: its
``show_refs`` finds references with ``gc.get_referents``, which cannot see
the object a weak reference points to (so weak and dead references cannot be
drawn), names nodes by ``id()`` and shows reprs with addresses (so the DOT
differs on every run), draws the ``__dict__`` indirection, and corrects its
reference counts by a guessed constant; its ``find_backref_chain`` answers
another question ("what keeps this alive?") that a chapter can ask it directly.
"""

from ._render import RendererNotFoundError, to_svg
from ._graph import draw_graph
from ._refs import draw_refs
from ._module import draw_module
from ._fx import draw_fx

__all__ = ["draw_graph", "draw_refs", "draw_module", "draw_fx", "to_svg", "RendererNotFoundError"]
