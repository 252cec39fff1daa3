"""Solution regions: found, checked, replaced by stubs that still import."""

import pytest

from classroom import TaskNotDone, regions
from classroom.course import Task
from classroom.regions import MarkerError

TASK = Task("4.2", "counting dependencies", 4, "The engine, step by step", 5, "a1")


def lines(text):
    return text.splitlines(keepends=True)


def test_marker_pairs_give_the_lines_between_the_markers():
    text = "def f():\n    x = 1\n    ### BEGIN SOLUTION 4.2\n    y = 2\n    z = 3\n" \
           "    ### END SOLUTION 4.2\n    return x\n"
    assert regions.marker_pairs(lines(text), "f.py") == [("4.2", 2, 5, "    ")]
    region = regions.Region("4.2", "f.py", 2, 5, "    ")
    assert (region.start_line, region.end_line) == (4, 5)


@pytest.mark.parametrize("text, message", [
    ("### BEGIN SOLUTION\nx\n### END SOLUTION\n", "write one task id"),
    ("### BEGIN SOLUTION 1\nx\n", "never closed"),
    ("x\n### END SOLUTION 1\n", "without a BEGIN"),
    ("### BEGIN SOLUTION 1\nx\n### END SOLUTION 2\n", "ids must match"),
    ("### BEGIN SOLUTION 1\n### BEGIN SOLUTION 2\n", "starts inside the region of task 1"),
    ("### BEGIN SOLUTION 1\n### END SOLUTION 1\n", "is empty"),
])
def test_broken_markers_are_reported_with_file_and_line(text, message):
    with pytest.raises(MarkerError, match=message) as error:
        regions.marker_pairs(lines(text), "pkg/mod.py")
    assert "pkg/mod.py, line" in str(error.value)


def test_the_stub_is_valid_python_that_raises_the_message_in_short_lines():
    stub = regions.stub_lines(TASK, " " * 8)
    assert all(len(line.rstrip("\n")) <= 88 for line in stub)
    assert all(line.startswith(" " * 8) for line in stub)
    source = "def f():\n    if True:\n" + "".join(stub)
    namespace = {}
    exec(compile(source, "stub", "exec"), namespace)
    with pytest.raises(TaskNotDone) as error:
        namespace["f"]()
    assert str(error.value) == TASK.stub_message()
    assert not isinstance(error.value, Exception)     # no `except Exception` catches it


def test_a_title_with_quotes_still_makes_valid_python():
    task = Task("1.1", 'the "quoted" \\ one', 1, "s", 1, "a1")
    source = "".join(regions.stub_lines(task, ""))
    with pytest.raises(TaskNotDone, match="quoted"):
        exec(source, {})


def test_stubbing_and_splicing_a_file(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text("def f():\n    ### BEGIN SOLUTION 4.2\n    return 1\n"
                    "    ### END SOLUTION 4.2\n")
    found = regions.scan(tmp_path, ["."])
    assert [(r.task, r.path, r.start_line, r.end_line) for r in found] == \
        [("4.2", "mod.py", 3, 3)]
    regions.stub_tasks(tmp_path, found, [TASK])
    text = path.read_text()
    assert "return 1" not in text and "### BEGIN SOLUTION 4.2" in text
    assert "raise TaskNotDone(" in text
    assert regions.task_bodies(tmp_path, "mod.py", "4.2") == [
        regions.stub_lines(TASK, "    ")]
    assert regions.task_bodies(tmp_path, "missing.py", "4.2") is None


def test_regions_in_notebook_cells(course_root):
    found = [r for r in regions.scan(course_root, ["book"])]
    assert [(r.task, r.cell, r.start_line, r.end_line) for r in found] == [("1.3", 1, 3, 3)]


def test_reindent_puts_code_at_the_region_indentation():
    assert regions.reindent("\n  a = 1\n  if a:\n      b = 2\n", "    ") == \
        ["    a = 1\n", "    if a:\n", "        b = 2\n"]
