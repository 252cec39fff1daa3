"""``release``: a student repository with stubs, no solutions, no instructor files,
whose tests run and report unfinished tasks in one line each."""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import nbformat
import pytest

from classroom import (course as course_mod, regions, release as release_mod, student_check,
                       workflow, workspace)
from classroom.course import CourseError
from tests.classroom.fixture import SOLUTION_1_1


def test_the_release_leaves_out_instructor_files(release_a1):
    out, report = release_a1
    assert not (out / "classroom" / "hidden_tests").exists()
    assert not (out / "classroom" / "wrong_answers").exists()
    assert not (out / "notes").exists()
    assert (out / "classroom" / "tasks.toml").is_file()
    assert [t.id for t in report.tasks] == ["1.1", "1.2", "1.3"]
    assert report.leaks == []


def test_released_regions_hold_stubs_and_later_assignments_too(release_a1):
    out, _ = release_a1
    engine = (out / "minigrad" / "engine.py").read_text()
    assert SOLUTION_1_1 not in engine and "node.grad = node.grad + grad" not in engine
    assert engine.count("raise TaskNotDone(") == 2
    assert "### BEGIN SOLUTION 1.1" in engine and "### END SOLUTION 1.2" in engine
    ops = (out / "minigrad" / "ops.py").read_text()
    assert "return grad * b.data, grad * a.data" not in ops
    assert "it comes with assignment a2" in ops.replace('"\n        "', "")


def test_a_later_release_keeps_earlier_tasks_solved_without_markers(course, tmp_path):
    out = tmp_path / "a2"
    release_mod.release(course, out, "a2")
    engine = (out / "minigrad" / "engine.py").read_text()
    assert SOLUTION_1_1 in engine and "BEGIN SOLUTION" not in engine
    assert "raise TaskNotDone(" in (out / "minigrad" / "ops.py").read_text()
    assert release_mod.solution_lines_in(out, course) == []


def test_the_notebook_loses_its_solutions_and_shows_the_stub(release_a1):
    out, _ = release_a1
    notebook = nbformat.read(out / "book" / "01_engine.ipynb", as_version=4)
    text = json.dumps(notebook)
    for secret in ("THE-CUBE-SOLUTION", "THE-TAGGED-SOLUTION", "THE-GATED-SOLUTION",
                   "return x * x", "node.grad = node.grad + grad"):
        assert secret not in text
    printed = [c for c in notebook.cells if "getsource" in c.source][0]
    assert "Task 1.2 (accumulating gradients)" in printed.outputs[0].text
    assert "nbval-ignore-output" in printed.metadata.tags
    counts = [c.execution_count for c in notebook.cells if c.cell_type == "code"]
    assert counts == list(range(1, len(counts) + 1))
    assert "Text after the exercise." in text and "After the gated solution." in text


def test_the_book_builds_from_stored_outputs_and_a_readme_says_how_to_work(release_a1):
    out, _ = release_a1
    assert 'execute_notebooks: "off"' in (out / "_config.yml").read_text()
    readme = (out / "README.md").read_text()
    assert ("| 1.2 | accumulating gradients | `minigrad/engine.py` | 1 (`01_engine.ipynb`), "
            "Accumulation | 3 | 1.1 |") in readme
    assert "python -m classroom check" in readme
    assert "make setup-check" in readme and "run `make setup` once" in readme
    assert "check -v" in readme and "NotImplementedError" not in readme
    engine = (out / "minigrad" / "engine.py").read_text()
    example = readme.split("```python\n")[1].split("```")[0]
    assert "raise TaskNotDone(" in example
    assert example in engine               # the stub the README shows is the source's own
    assert (out / "README_BOOK.md").read_text().startswith("# Minigrad")
    assert json.loads((out / "classroom" / "release.json").read_text())["assignment"] == "a1"


def test_the_student_tests_report_each_unfinished_task_in_one_line(release_a1):
    out, _ = release_a1
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                           "-p", "no:nbval", "tests"],
                          cwd=out, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    skipped = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    assert all(": Task 1." in line and "is not done yet" in line for line in skipped), \
        done.stdout
    assert {line.split("Task ")[1][:3] for line in skipped} == {"1.1", "1.2", "1.3"}
    assert any(line.startswith("SKIPPED [4] minigrad/engine.py:25: Task 1.1 "
                               "(counting dependencies) is not done yet") for line in skipped), \
        done.stdout
    assert "Traceback" not in done.stdout
    assert "classroom: tasks not done yet: 1.1, 1.2, 1.3." in done.stdout


