"""Repository checks on the chapter notebooks.

nbval (``make test``) compares each notebook's stored outputs with a fresh
run, so a notebook must be committed *executed*: run top to bottom in a fresh
kernel (Kernel -> Restart Kernel and Run All Cells) and saved with its
outputs.  These checks catch the usual slips before nbval's messages would:

* a notebook under ``book/`` that ``_toc.yml`` does not list (it would be
  neither built nor read), or a ``_toc.yml`` entry whose file does not exist;
* a notebook saved unexecuted (a code cell without an execution count), run
  out of order or not from a fresh kernel (counts not 1, 2, ..., n in order),
  or with no outputs at all (nbval would then compare nothing);
* a stored output that belongs to the machine that ran it rather than to the
  method: an absolute path (a checkout, a venv's site-packages, a kernel's
  temporary cell file), or an error stored with its whole traceback, whose
  file paths are the machine's and whose line numbers and source lines go
  stale with the next edit of minitorch (nbval compares only an error's type
  and message). Pages show an error as one line, ``Type: message``: their
  setup cell puts IPython's tracebacks in ``Minimal`` mode.
"""

import glob
import json
import pathlib
import re

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
BOOK = "book"
SOURCE_SUFFIXES = (".ipynb", ".md", ".rst", ".myst", ".Rmd")
SKIPPED_PARTS = {"_build", ".ipynb_checkpoints"}


# ----- the checks, as functions (also tested below on made-up notebooks) -------

def notebooks_in(root):
    """Every notebook under ``root/book``, without build outputs and checkpoints."""
    found = (root / BOOK).rglob("*.ipynb") if (root / BOOK).is_dir() else ()
    return sorted(p for p in found
                  if not SKIPPED_PARTS & set(p.relative_to(root).parts)
                  and not any(part.startswith(".") for part in p.relative_to(root).parts))


