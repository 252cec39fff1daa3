"""``selfcheck``: passes on a sound course, and fails, saying why, on a dead region,
a wrong answer the tests miss, or a task without tests."""

import pytest

from classroom import course as course_mod, regions, selfcheck, workflow
from classroom.course import CourseError
from classroom.grade import Grader, Job


def test_the_fixture_course_passes_selfcheck(course):
    said = []
    findings = selfcheck.selfcheck(course, jobs=2, say=said.append,
                                   environments=workflow.ThisEnvironment())
    assert [f.what for f in findings if not f.ok] == []
    text = "\n".join(said)
    for expected in ("the solution, a1 (traced): full marks",
                     "release a1: scores 0 on every task",
                     "release a2: `check`, and its workflow in a fresh environment: `check` "
                     "reports every task as not done; its 1 workflow steps, in a fresh "
                     "environment (the course's own environment, not a fresh one), give 0 "
                     "points, as `check` does",
                     "release a1 with its tasks solved: `check`, and its workflow in a fresh "
                     "environment: `check` passes every task; its 3 workflow steps, in a "
                     "fresh environment (the course's own environment, not a fresh one), "
                     "give 8 points, as `check` does",
                     "task 1.3: its stub points at section 'Warming up', where the chapter "
                     "explains it",
                     "task 1.1, region 1 (minigrad/engine.py, lines 25-31) runs in its task's "
                     "tests",
                     "walk a1: after 1.2 (2 of 3 written): full marks; 01_engine.ipynb runs "
                     "up to the stubs of later tasks ['1.3']",
                     "walk a1: after 1.3 (3 of 3 written): full marks; 01_engine.ipynb runs "
                     "to the end",
                     "walk a2: after 2.1 (1 of 1 written): full marks; no chapter notebook",
                     "every test is marked with the latest task (in the syllabus) whose code "
                     "it runs",
                     "task 2.1 needs only earlier tasks (1.1, 1.2)",
                     "wrong answer 'swapped operands' of task 2.1: loses points"):
        assert expected in text


def test_the_walk_fails_when_a_chapter_notebook_stops_at_an_earlier_task(fresh_course,
                                                                         tmp_path):
    """The chapter's notebook runs after each step of the walk; a cell that needs a task
    already written (here: the notebook's own task, whose code a cell breaks) fails it."""
    notebook = fresh_course / "book" / "01_engine.ipynb"
    notebook.write_text(notebook.read_text().replace("print(square(3))",
                                                     "print(square(3)); 1 / 0"))
    course = course_mod.load(fresh_course)
    grader = Grader(course, course.tasks, tmp_path / "grading")
    ok, what = selfcheck.chapter_runs(course, fresh_course, course.task("1.3"))
    assert not ok and "01_engine.ipynb does not run" in what
    ok, what = selfcheck.chapter_runs(course, grader.base, course.task("2.1"))
    assert ok and "no chapter notebook" in what


def test_the_walk_fails_when_a_page_stops_elsewhere_than_tasks_toml_says(fresh_course):
    """A release notes at the top of a task's page the later task its cells stop at
    (`page_stops_at`); the walk checks it.  In the solution the page runs to its end, so
    task 1.2's `page_stops_at = "1.3"` is wrong there, and the walk says what to write."""
    course = course_mod.load(fresh_course)
    ok, what = selfcheck.chapter_runs(course, fresh_course, course.task("1.2"))
    assert not ok and "01_engine.ipynb runs to the end" in what
    assert "page_stops_at = 1.3 for task 1.2: write no page_stops_at" in what


def _one_run(course, run, tmp_path):
    label, job, prepare, judge = run
    grader = Grader(course, course.tasks, tmp_path / "grading")
    found = []
    selfcheck.run_all([selfcheck.grading_run(grader, label, job, prepare, judge)], 1,
                      lambda ok, what: found.append((ok, what)))
    return found


def test_a_dead_region_is_found(fresh_course, tmp_path):
    engine = fresh_course / "minigrad" / "engine.py"
    engine.write_text(engine.read_text() + (
        "\n\ndef unused():\n    ### BEGIN SOLUTION 1.2\n    return 'dead'\n"
        "    ### END SOLUTION 1.2\n"))
    course = course_mod.load(fresh_course)
    dead = [r for r in regions.scan(fresh_course, ["minigrad"]) if r.task == "1.2"][1]
    run = ("dead", Job(fresh_course, (course.task("1.2"),)),
           selfcheck._replacing(dead, regions.raise_lines(dead.indent)),
           selfcheck._loses_points)
    [(ok, what)] = _one_run(course, run, tmp_path)
    assert not ok and "keeps full marks: the tests miss it" in what


