"""pytest plugin for ``check`` and ``grade``: runs task tests and writes what happened.

Loaded with ``-p classroom.grading_plugin`` by ``classroom.runner`` in a child
process, never by a plain ``pytest``.  For each run it

* keeps only the tests marked with the requested tasks (``--classroom-tasks``)
  and not already done in an earlier, crashed run (``--classroom-skip``);
* makes the run deterministic: ``random`` and numpy seeded before every test,
  hypothesis derandomised (the runner also passes ``--hypothesis-seed=0``) and
  not shrinking failures (a grade needs pass or fail; shrinking is slow);
* imports the course's package first, with a time limit, and checks that it
  and every one of its modules come from the folder being graded;
* limits each test's time: an alarm raises ``TestTimedOut`` into the test, and
  if the test swallows it, faulthandler ends the process a little later (the
  runner then counts the test as timed out and starts again after it); once two
  tests of a task have timed out (one, once two tasks have), the task's later
  tests fail at once as timed out (an endless loop would make each of them wait
  for the whole limit), and after two timeouts every test gets less time (see
  ``ClassroomRun.limit``);
* caps the process's memory and disables core dumps;
* appends one JSON line per event to ``--classroom-report`` and flushes it at
  once, so the runner knows which test was running when the process died.
"""

from __future__ import annotations

import faulthandler
import importlib
import json
import os
import pathlib
import random
import signal
import sys
import threading
import time

import pytest

from classroom import reach
from classroom.messages import (TestTimedOut, describe_exception, failure_details,
                                import_failure, not_done, shorten, timed_out, unfinished_task)


TIMEOUTS_PER_TASK = 2       # timed-out tests after which a task's other tests are not run
TASKS_BEFORE_ONE = 2        # ...but one is enough once this many tasks have timed out
TIMEOUTS_BEFORE_SHORT = 2   # timed-out tests (any task) after which every test gets less time
SHORT_SHARE = 1 / 3         # ...this share of the time limit (10 s of 30), a third again
SHORTEST_SHARE = 1 / 10     # for each later timeout, but never under this share (3 s of 30)


class NotRunTimedOut(TestTimedOut):
    """A test failed as timed out without running (its task's code loops): it took no
    time, so it does not count as one more timeout."""


def grace_seconds(timeout):
    """How long after the alarm faulthandler waits before it ends the process."""
    return min(3.0, max(1.0, timeout / 2))


def pytest_addoption(parser):
    group = parser.getgroup("classroom", "classroom task runs (python -m classroom)")
    group.addoption("--classroom-report", default=None, help="JSON lines written here")
    group.addoption("--classroom-tasks", default="", help="comma-separated task ids")
    group.addoption("--classroom-skip", default=None, help="file of test ids to leave out")
    group.addoption("--classroom-timeout", type=float, default=0.0, help="seconds per test")
    group.addoption("--classroom-package", default=None, help="package that must be own")
    group.addoption("--classroom-root", default=None, help="folder the package must be in")
    group.addoption("--classroom-memory", type=int, default=0, help="memory limit, MB")
    group.addoption("--classroom-verbose", action="store_true", default=False,
                    help="keep pytest's tracebacks (check -v)")


# A fixture stopped by a stub stays failed for the tests that share it (see there).
from classroom.student_plugin import pytest_fixture_setup  # noqa: E402,F401


def pytest_configure(config):
    if not config.getoption("classroom_report"):
        return
    config.pluginmanager.register(ClassroomRun(config), "classroom-run")


