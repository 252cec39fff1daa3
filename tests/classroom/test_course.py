"""classroom/tasks.toml is read into a checked Course, and mistakes say what to fix."""

import dataclasses
import json

import pytest

from classroom import cli, course as course_mod
from classroom.course import CourseError


def test_the_fixture_course_loads(course):
    assert [t.id for t in course.tasks] == ["1.1", "1.2", "1.3", "2.1"]
    assert [a.name for a in course.assignments] == ["a1", "a2"]
    assert [t.id for t in course.tasks_of("a1")] == ["1.1", "1.2", "1.3"]
    assert course.task("2.1").depends_on == ("1.1", "1.2")
    assert course.settings.package == "minigrad"
    assert course.total_points == 10


def test_the_stub_message_names_task_chapter_section_and_command(course):
    assert course.task("1.2").stub_message() == (
        "Task 1.2 (accumulating gradients) is not done yet: write it between its markers, "
        "as chapter 1 (book/01_engine.ipynb), section “Accumulation”, explains, and check it "
        "with python -m "
        "classroom check 1.2.")


def test_a_region_section_sends_the_stubs_in_its_functions_elsewhere(course):
    task = dataclasses.replace(course.task("1.2"), region_sections=(course_mod.RegionSection(
        "1.2", ("Engine.backward",), 3, "book/03_more.ipynb", "Later"),))
    assert "as chapter 3 (book/03_more.ipynb), section “Later”, explains" in \
        task.stub_message(function="Engine.backward")
    assert task.stub_message(function="Engine.other") == course.task("1.2").stub_message()


def test_a_later_assignment_s_stub_names_its_assignment(course):
    assert course.task("2.1").stub_message(later=True) == (
        "Task 2.1 (Mul backward) is not done yet: it comes with assignment a2, in "
        "chapter 2.")


def _write_tasks(root, text):
    (root / "classroom" / "tasks.toml").write_text(text, encoding="utf-8")


BASE = """
[course]
package = "minigrad"
[[assignment]]
name = "a1"
"""


@pytest.mark.parametrize("tasks, message", [
    ('[[task]]\nid = "1.1"\ntitle = "t"\nchapter = 1\nsection = "s"\npoints = 1\n'
     'assignment = "a1"\n' * 2, "appear twice"),
    ('[[task]]\nid = "1.1"\ntitle = "t"\nchapter = 1\nsection = "s"\npoints = 1\n'
     'assignment = "nope"\n', "no [[assignment]]"),
    ('[[task]]\nid = "1.1"\ntitle = "t"\nchapter = 1\nsection = "s"\npoints = 1\n'
     'assignment = "a1"\ndepends_on = ["9.9"]\n', "needs '9.9'"),
    ('[[task]]\nid = "1.1"\ntitle = "t"\nchapter = 1\nsection = "s"\npoints = 1\n'
     'assignment = "a1"\ndepends_on = ["1.2"]\n'
     '[[task]]\nid = "1.2"\ntitle = "t"\nchapter = 1\nsection = "s"\npoints = 1\n'
     'assignment = "a1"\ndepends_on = ["1.1"]\n', "cycle: 1.1 -> 1.2 -> 1.1"),
    ('[[task]]\nid = "1.1"\ntitle = "t"\nchapter = 1\nsection = "s"\npoints = 0\n'
     'assignment = "a1"\n', "more than 0"),
    ('[[task]]\nid = "1.1"\ntitle = "t"\nchapter = 1\npoints = 1\nassignment = "a1"\n',
     "no 'section'"),
    ('[[task]]\nid = "1.1"\ntitle = "t"\nchapter = 1\nsection = "s"\npoints = 1\n'
     'assignment = "a1"\npoint = 3\n', "unknown keys ['point']"),
    ('[[task]]\nid = "1.1"\ntitle = "t"\nchapter = 1\nsection = "s"\npoints = 1\n'
     'assignment = "a1"\n[[region_section]]\ntask = "1.2"\nfunctions = ["f"]\n'
     'chapter = 2\nfile = "b.ipynb"\nsection = "s2"\n', "names task '1.2', which is no task"),
    ('[[task]]\nid = "1.1"\ntitle = "t"\nchapter = 1\nsection = "s"\npoints = 1\n'
     'assignment = "a1"\n[[region_section]]\ntask = "1.1"\nfunction = "f"\n',
     "unknown keys ['function']"),
])
def test_mistakes_in_tasks_toml_are_reported(fresh_course, tasks, message):
    _write_tasks(fresh_course, BASE + tasks)
    with pytest.raises(CourseError, match=message.replace("(", r"\(").replace("[", r"\[")):
        course_mod.load(fresh_course)


