"""Grading at class size: 30 fabricated submissions of one assignment, ``grade --jobs 2``.

Issue 15 asks that grading a class (30 submissions of one assignment) takes
under 2 minutes on a 2-core machine.  This script makes the class and times
it (wall clock, and CPU seconds with the load average: on a shared machine the
CPU time says what idle cores would take); it is a benchmark, not a test (no
test looks at a time)::

    python -m bench.grading                              # the course, assignment a1-engine
    python -m bench.grading --assignment a2-functions --jobs 2 --count 30
    python -m bench.grading --fixture                    # the tool's small test course
    make bench-grading BENCH_ARGS="--assignment a3-modules"

The submissions are made from the assignment's release, in turn: solved (the
solution's regions put back), unfinished (the release as it is), one task
wrong (a wrong answer from classroom/wrong_answers planted in a solved copy)
and half done (the first half of the tasks solved).  The course's regions must
be marked (see classroom/README.md); ``--fixture`` works before they are.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import resource
import shutil
import sys
import tempfile
import time

KINDS = ("solved", "unfinished", "one-wrong", "half-done")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.grading", description=__doc__.split(
        "\n")[0])
    parser.add_argument("--root", type=pathlib.Path, default=None,
                        help="the course repository (default: this one)")
    parser.add_argument("--assignment", default=None,
                        help="the assignment (default: the course's first)")
    parser.add_argument("--count", type=int, default=30, help="submissions (default: 30)")
    parser.add_argument("--jobs", type=int, default=2, help="grading jobs (default: 2)")
    parser.add_argument("--fixture", action="store_true",
                        help="grade the classroom tool's small test course instead")
    parser.add_argument("--shards", type=int, default=0,
                        help="also grade in this many shards, merge them, and compare the "
                             "CSV with the single run's")
    parser.add_argument("--keep", type=pathlib.Path, default=None,
                        help="keep the submissions and grades.csv in this new folder")
    return parser.parse_args(argv)


def fixture_course(folder):
    repository = pathlib.Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(repository))
    from tests.classroom.fixture import make_course
    return make_course(folder / "course")


def solve(copy, course, task_ids):
    """Put the solution's bodies of ``task_ids`` back into a release copy."""
    from classroom import regions, workspace
    for task_id in task_ids:       # (scanned again each time: line numbers move)
        found = regions.by_task(regions.scan(copy, course.settings.sources))
        missing = workspace.splice_task(copy, course.root, found.get(task_id, []))
        if missing:
            raise SystemExit(f"cannot solve task {task_id} in {copy}: {missing}")


def plant_wrong_answer(copy, course, answer):
    """Put one wrong answer into a solved copy, at the same region of its task."""
    from classroom import regions, selfcheck
    in_course = regions.by_task(regions.scan(course.root, course.settings.sources))
    region, body = selfcheck.wrong_answer_edit(answer, in_course[answer.task], course.root)
    index = in_course[answer.task].index(region)
    target = regions.by_task(regions.scan(copy, course.settings.sources))[answer.task][index]
    regions.rewrite_regions(copy, [target], lambda r, old: body)


