"""``check``: a student runs the tests of some tasks and reads one line per task.

Works from a terminal (``python -m classroom check 4.2``) and from a notebook
cell (``from classroom import check; check("4.2")``).  The tests run in a
child process (so a notebook's already imported, older code does not count),
with the same time limit per test and the same crash handling as grading; the
student's own copy of the tests is used.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import sys

from classroom import course as course_mod, runner

STATUS_WORDS = {"pass": "pass", "fail": "FAIL", "not-done": "not done", "blocked": "waiting",
                "no-tests": "no tests"}


@dataclasses.dataclass
class CheckResult:
    scores: dict
    problems: list
    output: str = ""            # pytest's own output (check -v)

    @property
    def passed(self):
        return {task_id: s.status == "pass" for task_id, s in self.scores.items()}

    def __bool__(self):
        return bool(self.scores) and all(self.passed.values())

    @property
    def only_not_done(self):
        """No task failed: each that does not pass is not done, or waits on one that
        is not (where every task of a fresh copy starts)."""
        return bool(self.scores) and not self.problems and all(
            s.status in ("pass", "not-done", "blocked") for s in self.scores.values())

    def __repr__(self):
        done = sum(self.passed.values())
        return f"<check: {done} of {len(self.scores)} tasks pass>"


def default_tasks(course):
    """The tasks a student's copy was released with, or every task."""
    record = course.root / course_mod.RELEASE_FILE
    if record.is_file():
        ids = json.loads(record.read_text(encoding="utf-8")).get("tasks") or []
        return course.select(ids)
    return course.tasks


# What the tests of the course import; a student's environment without one of them
# would make every task fail for a reason that has nothing to do with the tasks.
REQUIRED_MODULES = ("numpy", "pytest", "hypothesis", "nbformat", "IPython")
MINIMUM_PYTHON = (3, 10)


class EnvironmentNotReady(course_mod.CourseError):
    """The Python running ``check`` lacks what the course's tests need."""


def environment_problems(python_version=None, find_spec=None):
    """What is wrong with this Python for the course, in plain words (empty: nothing)."""
    import importlib.util
    version = python_version or sys.version_info[:2]
    find_spec = find_spec or importlib.util.find_spec
    problems = []
    if tuple(version) < MINIMUM_PYTHON:
        problems.append(f"Python {version[0]}.{version[1]} is too old (the course needs "
                        f"{MINIMUM_PYTHON[0]}.{MINIMUM_PYTHON[1]} or newer)")
    missing = [name for name in REQUIRED_MODULES if find_spec(name) is None]
    if missing:
        problems.append(f"the package{'s' if len(missing) > 1 else ''} "
                        f"{', '.join(missing)} {'are' if len(missing) > 1 else 'is'} not "
                        "installed")
    return problems


def missing_requirements(root):
    """The distributions ``requirements-check.txt`` (in ``root``) lists that this Python
    does not have (a line with an environment marker is left to pip)."""
    import importlib.metadata
    from classroom.workflow import REQUIREMENTS_PATH, _distribution
    path = pathlib.Path(root) / REQUIREMENTS_PATH
    if not path.is_file():
        return []
    missing = []
    for line in path.read_text(encoding="utf-8").splitlines():
        name = _distribution(line)
        if name is None or ";" in line:
            continue
        try:
            importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            missing.append(name)
    return missing


def check_environment(root=None):
    problems = environment_problems()
    missing = missing_requirements(root) if root is not None else []
    if missing:
        problems.append(f"{', '.join(missing)} (from requirements-check.txt) "
                        f"{'are' if len(missing) > 1 else 'is'} not installed")
    if problems:
        raise EnvironmentNotReady(
            f"this Python ({sys.executable}) is not the course's environment: "
            + "; ".join(problems) + ". Run `make setup-check` (only what `check` needs, "
            "fast) or `make setup` (the whole book), then `make check`; or `pip install -r "
            "requirements-check.txt` in this environment.")


