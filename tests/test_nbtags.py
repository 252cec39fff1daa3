"""scripts/nbtags.py: the tags that collapse a chapter's first cell and hide assert-only
cells in the HTML book (book/README-authoring.md), and the fact the convention rests on:
nbval still runs the cells that the HTML hides."""

import subprocess
import sys

import nbformat
import pytest

from scripts import nbtags

pytestmark = pytest.mark.book


def make_notebook(*cells):
    """A notebook from (kind, source, tags, outputs) tuples; kind is "code" or "md"."""
    nb = nbformat.v4.new_notebook()
    for kind, source, tags, outputs in cells:
        if kind == "md":
            cell = nbformat.v4.new_markdown_cell(source)
        else:
            cell = nbformat.v4.new_code_cell(source, outputs=list(outputs))
        if tags:
            cell.metadata["tags"] = list(tags)
        nb.cells.append(cell)
    return nb


def chapter():
    stream = nbformat.v4.new_output("stream", name="stdout", text="1\n")
    return make_notebook(
        ("md", "# A chapter", (), ()),
        ("code", "import math", (), ()),
        ("code", "x = 1\nprint(x)", (), (stream,)),
        ("code", "# a check\nassert x == 1\n\nassert math.pi > 3  # fine", (), ()),
        ("code", "assert x == 1", ("remove-input", "remove-output"), ()),
        ("code", "assert x == 1\ny = 2", (), ()),
        ("code", "import warnings; warnings.warn('w')", (), ()),
        ("code", "assert x", ("nbval-ignore-output",), (stream,)),
    )


@pytest.mark.parametrize("source, expected", [
    ("assert x == 1", True),
    ("# only a comment first\nassert x\n\nassert y, 'message'  # trailing", True),
    ("assert (\n    x == 1\n)", True),
    ("", False),
    ("# just a comment", False),
    ("assert x\nprint(x)", False),
    ("x = 1", False),
    ("if x:\n    assert x", False),
    ("%config X.y = 0\nassert x", False),
])
def test_assert_only(source, expected):
    assert nbtags.is_assert_only(source) is expected


def test_inspect_finds_the_first_cell_and_the_assert_only_cells(tmp_path):
    report = nbtags.inspect_notebook(chapter(), tmp_path / "nb.ipynb")
    found = {(f.index, f.kind, f.missing) for f in report.findings}
    assert found == {
        (1, "first cell", ("hide-input",)),
        (3, "assert-only", ("remove-input", "remove-output")),
        (4, "assert-only", ()),
        (7, "assert-only", ("remove-input", "remove-output")),
    }
    noted = [f for f in report.findings if f.note]
    assert [f.index for f in noted] == [7]  # its output would be hidden too


def test_apply_adds_only_tags_and_is_idempotent(tmp_path):
    nb = chapter()
    before = [(c.source, c.get("outputs")) for c in nb.cells]
    report = nbtags.inspect_notebook(nb, tmp_path / "nb.ipynb")
    assert nbtags.apply_tags(nb, report) == 5
    assert [(c.source, c.get("outputs")) for c in nb.cells] == before
    assert nb.cells[1].metadata["tags"] == ["hide-input"]
    assert nb.cells[3].metadata["tags"] == ["remove-input", "remove-output"]
    assert nb.cells[7].metadata["tags"] == ["nbval-ignore-output", "remove-input", "remove-output"]
    assert "tags" not in nb.cells[2].metadata and "tags" not in nb.cells[5].metadata
    again = nbtags.inspect_notebook(nb, tmp_path / "nb.ipynb")
    assert again.missing == []


def test_command_check_and_apply(tmp_path, capsys):
    path = tmp_path / "nb.ipynb"
    nbformat.write(chapter(), path)
    original = path.read_text(encoding="utf-8")
    assert nbtags.main([str(path)]) == 0  # a report only
    assert path.read_text(encoding="utf-8") == original
    assert nbtags.main(["--check", str(path)]) == 1
    assert nbtags.main(["--apply", str(path)]) == 0
    assert nbtags.main(["--check", str(path)]) == 0
    assert "5 tags added" in capsys.readouterr().out


def test_nbval_runs_the_cells_the_html_hides(tmp_path):
    """The HTML book leaves out cells tagged remove-input/remove-output (and remove-cell),
    but nbval must still run them, or a hidden check would check nothing."""
    nb = make_notebook(
        ("code", "x = 1", ("hide-input",), ()),
        ("code", "assert x == 2, 'hidden check ran'", ("remove-input", "remove-output"), ()),
        ("code", "assert x == 3, 'removed cell ran'", ("remove-cell",), ()),
    )
    nbformat.write(nb, tmp_path / "hidden.ipynb")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--nbval", "--nbval-current-env", "-p", "no:cacheprovider",
         "-q", "hidden.ipynb"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert "hidden check ran" in run.stdout and "removed cell ran" in run.stdout, run.stdout
    assert "2 failed, 1 passed" in run.stdout, run.stdout


def test_the_chapters_carry_the_tags():
    missing = []
    for path in nbtags.default_notebooks():
        report = nbtags.inspect_notebook(nbformat.read(path, as_version=4), path)
        missing += [f"{path.name} cell {f.index}: {', '.join(f.missing)}" for f in report.missing]
    assert not missing, "\n".join(missing)