def fabricate(course, assignment, release, folder, count):
    """``count`` submissions of the kinds in KINDS, in turn; returns their kinds."""
    from classroom import selfcheck
    task_ids = [t.id for t in course.tasks_of(assignment)]
    answers = [a for a in selfcheck.load_wrong_answers(course) if a.task in task_ids]
    kinds = {}
    for number in range(count):
        kind = KINDS[number % len(KINDS)]
        if kind == "one-wrong" and not answers:
            kind = "solved"
        copy = folder / f"student-{number:02d}-{kind}"
        shutil.copytree(release, copy)
        if kind in ("solved", "one-wrong"):
            solve(copy, course, task_ids)
        if kind == "half-done":
            solve(copy, course, task_ids[:len(task_ids) // 2])
        if kind == "one-wrong":
            plant_wrong_answer(copy, course, answers[number % len(answers)])
        kinds[copy.name] = kind
    return kinds


def main(argv=None):
    args = parse_args(argv)
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="bench-grading-"))
    try:
        from classroom import course as course_mod, grade, release
        root = fixture_course(scratch) if args.fixture else args.root
        course = course_mod.load(root)
        assignment = args.assignment or course.assignments[0].name
        out = scratch / "release"
        release.release(course, out, assignment)
        submissions = scratch / "submissions"
        submissions.mkdir()
        kinds = fabricate(course, assignment, out, submissions, args.count)
        print(f"grading {len(kinds)} submissions of {assignment} ({course.settings.name}) "
              f"with {args.jobs} jobs...")
        load_before = os.getloadavg()[0]
        started, cpu_started = time.perf_counter(), cpu_seconds()
        grades = grade.grade(course, submissions, assignment, jobs=args.jobs)
        seconds, cpu = time.perf_counter() - started, cpu_seconds() - cpu_started
        tasks = course.tasks_of(assignment)
        grade.write_csv(grades, tasks, scratch / "grades.csv")
        grade.write_feedback(grades, tasks, scratch / "feedback", assignment)
        report(grades, kinds, tasks, seconds)
        print(f"CPU time of the grading (this process and its children): {cpu:.1f} s, "
              f"{cpu / max(1, len(grades)):.1f} s per submission; {args.jobs} idle cores "
              f"would take about {cpu / args.jobs:.0f} s. Load average "
              f"{load_before:.1f} before, {os.getloadavg()[0]:.1f} after "
              f"({os.cpu_count()} cores)")
        if args.shards:
            compare_shards(course, submissions, assignment, tasks, args, scratch)
        if args.keep:
            shutil.copytree(scratch, args.keep)
            print(f"kept in {args.keep}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def cpu_seconds():
    """User and system CPU seconds of this process and its finished children: on a shared
    machine a truer measure of the work than the wall-clock time."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def compare_shards(course, submissions, assignment, tasks, args, scratch):
    """Grade in ``args.shards`` slices, merge them, and compare with the single run."""
    from classroom import grade
    started = time.perf_counter()
    parts, folders = [], []
    for index in range(1, args.shards + 1):
        part, folder = scratch / f"grades-{index}.csv", scratch / f"feedback-{index}"
        graded = grade.grade(course, submissions, assignment, jobs=args.jobs, progress=False,
                             shard=(index, args.shards))
        grade.write_csv(graded, tasks, part)
        grade.write_feedback(graded, tasks, folder, assignment)
        parts.append(part)
        folders.append(folder)
    grade.merge(parts, scratch / "grades-merged.csv", folders, scratch / "feedback-merged")
    same = (scratch / "grades-merged.csv").read_bytes() == (scratch / "grades.csv").read_bytes()
    files = sorted(p.name for p in (scratch / "feedback").iterdir())
    same_feedback = files == sorted(p.name for p in (scratch / "feedback-merged").iterdir()) \
        and all((scratch / "feedback" / name).read_bytes()
                == (scratch / "feedback-merged" / name).read_bytes() for name in files)
    print(f"{args.shards} shards graded one after the other in "
          f"{time.perf_counter() - started:.1f} s; merged CSV "
          f"{'equals' if same else 'DIFFERS FROM'} the single run's; merged feedback "
          f"({len(files)} files) {'equals' if same_feedback else 'DIFFERS FROM'} the "
          "single run's")


def report(grades, kinds, tasks, seconds):
    maximum = sum(t.points for t in tasks)
    by_kind = {}
    for g in grades:
        by_kind.setdefault(kinds[g.name], []).append(g.total)
    for kind, totals in sorted(by_kind.items()):
        print(f"  {kind:<11} {len(totals):>3} submissions, totals "
              f"{min(totals):g}-{max(totals):g} of {maximum:g}")
    per = seconds / max(1, len(grades))
    print(f"graded {len(grades)} submissions in {seconds:.1f} s ({per:.1f} s each); "
          f"target: under 120 s -> {'met' if seconds < 120 else 'NOT met'}")


if __name__ == "__main__":
    main()