class ClassroomRun:
    def __init__(self, config):
        option = config.getoption
        self.report = open(option("classroom_report"), "a", encoding="utf-8")
        # faulthandler's last words (a "Timeout" line) go here, not to pytest's capture.
        self.faults = open(option("classroom_report") + ".faults", "a", encoding="utf-8")
        self.tasks = {t for t in option("classroom_tasks").split(",") if t}
        skip_file = option("classroom_skip")
        self.skip = set(pathlib.Path(skip_file).read_text().split("\n")) if skip_file else set()
        self.timeout = option("classroom_timeout")
        self.package = option("classroom_package")
        self.root = pathlib.Path(option("classroom_root") or ".").resolve()
        self.failures = {}
        self.out_of_time = {}           # task id: how many of its tests ran out of time
        self.outcomes = {}
        self.skip_reasons = {}
        self.started = {}
        self.collect_errors = {}        # nodeid of a test file that did not load: its error
        _limit_resources(option("classroom_memory"))
        _derandomize_hypothesis()

    def emit(self, **event):
        self.report.write(json.dumps(event) + "\n")
        self.report.flush()

    # ----- the package under test -------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session):
        if not self.package:
            return
        arm_hard_limit(self.timeout, self.faults)
        arm_alarm(self.timeout)
        try:
            importlib.import_module(self.package)
        except TestTimedOut:
            disarm_alarm()
            self.emit(event="fatal", message=f"importing {self.package} does not finish "
                      f"within {self.timeout:g} s (an endless loop at import time?)")
            pytest.exit("import timed out", returncode=3)
        except BaseException as error:   # noqa: BLE001 (a submission may raise anything)
            disarm_alarm()
            found = import_failure(error, self.root)
            self.emit(event="problem", message=f"{self.package} does not import: " + (
                f"{found[1]} ({found[0]})" if found else
                describe_exception(error, _entries(error.__traceback__), self.root)))
        else:
            disarm_alarm()
            self.check_own_package("fatal")
        finally:
            faulthandler.cancel_dump_traceback_later()

    def check_own_package(self, event):
        foreign = foreign_modules(self.package, self.root)
        if foreign:
            name, where = foreign[0]
            self.emit(event=event, message=f"{name} was imported from {where}, not from the "
                      "submission: grading uses only the submission's own code")
            if event == "fatal":
                pytest.exit("foreign package", returncode=3)

    # ----- which tests ---------------------------------------------------------------

    def pytest_exception_interact(self, node, call, report):
        if isinstance(report, pytest.CollectReport) and call.excinfo is not None:
            self.collect_errors[report.nodeid] = call.excinfo.value

    def pytest_collectreport(self, report):
        """A test file that did not load: one sentence that says which file of the
        course could not be imported, at which line and why (a SyntaxError or a NameError
        in the package the test imports, or in the test file itself), else pytest's own
        last lines, after the test file's path."""
        if not report.failed:
            return
        path = report.nodeid.split("::")[0]
        error = self.collect_errors.pop(report.nodeid, None)
        found = import_failure(error, self.root) if error is not None else None
        message = (f"could not import {found[0]}: {found[1]}" if found else
                   f"{path} could not be loaded: {shorten(_collect_error_text(report))}")
        self.emit(event="collect-error", path=path, message=message)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items):
        _derandomize_hypothesis()     # again: a conftest may have loaded its own profile
        keep, drop = [], []
        for item in items:
            tasks = item_tasks(item)
            wanted = tasks and (not self.tasks or self.tasks & set(tasks))
            (keep if wanted and item.nodeid not in self.skip else drop).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
        items[:] = keep
        # A failing test's report is read from the exception itself (pytest_runtest_makereport
        # below), never from pytest's traceback text, which parses every source file of the
        # traceback again for each failure: seconds per stubbed test in a fresh release.
        # (Collection is over: a test module that cannot load keeps its full report.)
        if not config.getoption("classroom_verbose"):
            config.option.tbstyle = "no"
        self.emit(event="collected",
                  tests=[{"nodeid": i.nodeid, "tasks": item_tasks(i)} for i in keep])

    # ----- running them ------------------------------------------------------------

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self.emit(event="start", nodeid=item.nodeid)
        self.started[item.nodeid] = time.monotonic()
        arm_hard_limit(self.limit(), self.faults)
        try:
            yield
        finally:
            faulthandler.cancel_dump_traceback_later()

    # The alarm runs only while a phase runs the test's own code (setup, call,
    # teardown), never in pytest's reporting between them; the phases share the
    # test's time limit.
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item):
        tasks = item_tasks(item)
        enough = TIMEOUTS_PER_TASK if len([t for t, n in self.out_of_time.items() if t and n]) \
            < TASKS_BEFORE_ONE else 1
        if tasks and all(self.out_of_time.get(t, 0) >= enough for t in tasks):
            # Code that loops forever would make each of the task's tests wait for the
            # whole time limit: two are enough to know (one, once the loop has shown up in
            # two tasks: it is then in code they share); the test fails as timed out.
            raise NotRunTimedOut(timed_out(self.timeout) + "; not run: earlier tests of "
                               f"task {', '.join(tasks)} ran out of time")
        yield from self._timed(item)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        yield from self._timed(item)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item):
        yield from self._timed(item)

    def limit(self):
        """The time limit of the next test: the whole limit, or once
        ``TIMEOUTS_BEFORE_SHORT`` tests have run out of time a third of it, a third again
        for each later timeout, down to a tenth.  Code that loops in a helper every task
        calls then costs two whole limits, a third, a ninth and a tenth for each other
        task (with one test each, above): about three limits for the nine tasks of an
        assignment, where it used to cost two whole limits per task."""
        timed_out = sum(self.out_of_time.values())
        if timed_out < TIMEOUTS_BEFORE_SHORT:
            return self.timeout
        share = SHORT_SHARE ** (timed_out - TIMEOUTS_BEFORE_SHORT + 1)
        return self.timeout * max(SHORTEST_SHARE, share)

    def _timed(self, item):
        if self.timeout:
            limit = self.limit()
            spent = time.monotonic() - self.started.get(item.nodeid, time.monotonic())
            arm_alarm(max(0.05, limit - spent), limit)
        try:
            yield
        finally:
            disarm_alarm()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logstart(self, nodeid, location):
        random.seed(0)                  # (before the test's fixtures run)
        reach.take()
        numpy = sys.modules.get("numpy")
        if numpy is not None:
            numpy.random.seed(0)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        yield
        if call.excinfo is None or item.nodeid in self.failures:
            return
        error = call.excinfo.value
        if isinstance(error, pytest.skip.Exception):
            return
        own = item_tasks(item)
        task = unfinished_task(error)
        if isinstance(error, TestTimedOut):
            for task_id in () if isinstance(error, NotRunTimedOut) else own or ("",):
                self.out_of_time[task_id] = self.out_of_time.get(task_id, 0) + 1
            failure = ("timeout", str(error) or timed_out(self.timeout), None, ())
        elif task is not None:
            failure = ("not-done", not_done(task, own[0] if len(own) == 1 else None), task, ())
        else:
            entries = [(str(e.path), e.lineno + 1) for e in call.excinfo.traceback]
            failure = ("failed", describe_exception(error, entries, self.root), None,
                       failure_details(error))
        self.failures[item.nodeid] = failure

    def pytest_runtest_logreport(self, report):
        outcomes = self.outcomes.setdefault(report.nodeid, [])
        outcomes.append(report.outcome)
        if report.skipped and isinstance(report.longrepr, tuple):
            self.skip_reasons.setdefault(report.nodeid, report.longrepr[2])
        if report.when != "teardown":
            return
        passed = outcomes == ["passed", "passed", "passed"]
        kind, message, blocked_by, details = self.failures.get(report.nodeid,
                                                               (None, None, None, ()))
        if not passed and kind is None:
            kind, message = "failed", _short_skip_or_error(
                outcomes, self.skip_reasons.get(report.nodeid))
        self.emit(event="result", nodeid=report.nodeid, passed=passed,
                  kind="passed" if passed else kind, message=message, blocked_by=blocked_by,
                  details=[] if passed else list(details),
                  reached=reach.take(),
                  seconds=round(time.monotonic() - self.started.get(report.nodeid, 0), 3))

    def pytest_sessionfinish(self, session):
        if self.package and self.package in sys.modules:
            self.check_own_package("problem-foreign")
        self.emit(event="finished")
        self.report.close()
        self.faults.close()
        _exit_soon(int(session.exitstatus))


