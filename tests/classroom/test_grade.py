"""``grade``: the instructor's tests, the submission's own code, time limits, crashes
that stop nothing, a deterministic table, task-by-task isolation, feedback."""

import csv

import pytest

from classroom import cli, grade as grade_mod, regions, workspace
from classroom.course import CourseError
from tests.classroom.fixture import STUB_1_2, SOLUTION_1_2, STUB_1_3, make_submission

FULL = {"1.1": 4, "1.2": 3, "1.3": 1}


def points(grade):
    return {task_id: score.points for task_id, score in grade.scores.items()}


def test_the_solution_scores_full_marks_and_the_release_zero(graded):
    assert points(graded["solved"]) == FULL
    assert graded["solved"].total == 8
    assert points(graded["release"]) == {"1.1": 0, "1.2": 0, "1.3": 0}
    assert {s.status for s in graded["release"].scores.values()} == {"not-done"}


def test_one_wrong_task_loses_only_its_points_and_edited_tests_do_not_help(graded):
    grade = graded["wrong-1.2"]            # it also replaced tests/test_engine.py
    assert points(grade) == {"1.1": 4, "1.2": 1, "1.3": 1}
    assert "assert 3.0 == 5.0" in grade.scores["1.2"].first_failure


def test_a_package_that_does_not_import_zeroes_the_tasks_that_need_it(graded):
    grade = graded["no-import"]
    assert points(grade) == {"1.1": 0, "1.2": 0, "1.3": 1}      # 1.3 lives in the notebook
    assert any("minigrad does not import: SyntaxError" in p for p in grade.problems)


@pytest.mark.parametrize("kind, message", [
    ("endless", "took longer than 5 s"),
    ("swallows-timeout", "took longer than 5 s"),
    ("exits", "exit code 3"),
    ("segfault", "SIGSEGV, a segmentation fault"),
])
def test_loops_and_crashes_cost_only_the_tests_they_stop(graded, kind, message):
    grade = graded[kind]                    # only test_accumulates reaches the loop or crash
    assert points(grade) == {"1.1": 4, "1.2": 2, "1.3": 1}
    assert grade.scores["1.2"].failing_test.endswith("test_accumulates")
    assert message in grade.scores["1.2"].first_failure


def test_a_package_loaded_from_elsewhere_scores_nothing(graded):
    grade = graded["foreign"]
    assert grade.total == 0
    assert "not from the submission" in grade.scores["1.1"].first_failure


def test_hidden_tests_count_and_stay_unnamed(graded):
    assert graded["solved"].scores["1.1"].total == 3           # 2 public + 1 hidden
    grade = graded["release"]
    text = grade_mod.feedback_text(grade, [s.task for s in grade.scores.values()], "A1")
    assert "test_counts_a_leaf_used_three_times" not in text
    assert grade_mod.runner.test_name(
        "tests/_classroom_hidden/test_hidden_engine.py::test_x") == "a hidden test"


def test_grading_never_changes_a_submission(graded_with_snapshots):
    _, before, after = graded_with_snapshots
    assert before == after


def test_grading_twice_gives_the_same_table(course_root, release_a1, tmp_path):
    folder = tmp_path / "subs"
    make_submission(course_root, folder / "solution")
    make_submission(course_root, folder / "sometimes-wrong", {"minigrad/ops.py": [(
        "return grad * b.data, grad * a.data",
        "return grad * (b.data if abs(b.data) < 7 else 0.0), grad * a.data")]})
    tables = []
    for run in range(2):
        out = tmp_path / f"grades-{run}.csv"
        assert cli.main(["--root", str(course_root), "grade", str(folder), "--out", str(out),
                         "--assignment", "a2", "--jobs", "2", "--quiet"]) == 0
        tables.append(out.read_text())
    assert tables[0] == tables[1]
    rows = list(csv.reader(tables[0].splitlines()))
    assert rows == [["student_id", "2.1", "total"], ["solution", "2", "2"],
                    ["sometimes-wrong", "0", "0"]]


def test_isolate_grades_a_task_without_the_tasks_it_needs(course, release_a1, tmp_path):
    submission = make_submission(release_a1[0], tmp_path / "only-1.2-and-1.3", {
        "minigrad/engine.py": [(STUB_1_2, SOLUTION_1_2)],
        "book/01_engine.ipynb": [(STUB_1_3.rstrip("\n"), "    return x * x")]})
    grader = grade_mod.Grader(course, course.tasks_of("a1"), tmp_path / "grading")
    together, _, _ = grader.run(grade_mod.Job(submission, course.tasks_of("a1")))
    grader.isolate = True
    task = course.task("1.2")
    isolated, _, notes = grader.run(grade_mod.Job(submission, (task,)))
    assert {i: s.points for i, s in together.items()} == {"1.1": 0, "1.2": 2, "1.3": 1}
    assert together["1.2"].status == "blocked"
    assert isolated["1.2"].points == 3 and notes == []


def test_isolate_cannot_splice_a_task_whose_markers_are_gone(course, release_a1, tmp_path):
    submission = make_submission(release_a1[0], tmp_path / "no-markers", {
        "minigrad/engine.py": [("    ### BEGIN SOLUTION 1.2\n", "")]})
    solution_regions = regions.by_task(regions.scan(course.root, ["minigrad"]))["1.2"]
    # (then Grader grades the task with the whole submission, and says so)
    assert workspace.splice_task(tmp_path / "unused", submission, solution_regions) == \
        ["minigrad/engine.py"]