def run_check(task_ids=(), root=None, verbose=False):
    course = course_mod.load(root)
    check_environment(course.root)
    tasks = course.select(task_ids) if task_ids else default_tasks(course)
    ids = [t.id for t in tasks]
    settings = course.settings
    files = runner.task_test_files(course.root, settings.tests, ids)
    options = runner.RunOptions(package=settings.package, test_timeout=settings.test_timeout,
                                run_timeout=settings.run_timeout,
                                memory_limit_mb=settings.memory_limit_mb, verbose=verbose)
    run = runner.run_tests(course.root, files, ids, options)
    # A test file that did not load fails its tasks; it is no test (how many it holds
    # is unknown), so the counts stay those of the tests that ran.
    unloaded = {path: runner.task_ids_in(course.root / path) for path in run.collect_errors
                if (course.root / path).is_file()}
    scores = runner.score(tasks, dict(run.collected), run, settings.scoring, unloaded)
    for task_id in still_stubbed(course, [i for i, sc in scores.items()
                                          if sc.status == "blocked"]):
        scores[task_id].status = "not-done"     # (an earlier stub stopped it first)
    return CheckResult(scores, run.problems, run.output)


def still_stubbed(course, task_ids):
    """The tasks of ``task_ids`` whose regions still hold their stub."""
    from classroom import regions
    if not task_ids:
        return []
    try:
        found = regions.by_task(regions.scan(course.root, course.settings.sources))
    except regions.MarkerError:
        return []
    stubbed = []
    for task_id in task_ids:
        for region in found.get(task_id, []):
            bodies = regions.task_bodies(course.root, region.path, task_id) or []
            if any("TaskNotDone(" in "".join(body) for body in bodies):
                stubbed.append(task_id)
                break
    return stubbed


def format_lines(result):
    width = min(40, max((len(s.task.title) for s in result.scores.values()), default=10))
    lines = [f"  ! {problem}" for problem in result.problems]
    points_width = max((len(_points_of(s)) for s in result.scores.values()), default=0)
    tests_width = max((len(f"{s.passed}/{s.total}") for s in result.scores.values()),
                      default=0)
    counts = {task_id: _tests_of(s, tests_width) for task_id, s in result.scores.items()}
    counts_width = max(map(len, counts.values()), default=0)
    for task_id, score in result.scores.items():
        task = score.task
        title = task.title if len(task.title) <= width else task.title[:width - 3] + "..."
        status = STATUS_WORDS[score.status]
        line = (f"{task.id:>6}  {title:<{width}}  {status:<8}  "
                f"{_points_of(score):<{points_width}}  {counts[task_id]:<{counts_width}}")
        if score.unloaded:               # (the sentence names the file it could not import)
            line += f"  {score.first_failure}"
        elif score.status == "fail":
            line += f"  {runner.test_name(score.failing_test)}: {score.first_failure}"
            line += "".join(f"\n{'':>8}| {detail}" for detail in _new_details(score))
        elif score.status == "not-done":
            line += "  write it between its markers"
        elif score.status == "blocked":
            line += f"  {score.first_failure}"
        elif score.status == "no-tests":
            line += f"  {score.first_failure}"
        lines.append(line.rstrip(" "))
    done = sum(result.passed.values())
    earned = sum(s.task.points for s in result.scores.values() if s.status == "pass")
    most = sum(s.task.points for s in result.scores.values())
    lines.append(f"{done} of {len(result.scores)} tasks pass: {earned:g} of {most:g} points "
                 "(a task's points count when all its tests pass).")
    return lines


def _tests_of(score, width):
    """``"2/4 tests passed"``: of the tests that ran; a test file that did not load is no
    test (how many it holds is unknown): it is counted apart."""
    count = f"{f'{score.passed}/{score.total}':>{width}} tests passed"
    if not score.unloaded:
        return count
    files = f"{len(score.unloaded)} test file{'s' if len(score.unloaded) > 1 else ''}"
    return (f"{count}, {files} not loaded" if score.total else
            f"no test ran: {files} not loaded")


def _points_of(score):
    """``"0/3 points"``: what the task gets in the student's CI now (all its points
    when every test passes, none otherwise), never to be read as a count of tests."""
    earned = score.task.points if score.status == "pass" else 0
    return f"{earned:g}/{score.task.points:g} points"


def _new_details(score):
    """A failing task's detail lines, unless its one line already says all of them."""
    details = list(score.details)
    said = " ".join(score.first_failure.split())
    if all(" ".join(d.split()) in said for d in details):
        return []
    return details


def check(*task_ids, root=None, file=None, verbose=False):
    """Run the tests of ``task_ids`` (all of the assignment's when none is given),
    print one line per task (a failing task's line is followed by what its first
    failure compared), and return a ``CheckResult`` (true when all pass).  With
    ``verbose``, pytest's whole output comes first, every traceback in full."""
    result = run_check(task_ids, root, verbose=verbose)
    out = file or sys.stdout
    if verbose and result.output:
        print(result.output.rstrip("\n"), file=out)
        print(file=out)
    for line in format_lines(result):
        print(line, file=out)
    return result
