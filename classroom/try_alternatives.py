"""Other correct answers: proof that a build task's tests grade its contract.

A build task is a whole component, and a student may write it differently from the
solution: other data structures, other helpers, no fast path.  Its tests must then
still give full marks.  Each ``[[alternative]]`` in ``classroom/alternatives/*.toml``
(instructor-only, like the wrong answers) rewrites some of a task's regions, naming
each by the function (or method) it is the body of::

    [[alternative]]
    task = "4.2"
    name = "generation numbers instead of dependency counts"
    why = "what the alternative does differently"
    [alternative.bodies]
    "execute" = '''
    ...the new body, written without the region's indentation...
    '''
    "GraphTask.send" = "stub"       # left unwritten: the alternative does not use it

A body of ``"stub"`` is the student's stub (it raises ``TaskNotDone``): a helper the
alternative never calls.  A function that holds several regions of the task (around a
given line) takes a list of bodies, one per region.

An answer can be right for its own task and still cost a student points later: task
4.2's tests run 4.1's recording on every backward pass.  So ``selfcheck`` grades each
alternative with the tests (hidden ones included) of its task and of every later task
of its assignment that runs the task's code (``needs`` in ``tasks.toml``, which
selfcheck derives from what each test runs), in one run, and fails unless every one of
them scores full marks.  The tasks of later assignments are left out: a later release
ships the earlier assignments solved, so a student's answer is never graded with them;
and a task of the assignment that does not need it runs none of its code.
``python -m classroom.try_alternatives [TASK ...]`` does only that.
"""

from __future__ import annotations

import dataclasses
import pathlib
import sys

from classroom import regions as regions_mod
from classroom.course import CourseError, toml_files

FOLDER = "classroom/alternatives"


@dataclasses.dataclass
class Alternative:
    task: str
    name: str
    source: str
    bodies: dict
    why: str = ""


def load(course):
    found = []
    for relpath, data in toml_files(course, FOLDER):
        for entry in data.get("alternative", []):
            unknown = set(entry) - {"task", "name", "why", "bodies"}
            if unknown or not {"task", "name", "bodies"} <= set(entry):
                raise CourseError(f"an [[alternative]] in {relpath} needs task, name and "
                                  f"bodies (and may have why): {sorted(entry)}")
            found.append(Alternative(str(entry["task"]), str(entry["name"]), relpath,
                                     dict(entry["bodies"]), str(entry.get("why", ""))))
    return found


def edits(course, alternative, task_regions):
    """``[(region, new body lines)]`` for an alternative, checked against the regions."""
    label = f"alternative {alternative.name!r} of task {alternative.task}"
    by_function = {}
    for region in task_regions:
        function = regions_mod.function_of(course.root, region)
        by_function.setdefault(function, []).append(region)
    unknown = sorted(set(alternative.bodies) - set(by_function))
    if unknown:
        raise CourseError(f"{label} ({alternative.source}): {unknown} hold no region of the "
                          f"task (its regions are in {sorted(by_function)})")
    task = course.task(alternative.task)
    changes = []
    for function, code in alternative.bodies.items():
        found = by_function[function]
        codes = code if isinstance(code, list) else [code] * len(found)
        if len(codes) != len(found) or (not isinstance(code, list) and len(found) > 1
                                        and code.strip() != "stub"):
            raise CourseError(f"{label}: {function} holds {len(found)} regions of the task: "
                              f"give a list of {len(found)} bodies, one per region")
        for region, text in zip(found, codes):
            body = (regions_mod.stub_lines(task, region.indent,
                                                function=function) if text.strip() == "stub"
                    else regions_mod.reindent(text, region.indent))
            changes.append((region, body))
    return changes


def runs(course, grader, grouped, note, chosen):
    """Selfcheck's runs: each alternative of a ``chosen`` task scores full marks, and so
    do the later tasks of ``grader.tasks`` that need it (``graded_with``); and every
    build task has one."""
    from classroom.grade import Job
    try:
        found = load(course)
    except CourseError as error:
        note(False, str(error))
        return []
    ids = {t.id for t in chosen}
    with_one = {a.task for a in found}
    for task in chosen:
        if task.kind == "build":
            note(task.id in with_one, f"build task {task.id} has an alternative answer"
                 if task.id in with_one else f"build task {task.id} has no alternative in "
                 f"{FOLDER}: write one, to prove its tests grade the contract")
    planned = []
    for alternative in found:
        if alternative.task not in ids:
            continue
        label = f"alternative {alternative.name!r} of task {alternative.task}"
        try:
            changes = edits(course, alternative, grouped.get(alternative.task, []))
        except CourseError as error:
            note(False, str(error))
            continue

        def prepare(workdir, changes=changes):
            bodies = dict(changes)         # one rewrite: line numbers are the solution's
            regions_mod.rewrite_regions(workdir, list(bodies), lambda r, old: bodies[r])

        def judge(scores, task_id=alternative.task):
            short = {i: f"{s.points:g}/{s.max_points:g} ({s.failing_test}: "
                        f"{s.first_failure})"
                     for i, s in scores.items() if s.points < s.max_points}
            if not short:
                return True, "full marks" + (" on every one" if len(scores) > 1 else "")
            broken = sorted(set(short) - {task_id}, key=list(scores).index)
            return False, ("loses points: " + str(short) + (
                f" (it breaks the later task{'s' * (len(broken) > 1)} "
                f"{', '.join(broken)} that build{'s' * (len(broken) == 1)} on it)"
                if broken else ""))

        graded = graded_with(course.task(alternative.task), grader.tasks)
        later = [t.id for t in graded[1:]]
        if later:
            label += f" (with the later tasks that run its code: {', '.join(later)})"
        planned.append((label, lambda p=prepare, g=graded: judge(
            grader.run(Job(course.root, g), prepare=p)[0])))
    return planned


def graded_with(task, tasks):
    """The tasks of ``tasks`` an alternative of ``task`` is graded with: ``task`` first,
    then, in the syllabus' order, each later task of its assignment that needs it."""
    return (task,) + tuple(t for t in tasks if t.assignment == task.assignment
                           and task.id in t.depends_on)


def with_later_tasks(course, chosen):
    """``chosen`` and the tasks their alternatives are graded with, in the syllabus'
    order: the tasks a grader for these runs must know."""
    return tuple(t for t in course.tasks if t in chosen or any(
        t in graded_with(c, course.tasks) for c in chosen))


def main(argv=None):
    import argparse
    import tempfile
    from classroom import course as course_mod
    from classroom.grade import Grader
    from classroom.selfcheck import run_all
    parser = argparse.ArgumentParser(prog="python -m classroom.try_alternatives")
    parser.add_argument("task_ids", nargs="*")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    course = course_mod.load()
    chosen = course.select(args.task_ids)
    grouped = regions_mod.by_task(regions_mod.scan(course.root, course.settings.sources))
    results = []

    def note(ok, what):
        results.append(ok)
        print(f"{'ok  ' if ok else 'FAIL'}  {what}", flush=True)

    with tempfile.TemporaryDirectory(prefix="classroom-alternatives-") as scratch:
        grader = Grader(course, with_later_tasks(course, chosen),
                        pathlib.Path(scratch) / "grading")
        run_all(runs(course, grader, grouped, note, chosen), args.jobs, note)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
