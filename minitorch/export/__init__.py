"""``minitorch.export``: a module's forward as one graph, with its state, that runs
without the Python that made it, and a file format for it (chapter 19).

* ``export(module, args)`` (``_trace.py``) captures with no graph break allowed;
* ``ExportedProgram`` (``exported_program.py``) holds the graph, its signature
  (``graph_signature.py``), the state and the free sizes (``Dim``,
  ``dynamic_shapes.py``), and runs as ``.module()``;
* ``save``/``load`` (``_serialize.py``) write it with ``minitorch.save``'s format:
  the graph as data naming only minitorch's ops, so loading runs no code from the
  file.
"""

from .dynamic_shapes import Dim, ValueRange
from .exported_program import ExportedProgram
from .graph_signature import (ExportGraphSignature, InputKind, InputSpec, OutputKind,
                              OutputSpec)
from ._trace import export
from ._serialize import save, load

__all__ = ["export", "ExportedProgram", "Dim", "save", "load", "ExportGraphSignature",
           "InputKind", "InputSpec", "OutputKind", "OutputSpec"]
