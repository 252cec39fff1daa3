"""scripts/torch_diff.py, the comparison of the chapters with PyTorch (`make torch-diff`).

PyTorch is never installed next to the book, so these tests check the parts that do not
need it: how a cell is rewritten, how outputs are made comparable, and, on a made-up
notebook that does not import anything, how cells are run, compared and counted."""

import ast

import nbformat
import pytest

from scripts import torch_diff as td

pytestmark = pytest.mark.book


@pytest.mark.parametrize("source, expected", [
    ("import minitorch as torch", "import torch as torch"),
    ("import minitorch\nx = minitorch.tensor([1.0])", "import torch\nx = torch.tensor([1.0])"),
    ("import minitorch.nn as nn", "import torch.nn as nn"),
    ("from minitorch.autograd import Function, gradcheck",
     "from torch.autograd import Function, gradcheck"),
    ("from minitorch.viz import draw_graph", "from minitorch.viz import draw_graph"),
    ("minitorch.viz.draw_graph(y); minitorch.manual_seed(0)",
     "minitorch.viz.draw_graph(y); torch.manual_seed(0)"),
    ("from minitorch.book import FOLDER", "from minitorch.book import FOLDER"),
    ("print('minitorch says')  # minitorch here too", "print('minitorch says')  # minitorch here too"),
    ("minitorchy = 1\nmy_minitorch = 2", "minitorchy = 1\nmy_minitorch = 2"),
    ("try:\n    import minitorch\nexcept ImportError:\n    raise\n",
     "try:\n    import torch\nexcept ImportError:\n    raise\n"),
    ("%config ZMQInteractiveShell.cache_size = 0\nimport minitorch",
     "%config ZMQInteractiveShell.cache_size = 0\nimport torch"),
    ("!echo minitorch\nminitorch.ones(2)", "!echo torch\ntorch.ones(2)"),
])
def test_to_torch(source, expected):
    assert td.to_torch(source) == expected


def test_to_torch_falls_back_on_code_that_does_not_tokenize():
    assert td.to_torch('x = minitorch.ones(2\ns = """') == 'x = torch.ones(2\ns = """'


def out_stream(text, name="stdout"):
    return nbformat.v4.new_output("stream", name=name, text=text)


def test_output_text_merges_streams_sanitises_and_reads_minitorch_as_torch():
    sanitizers = td.load_sanitizers()
    outputs = [
        out_stream("<Node at 0x7f00aa>\n"),
        out_stream("from minitorch\n"),
        nbformat.v4.new_output("execute_result", data={"text/plain": "tensor([1.])"},
                               execution_count=1),
        nbformat.v4.new_output("display_data", data={"image/png": "iVBOR"}),
        nbformat.v4.new_output("display_data", data={"image/svg+xml": "<svg/>",
                                                     "text/plain": "<Digraph>"}),
        nbformat.v4.new_output("error", ename="RuntimeError", evalue="minitorch says no",
                               traceback=["a long traceback"]),
    ]
    assert td.output_text(outputs, sanitizers) == [
        "<Node at 0xADDRESS>",
        "from torch",
        "tensor([1.])",
        "[image/png]",
        "<Digraph>",
        "RuntimeError: torch says no",
    ]


def test_first_differences_marks_minitorch_and_torch_lines():
    lines = td.first_differences(["a", "b", "c"], ["a", "B", "c"])
    assert "-b" in lines and "+B" in lines
    long = td.first_differences([str(i) for i in range(50)], [])
    assert long[-1].startswith("... (")


def code(source, tags=(), outputs=()):
    cell = nbformat.v4.new_code_cell(source, outputs=list(outputs))
    if tags:
        cell.metadata["tags"] = list(tags)
    return cell


def test_run_notebook_runs_compares_and_counts(tmp_path):
    """A made-up chapter that needs no PyTorch: every status the report counts."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Made up"),
        code("x = 2\nprint(x)", outputs=[out_stream("2\n")]),                        # same
        code("print(x + 1)", outputs=[out_stream("4\n")]),                            # differs
        code("print(x * 10)", ("torch-diff-explained",), [out_stream("21\n")]),       # explained
        code("raise SystemExit('never run')", ("torch-diff-skip",)),                  # skipped
        code("import time; print(time.time())", ("nbval-ignore-output",),
             [out_stream("1.0\n")]),                                                  # volatile
        code("1 / 0", ("raises-exception",),
             [nbformat.v4.new_output("error", ename="ZeroDivisionError",
                                     evalue="division by zero", traceback=[])]),      # same
    ]
    path = tmp_path / "made_up.ipynb"
    nbformat.write(nb, path)
    result = td.run_notebook(path, td.load_sanitizers(), timeout=60)
    status = {c.index: c.status for c in result.cells}
    assert status == {1: "same", 2: "differs", 3: "explained", 4: "skipped", 5: "volatile",
                      6: "same"}, result
    differing = next(c for c in result.cells if c.index == 2)
    assert "-4" in differing.diff and "+3" in differing.diff
    text = td.report([result])
    assert "| made_up.ipynb | 6 | 2 | 1 | 1 | 1 | 1 |" in text
    assert "cell 2, differs" in text and "cell 3, explained" in text


def _skipped_helpers_called(notebook):
    """Cells that torch-diff runs but that call a function only a skipped cell defines
    (`show_source`, say): under PyTorch such a cell raises NameError."""
    only_skipped, run = set(), []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(td.to_torch(cell.source))
        except SyntaxError:          # IPython magics: no helpers defined or called there
            continue
        defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        if td.SKIP_TAG in cell.metadata.get("tags", []):
            only_skipped |= defined
        else:
            run.append((index, tree, defined))
    helpers = only_skipped - set().union(*(defined for _, _, defined in run))
    return [(index, node.func.id) for index, tree, _ in run for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in helpers]


@pytest.mark.parametrize("path", td.default_notebooks(), ids=lambda p: p.stem)
def test_no_run_cell_calls_a_helper_defined_only_in_skipped_cells(path):
    notebook = nbformat.read(path, as_version=4)
    assert _skipped_helpers_called(notebook) == [], (
        f"{path.name}: these cells call a function that only a `{td.SKIP_TAG}` cell "
        "defines; tag them `torch-diff-skip` too")