def toc_entries(root):
    """The files ``_toc.yml`` names (``root``, ``file`` and ``glob`` entries, at any
    depth of chapters/parts/sections), as written, without extension."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8")) or {}
    files, globs, todo = [], [], [toc]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if key in ("root", "file") and isinstance(value, str):
                    files.append(value)
                elif key == "glob" and isinstance(value, str):
                    globs.append(value)
                else:
                    todo.append(value)
        elif isinstance(item, list):
            todo.extend(item)
    return sorted(files), sorted(globs)


def _strip_suffix(entry):
    path = pathlib.PurePosixPath(entry)
    return str(path.with_suffix("")) if path.suffix in SOURCE_SUFFIXES else entry


def missing_toc_files(root):
    """``_toc.yml`` entries with no file behind them."""
    files, globs = toc_entries(root)
    missing = [f for f in files
               if not any((root / (_strip_suffix(f) + s)).is_file() for s in SOURCE_SUFFIXES)]
    missing += [g for g in globs if not glob.glob(str(root / g) + "*")]
    return missing


def notebooks_not_in_toc(root):
    files, globs = toc_entries(root)
    listed = {_strip_suffix(f) for f in files}
    matched = {str(pathlib.PurePosixPath(p).relative_to(root).with_suffix("")).replace("\\", "/")
               for g in globs for p in map(pathlib.Path, glob.glob(str(root / g) + "*"))}
    return [p for p in notebooks_in(root)
            if p.relative_to(root).with_suffix("").as_posix() not in listed | matched]


def execution_problems(path):
    """Why a notebook does not look run top to bottom in a fresh kernel and saved (empty: fine)."""
    nb = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    code = [c for c in nb.get("cells", []) if c.get("cell_type") == "code"]
    problems = []
    for n, cell in enumerate(code, 1):
        if "".join(cell.get("source", "")).strip() and cell.get("execution_count") is None:
            problems.append(f"code cell {n} was never run (no execution count)")
    counts = [c["execution_count"] for c in code if c.get("execution_count") is not None]
    if counts and counts != list(range(1, len(counts) + 1)):
        problems.append(f"execution counts are {_summary(counts)}, not 1, 2, ..., {len(counts)}: "
                        "the notebook was not run top to bottom in a fresh kernel")
    if code and not any(c.get("outputs") for c in code):
        problems.append("no code cell has any output: it was saved without outputs, "
                        "so nbval would compare nothing")
    if problems:
        problems.append("fix: open it, Kernel -> Restart Kernel and Run All Cells, then save")
    return problems


# Absolute paths as they look on Linux, macOS and Windows; a path inside the
# repository is written relative to it (``minitorch/_tensor.py``).
MACHINE_PATH = re.compile(r"(?<![\w.~-])/(work|home|Users|root|tmp|var/folders)/"
                          r"|site-packages|dist-packages|\b[A-Za-z]:\\\\")


def machine_specific_outputs(path):
    """Stored outputs of a notebook that describe the machine that ran it (empty: fine)."""
    nb = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    code = [c for c in nb.get("cells", []) if c.get("cell_type") == "code"]
    problems = []
    for n, cell in enumerate(code, 1):
        for output in cell.get("outputs", []):
            found = MACHINE_PATH.search(json.dumps(output, ensure_ascii=False))
            if found:
                problems.append(f"code cell {n}: an output holds an absolute path "
                                f"({found.group()}...)")
            if output.get("output_type") == "error" and len(output.get("traceback", [])) > 1:
                problems.append(f"code cell {n}: an error is stored with its whole traceback "
                                "(set the Minimal mode in the setup cell, as the other pages "
                                "do, and re-execute)")
    return problems


def _summary(counts):
    return ", ".join(map(str, counts[:12])) + (", ..." if len(counts) > 12 else "")


# ----- the checks on this repository ----------------------------------------------

NOTEBOOKS = notebooks_in(ROOT)


def test_every_notebook_is_in_the_toc():
    missing = notebooks_not_in_toc(ROOT)
    assert not missing, ("notebooks not listed in _toc.yml (add `- file: book/<name>` without "
                         "the extension): " + ", ".join(str(p.relative_to(ROOT)) for p in missing))


def test_every_toc_entry_exists():
    missing = missing_toc_files(ROOT)
    assert not missing, "_toc.yml lists files that do not exist: " + ", ".join(missing)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_saved_executed_in_order(path):
    problems = execution_problems(path)
    assert not problems, f"{path.relative_to(ROOT)}: " + "; ".join(problems)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_stored_outputs_hold_no_machine_details(path):
    problems = machine_specific_outputs(path)
    assert not problems, f"{path.relative_to(ROOT)}: " + "; ".join(problems)


# ----- the checks can fail: made-up repositories ------------------------------------

def code_cell(source, count, outputs=()):
    return {"cell_type": "code", "source": source, "execution_count": count,
            "metadata": {}, "outputs": list(outputs)}


def stream(text):
    return {"output_type": "stream", "name": "stdout", "text": text}


def write_notebook(path, cells):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                "nbformat_minor": 5}), encoding="utf-8")


def good_cells():
    return [{"cell_type": "markdown", "source": "# A chapter", "metadata": {}},
            code_cell("print(1)", 1, [stream("1\n")]),
            code_cell("", None),
            code_cell("x = 2", 2)]


def test_a_fresh_top_to_bottom_run_passes(tmp_path):
    write_notebook(tmp_path / "nb.ipynb", good_cells())
    assert execution_problems(tmp_path / "nb.ipynb") == []


@pytest.mark.parametrize("cells, expected", [
    ([code_cell("print(1)", None, [stream("1\n")])], "never run"),
    ([code_cell("print(1)", 1, [stream("1\n")]), code_cell("x = 2", None)], "never run"),
    ([code_cell("print(1)", 2, [stream("1\n")]), code_cell("x = 2", 1)], "not run top to bottom"),
    ([code_cell("print(1)", 3, [stream("1\n")]), code_cell("x = 2", 4)], "not run top to bottom"),
    ([code_cell("print(1)", 1, [stream("1\n")]), code_cell("x = 2", 3)], "not run top to bottom"),
    ([code_cell("print(1)", 1), code_cell("x = 2", 2)], "no code cell has any output"),
])
def test_bad_notebooks_are_reported(tmp_path, cells, expected):
    write_notebook(tmp_path / "nb.ipynb", cells)
    problems = execution_problems(tmp_path / "nb.ipynb")
    assert any(expected in p for p in problems), problems


def error(lines):
    return {"output_type": "error", "ename": "RuntimeError", "evalue": "no",
            "traceback": lines}


def test_outputs_of_the_method_pass(tmp_path):
    write_notebook(tmp_path / "nb.ipynb", good_cells() + [
        code_cell("open('minitorch/x.py')", 3, [error(["RuntimeError: no"])]),
        code_cell("print(path)", 4, [stream("minitorch/_tensor.py:12 book/tmp/\n")])])
    assert machine_specific_outputs(tmp_path / "nb.ipynb") == []


@pytest.mark.parametrize("output, expected", [
    (stream("/home/ann/minitorch/_tensor.py\n"), "/home/"),
    (stream("in /tmp/ipykernel_1045/3072994522.py:10\n"), "/tmp/"),
    (stream("C:\\Users\\ann\\minitorch\\nn.py\n"), "C:\\"),
    ({"output_type": "execute_result", "execution_count": 1, "metadata": {},
      "data": {"text/plain": "'/venv/lib/python3.11/site-packages/numpy'"}}, "site-packages"),
    (error(["RuntimeError: no"]) | {"evalue": "in /work/wt/b/minitorch/_tensor.py"},
     "/work/"),
    (error(["Traceback", "File minitorch/_tensor.py:1103, in f", "RuntimeError: no"]),
     "whole traceback"),
])
def test_machine_details_are_reported(tmp_path, output, expected):
    write_notebook(tmp_path / "nb.ipynb", [code_cell("x", 1, [output])])
    problems = machine_specific_outputs(tmp_path / "nb.ipynb")
    assert any(expected in p for p in problems), problems


def test_toc_checks_on_a_made_up_repository(tmp_path):
    (tmp_path / BOOK).mkdir()
    (tmp_path / BOOK / "intro.md").write_text("# Intro\n")
    write_notebook(tmp_path / BOOK / "01_a.ipynb", good_cells())
    write_notebook(tmp_path / BOOK / "02_b.ipynb", good_cells())
    write_notebook(tmp_path / BOOK / "_build" / "jupyter_execute" / "01_a.ipynb", good_cells())
    write_notebook(tmp_path / BOOK / ".ipynb_checkpoints" / "01_a-checkpoint.ipynb", good_cells())
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: book/intro\nparts:\n  - caption: Memory\n    chapters:\n"
        "      - file: book/01_a.ipynb\n        sections:\n          - file: book/gone\n")
    assert [p.name for p in notebooks_in(tmp_path)] == ["01_a.ipynb", "02_b.ipynb"]
    assert [p.name for p in notebooks_not_in_toc(tmp_path)] == ["02_b.ipynb"]
    assert missing_toc_files(tmp_path) == ["book/gone"]
