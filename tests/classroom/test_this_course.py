"""The book's own course (``classroom/tasks.toml`` of this repository, not the small
course of ``fixture.py``): what its pages and files say about it agrees with the course.

``book/teaching.md`` writes, per assignment, each task's lines and points and the
totals; they are the numbers ``python -m classroom tasks --json`` (and a release's
``release.json``) gives, so a region that grows or a task that moves fails here, and the
page is corrected with it.
"""

import pathlib
import re

import pytest

from classroom import cli, course as course_mod, regions as regions_mod

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEACHING = ROOT / "book" / "teaching.md"


@pytest.fixture(scope="module")
def book_course():
    return course_mod.load(ROOT)


@pytest.fixture(scope="module")
def tasks_json(book_course):
    found = regions_mod.by_task(regions_mod.scan(ROOT, book_course.settings.sources))
    return cli.tasks_json(book_course, found)


def syllabus_rows():
    """``{assignment: (tasks cell, lines cell, points cell)}`` of teaching.md's syllabus."""
    rows = {}
    for line in TEACHING.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and (name := re.fullmatch(r"\*\*(\S+)\*\*", cells[2])):
            rows[name[1]] = (cells[3], cells[4], cells[5])
    return rows


def task_entries(cell):
    """``[(first id, last id, lines, points)]`` of a syllabus cell: each entry is an id
    (or a range ``6.1-6.6``), its words, then ``(lines, points)``, summed over a range."""
    pattern = r"(\d+\.\d+)(?:-(\d+\.\d+))?[^()]*?(?:\([^()]*\)[^()]*?)*?\((\d+), (\d+)\)"
    return [(m[1], m[2] or m[1], int(m[3]), int(m[4]))
            for m in re.finditer(r"(?:\*\*B )?" + pattern, cell)]


def test_teaching_md_gives_each_assignment_its_tasks_lines_and_points(book_course,
                                                                      tasks_json):
    rows = syllabus_rows()
    assert set(rows) == {a.name for a in book_course.assignments}, \
        "book/teaching.md's syllabus table needs one row per assignment of tasks.toml"
    order = [t["id"] for t in tasks_json]
    by_id = {t["id"]: t for t in tasks_json}
    for assignment in book_course.assignments:
        cell, lines_cell, points_cell = rows[assignment.name]
        own = [t for t in tasks_json if t["assignment"] == assignment.name]
        covered = []
        for first, last, lines, points in task_entries(cell):
            span = order[order.index(first):order.index(last) + 1]
            covered += span
            wanted = (sum(by_id[i]["lines"] for i in span),
                      sum(by_id[i]["points"] for i in span))
            assert (lines, points) == wanted, (
                f"book/teaching.md, {assignment.name}: {first}"
                f"{'-' + last if last != first else ''} says ({lines}, {points}); "
                f"`python -m classroom tasks --json` gives {wanted}")
        assert covered == [t["id"] for t in own], (assignment.name, covered)
        build = sum(t["lines"] for t in own if t["kind"] == "build")
        warm = sum(t["lines"] for t in own if t["kind"] != "build")
        assert lines_cell == f"{build} + {warm}", (assignment.name, lines_cell, build, warm)
        assert points_cell == f"{sum(t['points'] for t in own):g}", assignment.name


def test_the_total_of_lines_in_the_prose_is_the_courses(tasks_json):
    """teaching.md and the repository's README say "about N lines": within 1 %."""
    total = sum(t["lines"] for t in tasks_json)
    for path in (TEACHING, ROOT / "README.md"):
        said = re.search(r"about ([\d,]+) lines", path.read_text(encoding="utf-8"))
        assert said, path
        stated = int(said[1].replace(",", ""))
        assert abs(stated - total) <= 0.01 * total, (path.name, stated, total)


def test_every_release_replacement_finds_its_text(book_course):
    """A ``[[release.replace]]`` whose text a later edit changed stops every release
    (and only `selfcheck` would say so): each one's text is in its file."""
    for edit in book_course.replacements:
        text = (ROOT / edit.path).read_text(encoding="utf-8")
        assert edit.old in text, f"{edit.path}: {edit.old[:60]!r}... is not there any more"


def test_the_hours_table_gives_each_assignment_its_build_lines(book_course, tasks_json):
    """The estimate of hours (teaching.md) repeats each assignment's build lines and
    warm-ups: the same numbers as the course's."""
    rows = {}
    for line in TEACHING.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] in {a.name for a in book_course.assignments}:
            rows[cells[0]] = cells
    assert set(rows) == {a.name for a in book_course.assignments}
    for name, (_, _, build, warm, _) in rows.items():
        own = [t for t in tasks_json if t["assignment"] == name]
        assert int(build) == sum(t["lines"] for t in own if t["kind"] == "build"), name
        assert int(warm) == sum(t["kind"] != "build" for t in own), name
