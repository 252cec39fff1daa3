"""``release``: a student repository with stubs, no solutions, no instructor files,
whose tests run and report unfinished tasks in one line each."""

import json
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
    assert "| 1.2 | accumulating gradients | 1, Accumulation | 3 | 1.1 |" in readme
    assert "python -m classroom check" in readme
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
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "   1.3  a square in the notebook  not done  0/1  write it between its markers",
        "0 of 1 tasks pass."]


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


def test_a_check_line_counts_tests_not_points(release_a1):
    """book/teaching.md: in `check`'s `0/N` (`6/6` there), N is the number of the task's
    public tests, not its points."""
    out, _ = release_a1
    result = student_check.run_check(root=out)
    score = result.scores["1.1"]
    assert score.total != score.task.points          # so the two cannot be confused here
    line = next(line for line in student_check.format_lines(result) if "1.1" in line)
    assert f"  0/{score.total}  " in line and f"/{score.task.points} " not in line