def test_tracing_finds_a_dead_region_a_later_task_reached_and_stale_needs(fresh_course,
                                                                          tmp_path):
    engine = fresh_course / "minigrad" / "engine.py"
    engine.write_text(engine.read_text() + (
        "\n\ndef unused():\n    ### BEGIN SOLUTION 1.2\n    return 'dead'\n"
        "    ### END SOLUTION 1.2\n"))
    tests = fresh_course / "tests" / "test_engine.py"
    tests.write_text(tests.read_text() + (
        '\n\n@pytest.mark.task("1.1")\ndef test_a_count_then_a_backward():\n'
        "    x = Value(3.0)\n    backward(x + x)\n    assert x.grad == 2.0\n"))
    course = course_mod.load(fresh_course)
    grader = Grader(course, course.tasks_of("a1"), tmp_path / "grading")
    traced = selfcheck.TracedRuns(course, grader, course.tasks_of("a1"))
    found = []
    note = lambda ok, what: found.append((ok, what))       # noqa: E731
    selfcheck.run_all(traced.runs(), 1, note)
    traced.judge(note, regions.by_task(regions.scan(fresh_course, ["minigrad", "book"])))
    failed = "\n".join(what for ok, what in found if not ok)
    assert "test_engine.py::test_a_count_then_a_backward is marked ['1.1'] but runs the " \
           "code of ['1.1', '1.2']: mark it task('1.2')" in failed
    assert "task 1.1's tests run the code of later tasks ['1.2']" in failed
    assert "task 1.2, region 2 (minigrad/engine.py" in failed and "never runs" in failed


def test_a_wrong_answer_the_tests_miss_fails_selfcheck(fresh_course, tmp_path):
    (fresh_course / "classroom" / "wrong_answers" / "harmless.toml").write_text(
        '[[wrong]]\ntask = "1.2"\nname = "same thing"\n'
        'old = "node.grad = node.grad + grad"\nnew = "node.grad += grad"\n')
    course = course_mod.load(fresh_course)
    [answer] = [a for a in selfcheck.load_wrong_answers(course) if a.name == "same thing"]
    grouped = regions.by_task(regions.scan(fresh_course, ["minigrad"]))
    region, body = selfcheck.wrong_answer_edit(answer, grouped["1.2"], fresh_course)
    assert body[-1] == "    node.grad += grad\n"
    run = ("harmless", Job(fresh_course, (course.task("1.2"),)),
           selfcheck._replacing(region, body), selfcheck._loses_points)
    [(ok, what)] = _one_run(course, run, tmp_path)
    assert not ok and "keeps full marks" in what


def test_a_wrong_answer_that_no_longer_matches_is_reported(course):
    grouped = regions.by_task(regions.scan(course.root, ["minigrad"]))
    answer = selfcheck.WrongAnswer("1.1", "stale", "x.toml", old="not in the region", new="")
    with pytest.raises(CourseError, match="must appear exactly once"):
        selfcheck.wrong_answer_edit(answer, grouped["1.1"], course.root)


def test_a_task_without_tests_or_region_fails_selfcheck(fresh_course, tmp_path):
    tasks = fresh_course / "classroom" / "tasks.toml"
    tasks.write_text(tasks.read_text() + '\n[[task]]\nid = "2.9"\ntitle = "nothing"\n'
                     'chapter = 2\nsection = "s"\npoints = 1\nassignment = "a2"\n')
    course = course_mod.load(fresh_course)
    found = []

    def note(ok, what):
        found.append((ok, what))

    selfcheck.check_regions(course, note)
    selfcheck.check_tests(course, Grader(course, course.tasks, tmp_path / "grading"), note)
    failed = [what for ok, what in found if not ok]
    assert failed == ["task 2.9 has a region: mark it with ### BEGIN SOLUTION / "
                      "### END SOLUTION 2.9",
                      "task 2.9 has no test marked @pytest.mark.task('2.9')"]


def test_regions_for_an_unknown_task_fail_selfcheck(fresh_course):
    ops = fresh_course / "minigrad" / "ops.py"
    ops.write_text(ops.read_text().replace("SOLUTION 2.1", "SOLUTION 2.7"))
    found = []
    selfcheck.check_regions(course_mod.load(fresh_course),
                            lambda ok, what: found.append((ok, what)))
    failed = [what for ok, what in found if not ok]
    assert failed[0].startswith("regions marked for task 2.7, which tasks.toml does not list")


