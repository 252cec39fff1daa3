"""Solution regions: the lines a student writes, between two marker comments.

In a Python file (and in a notebook's code cell) a region is::

        ### BEGIN SOLUTION 4.2
        ...the solution...
        ### END SOLUTION 4.2

indented like the code around it.  The marker words are nbgrader's, so an
instructor who already uses nbgrader finds the same convention; the task id
after them ties the region to a task of ``classroom/tasks.toml``.  A student's
copy keeps the markers around a stub that raises ``TaskNotDone``, so a
submission's regions can be found again when grading task by task.

Line numbers given out (``Region.start_line``/``end_line``) are 1-based and
inclusive and count the lines *between* the markers; in a notebook they count
within the cell's source, and ``Region.cell`` is the cell's index.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import pathlib
import re
import textwrap

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
_MARKER = re.compile(r"^(?P<indent>[ \t]*)### (?P<kind>BEGIN|END) SOLUTION\b(?P<rest>.*?)\s*$")
SKIPPED_DIRS = {"__pycache__", "_build", ".ipynb_checkpoints", "node_modules"}


class MarkerError(Exception):
    """Markers that do not pair up, or that name no task."""


@dataclasses.dataclass(frozen=True)
class Region:
    task: str
    path: str               # relative to the course root, with forward slashes
    begin: int              # 0-based index of the BEGIN line (in the file, or in the cell)
    end: int                # 0-based index of the END line
    indent: str
    cell: int | None = None
    cell_id: str | None = None

    @property
    def start_line(self):
        return self.begin + 2

    @property
    def end_line(self):
        return self.end

    def where(self):
        cell = f" cell {self.cell}" if self.cell is not None else ""
        return f"{self.path}{cell}, lines {self.start_line}-{self.end_line}"

    def as_json(self):
        data = {"path": self.path, "start_line": self.start_line, "end_line": self.end_line}
        if self.cell is not None:
            data["cell"] = self.cell
            if self.cell_id:
                data["cell_id"] = self.cell_id
        return data


def marker_pairs(lines, where):
    """``[(task, begin, end, indent)]`` for the marker pairs in ``lines``.

    Raises ``MarkerError`` naming ``where`` and the line when a marker has no
    task id, is not closed, is nested, or its END names another task.
    """
    pairs, open_marker = [], None
    for index, line in enumerate(lines):
        match = _MARKER.match(line.rstrip("\r\n"))
        if not match:
            continue
        kind, task, indent = match["kind"], match["rest"].strip(), match["indent"]
        line_no = index + 1
        if not task or " " in task:
            raise MarkerError(f"{where}, line {line_no}: write one task id after the marker, "
                              f"e.g. `{BEGIN} 4.2`")
        if kind == "BEGIN":
            if open_marker is not None:
                raise MarkerError(f"{where}, line {line_no}: a region starts inside the region "
                                  f"of task {open_marker[0]} (line {open_marker[1] + 1}); "
                                  f"close that one first with `{END} {open_marker[0]}`")
            open_marker = (task, index, indent)
            continue
        if open_marker is None:
            raise MarkerError(f"{where}, line {line_no}: `{END} {task}` without a BEGIN "
                              f"before it")
        if task != open_marker[0]:
            raise MarkerError(f"{where}, line {line_no}: `{END} {task}` closes the region "
                              f"of task {open_marker[0]}; the ids must match")
        if index == open_marker[1] + 1:
            raise MarkerError(f"{where}, line {line_no}: the region of task {task} is empty; "
                              "put the solution between the markers")
        pairs.append((task, open_marker[1], index, open_marker[2]))
        open_marker = None
    if open_marker is not None:
        raise MarkerError(f"{where}, line {open_marker[1] + 1}: `{BEGIN} {open_marker[0]}` "
                          f"is never closed; add `{END} {open_marker[0]}` after the solution")
    return pairs


def is_marker(line):
    return bool(_MARKER.match(line.rstrip("\r\n")))


# ----- files that hold regions: Python files and notebooks --------------------------

class PySource:
    """A Python file as one block of lines (line endings kept)."""

    def __init__(self, path):
        self.path = pathlib.Path(path)
        self.blocks = {None: self.path.read_text(encoding="utf-8").splitlines(keepends=True)}

    def block_id(self, key):
        return None

    def save(self):
        self.path.write_text("".join(self.blocks[None]), encoding="utf-8")


class NotebookSource:
    """A notebook: each code cell's source is a block of lines, keyed by the cell index."""

    def __init__(self, path):
        import nbformat      # (slow to import: only when a notebook holds markers)
        self.path = pathlib.Path(path)
        self.notebook = nbformat.read(self.path, as_version=4)
        self.blocks = {i: cell.source.splitlines(keepends=True)
                       for i, cell in enumerate(self.notebook.cells)
                       if cell.cell_type == "code"}

    def block_id(self, key):
        return self.notebook.cells[key].get("id")

    def save(self):
        import nbformat
        for key, lines in self.blocks.items():
            self.notebook.cells[key].source = "".join(lines)
        nbformat.write(self.notebook, self.path)