def test_csv_and_feedback_files(course_root, graded, tmp_path):
    grades = [graded[name] for name in sorted(graded)]
    tasks = [s.task for s in grades[0].scores.values()]
    grade_mod.write_csv(grades, tasks, tmp_path / "grades.csv")
    rows = list(csv.reader((tmp_path / "grades.csv").read_text().splitlines()))
    assert rows[0] == ["student_id", "1.1", "1.2", "1.3", "total"]
    assert ["wrong-1.2", "4", "1", "1", "6"] in rows
    assert len(rows) == 1 + len(grades)
    grade_mod.write_feedback(grades, tasks, tmp_path / "feedback", "The engine")
    text = (tmp_path / "feedback" / "endless.md").read_text()
    assert "**Total: 7 / 8 points**" in text
    assert "| 1.2 | accumulating gradients | 2 / 3 | 2/3 | fail |" in text
    assert "took longer than 5 s" in text


def test_an_empty_submissions_folder_is_refused(course, tmp_path):
    with pytest.raises(CourseError, match="holds no submission folders"):
        grade_mod.grade(course, tmp_path, "a1", progress=False)


def test_shards_cover_each_submission_once_and_merge_in_order(tmp_path):
    names = [f"s{i:02d}" for i in range(7)]
    slices = [grade_mod.shard_of(names, (i, 3)) for i in (1, 2, 3)]
    assert sorted(sum(slices, [])) == names and slices[0] == ["s00", "s03", "s06"]
    for text in ("0/3", "4/3", "x"):
        with pytest.raises(CourseError, match="I/N"):
            grade_mod.parse_shard(text)
    parts = []
    for number, rows in enumerate((["s03,1,1", "s00,2,2"], ["s01,0,0"]), 1):
        part = tmp_path / f"part{number}.csv"
        part.write_text("student_id,1.1,total\n" + "\n".join(rows) + "\n")
        feedback = tmp_path / f"feedback{number}"
        feedback.mkdir()
        for row in rows:
            (feedback / f"{row.split(',')[0]}.md").write_text("# feedback\n")
        parts.append(part)
    count = grade_mod.merge(parts, tmp_path / "all.csv",
                            [tmp_path / "feedback1", tmp_path / "feedback2"],
                            tmp_path / "feedback")
    assert count == 3
    assert (tmp_path / "all.csv").read_text().splitlines() == [
        "student_id,1.1,total", "s00,2,2", "s01,0,0", "s03,1,1"]
    assert sorted(p.name for p in (tmp_path / "feedback").iterdir()) == [
        "s00.md", "s01.md", "s03.md"]
    with pytest.raises(CourseError, match="in two shards"):
        grade_mod.merge([parts[0], parts[0]], tmp_path / "again.csv")


def test_three_shards_merged_give_the_files_of_one_run(course, course_root, graded, submissions,
                                                       tmp_path):
    """`grade --shard 1/3`, `2/3`, `3/3` and `grade merge`, through the command line, write
    the CSV file and the feedback files that one run over every submission writes: a
    student id column, one column per task and the total; one Markdown file per student."""
    tasks = course.tasks_of("a1")
    grades = [graded[name] for name in sorted(graded)]
    grade_mod.write_csv(grades, tasks, tmp_path / "one" / "grades.csv")
    grade_mod.write_feedback(grades, tasks, tmp_path / "one" / "feedback",
                             course.assignment("a1").title)
    for index in (1, 2, 3):
        assert cli.main(["grade", str(submissions), "--root", str(course_root), "--assignment",
                         "a1", "--shard", f"{index}/3", "--jobs", "2", "--quiet", "--out",
                         str(tmp_path / f"grades-{index}.csv"), "--feedback",
                         str(tmp_path / f"feedback-{index}")]) == 0
    shard_rows = [list(csv.reader((tmp_path / f"grades-{i}.csv").read_text().splitlines()))
                  for i in (1, 2, 3)]
    assert all(1 < len(rows) < len(grades) + 1 for rows in shard_rows)   # real slices
    merge_args = ["grade", "merge", *(str(tmp_path / f"grades-{i}.csv") for i in (1, 2, 3)),
                  "--root", str(course_root), "--out", str(tmp_path / "merged" / "grades.csv"),
                  "--feedback", str(tmp_path / "merged" / "feedback")]
    for index in (1, 2, 3):
        merge_args += ["--feedback-from", str(tmp_path / f"feedback-{index}")]
    assert cli.main(merge_args) == 0
    one, merged = tmp_path / "one", tmp_path / "merged"
    assert (merged / "grades.csv").read_bytes() == (one / "grades.csv").read_bytes()
    rows = list(csv.reader((one / "grades.csv").read_text().splitlines()))
    assert rows[0] == ["student_id", *[t.id for t in tasks], "total"]
    assert [row[0] for row in rows[1:]] == sorted(graded)
    names = sorted(p.name for p in (one / "feedback").iterdir())
    assert names == [f"{name}.md" for name in sorted(graded)]
    assert sorted(p.name for p in (merged / "feedback").iterdir()) == names
    for name in names:
        assert (merged / "feedback" / name).read_text() == (one / "feedback" / name).read_text()