def _exit_soon(status, delay=5.0):
    """End the process ``delay`` seconds from now if it has not ended by itself: a thread
    that a test started and left waiting (say, for an event its failed code never set)
    would otherwise keep the interpreter from exiting until the run's time limit."""
    timer = threading.Timer(delay, os._exit, args=(status,))
    timer.daemon = True
    timer.start()


# ----- helpers ---------------------------------------------------------------------------

def item_tasks(item):
    """The task ids on a test's ``task`` markers, in order, without repeats."""
    seen = []
    for mark in item.iter_markers("task"):
        for task in mark.args:
            if str(task) not in seen:
                seen.append(str(task))
    return seen


def foreign_modules(package, root):
    """``[(module, location)]`` for the package's modules that do not live under ``root``."""
    root = pathlib.Path(root).resolve()
    found = []
    for name, module in sorted(sys.modules.items()):
        if module is None or (name != package and not name.startswith(package + ".")):
            continue
        places = [getattr(module, "__file__", None)] + list(getattr(module, "__path__", []) or [])
        places = [p for p in places if p]
        if not places:
            found.append((name, "nowhere (a module made in memory)"))
            continue
        for place in places:
            try:
                pathlib.Path(place).resolve().relative_to(root)
            except ValueError:
                found.append((name, place))
                break
    return found


