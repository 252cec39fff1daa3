"""Temporary copies of the course to grade in.

A grading copy is the instructor's repository (tests, hidden tests, pytest
configuration and this tool included) with the student's part taken from a
submission: by default the whole of ``student_paths`` (the package, the
notebooks), with ``--isolate`` only one task's regions spliced into the
solution.  The submission folder itself is only ever read.
"""

from __future__ import annotations

import fnmatch
import pathlib
import shutil

from classroom import regions as regions_mod
from classroom.runner import HIDDEN_TESTS_FOLDER

# Never copied: version control, environments, build outputs and caches.
ALWAYS_EXCLUDED = (".git", ".hg", ".svn", ".venv*", "venv", "_build", "__pycache__",
                   ".pytest_cache", ".hypothesis", ".ipynb_checkpoints", "*.egg-info",
                   ".jupyter_cache", ".mypy_cache", ".ruff_cache", "*.pyc")


def ignore_function(root, excluded_paths=(), excluded_names=ALWAYS_EXCLUDED):
    """A ``shutil.copytree`` ignore function that drops ``excluded_names`` anywhere
    and the paths ``excluded_paths`` (relative to ``root``, glob patterns allowed)."""
    root = pathlib.Path(root).resolve()

    def ignore(folder, names):
        here = pathlib.Path(folder).resolve()
        try:
            relative = here.relative_to(root)
        except ValueError:
            relative = None
        dropped = set()
        for name in names:
            if any(fnmatch.fnmatch(name, pattern) for pattern in excluded_names):
                dropped.add(name)
            elif relative is not None:
                path = (relative / name).as_posix()
                if any(fnmatch.fnmatch(path, pattern.rstrip("/"))
                       for pattern in excluded_paths):
                    dropped.add(name)
        return dropped

    return ignore


def copy_tree(source, destination, excluded_paths=()):
    shutil.copytree(source, destination, symlinks=True,
                    ignore=ignore_function(source, excluded_paths))


def solution_copy(course, destination):
    """The instructor's repository, with the hidden tests placed among the tests
    (under ``<tests>/_classroom_hidden``) so that they run with the same conftest."""
    copy_tree(course.root, destination, excluded_paths=_outputs(course))
    add_hidden_tests(course, destination)
    return pathlib.Path(destination)


def _outputs(course):
    return ("classroom/out", "bench/out")


def add_hidden_tests(course, destination):
    hidden = course.root / course.settings.hidden_tests
    if not hidden.is_dir() or not any(hidden.rglob("test_*.py")):
        return None
    target = pathlib.Path(destination) / course.settings.tests[0] / HIDDEN_TESTS_FOLDER
    copy_tree(hidden, target)
    init = target / "__init__.py"
    if not init.exists():
        init.write_text("", encoding="utf-8")
    return target


def overlay_submission(course, workdir, submission):
    """Replace ``student_paths`` in ``workdir`` by the submission's."""
    for relative in course.settings.student_paths:
        target = pathlib.Path(workdir) / relative
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        elif target.exists() or target.is_symlink():
            target.unlink()
        source = pathlib.Path(submission) / relative
        if source.is_dir():
            copy_tree(source, target)
        elif source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def splice_task(workdir, submission, task_regions):
    """Put the submission's bodies of one task's regions into the solution copy.

    ``task_regions`` are the task's regions in the solution.  Returns the list of
    files where the submission's markers for the task were missing or did not
    match (then nothing is spliced: the caller grades that task some other way).
    """
    bodies, missing = {}, []
    per_file = {}
    for region in task_regions:
        per_file.setdefault(region.path, []).append(region)
    for path, in_file in per_file.items():
        found = regions_mod.task_bodies(submission, path, in_file[0].task)
        if found is None or len(found) != len(in_file):
            missing.append(path)
            continue
        ordered = sorted(in_file, key=lambda r: (r.cell if r.cell is not None else -1, r.begin))
        bodies.update({region: body for region, body in zip(ordered, found)})
    if missing:
        return missing
    regions_mod.rewrite_regions(workdir, task_regions, lambda region, old: bodies[region])
    return []