def test_check_reports_every_task_of_the_release_as_not_done(release_a1):
    out, _ = release_a1
    result = student_check.run_check(root=out)
    assert {i: s.status for i, s in result.scores.items()} == \
        {"1.1": "not-done", "1.2": "not-done", "1.3": "not-done"}
    assert not result


def test_check_runs_from_the_command_line(release_a1):
    out, _ = release_a1
    done = subprocess.run([sys.executable, "-m", "classroom", "check", "1.3"], cwd=out,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 3         # not done (nothing failed): not 0, for CI, nor 1
    assert done.stdout.splitlines() == [
        "   1.3  a square in the notebook  not done  0/1 points  0/1 tests passed  write it "
        "between its markers",
        "0 of 1 tasks pass: 0 of 1 points (a task's points count when all its tests pass)."]


def test_a_release_needs_an_empty_folder_and_marked_regions(course, release_a1, fresh_course,
                                                             tmp_path):
    with pytest.raises(CourseError, match="not empty"):
        release_mod.release(course, release_a1[0], "a1")
    source = fresh_course / "minigrad" / "ops.py"
    source.write_text(source.read_text().replace("### BEGIN SOLUTION 2.1", "# begin")
                      .replace("### END SOLUTION 2.1", "# end"))
    with pytest.raises(CourseError, match=r"tasks \['2.1'\] have no region"):
        release_mod.release(course_mod.load(fresh_course), tmp_path / "out", "a2")


def test_a_region_that_is_not_whole_statements_is_refused(fresh_course, tmp_path):
    source = fresh_course / "minigrad" / "ops.py"
    source.write_text(source.read_text().replace(
        "    return Value(a.data * b.data, (a, b), backward_fn)",
        "    return Value(\n        ### BEGIN SOLUTION 2.2\n        a.data * b.data,\n"
        "        ### END SOLUTION 2.2\n        (a, b), backward_fn)"))
    tasks = fresh_course / "classroom" / "tasks.toml"
    tasks.write_text(tasks.read_text() + '\n[[task]]\nid = "2.2"\ntitle = "t"\nchapter = 2\n'
                     'section = "s"\npoints = 1\nassignment = "a2"\n')
    with pytest.raises(CourseError, match="does not compile once its regions are stubbed"):
        release_mod.release(course_mod.load(fresh_course), tmp_path / "out", "a2")


def test_the_release_workflow_is_github_classroom_autograding(release_a1):
    yaml = pytest.importorskip("yaml")
    out, _ = release_a1
    text = (out / workflow.WORKFLOW_PATH).read_text()
    steps = yaml.safe_load(text)["jobs"]["run-autograding-tests"]["steps"]
    graders = [s for s in steps if s.get("uses") ==
               "classroom-resources/autograding-command-grader@v1"]
    assert [(s["id"], s["with"]["command"], s["with"]["max-score"]) for s in graders] == [
        ("task-1-1", "python -m classroom check 1.1", 4),
        ("task-1-2", "python -m classroom check 1.2", 3),
        ("task-1-3", "python -m classroom check 1.3", 1)]
    [reporter] = [s for s in steps if s.get("uses") ==
                  "classroom-resources/autograding-grading-reporter@v1"]
    assert reporter["with"]["runners"] == "task-1-1,task-1-2,task-1-3"
    assert reporter["env"]["TASK-1-1_RESULTS"] == "${{steps.task-1-1.outputs.result}}"
    assert not (out / ".github" / "workflows" / "ci.yml").exists()


def test_the_release_workflow_run_here_gives_each_task_its_points(release_a1, course,
                                                                  tmp_path):
    out, _ = release_a1
    assert [r.points for r in workflow.run_locally(out)] == [0, 0, 0]
    solved = tmp_path / "solved"
    shutil.copytree(out, solved)
    for task_id in ("1.1", "1.2", "1.3"):
        found = regions.by_task(regions.scan(solved, course.settings.sources))
        assert workspace.splice_task(solved, course.root, found[task_id]) == []
    results = workflow.run_locally(solved)
    assert [(r.points, r.max_points) for r in results] == [(4, 4), (3, 3), (1, 1)], \
        [r.output for r in results]


def test_a_check_line_says_points_and_tests_apart(release_a1):
    """A `check` line gives the task's points as points and its public tests as tests
    passed: a bare `0/N` next to the points was read as points."""
    out, _ = release_a1
    result = student_check.run_check(root=out)
    score = result.scores["1.1"]
    assert score.total != score.task.points          # so the two cannot be confused here
    line = next(line for line in student_check.format_lines(result) if "1.1" in line)
    assert f"  0/{score.task.points:g} points  0/{score.total} tests passed  " in line
    assert re.findall(r"\d+/\d+", line) == [f"0/{score.task.points:g}", f"0/{score.total}"]


MAKEFILE = """\
VENV ?= .venv
BIN := $(CURDIR)/$(VENV)/bin
setup:
\t@echo "selfcheck must not run setup"; exit 1
test: setup
\t"$(BIN)/python" -m pytest tests -q -p no:cacheprovider
"""
SOLUTIONS_TEST = """\
import pathlib

import pytest


@pytest.mark.solutions
def test_the_exercise_solution_is_in_the_notebook():
    assert "THE-CUBE-SOLUTION" in pathlib.Path("book/01_engine.ipynb").read_text()
"""


def test_an_untouched_release_passes_its_own_make_test(fresh_course, tmp_path):
    """The state the course was in: a test of the book's exercise solutions failed in every
    release (which leaves them out). Marked `solutions`, it is skipped there, saying why."""
    from classroom import selfcheck
    (fresh_course / "Makefile").write_text(MAKEFILE)
    (fresh_course / "tests" / "test_solutions.py").write_text(SOLUTIONS_TEST)
    course = course_mod.load(fresh_course)
    out = tmp_path / "a1"
    release_mod.release(course, out, "a1")
    ok, detail = selfcheck.release_make_test(out)
    assert ok, detail
    assert "1 passed, 8 skipped" in detail
    shown = subprocess.run([sys.executable, "-m", "pytest", "tests/test_solutions.py", "-rs",
                            "-p", "no:cacheprovider"], cwd=out, capture_output=True, text=True)
    assert "which your copy of the course leaves out" in shown.stdout
    unmarked = tmp_path / "unmarked"
    shutil.copytree(out, unmarked)
    test = unmarked / "tests" / "test_solutions.py"
    test.write_text(test.read_text().replace("@pytest.mark.solutions\n", ""))
    ok, detail = selfcheck.release_make_test(unmarked)
    assert not ok
    assert "FAILED tests/test_solutions.py::test_the_exercise_solution_is_in_the_notebook" \
        in detail


COUNT_TRACEBACKS = """\
import _pytest.python

written = []
_original = _pytest.python.Function.repr_failure


def _counting(self, excinfo):
    written.append(self.nodeid)
    return _original(self, excinfo)


_pytest.python.Function.repr_failure = _counting


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"tracebacks written: {len(written)}")
"""


def test_a_stubbed_test_is_skipped_before_pytest_writes_its_traceback(release_a1, tmp_path):
    """Writing a failure's traceback costs pytest half a second a test; a fresh release's
    `make test` stops thousands of tests at stubs."""
    out, _ = release_a1
    (tmp_path / "count_tracebacks.py").write_text(COUNT_TRACEBACKS)
    done = subprocess.run([sys.executable, "-m", "pytest", "tests/test_engine.py", "-rs",
                           "-p", "no:cacheprovider", "-p", "count_tracebacks"], cwd=out,
                          capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{out}"})
    assert "SKIPPED [3] minigrad/engine.py:25: Task 1.1 (counting dependencies) is not " \
        "done yet" in done.stdout
    assert "1 passed, 5 skipped" in done.stdout
    assert "tracebacks written: 0" in done.stdout


def test_a_release_reports_the_lines_a_student_writes_not_its_stubs(course, release_a1,
                                                                     capsys):
    """In a student's copy the regions hold stubs (and an earlier assignment's tasks no
    markers): `tasks` reports what the solution's regions hold, recorded by the release."""
    from classroom import cli
    out, _ = release_a1
    assert cli.main(["--root", str(course.root), "tasks", "--json"]) == 0
    expected = {t["id"]: t["lines"] for t in json.loads(capsys.readouterr().out)}
    assert all(expected.values())
    assert cli.main(["--root", str(out), "tasks", "--json", "--all"]) == 0
    shown = {t["id"]: t["lines"] for t in json.loads(capsys.readouterr().out)}
    assert shown == expected
    stubs = {t.id: regions.code_lines(out, found) for t in course.tasks
             for found in [regions.by_task(regions.scan(out, course.settings.sources))
                           .get(t.id, [])]}
    assert stubs != expected                 # what counting the copy's regions would say


def test_tasks_in_a_release_lists_its_assignment_and_all_with_a_flag(course, release_a1,
                                                                     capsys):
    """A student's `tasks` lists the tasks of their assignment; `--all` lists the course."""
    from classroom import cli
    out, _ = release_a1
    assert cli.main(["--root", str(out), "tasks", "--json"]) == 0
    assert [t["id"] for t in json.loads(capsys.readouterr().out)] == ["1.1", "1.2", "1.3"]
    assert cli.main(["--root", str(out), "tasks"]) == 0
    text = capsys.readouterr().out
    assert "2.1" not in text.split("(the tasks of")[0] and "tasks --all" in text
    assert cli.main(["--root", str(out), "tasks", "--all", "--json"]) == 0
    assert [t["id"] for t in json.loads(capsys.readouterr().out)] == \
        [t.id for t in course.tasks]


def test_the_readme_says_which_files_each_task_edits(release_a1):
    """Each task's row names the file(s) its code goes in: the package's module, or the
    chapter's notebook for a notebook task."""
    out, _ = release_a1
    readme = (out / "README.md").read_text()
    rows = {line.split("|")[1].strip(): line for line in readme.splitlines()
            if line.startswith("| 1.")}
    assert "| you edit |" in readme.replace("edits", "edit")
    assert "`minigrad/engine.py`" in rows["1.1"] and "`minigrad/engine.py`" in rows["1.2"]
    assert "`book/01_engine.ipynb`" in rows["1.3"]


def test_make_tasks_and_check_need_only_the_quick_setup():
    """`make tasks` and `make check` set up only what `check` needs (setup-check), not
    the book's toolchain, when there is no environment yet."""
    root = pathlib.Path(__file__).resolve().parents[2]
    for target in ("tasks", "check"):
        done = subprocess.run(["make", "-n", target, "VENV=.no-such-venv"], cwd=root,
                              capture_output=True, text=True, timeout=60)
        setups = [line for line in done.stdout.splitlines() if "scripts/setup.sh" in line]
        assert setups and all("REQUIREMENTS=requirements-check.txt" in line
                              for line in setups), (target, done.stdout)


def test_the_readme_says_what_students_may_do_with_pytorch(release_a1):
    """PyTorch's own source nearly answers some build tasks: the README says that running
    PyTorch and reading its documentation are allowed, reading or copying its source not."""
    out, _ = release_a1
    policy = (out / "README.md").read_text().split("## Reading PyTorch")[1].split("##")[0]
    assert "you may run PyTorch to compare what your code does" in policy
    assert "do not read or copy its source code" in policy


def test_a_notebook_task_says_how_to_open_its_notebook(release_a1):
    """Task 1.3 is written in a notebook, which the quick setup (`setup-check`) gives no
    editor for: the README says so and names `make lab`, which sets up Jupyter first."""
    out, _ = release_a1
    readme = (out / "README.md").read_text()
    getting_started = readme.split("## Getting started")[1].split("## Your tasks")[0]
    assert "**Task 1.3 is written in a notebook**" in getting_started
    assert "`make lab`" in getting_started
    root = pathlib.Path(__file__).resolve().parents[2]
    done = subprocess.run(["make", "-n", "lab", "VENV=.no-such-venv"], cwd=root,
                          capture_output=True, text=True, timeout=60)
    setups = [line for line in done.stdout.splitlines() if "scripts/setup.sh" in line]
    assert setups and not any("requirements-check" in line for line in setups)
    assert "jupyter\" lab" in done.stdout or "jupyter lab" in done.stdout, done.stdout


def test_a_page_that_stops_at_a_later_task_says_so_at_its_top(course, release_a1, tmp_path):
    """The page of tasks 1.1 and 1.2 stops at task 1.3's stub (`page_stops_at`, which the
    walk checks): a student reading it for them is told, at the top, that a `TaskNotDone` about 1.3 is
    expected.  In a2's release 1.3 is solved, and the page has no note."""
    out, _ = release_a1
    notebook = nbformat.read(out / "book" / "01_engine.ipynb", as_version=4)
    note = notebook.cells[1]
    assert note.cell_type == "markdown" and release_mod.NOTE_TAG in note.metadata["tags"]
    assert "this page explains tasks 1.1 and 1.2, and some of its cells run code of task 1.3 " \
        "(a square in the notebook), which comes later in this assignment, further down this " \
        "page" in note.source                   # 1.3 is written on this page too
    assert "`TaskNotDone: Task 1.3 (a square in the notebook) is not done yet`" in note.source
    assert sum(release_mod.NOTE_TAG in c.metadata.get("tags", ()) for c in notebook.cells) == 1
    later = tmp_path / "a2"
    release_mod.release(course, later, "a2")
    notebook = nbformat.read(later / "book" / "01_engine.ipynb", as_version=4)
    assert not any(release_mod.NOTE_TAG in c.metadata.get("tags", ()) for c in notebook.cells)


WHILE_1_1_IS_A_STUB = '''
[[release.replace]]
path = "minigrad/ops.py"
when_stubbed = "1.1"
start = "def add(a, b):"
until = "def mul(a, b):"
new = """def add(a, b):
    return Value(a.data + b.data, (a, b), lambda grad: (grad, grad))  # the slow way


"""

[[release.replace]]
path = "minigrad/engine.py"
when_stubbed = "1.1"
start = '"""Add grad into node.grad."""'
until = "### BEGIN SOLUTION 1.2"
new = "    \\"\\"\\"Add grad into node.grad (as edited).\\"\\"\\"\\n"
'''


def test_an_edit_when_a_task_is_stubbed_is_made_only_in_releases_that_stub_it(fresh_course,
                                                                              tmp_path):
    """... and a notebook output that prints the code it edits shows it edited too."""
    tasks = fresh_course / "classroom" / "tasks.toml"
    tasks.write_text(tasks.read_text() + WHILE_1_1_IS_A_STUB)
    course = course_mod.load(fresh_course)
    for name, edited in (("a1", True), ("a2", False)):
        release_mod.release(course, tmp_path / name, name)
        ops = (tmp_path / name / "minigrad" / "ops.py").read_text()
        assert ("# the slow way" in ops) == edited, name
        assert ops.count("def add(a, b):") == 1 and "def mul(a, b):" in ops
        engine = (tmp_path / name / "minigrad" / "engine.py").read_text()
        notebook = nbformat.read(tmp_path / name / "book" / "01_engine.ipynb", as_version=4)
        printed = [c for c in notebook.cells if "getsource" in c.source][0].outputs[0].text
        for text in (engine, printed):
            assert ("(as edited)" in text) == edited, name
            assert ("into node.grad.\"\"\"" in text) != edited, name


def test_an_edit_by_lines_must_find_them_and_not_also_give_old(fresh_course, tmp_path):
    tasks = fresh_course / "classroom" / "tasks.toml"
    text = tasks.read_text()
    tasks.write_text(text + WHILE_1_1_IS_A_STUB.replace("when_stubbed", 'old = "x"\nwhy', 1))
    with pytest.raises(CourseError, match="needs either old"):
        course_mod.load(fresh_course)
    tasks.write_text(text + WHILE_1_1_IS_A_STUB.replace("def mul(a, b):", "def div(a, b):"))
    with pytest.raises(CourseError, match="holding 'def div"):
        release_mod.release(course_mod.load(fresh_course), tmp_path / "out", "a1")


def test_a_page_that_stops_with_its_assignment_written_says_where(fresh_course, tmp_path):
    """With all of a1 written, the page still stops in section "Products" at task 2.1
    (assignment a2), as tasks.toml's `stops_when_done` says (selfcheck checks it): the
    note at the top of the page says so, after the stop at 1.3 within a1."""
    from tests.classroom.fixture import add_a_product_cell, declare_stops_when_done
    add_a_product_cell(fresh_course)
    declare_stops_when_done(fresh_course, "Products", ["2.1"])
    course = course_mod.load(fresh_course)
    release_mod.release(course, tmp_path / "a1", "a1")
    notebook = nbformat.read(tmp_path / "a1" / "book" / "01_engine.ipynb", as_version=4)
    note = notebook.cells[1]
    assert release_mod.NOTE_TAG in note.metadata["tags"]
    assert "run code of task 1.3 (a square in the notebook), which comes later in this " \
        "assignment" in note.source
    assert "With every task of this assignment written, the page still stops in section " \
        "\u201cProducts\u201d, at a cell that runs code of task 2.1 (Mul backward), which " \
        "comes with assignment a2. Those cells run as you do those assignments." \
        in note.source
    release_mod.release(course, tmp_path / "a2", "a2")
    notebook = nbformat.read(tmp_path / "a2" / "book" / "01_engine.ipynb", as_version=4)
    assert not any(release_mod.NOTE_TAG in c.metadata.get("tags", ()) for c in notebook.cells)


def test_a_page_without_a_task_that_stops_at_the_assignments_tasks_says_so(fresh_course,
                                                                          tmp_path):
    """A page of the chapter that is no task's `file` stops at 1.1's stub, then at 1.2's
    (`stops_before_done`, which selfcheck checks): a1's release notes both at its top;
    in a2's release they are solved, and the page has no note."""
    from tests.classroom.fixture import add_a_page_without_a_task
    add_a_page_without_a_task(fresh_course, ["1.1", "1.2"])
    course = course_mod.load(fresh_course)
    release_mod.release(course, tmp_path / "a1", "a1")
    notebook = nbformat.read(tmp_path / "a1" / "book" / "01b_more.ipynb", as_version=4)
    note = notebook.cells[1]
    assert release_mod.NOTE_TAG in note.metadata["tags"]
    assert "(assignment a1): this page has no task of its own, but some of its cells run " \
        "code of task 1.1 (counting dependencies), which comes in this assignment; then of " \
        "task 1.2 (accumulating gradients), which comes in this assignment." in note.source
    assert "`TaskNotDone: Task 1.1 (counting dependencies) is not done yet`" in note.source
    assert '`make check TASKS="1.1 1.2"` checks those tasks' in note.source
    release_mod.release(course, tmp_path / "a2", "a2")
    notebook = nbformat.read(tmp_path / "a2" / "book" / "01b_more.ipynb", as_version=4)
    assert not any(release_mod.NOTE_TAG in c.metadata.get("tags", ()) for c in notebook.cells)


def test_the_note_names_every_task_of_the_page(fresh_course, tmp_path):
    """Task 1.2 without a `page_stops_at` (as 6.7 on page 06c) is still one of the tasks
    the page explains, and the note says that cells running their code stop too."""
    tasks = fresh_course / "classroom" / "tasks.toml"
    text = tasks.read_text()
    one = 'assignment = "a1"\ndepends_on = ["1.1"]\npage_stops_at = "1.3"\n'
    assert one in text
    tasks.write_text(text.replace(one, 'assignment = "a1"\ndepends_on = ["1.1"]\n'))
    release_mod.release(course_mod.load(fresh_course), tmp_path / "a1", "a1")
    notebook = nbformat.read(tmp_path / "a1" / "book" / "01_engine.ipynb", as_version=4)
    note = notebook.cells[1].source
    assert "this page explains tasks 1.1 and 1.2, and some of its cells run code of task 1.3" \
        in note
    assert '`make check TASKS="1.1 1.2"` checks them' in note
    assert "Cells that run the code of tasks 1.1 and 1.2 stop the same way until you write " \
        "them." in note


def test_the_note_says_whether_a_stop_comes_before_or_after_the_pages_task():
    """Page 10b explains 10.1 and stops at 10.2, which comes earlier in the syllabus."""
    from classroom.course import Task
    loader = Task("10.2", "DataLoader", 10, "Data", 18, "a4")
    loss = Task("10.1", "cross-entropy", 10, "Loss", 2, "a4")
    conv = Task("11.3", "convolution", 11, "Conv", 11, "a4")
    order = ["9.1", "10.2", "10.1", "11.3"]
    note = release_mod.later_stops_note(["10.1"], [loader, conv], "a4", order=order)
    assert "run code of task 10.2 (DataLoader), which comes earlier in this assignment; " \
        "then of task 11.3 (convolution), which comes later in this assignment." in note
    note = release_mod.later_stops_note([], [loader], "a4", explained=["10.2"], order=order)
    assert "this page explains part of task 10.2, and some of its cells run that task's " \
        "code." in note
    own = release_mod.later_stops_note(["10.1"], [loader], "a4", explained=["10.2"], order=order)
    assert "some of its cells run code of task 10.2 (DataLoader)" in own
    assert "Cells that run the code of task 10.1 stop the same way until you write it." in own
    assert "this page explains part of task 10.2, and some of its cells run that task's " \
        "code. Until that code is written" in note and "as that task is done." in note


@pytest.mark.parametrize("tasks, error", [
    (["1.3"], r"names \['1.3'\], which are not tasks of a1 or are the page's own"),
    (["2.1"], r"names \['2.1'\], which are not tasks of a1"),
    (["1.2", "1.1"], r"list them in the syllabus' order"),
    ([], "names no task")])
def test_stops_before_done_names_other_tasks_of_its_assignment_in_order(fresh_course, tasks,
                                                                         error):
    from tests.classroom.fixture import add_a_page_without_a_task
    add_a_page_without_a_task(fresh_course, tasks)
    if tasks == ["1.3"]:         # made the page's own: 1.3's file names it too
        path = fresh_course / "classroom" / "tasks.toml"
        path.write_text(path.read_text().replace(
            'file = "book/01_engine.ipynb"\nsection = "Warming up"',
            'file = "book/01_engine.ipynb book/01b_more.ipynb"\nsection = "Warming up"'))
    with pytest.raises(CourseError, match=error):
        course_mod.load(fresh_course)


def test_stops_when_done_names_only_later_assignments_tasks(fresh_course):
    from tests.classroom.fixture import declare_stops_when_done
    declare_stops_when_done(fresh_course, "Products", ["1.3"])
    with pytest.raises(CourseError, match=r"names \['1.3'\], which are not tasks of a later"):
        course_mod.load(fresh_course)


@pytest.mark.parametrize("status, make_status, note", [(3, 0, True), (1, 2, False),
                                                       (0, 0, False)])
def test_make_check_reads_not_done_as_the_expected_start(tmp_path, status, make_status, note):
    """`make check` on a fresh copy (check's status 3: nothing failed, tasks not done)
    ends with a note and status 0, not make's "Error"; a failure (1) stays an error."""
    root = pathlib.Path(__file__).resolve().parents[2]
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python").write_text(f"#!/bin/sh\nexit {status}\n")
    (tmp_path / "bin" / "python").chmod(0o755)
    done = subprocess.run(["make", "-s", "-C", str(tmp_path), "-f", str(root / "Makefile"),
                           "check", "VENV=."], capture_output=True, text=True, timeout=60)
    assert done.returncode == make_status, done.stdout + done.stderr
    assert ("'not done' is where each task starts" in done.stdout) == note, done.stdout


def test_a_task_page_that_stops_only_at_its_own_task_still_says_why(fresh_course, tmp_path):
    """Page 15 explains 15.2 and stops at 15.2's own stub, nowhere else: the release still
    tells the student, at its top, that the stop is where the task starts."""
    note = release_mod.later_stops_note(["15.2"], [], "a6")
    assert note.startswith("**In your copy of the course** (assignment a6): this page "
                           "explains task 15.2. Until you write it, the cells that run its "
                           "code stop with a `TaskNotDone` error")
    assert '`make check TASKS="15.2"` checks it; the page runs further as you write it.' \
        in note
    tasks = fresh_course / "classroom" / "tasks.toml"
    text = tasks.read_text()
    tasks.write_text(text.replace('page_stops_at = "1.3"\n', ""))
    release_mod.release(course_mod.load(fresh_course), tmp_path / "a1", "a1")
    notebook = nbformat.read(tmp_path / "a1" / "book" / "01_engine.ipynb", as_version=4)
    notes = [c for c in notebook.cells if release_mod.NOTE_TAG in c.metadata.get("tags", ())]
    assert len(notes) == 1
    assert "explains tasks 1.1, 1.2 and 1.3. Until you write them, the cells that run their " \
        "code" in notes[0].source and "where each task starts" in notes[0].source
