"""A student's notebook: solutions out, outputs that show a solution re-rendered or
cleared; and running a notebook's code in a test (classroom.nbcode)."""

import json

import nbformat
import pytest

from classroom import notebooks
from classroom.nbcode import code_cells, notebook_namespace


def test_a_solution_directive_goes_and_the_exercise_stays():
    text = ("## Exercises\n\n````{exercise}\n:label: e1\n\nDo it.\n````\n\n"
            "````{solution} e1\n:class: dropdown\n\n```python\nsecret = 1\n```\n````\n\n"
            ":::{solution} e2\nsecret colon fence\n:::\n\nAfter.\n")
    kept, inside = notebooks.strip_solution_text(text)
    assert "secret" not in kept and not inside
    assert "````{exercise}" in kept and "Do it." in kept and "After." in kept


def test_a_gated_solution_is_removed_across_cells():
    cells = [nbformat.v4.new_markdown_cell("Before.\n\n```{solution-start} e\n```\nsecret 1"),
             nbformat.v4.new_code_cell("secret = 2"),
             nbformat.v4.new_markdown_cell("secret 3\n```{solution-end}\n```\nAfter."),
             nbformat.v4.new_code_cell("kept = 1", execution_count=7)]
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebooks.strip_solutions(notebook)
    text = json.dumps(notebook)
    assert "secret" not in text
    assert [c.source for c in notebook.cells] == ["Before.\n", "After.", "kept = 1"]
    assert notebook.cells[-1].execution_count == 1          # renumbered


def test_cells_tagged_solution_go():
    cells = [nbformat.v4.new_code_cell("a = 1", execution_count=1),
             nbformat.v4.new_code_cell("secret", execution_count=2,
                                       metadata={"tags": ["solution"]}),
             nbformat.v4.new_code_cell("b = 2", execution_count=3,
                                       outputs=[nbformat.v4.new_output(
                                           "execute_result", {"text/plain": "2"},
                                           execution_count=3)])]
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebooks.strip_solutions(notebook)
    assert [c.source for c in notebook.cells] == ["a = 1", "b = 2"]
    assert notebook.cells[1].execution_count == 2
    assert notebook.cells[1].outputs[0].execution_count == 2


def test_printed_solution_is_replaced_by_the_stub_even_dedented():
    old = ["        y = x + 1\n", "        return y * 2\n"]
    new = ["        raise NotImplementedError('Task 1')\n"]
    printed = "def f(x):\n    y = x + 1\n    return y * 2\n"
    assert notebooks.replace_blocks(printed, [(old, new)]) == \
        "def f(x):\n    raise NotImplementedError('Task 1')\n"


def test_outputs_still_showing_a_solution_are_cleared():
    body = ["    result, = ctx.saved_tensors\n", "    # a comment\n", "\n",
            "    return grad * result\n"]
    distinctive = notebooks.distinctive_lines(body)
    assert distinctive == ["result, = ctx.saved_tensors", "return grad * result"]
    head = "def backward(ctx, grad):\n    result, = ctx.saved_tensors\n"
    shown, similar = head + "    return grad * result\n", head + "    return grad / result\n"
    assert notebooks.leaks(shown, distinctive)
    assert not notebooks.leaks(similar, distinctive)      # one common line is not a leak
    leaking = nbformat.v4.new_code_cell("show()", outputs=[nbformat.v4.new_output(
        "stream", name="stdout", text=shown)])
    clean = nbformat.v4.new_code_cell("show()", outputs=[nbformat.v4.new_output(
        "stream", name="stdout", text=similar)])
    notebook = nbformat.v4.new_notebook(cells=[leaking, clean])
    assert notebooks.clear_leaking_outputs(notebook, [distinctive]) == 1
    assert leaking.outputs == [] and "nbval-ignore-output" in leaking.metadata["tags"]
    assert clean.outputs


def test_notebook_namespace_runs_up_to_the_task_cell(course_root):
    path = course_root / "book" / "01_engine.ipynb"
    assert [index for index, _ in code_cells(path, task="1.3")] == [1]
    assert notebook_namespace(path, task="1.3")["square"](5) == 25
    assert [index for index, _ in code_cells(path)] == [1, 2, 3, 7, 9]   # not 5: a solution
    with pytest.raises(LookupError, match="task 9.9"):
        code_cells(path, task="9.9")


def test_magics_and_cells_meant_to_fail_are_left_out(tmp_path):
    cells = [nbformat.v4.new_code_cell("%matplotlib inline\na = 1\n!ls"),
             nbformat.v4.new_code_cell("1 / 0", metadata={"tags": ["raises-exception"]}),
             nbformat.v4.new_code_cell("b = a + 1\nprint('quiet')")]
    path = tmp_path / "nb.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    assert notebook_namespace(path)["b"] == 2


def test_cells_run_as_in_jupyter(tmp_path):
    """Chapter 2 looks at what Jupyter keeps (`_`, `Out`) and calls `display`."""
    cells = [nbformat.v4.new_code_cell("41"),
             nbformat.v4.new_code_cell("x = _ + 1\ndisplay(x)"),
             nbformat.v4.new_code_cell("kept = 41 in Out.values()")]
    path = tmp_path / "nb.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    namespace = notebook_namespace(path)
    assert namespace["x"] == 42 and namespace["kept"]


def test_a_stub_in_a_notebook_cell_raises_its_own_error(tmp_path):
    cells = [nbformat.v4.new_code_cell(
        "def f():\n    ### BEGIN SOLUTION 2.1\n    raise NotImplementedError('Task 2.1 (x): "
        "see chapter 2')\n    ### END SOLUTION 2.1\nf()")]
    path = tmp_path / "nb.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    with pytest.raises(NotImplementedError, match="Task 2.1"):
        notebook_namespace(path, task="2.1")