def test_a_stub_that_points_at_the_wrong_section_fails_selfcheck(fresh_course):
    """The state the course was in: task 5.1's stub named the section after the one that
    explains it (its "Course task 5.1" box)."""
    tasks = fresh_course / "classroom" / "tasks.toml"
    text = tasks.read_text()
    tasks.write_text(text.replace('section = "Warming up"', 'section = "Accumulation"')
                     .replace('section = "Counting"', 'section = "Counting edges"'))
    found = []
    selfcheck.check_sections(course_mod.load(fresh_course), lambda ok, what: found.append(
        (ok, what)))
    assert found == [
        (False, "task 1.1: its section 'Counting edges' is no heading of book/01_engine.ipynb"),
        (True, "task 1.2: its stub points at section 'Accumulation', where the chapter "
               "explains it"),
        (False, "task 1.3: its \"Course task 1.3\" box is under 'Warming up', not in "
                "section 'Accumulation': point `section` at the section that explains it")]


def _pages_check_of_a1(fresh_course, tmp_path, name):
    """selfcheck's pages check of a fresh a1 release of the course as it is now."""
    from classroom import release as release_mod
    course = course_mod.load(fresh_course)
    out = tmp_path / f"release-{name}"
    release_mod.release(course, out, "a1")
    return selfcheck.pages_when_done(course, course.assignment("a1"), out,
                                     tmp_path / f"written-{name}")


def test_pages_with_their_assignment_written_stop_only_where_tasks_toml_says(fresh_course,
                                                                            tmp_path):
    """With all of a1 written, its page still stops in a section that multiplies Values
    (task 2.1, assignment a2).  Undeclared, the check fails and says what to write;
    declared with the wrong section or tasks, it fails; declared right, it passes and
    says where the page stops."""
    from tests.classroom.fixture import add_a_product_cell, declare_stops_when_done

    def check(name):
        return _pages_check_of_a1(fresh_course, tmp_path, name)

    ok, what = check("untouched")
    assert ok and what == "01_engine.ipynb: runs to its end (the walk ran it after 1.3)"
    add_a_product_cell(fresh_course)
    ok, what = check("undeclared")
    assert not ok and "01_engine.ipynb stops at 2.1 in code cell" in what
    assert "(section \u201cProducts\u201d), and runs the code of ['2.1']" in what
    assert 'write page = "book/01_engine.ipynb", section = "Products", tasks = [\'2.1\']' \
        in what
    declare_stops_when_done(fresh_course, "Warming up", ["2.1"])
    ok, what = check("elsewhere")
    assert not ok and "says ['2.1'] in \u201cWarming up\u201d" in what
    tasks_toml = fresh_course / "classroom" / "tasks.toml"
    tasks_toml.write_text(tasks_toml.read_text().replace('section = "Warming up"\ntasks',
                                                         'section = "Products"\ntasks'))
    ok, what = check("declared")
    assert ok and "01_engine.ipynb: stops at 2.1 in code cell" in what
    assert "(section \u201cProducts\u201d)" in what


def test_a_page_without_a_task_stops_only_where_stops_before_done_says(fresh_course,
                                                                      tmp_path):
    """The page that is no task's `file` runs task 1.1's code, then 1.2's: written in the
    syllabus' order, it stops at 1.1, then at 1.2.  Declared otherwise, the check fails
    and says what to write; declared right, it passes."""
    from tests.classroom.fixture import add_a_page_without_a_task

    def check(name):
        return _pages_check_of_a1(fresh_course, tmp_path, name)

    add_a_page_without_a_task(fresh_course, ["1.2"])
    ok, what = check("wrong")
    assert not ok and "01b_more.ipynb stops at ['1.1', '1.2'] as a1's tasks are written" in what
    assert "stops_before_done of a1 says ['1.2']: write page = \"book/01b_more.ipynb\", " \
        "tasks = ['1.1', '1.2']" in what
    tasks_toml = fresh_course / "classroom" / "tasks.toml"
    tasks_toml.write_text(tasks_toml.read_text().replace('tasks = ["1.2"]',
                                                         'tasks = ["1.1", "1.2"]'))
    ok, what = check("right")
    assert ok and "01b_more.ipynb: stops at ['1.1', '1.2'] until they are written" in what


@pytest.mark.parametrize("reached, syllabus, stops", [
    (["6.8", "6.4"], ["6.1", "6.4", "6.8", "6.7"], ["6.8"]),
    (["12.1", "13.3", "13.1"], ["12.1", "13.3", "13.1", "14.1"], ["12.1", "13.3", "13.1"]),
    (["13.1", "12.1"], ["12.1", "13.3", "13.1"], ["13.1"]),
    (["10.2", "9.1"], ["9.1", "10.2", "10.1"], ["10.2"]),
    ([], ["1.1"], [])])
def test_early_stops_are_the_first_unwritten_task_the_page_reaches(reached, syllabus, stops):
    assert selfcheck.early_stops(reached, syllabus) == stops
