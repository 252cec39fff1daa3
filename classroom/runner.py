"""Running task tests in a child process, and turning their outcomes into points.

``run_tests`` starts ``python -m pytest -p classroom.grading_plugin`` in a
folder (the student's repository for ``check``, a temporary grading copy for
``grade``), in its own process group, with a time limit for the whole run and
the plugin's limit per test.  The plugin writes one JSON line per event, so
when the process dies (``os._exit``, a segmentation fault, a test that
swallowed its timeout, the memory cap) the runner knows which test was
running: that test fails with the reason, and the run starts again after it,
up to a limit.  Nothing a submission does can stop the caller.

``score`` then gives each task its points: the share of its tests that passed
(``scoring = "proportional"``), or all or nothing, and the first failure in
plain words.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import tempfile
import time

from classroom import messages

MAX_RESTARTS = 12
HIDDEN_TESTS_FOLDER = "_classroom_hidden"     # where grading copies put the hidden tests
_TASK_MARK = re.compile(r"""mark\.task\(\s*(?P<q>["'])(?P<id>[^"']+)(?P=q)""")


@dataclasses.dataclass
class TestResult:
    nodeid: str
    tasks: tuple
    passed: bool
    kind: str                  # passed, failed, not-done, timeout, crash, not-run
    message: str = ""
    blocked_by: str | None = None
    reached: tuple = ()        # tasks whose regions the test ran (traced runs only)
    details: tuple = ()        # a failure's few lines: expected and actual values


@dataclasses.dataclass
class RunResult:
    results: dict              # nodeid -> TestResult
    collected: dict            # nodeid -> tasks, in collection order
    problems: list             # what went wrong for the whole run, in plain words
    # test file -> why it did not load, a sentence that names the file to blame
    collect_errors: dict = dataclasses.field(default_factory=dict)
    processes: int = 0
    output: str = ""           # pytest's own output (RunOptions.verbose)


@dataclasses.dataclass
class TaskScore:
    task: object
    points: float
    passed: int
    total: int
    status: str                # pass, fail, not-done, blocked, no-tests
    first_failure: str = ""
    failing_test: str = ""
    waits_on: tuple = ()        # (blocked) the unfinished tasks that stopped its tests
    details: tuple = ()         # the first failure's few lines: expected and actual values
    unloaded: tuple = ()        # (check) the task's test files that did not load

    @property
    def max_points(self):
        return self.task.points


# ----- which test files -----------------------------------------------------------------

def task_ids_in(path):
    """The task ids a test file's ``mark.task(...)`` calls name."""
    text = pathlib.Path(path).read_text(encoding="utf-8", errors="replace")
    return {m["id"] for m in _TASK_MARK.finditer(text)}


def task_test_files(root, folders, task_ids=()):
    """Test files under ``folders`` that mention ``mark.task("<id>")`` for one of
    ``task_ids`` (any task when empty): passing only these to pytest keeps a run
    from importing every test module of the course."""
    root = pathlib.Path(root)
    wanted = set(task_ids)
    files = []
    for folder in folders:
        base = root / folder
        if not base.exists():
            continue
        for path in sorted(base.rglob("*.py")):
            if any(p.startswith(".") or p == "__pycache__" for p in path.relative_to(root).parts):
                continue
            if not (path.name.startswith("test_") or path.name.endswith("_test.py")):
                continue      # (a helper module that only quotes a mark is not a test file)
            ids = task_ids_in(path)
            if ids and (not wanted or ids & wanted):
                files.append(path.relative_to(root).as_posix())
    return files


# ----- one run, restarted after crashes -------------------------------------------------------

@dataclasses.dataclass
class RunOptions:
    package: str | None
    test_timeout: float
    run_timeout: float
    memory_limit_mb: int = 0
    python: str = sys.executable
    collect_only: bool = False
    verbose: bool = False      # keep pytest's tracebacks and its output (check -v)


def run_tests(workdir, test_paths, task_ids, options):
    """Run the tests of ``task_ids`` found in ``test_paths`` inside ``workdir``."""
    workdir = pathlib.Path(workdir).resolve()
    outcome = RunResult(results={}, collected={}, problems=[])
    if not test_paths:
        return outcome
    deadline = time.monotonic() + options.run_timeout
    with tempfile.TemporaryDirectory(prefix="classroom-run-") as scratch:
        scratch = pathlib.Path(scratch)
        for attempt in range(MAX_RESTARTS + 1):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                outcome.problems.append(f"the tests took longer than {options.run_timeout:g} s "
                                        "in all; the rest were not run")
                break
            report = scratch / f"report-{attempt}.jsonl"
            skip = scratch / "skip.txt"
            skip.write_text("\n".join(outcome.results), encoding="utf-8")
            returncode, killed, stderr = _spawn(workdir, scratch, report, skip, test_paths,
                                                task_ids, options, remaining)
            outcome.processes += 1
            if options.verbose:
                outcome.output += (scratch / "stdout.txt").read_text(encoding="utf-8",
                                                                      errors="replace")
            events = _read_events(report)
            faults = pathlib.Path(str(report) + ".faults")
            if faults.exists():
                stderr += faults.read_text(encoding="utf-8", errors="replace")
            if not _absorb(outcome, events, returncode, killed, stderr, options):
                break
        else:
            outcome.problems.append(f"the interpreter stopped {MAX_RESTARTS + 1} times; "
                                    "the remaining tests were not run")
    _fill_missing(outcome)
    _note_unloaded(outcome)
    return outcome


def _absorb(outcome, events, returncode, killed, stderr, options):
    """Take in one process's events; True when another process should run."""
    started, finished, fatal, progress = None, False, None, False
    for event in events:
        kind = event["event"]
        if kind == "collected":
            for test in event["tests"]:
                outcome.collected.setdefault(test["nodeid"], tuple(test["tasks"]))
        elif kind == "collect-error":      # (noted in problems at the end: _note_unloaded)
            outcome.collect_errors.setdefault(event["path"], event["message"])
        elif kind in ("problem", "problem-foreign"):
            _note(outcome, event["message"])
            if kind == "problem-foreign":
                fatal = event["message"]
        elif kind == "fatal":
            fatal = event["message"]
            _note(outcome, fatal)
        elif kind == "start":
            started = event["nodeid"]
        elif kind == "result":
            nodeid = event["nodeid"]
            outcome.results[nodeid] = TestResult(
                nodeid, outcome.collected.get(nodeid, ()), event["passed"], event["kind"],
                event.get("message") or "", event.get("blocked_by"),
                tuple(event.get("reached") or ()), tuple(event.get("details") or ()))
            started, progress = None, True
        elif kind == "finished":
            finished = True
    if fatal:
        _fail_everything(outcome, fatal)
        return False
    if options.collect_only or all(n in outcome.results for n in outcome.collected):
        return False
    if started is not None:          # the process (or pytest itself) stopped in this test
        timed_out = killed or "Timeout (" in stderr
        if timed_out:
            reason = messages.timed_out(options.test_timeout)
        elif finished:
            reason = "pytest itself stopped during this test (an internal error)"
        else:
            reason = messages.crashed(returncode)
        outcome.results[started] = TestResult(started, outcome.collected.get(started, ()),
                                              False, "timeout" if timed_out else "crash", reason)
        progress = True
    elif finished:
        _note(outcome, "pytest finished without running every test")
        return False
    elif not outcome.collected:
        why = "took too long" if killed else messages.crashed(returncode).replace(
            " during this test", "")
        _note(outcome, f"the tests could not even be loaded ({why})")
        return False
    if not progress:
        _note(outcome, "the test run stopped between tests: " + messages.crashed(returncode))
        return False
    return any(n not in outcome.results for n in outcome.collected)


def _note(outcome, problem):
    if problem not in outcome.problems:
        outcome.problems.append(problem)


def _note_unloaded(outcome):
    """One problem per reason the test files that did not load give: a package that
    does not import stops every test file that imports it, for the same reason."""
    paths_of = {}
    for path, why in outcome.collect_errors.items():
        paths_of.setdefault(why, []).append(path)
    for why, paths in paths_of.items():
        _note(outcome, why if len(paths) == 1 else
              f"{', '.join(paths)} could not be loaded: {why}")


def _fail_everything(outcome, reason):
    for nodeid, tasks in outcome.collected.items():
        outcome.results[nodeid] = TestResult(nodeid, tasks, False, "failed", reason)


def _fill_missing(outcome):
    reason = outcome.problems[-1] if outcome.problems else "was not run"
    for nodeid, tasks in outcome.collected.items():
        if nodeid not in outcome.results:
            outcome.results[nodeid] = TestResult(nodeid, tasks, False, "not-run",
                                                 "was not run: " + reason)


def pytest_command(report, skip, test_paths, task_ids, options, workdir):
    """The child's command line.  Besides the plugin: no cache written into the
    graded folder, no nbval (notebooks are not collected here, and importing it
    costs a second per run), collection errors reported but not fatal, the
    graded folder's own pytest configuration, hypothesis seeded."""
    command = [options.python, "-m", "pytest", "-p", "classroom.grading_plugin",
               "-p", "no:cacheprovider", "-p", "no:nbval", "--rootdir", str(workdir),
               "-q", "--no-header", "--continue-on-collection-errors",
               "--classroom-report", str(report), "--classroom-skip", str(skip),
               "--classroom-tasks", ",".join(task_ids),
               "--classroom-timeout", str(options.test_timeout),
               "--classroom-root", str(workdir),
               "--classroom-memory", str(options.memory_limit_mb)]
    config = workdir / "pyproject.toml"
    if config.is_file():
        command += ["-c", str(config)]
    if options.package:
        command += ["--classroom-package", options.package]
    if importlib.util.find_spec("hypothesis") is not None:
        command += ["--hypothesis-seed=0"]
    if options.collect_only:
        command += ["--collect-only"]
    if options.verbose:           # with pytest's diffs in full (its -vv, for asserts only)
        command += ["--classroom-verbose", "-o", "verbosity_assertions=2"]
    return command + list(test_paths)


def child_environment(workdir, scratch):
    """The parent's environment without anything that could change how the tests
    run (PYTHONPATH, PYTEST_ADDOPTS, hypothesis profiles, coverage start-up), with
    the graded folder first on the import path and one BLAS thread.  The start-up
    hooks of the parent's PYTHONPATH stay, after the graded folder (see
    ``startup_hook_folders``)."""
    dropped = ("PYTHON", "PYTEST_", "HYPOTHESIS_", "COVERAGE_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(dropped)}
    path = os.pathsep.join([str(workdir), *startup_hook_folders()])
    env.update(PYTHONPATH=path, PYTHONHASHSEED="0",
               PYTHONUTF8="1", HYPOTHESIS_STORAGE_DIRECTORY=str(scratch / "hypothesis"),
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               MPLBACKEND="Agg")
    return env


def startup_hook_folders(pythonpath=None):
    """The folders of ``pythonpath`` (default: this process's PYTHONPATH) that hold a
    ``sitecustomize.py``: start-up hooks someone put on the path on purpose, such as the
    book's perturbation mode (``make test PERTURB=ulp`` puts scripts/perturb there), which
    must reach the tests that check and grade run, or they would run without it."""
    if pythonpath is None:
        pythonpath = os.environ.get("PYTHONPATH", "")
    return [os.path.abspath(folder) for folder in pythonpath.split(os.pathsep)
            if folder and os.path.isfile(os.path.join(folder, "sitecustomize.py"))]


def _spawn(workdir, scratch, report, skip, test_paths, task_ids, options, timeout):
    command = pytest_command(report, skip, test_paths, task_ids, options, workdir)
    out_path, err_path = scratch / "stdout.txt", scratch / "stderr.txt"
    killed = False
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        process = subprocess.Popen(command, cwd=workdir, stdout=out, stderr=err,
                                   stdin=subprocess.DEVNULL,
                                   env=child_environment(workdir, scratch),
                                   start_new_session=hasattr(os, "killpg"))
        try:
            returncode = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            killed = True
            _kill(process)
            returncode = process.wait()
    stderr = err_path.read_text(encoding="utf-8", errors="replace")[-20000:]
    return returncode, killed, stderr


def _kill(process):
    try:
        if hasattr(os, "killpg"):
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    except ProcessLookupError:
        pass


def _read_events(report):
    if not report.exists():
        return []
    events = []
    for line in report.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:      # a line cut short when the process died
            continue
    return events


# ----- points ----------------------------------------------------------------------------------

def score(tasks, expected, run, scoring="proportional", unloaded=None):
    """``{task id: TaskScore}`` from a run's results.

    ``expected`` maps each test that grades the tasks to its task ids (the
    instructor's collection when grading, so a test module that fails to load
    in a submission still counts, as failed).  ``unloaded`` (``check``, which has
    only the student's collection) maps each test file that did not load to the
    task ids it names: such a task fails, for that reason, with no points (how many
    tests the file holds is unknown), and its counts are of the tests that ran.
    """
    scores = {}
    for task in tasks:
        tests = [n for n, ids in expected.items() if task.id in ids]
        results = [run.results.get(n) or _missing(n, run) for n in tests]
        passed = sum(r.passed for r in results)
        failures = [r for r in results if not r.passed]
        files = tuple(p for p, ids in (unloaded or {}).items() if task.id in ids)
        if files:
            why = run.collect_errors.get(files[0], f"{files[0]} could not be loaded")
            scores[task.id] = TaskScore(task, 0.0, passed, len(tests), "fail", why, files[0],
                                        unloaded=files)
            continue
        if not tests:
            scores[task.id] = TaskScore(task, 0.0, 0, 0, "no-tests",
                                        "no test is marked for this task")
            continue
        if scoring == "all-or-nothing":
            points = task.points if not failures else 0.0
        else:
            points = round(task.points * passed / len(tests), 2)
        status = _status(task.id, failures)
        public_first = sorted(failures, key=lambda f: is_hidden(f.nodeid))
        own = [f for f in public_first if f.kind == "not-done" and f.blocked_by == task.id]
        first = (own or public_first or [None])[0]
        waits_on = tuple(sorted({f.blocked_by for f in failures}, key=str)) \
            if status == "blocked" else ()
        words = _in_words(first, task.id) if first else ""
        if waits_on:
            words = messages.waiting(waits_on, passed)
        scores[task.id] = TaskScore(task, points, passed, len(tests), status, words,
                                    first.nodeid if first else "", waits_on,
                                    first.details if first and not waits_on else ())
    return scores


def _status(task_id, failures):
    """pass; not-done (only stubs fail it, its own among them); blocked (only other
    tasks' stubs); or fail."""
    if not failures:
        return "pass"
    if all(f.kind == "not-done" for f in failures):
        return "not-done" if any(f.blocked_by == task_id for f in failures) else "blocked"
    return "fail"


def _missing(nodeid, run):
    path = nodeid.split("::")[0]
    if path in run.collect_errors:
        reason = run.collect_errors[path]
    else:
        reason = run.problems[0] if run.problems else "was not collected in this submission"
    return TestResult(nodeid, (), False, "not-run", reason)


def _in_words(result, task_id):
    if result.kind == "not-done":
        return messages.not_done(result.blocked_by, task_id)
    return result.message or result.kind


def is_hidden(nodeid):
    return f"/{HIDDEN_TESTS_FOLDER}/" in f"/{nodeid}"


def test_name(nodeid):
    """``test_engine.py::test_diamond[2]`` from a full node id (a hidden test stays
    unnamed: its name alone would tell what it checks)."""
    if is_hidden(nodeid):
        return "a hidden test"
    path, _, rest = nodeid.partition("::")
    return f"{path.rsplit('/', 1)[-1]}::{rest}" if rest else path
