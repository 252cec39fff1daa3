"""Shared, built-once material for the classroom tool's tests: the small course of
``fixture.py``, its release of assignment a1, and a table of graded submissions
(grading starts real child processes, so it is done once per session)."""

import pathlib
import shutil

import pytest

from classroom import course as course_mod, grade as grade_mod, release as release_mod
from tests.classroom.fixture import SUBMISSION_KINDS, make_course, make_kind

# The kinds graded together once; see test_grade.py.
GRADED_KINDS = ("solved", "wrong-1.2", "no-import", "endless", "swallows-timeout", "exits",
                "segfault", "foreign")


@pytest.fixture(scope="session")
def course_root(tmp_path_factory):
    return make_course(tmp_path_factory.mktemp("classroom") / "course")


@pytest.fixture(scope="session")
def course(course_root):
    return course_mod.load(course_root)


@pytest.fixture
def fresh_course(tmp_path):
    """A course of one's own, to change."""
    return make_course(tmp_path / "course")


@pytest.fixture(scope="session")
def release_a1(course, tmp_path_factory):
    out = tmp_path_factory.mktemp("release") / "a1"
    report = release_mod.release(course, out, "a1")
    return out, report


@pytest.fixture(scope="session")
def submissions(course_root, release_a1, tmp_path_factory):
    folder = tmp_path_factory.mktemp("submissions")
    for kind in GRADED_KINDS:
        make_kind(release_a1[0], folder / kind, kind, foreign_copy=course_root)
    shutil.copytree(release_a1[0], folder / "release")
    return folder


@pytest.fixture(scope="session")
def graded_with_snapshots(course, submissions):
    before = tree_snapshot(submissions)
    grades = grade_mod.grade(course, submissions, "a1", jobs=2, progress=False)
    return {g.name: g for g in grades}, before, tree_snapshot(submissions)


@pytest.fixture(scope="session")
def graded(graded_with_snapshots):
    """``{submission name: SubmissionGrade}`` for assignment a1, graded with 2 jobs."""
    return graded_with_snapshots[0]


def tree_snapshot(folder):
    """``{relative path: bytes}`` of every file, to prove a folder was not changed."""
    folder = pathlib.Path(folder)
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


assert set(GRADED_KINDS) <= set(SUBMISSION_KINDS)