def _on_alarm(signum, frame):
    raise TestTimedOut(timed_out(_on_alarm.seconds))


def arm_hard_limit(seconds, fault_file):
    """End the process a little after ``seconds`` (faulthandler writes "Timeout" into
    ``fault_file`` first): for a test that does not stop when the alarm tells it to."""
    if seconds and seconds > 0:
        faulthandler.dump_traceback_later(seconds + grace_seconds(seconds), exit=True,
                                          file=fault_file)


def arm_alarm(seconds, limit=None):
    """Raise TestTimedOut in ``seconds`` (the message names ``limit``, the test's
    whole time limit)."""
    if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
        _on_alarm.seconds = limit or seconds
        signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)


def disarm_alarm():
    if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
        signal.setitimer(signal.ITIMER_REAL, 0)


def _limit_resources(memory_mb):
    try:
        import resource
    except ImportError:       # not on this platform (Windows): the runner's timeout still holds
        return
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if memory_mb:
        limit = memory_mb * 1024 * 1024
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard == resource.RLIM_INFINITY or hard > limit:
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _derandomize_hypothesis():
    """The same examples on every run, no example database, and no shrinking: a
    grade needs pass or fail, not the smallest failing example, and shrinking a
    stub's failure costs a second or two per test (a minute for a fresh release)."""
    try:
        from hypothesis import Phase, settings
    except ImportError:
        return
    phases = tuple(p for p in settings.default.phases if p is not Phase.shrink)
    settings.register_profile("classroom-grading", settings(
        settings.default, derandomize=True, database=None, print_blob=False, phases=phases))
    settings.load_profile("classroom-grading")


def _entries(traceback):
    entries = []
    while traceback is not None:
        entries.append((traceback.tb_frame.f_code.co_filename, traceback.tb_lineno))
        traceback = traceback.tb_next
    return entries


def _collect_error_text(report):
    text = str(report.longrepr)
    lines = [line for line in text.splitlines() if line.startswith("E ")]
    return " ".join(line[1:].strip() for line in lines[-3:]) or text.splitlines()[-1:][0]


def _short_skip_or_error(outcomes, skip_reason):
    if "skipped" in outcomes:
        return f"was skipped ({skip_reason or 'no reason given'}); a graded test has to pass"
    return f"failed outside the test itself (in a fixture: {', '.join(outcomes)})"
