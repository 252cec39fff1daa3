"""Running a notebook's code in a test: how tasks written in a notebook are graded.

A task whose region is in a notebook's code cell (for example the tiny engine
of chapter 2) is tested by running that notebook's code cells, in order, up to
and including the last cell that holds the task's region, and then checking
what they defined::

    from classroom.nbcode import notebook_namespace

    @pytest.mark.task("2.1")
    def test_outputs_are_weak():
        ns = notebook_namespace("book/02b_tiny_engine.ipynb", task="2.1")
        ...ns["weak_square"]...

The cells run in an IPython shell when IPython is installed (so ``_``, ``Out``
and ``display`` behave as in Jupyter), else with ``exec`` (``display`` then
shows nothing); ``%magic`` and ``!shell`` lines are dropped either way.  Cells
tagged ``raises-exception`` (they are meant to fail), ``solution`` (exercise
solutions, gone from a student's copy) or ``classroom-skip`` are left out;
with ``tags=...`` only the cells carrying one of those tags run, plus the
task's own cells.  Printed output is swallowed.
"""

from __future__ import annotations

import contextlib
import io
import json
import pathlib
import re

from classroom.regions import marker_pairs, task_tag

SKIPPED_TAGS = {"raises-exception", "solution", "classroom-skip"}
_MAGIC = re.compile(r"^\s*[%!]")


def code_cells(path, task=None, tags=None):
    """``[(index, source)]`` of the code cells to run (see the module's docstring);
    a ``LookupError`` says so when no cell holds ``task``'s region."""
    notebook = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    chosen, last_task_cell = [], None
    for index, cell in enumerate(notebook.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        cell_tags = set(cell.get("metadata", {}).get("tags", []))
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        holds_task = task is not None and (task_tag(task) in cell_tags or any(
            p[0] == task for p in marker_pairs(source.splitlines(keepends=True),
                                               f"{path} cell {index}")))
        if SKIPPED_TAGS & cell_tags and not holds_task:
            continue
        if tags is not None and not set(tags) & cell_tags and not holds_task:
            continue
        chosen.append((index, source))
        if holds_task:
            last_task_cell = len(chosen)
    if task is None:
        return chosen
    if last_task_cell is None:
        raise LookupError(f"no code cell of {path} holds the region of task {task} "
                          f"(### BEGIN SOLUTION {task}): put the markers back")
    return chosen[:last_task_cell]


def notebook_namespace(path, task=None, tags=None):
    """Run the chosen code cells (see ``code_cells``) and return the namespace they
    made.  A relative ``path`` is taken from the current folder (the course root
    when the tests run)."""
    path = pathlib.Path(path).resolve()
    cells = code_cells(path, task, tags)
    try:
        from IPython.core.interactiveshell import InteractiveShell  # noqa: F401
    except ImportError:
        return _run_with_exec(path, cells)
    return _run_with_ipython(cells)


def _run_with_ipython(cells):
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config
    config = Config()
    config.HistoryManager.enabled = False        # (no history file in the user's home)
    shell = InteractiveShell(config=config)
    for _, source in cells:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            result = shell.run_cell(_without_magics(source), store_history=True)
        result.raise_error()
    return shell.user_ns


def _run_with_exec(path, cells):
    namespace = {"__name__": "__notebook__", "display": _display_nothing}
    for index, source in cells:
        code = compile(_without_magics(source), f"{path.name} (cell {index})", "exec")
        with contextlib.redirect_stdout(io.StringIO()):
            exec(code, namespace)      # noqa: S102 (running the course's own notebook)
    return namespace


def _display_nothing(*objects, **options):
    """IPython's ``display``, for code run outside a notebook: shows nothing."""


def _without_magics(source):
    return "".join(line for line in source.splitlines(keepends=True)
                   if not _MAGIC.match(line))