def test_an_unknown_course_setting_is_reported(fresh_course):
    _write_tasks(fresh_course, "[course]\ntimeout = 3\n")
    with pytest.raises(CourseError, match="unknown keys \\['timeout'\\]"):
        course_mod.load(fresh_course)


def test_unknown_task_and_assignment_names_are_reported(course):
    with pytest.raises(CourseError, match="no task '7.7'.*1.1, 1.2"):
        course.task("7.7")
    with pytest.raises(CourseError, match="no assignment 'a9'.*a1, a2"):
        course.tasks_of("a9")


def test_no_tasks_toml_says_where_it_looked(tmp_path):
    with pytest.raises(CourseError, match="no classroom/tasks.toml"):
        course_mod.load(tmp_path)


def test_tasks_json_has_the_agreed_format(course_root, capsys):
    assert cli.main(["--root", str(course_root), "tasks", "--json"]) == 0
    tasks = json.loads(capsys.readouterr().out)
    assert [t["id"] for t in tasks] == ["1.1", "1.2", "1.3", "2.1"]
    first = tasks[0]
    assert set(first) >= {"id", "title", "chapter", "points", "depends_on", "regions"}
    assert first["regions"] == [{"path": "minigrad/engine.py", "start_line": 25,
                                 "end_line": 31}]
    lines = (course_root / "minigrad/engine.py").read_text().splitlines()
    assert lines[24 - 1].strip() == "### BEGIN SOLUTION 1.1"       # just before line 25
    assert lines[31].strip() == "### END SOLUTION 1.1"             # just after line 31
    assert tasks[1]["depends_on"] == ["1.1"] and tasks[1]["points"] == 3
    notebook_region = tasks[2]["regions"][0]
    assert notebook_region == {"path": "book/01_engine.ipynb", "start_line": 3, "end_line": 3,
                               "cell": 1, "cell_id": "cell-1"}


def test_tasks_lists_regions_for_people(course_root, capsys):
    assert cli.main(["--root", str(course_root), "tasks"]) == 0
    out = capsys.readouterr().out
    assert "minigrad/engine.py, lines 25-31" in out and "4 tasks, 10 points" in out


def test_instructor_commands_refuse_a_student_copy(release_a1, capsys):
    out, _ = release_a1
    assert cli.main(["--root", str(out), "selfcheck"]) == 2
    assert "student's copy" in capsys.readouterr().err


def test_every_task_of_the_real_course_names_a_heading_of_its_chapter():
    """A student told "see chapter 4, section X" must find a heading X in that chapter."""
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[2]
    tasks = course_mod.tomllib.loads((root / "classroom" / "tasks.toml").read_text("utf-8"))
    missing = []
    for task in tasks["task"]:
        notebook = json.loads((root / task["file"]).read_text("utf-8"))
        headings = {line.lstrip("#").strip().replace("`", "")
                    for cell in notebook["cells"] if cell["cell_type"] == "markdown"
                    for line in "".join(cell["source"]).splitlines() if line.startswith("#")}
        if task["section"] not in headings:
            missing.append((task["id"], task["file"], task["section"]))
    assert not missing