def open_source(path):
    return NotebookSource(path) if str(path).endswith(".ipynb") else PySource(path)


def regions_in(source, relpath):
    """Every region in an opened source, in order."""
    found = []
    for key, lines in source.blocks.items():
        where = relpath if key is None else f"{relpath} cell {key}"
        for task, begin, end, indent in marker_pairs(lines, where):
            found.append(Region(task, relpath, begin, end, indent, key, source.block_id(key)))
    return found


TOOL = pathlib.Path(__file__).resolve().parent      # this package: its docs show markers


def source_files(root, folders, suffixes=(".py", ".ipynb")):
    """The .py files and notebooks under ``folders`` (relative to ``root``), sorted; never
    the classroom tool's own files (their docstrings show markers as examples)."""
    root = pathlib.Path(root)
    files = []
    for folder in folders:
        start = root / folder
        if start.is_file():
            files.append(start)
            continue
        for path in start.rglob("*"):
            parts = path.relative_to(root).parts
            if any(p in SKIPPED_DIRS or p.startswith(".") for p in parts):
                continue
            if path.suffix in suffixes and path.is_file() and \
                    path.resolve().parent != TOOL and "classroom" not in parts[:-1]:
                files.append(path)
    return sorted(set(files))


def scan(root, folders, suffixes=(".py", ".ipynb")):
    """Every region in the course's source folders (in files with those suffixes)."""
    root = pathlib.Path(root)
    regions = []
    for path in source_files(root, folders, suffixes):
        text = path.read_text(encoding="utf-8")
        if BEGIN not in text and END not in text:
            continue
        regions.extend(regions_in(open_source(path), path.relative_to(root).as_posix()))
    return regions


def by_task(regions):
    grouped = {}
    for region in regions:
        grouped.setdefault(region.task, []).append(region)
    return grouped


def code_lines(root, task_regions):
    """The code lines a student writes for a task: the non-blank lines between its
    markers (in the solution) that are not comments alone."""
    count = 0
    for region in task_regions:
        source = open_source(pathlib.Path(root) / region.path)
        count += sum(1 for line in body(source.blocks[region.cell], region.begin, region.end)
                     if line.strip() and not line.strip().startswith("#"))
    return count


# ----- changing what is between the markers ------------------------------------------

def body(lines, begin, end):
    return lines[begin + 1:end]


def replace_body(lines, begin, end, new_body):
    """``lines`` with the lines between markers ``begin`` and ``end`` replaced."""
    return lines[:begin + 1] + list(new_body) + lines[end:]


def stub_lines(task, indent, width=88, later=False, function=""):
    """The stub that replaces a region: ``raise TaskNotDone(...)`` (see
    ``classroom.TaskNotDone``) whose message is split into string pieces so that no
    line is wider than ``width``.  ``later``: the task comes in a later assignment;
    ``function``: the one holding the region (its stub names the section explaining it,
    ``Task.explained_in``)."""
    message = task.stub_message(later, function)
    room = max(30, width - len(indent) - 6)
    pieces = textwrap.wrap(message, room, break_long_words=False, drop_whitespace=False,
                           break_on_hyphens=False)
    assert "".join(pieces) == message, "the stub message must survive wrapping"
    lines = [f"{indent}from classroom import TaskNotDone\n",
             f"{indent}raise TaskNotDone(\n"]
    lines += [f"{indent}    {json.dumps(piece, ensure_ascii=False)}\n" for piece in pieces]
    lines[-1] = lines[-1].rstrip("\n") + ")\n"
    return lines


