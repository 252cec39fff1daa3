"""``python -m classroom <command>``: the command line of the classroom tool.

Commands: ``tasks`` (the task list, or JSON for other tools), ``release`` (a
student repository), ``check`` (students: one line per task), ``grade`` (a
folder of submissions to a CSV and feedback files) and ``selfcheck`` (CI: the
course holds together).  Every command takes ``--root`` (default: the course
this package belongs to).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

from classroom import course as course_mod, regions as regions_mod
from classroom.course import CourseError

INSTRUCTOR_ONLY = ("release", "grade", "selfcheck", "needs", "mutants")


def build_parser():
    parser = argparse.ArgumentParser(
        prog="python -m classroom",
        description="Tasks, student releases, checks and grading for the course.")
    parser.add_argument("--root", type=pathlib.Path, default=None,
                        help="the course repository (default: the one this tool is in)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    tasks = commands.add_parser("tasks", help="list the tasks (in a student's copy: its "
                                               "assignment's)")
    tasks.add_argument("--json", action="store_true",
                       help="a JSON array: id, title, chapter, section, points, assignment, "
                            "depends_on, regions [{path, start_line, end_line}]")
    tasks.add_argument("--all", action="store_true",
                       help="in a student's copy, every task of the course, not only its "
                            "assignment's")

    release = commands.add_parser("release", help="write a student repository")
    release.add_argument("out", type=pathlib.Path, help="a new (or empty) folder")
    release.add_argument("--assignment", help="the assignment to release (default: all)")

    check = commands.add_parser("check", help="run the tests of some tasks (students)")
    check.add_argument("task_ids", nargs="*", metavar="TASK",
                       help="task ids (default: every task of this copy)")
    check.add_argument("-v", "--verbose", action="store_true",
                       help="also print pytest's whole output (every failure's traceback "
                       "and its whole diff)")

    grade = commands.add_parser(
        "grade", help="grade a folder of submissions (or `grade merge` shards' CSV files)")
    grade.add_argument("submissions", type=pathlib.Path, nargs="+", metavar="SUBMISSIONS",
                       help="a folder holding one folder per submission; or `merge` "
                            "followed by the shards' CSV files")
    grade.add_argument("--shard", default=None, metavar="I/N",
                       help="grade only slice I of N (1-based) of the submissions")
    grade.add_argument("--feedback-from", type=pathlib.Path, action="append", default=[],
                       metavar="DIR", help="(merge) a shard's feedback folder; repeat")
    grade.add_argument("--out", type=pathlib.Path, default=pathlib.Path("grades.csv"),
                       help="the CSV to write (default: grades.csv)")
    grade.add_argument("--assignment", help="grade only this assignment's tasks")
    grade.add_argument("--isolate", action="store_true",
                       help="grade each task with only its own regions from the submission")
    grade.add_argument("--jobs", type=int, default=1, help="runs at once (default: 1)")
    grade.add_argument("--feedback", type=pathlib.Path,
                       help="write one markdown feedback file per submission here")
    grade.add_argument("--quiet", action="store_true", help="no progress bar")

    needs = commands.add_parser("needs", help="derive what each task's tests need (traced)")
    needs.add_argument("--write", action="store_true",
                       help="write the derived needs into classroom/tasks.toml")

    mutants = commands.add_parser("mutants", help="grade generated mutants of every region")
    mutants.add_argument("task_ids", nargs="*", metavar="TASK", help="only these tasks")
    mutants.add_argument("--per-task", type=int, default=None,
                         help="at most this many mutants per task (default: all)")
    mutants.add_argument("--jobs", type=int, default=2, help="runs at once (default: 2)")
    mutants.add_argument("--out", type=pathlib.Path, default=None,
                         help="also write the table (Markdown) into this file")

    selfcheck = commands.add_parser("selfcheck", help="check that the course holds together")
    selfcheck.add_argument("task_ids", nargs="*", metavar="TASK",
                           help="check only these tasks (default: the whole course)")
    selfcheck.add_argument("--jobs", type=int, default=2, help="runs at once (default: 2)")
    for sub in commands.choices.values():      # `--root` also after the command
        sub.add_argument("--root", type=pathlib.Path, default=argparse.SUPPRESS,
                         help="the course repository (default: the one this tool is in)")
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        course = course_mod.load(args.root)
        if args.command in INSTRUCTOR_ONLY and (course.root / course_mod.RELEASE_FILE).exists():
            raise CourseError(f"`{args.command}` is for instructors, and this is a student's "
                              "copy: run it in the instructor's repository")
        return COMMANDS[args.command](course, args)
    except (CourseError, regions_mod.MarkerError) as error:
        print(f"classroom {args.command}: {error}", file=sys.stderr)
        return 2


def run_tasks(course, args):
    regions = regions_mod.by_task(regions_mod.scan(course.root, course.settings.sources))
    from classroom.student_check import default_tasks
    shown = course.tasks if args.all else default_tasks(course)
    if args.json:
        print(json.dumps(tasks_json(course, regions, shown), indent=2))
        return 0
    lines = task_lines(course, regions)
    for task in shown:
        places = ", ".join(r.where() for r in regions.get(task.id, [])) or "NO REGION YET"
        depends = f"  needs {', '.join(task.depends_on)}" if task.depends_on else ""
        print(f"{task.id:>6}  {task.points:>4g} pts  {task.assignment:<14} {task.title}"
              f" ({task.kind}, {lines[task.id]} lines){depends}\n{'':>8}chapter {task.chapter}"
              f"{' (' + task.file + ')' if task.file else ''}, {task.section}: {places}")
    build = sum(lines[t.id] for t in shown if t.kind == "build")
    print(f"{len(shown)} tasks, {sum(t.points for t in shown):g} points, "
          f"{sum(lines[t.id] for t in shown)} student lines ({build} in build tasks)")
    if len(shown) < len(course.tasks):
        print(f"(the tasks of this copy's assignment; `tasks --all` lists all "
              f"{len(course.tasks)} of the course)")
    return 0


def task_lines(course, regions):
    """``{task id: code lines a student writes}``, counted in the solution's regions
    (``regions.code_lines``).  A student's copy holds stubs there (and no markers at all
    for an earlier assignment's tasks): its counts are the ones ``release`` wrote into
    its record."""
    record = course.root / course_mod.RELEASE_FILE
    stored = {}
    if record.exists():
        stored = json.loads(record.read_text(encoding="utf-8")).get("lines", {})
    return {t.id: stored[t.id] if t.id in stored else
            regions_mod.code_lines(course.root, regions.get(t.id, [])) for t in course.tasks}


def tasks_json(course, regions, tasks=None):
    lines = task_lines(course, regions)
    return [{"id": t.id, "title": t.title, "chapter": t.chapter, "file": t.file,
             "section": t.section,
             "points": int(t.points) if t.points.is_integer() else t.points,
             "assignment": t.assignment, "depends_on": list(t.depends_on),
             "kind": t.kind, "lines": lines[t.id],
             "regions": [r.as_json() for r in regions.get(t.id, [])]}
            for t in (course.tasks if tasks is None else tasks)]


def run_release(course, args):
    from classroom import release
    report = release.release(course, args.out, args.assignment)
    for line in report.lines():
        print(line)
    return 0


def run_check(course, args):
    from classroom import student_check
    result = student_check.check(*args.task_ids, root=course.root, verbose=args.verbose)
    return 0 if result else NOT_DONE_YET if result.only_not_done else 1


# `check`'s exit status when no task failed but some are not done yet: still not 0 (a
# task's CI step gives points only for 0), and not 1, so that `make check` can say that
# this is where a fresh copy starts and exit 0 (see the Makefile).
NOT_DONE_YET = 3


def run_grade(course, args):
    from classroom import grade
    if str(args.submissions[0]) == "merge":
        count = grade.merge(args.submissions[1:], args.out, args.feedback_from, args.feedback)
        print(f"merged {count} rows from {len(args.submissions) - 1} files: {args.out}"
              + (f"; feedback files in {args.feedback}" if args.feedback else ""))
        return 0
    if len(args.submissions) != 1:
        raise CourseError("give one folder of submissions (or `merge` and CSV files)")
    started = time.monotonic()
    tasks = course.tasks_of(args.assignment)
    shard = grade.parse_shard(args.shard) if args.shard else None
    grades = grade.grade(course, args.submissions[0], args.assignment, args.isolate,
                         args.jobs, progress=not args.quiet, shard=shard)
    grade.write_csv(grades, tasks, args.out)
    print(f"graded {len(grades)} submissions in {time.monotonic() - started:.0f} s: {args.out}")
    if args.feedback:
        title = course.assignment(args.assignment).title if args.assignment else \
            course.settings.name
        grade.write_feedback(grades, tasks, args.feedback, title)
        print(f"feedback files in {args.feedback}")
    return 0


def run_selfcheck(course, args):
    from classroom import selfcheck
    started = time.monotonic()
    findings = selfcheck.selfcheck(course, jobs=args.jobs, task_ids=args.task_ids)
    failed = [f for f in findings if not f.ok]
    print(f"selfcheck: {len(findings) - len(failed)} of {len(findings)} checks pass "
          f"({time.monotonic() - started:.0f} s)")
    return 1 if failed else 0


def run_needs(course, args):
    import tempfile
    from classroom import reach
    from classroom.grade import Grader
    with tempfile.TemporaryDirectory(prefix="classroom-needs-") as scratch:
        needs, run = reach.derive_needs(course, Grader(course, course.tasks, scratch))
    for task in course.tasks:
        print(f"{task.id:>6}  needs {', '.join(needs[task.id]) or 'nothing'}")
    if args.write:
        reach.write_needs(course.root / course_mod.TASKS_FILE, needs)
        print(f"written into {course_mod.TASKS_FILE}")
    failed = [r.nodeid for r in run.results.values() if not r.passed]
    if failed:
        print(f"{len(failed)} tests fail in the solution, e.g. {failed[0]}")
    return 1 if failed else 0


def run_mutants(course, args):
    import tempfile
    from classroom import regions, selfcheck
    from classroom.grade import Grader
    started = time.monotonic()
    tasks = course.select(args.task_ids)
    grouped = regions.by_task(regions.scan(course.root, course.settings.sources))
    findings = []

    def note(ok, what):
        findings.append(ok)
        if not ok or "SURVIVES" in what or "caught by their" in what:
            print(f"{'ok  ' if ok else 'FAIL'}  {what}")

    with tempfile.TemporaryDirectory(prefix="classroom-mutants-") as scratch:
        grader = Grader(course, tasks, scratch)
        traced = selfcheck.TracedRuns(course, grader, tasks)
        selfcheck.run_all(traced.runs(), args.jobs, note)
        def say_table(text):
            print(text)
            if args.out:
                args.out.parent.mkdir(parents=True, exist_ok=True)
                args.out.write_text(text + "\n", encoding="utf-8")

        selfcheck.check_mutants(course, grader, traced, grouped, tasks, args.per_task,
                                args.jobs, note, say_table=say_table)
    print(f"mutants: {time.monotonic() - started:.0f} s")
    return 0 if all(findings) else 1


COMMANDS = {"tasks": run_tasks, "needs": run_needs, "mutants": run_mutants, "release": run_release, "check": run_check,
            "grade": run_grade, "selfcheck": run_selfcheck}
