"""Running a notebook's code in a test: how tasks written in a notebook are graded.

A task whose region is in a notebook's code cell (for example the tiny engine
of chapter 2) is tested by running that notebook's code cells, in order, up to
and including the cell that holds the task's region, and then checking what
they defined::

    from classroom.nbcode import notebook_namespace

    @pytest.mark.task("2.1")
    def test_outputs_are_weak():
        ns = notebook_namespace("book/02_weakref.ipynb", task="2.1")
        ...ns["Function"]...

Cells tagged ``raises-exception`` (they are meant to fail) or ``solution``
(exercise solutions, gone from a student's copy) are left out, and so are
IPython's ``%magic`` and ``!shell`` lines.  Printed output is swallowed.
"""

from __future__ import annotations

import contextlib
import io
import json
import pathlib
import re

from classroom.regions import marker_pairs

SKIPPED_TAGS = {"raises-exception", "solution", "classroom-skip"}
_MAGIC = re.compile(r"^\s*[%!]")


def _root():
    return pathlib.Path.cwd()


def code_cells(path, task=None):
    """The sources of the code cells to run: all of them, or up to the one with
    ``task``'s region (a ``LookupError`` says so when no cell has it)."""
    notebook = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    sources = []
    for index, cell in enumerate(notebook.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        if SKIPPED_TAGS & set(cell.get("metadata", {}).get("tags", [])):
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        sources.append((index, _without_magics(source)))
        if task is not None and any(p[0] == task for p in marker_pairs(
                source.splitlines(keepends=True), f"{path} cell {index}")):
            return sources
    if task is not None:
        raise LookupError(f"no code cell of {path} holds the region of task {task} "
                          f"(### BEGIN SOLUTION {task}): put the markers back")
    return sources


def notebook_namespace(path, task=None, namespace=None):
    """Run the notebook's code cells (see ``code_cells``) in a fresh namespace and
    return it.  Paths are relative to the current folder (the course root when
    the tests run)."""
    path = pathlib.Path(path)
    if not path.is_absolute():
        path = _root() / path
    namespace = {"__name__": "__notebook__"} if namespace is None else namespace
    for index, source in code_cells(path, task):
        code = compile(source, f"{path.name} (cell {index})", "exec")
        with contextlib.redirect_stdout(io.StringIO()):
            exec(code, namespace)      # noqa: S102 (running the course's own notebook)
    return namespace


def _without_magics(source):
    return "".join(line for line in source.splitlines(keepends=True)
                   if not _MAGIC.match(line))