def raise_lines(indent, text="region replaced by selfcheck"):
    """A body that only raises: used to prove that a region is not dead code."""
    return [f"{indent}raise RuntimeError({json.dumps(text)})\n"]


def reindent(code, indent):
    """``code`` (written without the region's indentation) indented for a region."""
    code = textwrap.dedent(code).strip("\n")
    return [(indent + line if line.strip() else "") + "\n" for line in code.split("\n")]


def stub_tasks(root, regions, tasks, later_ids=()):
    """Replace the body of every region of ``tasks`` under ``root`` by its stub (the
    stub of a task in ``later_ids`` says it comes with a later assignment).

    ``regions`` were found in the same files (line numbers must match);
    returns the set of changed paths (relative).
    """
    wanted = {t.id: t for t in tasks}
    return rewrite_regions(root, [r for r in regions if r.task in wanted],
                           lambda r, old: stub_lines(wanted[r.task], r.indent,
                                                     later=r.task in later_ids,
                                                     function=function_of(root, r)))


def function_of(root, region):
    """The qualified name (``Class.method``, ``outer.inner``) of the function whose body
    holds ``region`` in a Python file under ``root`` ("" in a notebook, or outside
    every function)."""
    if not region.path.endswith(".py"):
        return ""
    text = (pathlib.Path(root) / region.path).read_text(encoding="utf-8")
    best = ""

    def walk(node, prefix):
        nonlocal best
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                if isinstance(child, ast.ClassDef):
                    walk(child, name + ".")
                    continue
                if child.lineno <= region.begin + 1 <= child.end_lineno:
                    best = name
                walk(child, name + ".")

    walk(ast.parse(text), "")
    return best


def task_tag(task_id):
    """The tag of a notebook cell that held a task's region before ``unmark``."""
    return f"classroom-task-{task_id}"


def unmark(root, regions):
    """Drop the marker lines of ``regions`` under ``root``, keeping what is between
    them (an earlier assignment's solved task, in a student's copy)."""
    per_file = {}
    for region in regions:
        per_file.setdefault(region.path, []).append(region)
    for relpath, in_file in per_file.items():
        source = open_source(pathlib.Path(root) / relpath)
        for region in sorted(in_file, key=lambda r: (str(r.cell), r.begin), reverse=True):
            lines = source.blocks[region.cell]
            source.blocks[region.cell] = (lines[:region.begin] + body(lines, region.begin,
                                          region.end) + lines[region.end + 1:])
            if region.cell is not None:       # nbcode finds the task's cell by this tag
                tags = source.notebook.cells[region.cell].metadata.setdefault("tags", [])
                if task_tag(region.task) not in tags:
                    tags.append(task_tag(region.task))
        source.save()
    return set(per_file)


def rewrite_regions(root, regions, new_body):
    """Replace each region's body under ``root`` by ``new_body(region, old_body_lines)``;
    returns the set of changed paths."""
    changed = set()
    per_file = {}
    for region in regions:
        per_file.setdefault(region.path, []).append(region)
    for relpath, in_file in per_file.items():
        source = open_source(pathlib.Path(root) / relpath)
        for region in sorted(in_file, key=lambda r: (str(r.cell), r.begin), reverse=True):
            lines = source.blocks[region.cell]
            old = body(lines, region.begin, region.end)
            source.blocks[region.cell] = replace_body(lines, region.begin, region.end,
                                                      new_body(region, old))
        source.save()
        changed.add(relpath)
    return changed


def task_bodies(root, relpath, task_id):
    """The bodies of task ``task_id``'s regions in ``root/relpath``, in order, or None
    when the file is missing or its markers are gone or broken."""
    path = pathlib.Path(root) / relpath
    if not path.is_file():
        return None
    try:
        source = open_source(path)
        found = [r for r in regions_in(source, relpath) if r.task == task_id]
    except Exception:        # noqa: BLE001 (a submission's file may be anything)
        return None
    return [body(source.blocks[r.cell], r.begin, r.end) for r in found]
