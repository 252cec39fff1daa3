"""pytest plugin of a student's copy: an unfinished task is one line, not a traceback.

``release`` writes a ``conftest.py`` that loads this plugin.  A test (or a
notebook cell run by nbval) that reaches a stub, that is a
``TaskNotDone("Task 4.2 (...) is not done yet: ...")``, is reported as *skipped* with
the reason ``not done yet: Task 4.2 (...)`` at the task's region; pytest's
summary folds equal reasons at one place, so each unfinished task is one line
of the report (and one line per notebook it stops).  In a notebook, the cells
after such a cell are skipped too (they would only fail for want of what it
defines).  At the end, one line lists the unfinished tasks and says how to
look at them.  A test marked ``solutions`` (it checks the book's exercise solutions,
which a release leaves out) is skipped, saying so.
"""

from __future__ import annotations

import pathlib

import pytest

from classroom.course import load
from classroom.messages import STUB_EXCEPTION, stub_in_text, unfinished_stub
from classroom.regions import scan

_unfinished = {}          # task id -> message
_REGION_STARTS = {}       # task id -> (path, line) of its first region in a Python file
_stopped_notebooks = {}   # notebook node id -> task id
_LATER = set()            # tasks of later assignments
_STUB_SKIP = pytest.StashKey()   # (task, message, (path, line)) of a test a stub stopped


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef, request):
    """A fixture stopped by a stub is remembered as failed, as pytest remembers one that
    raised an Exception: pytest keeps only Exceptions, and TaskNotDone is a
    BaseException, so a shared fixture (``scope="module"``) would be left half set up
    and the next test that asks for it would crash pytest itself."""
    try:
        return (yield)
    except BaseException as error:
        if type(error).__name__ == STUB_EXCEPTION and fixturedef.cached_result is None:
            fixturedef.cached_result = (None, fixturedef.cache_key(request),
                                        (error, error.__traceback__))
        raise


# Tests marked ``@pytest.mark.solutions`` check the instructor's exercise solutions (that
# they are there and ran); a student's copy leaves them out on purpose.
SOLUTIONS_MARK = "solutions"
SOLUTIONS_REASON = ("checks the book's exercise solutions, which your copy of the course "
                    "leaves out")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker(SOLUTIONS_MARK) is not None:
            item.add_marker(pytest.mark.skip(reason=SOLUTIONS_REASON))


def pytest_configure(config):
    config.addinivalue_line("markers", f"{SOLUTIONS_MARK}: checks the exercise solutions, "
                            "which a student's copy leaves out (skipped there)")
    # A stub reached in a thread a test started is reported by pytest as a warning with
    # the thread's traceback; the test itself already says which task is not done.
    config.addinivalue_line("filterwarnings", "ignore:(?s).*TaskNotDone"
                            ":pytest.PytestUnhandledThreadExceptionWarning")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and _is_notebook_cell(item) and item.parent.nodeid in _stopped_notebooks:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
        report.longrepr = (item.parent.nodeid, None, reason)
        return
    if report.skipped and _STUB_SKIP in item.stash and report.when != "teardown":
        task, message, (path, lineno) = item.stash[_STUB_SKIP]
        _unfinished.setdefault(task, message)
        report.longrepr = (path, lineno, message)
        return
    if call.excinfo is None or report.when == "teardown" or not report.failed:
        return
    found = _stub(call.excinfo.value)
    if found is None:
        return
    task, message = found
    _unfinished.setdefault(task, message)
    path, lineno = _stub_location(item, call.excinfo, task)
    report.outcome = "skipped"
    report.longrepr = (path, lineno, message)
    if _is_notebook_cell(item):
        _stopped_notebooks.setdefault(item.parent.nodeid, task)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    if _is_notebook_cell(item) and item.parent.nodeid in _stopped_notebooks:
        task = _stopped_notebooks[item.parent.nodeid]
        pytest.skip(f"not run: an earlier cell of this notebook needs task {task}, "
                    "not done yet")
    return (yield from _skipping_stubs(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    return (yield from _skipping_stubs(item))


def _skipping_stubs(item):
    """Run a test phase; a stub's TaskNotDone becomes a skip right away.  (Letting it fail
    first would make pytest write the failure's traceback, which parses every source file
    of the traceback again: half a second a test, minutes for a fresh release's `make
    test`.)  ``pytest_runtest_makereport`` then puts the skip at the task's region."""
    try:
        return (yield)
    except BaseException as error:
        if type(error).__name__ != STUB_EXCEPTION or _is_notebook_cell(item) or \
                item.config.getoption("classroom_report", default=None):
            raise                 # (a `check` or grading run: its plugin reads the stub)
        found = _stub(error)
        if found is None:
            raise
        task, message = found
        item.stash[_STUB_SKIP] = (task, message, _location_of(item, error, task))
        raise pytest.skip.Exception(message) from None


def pytest_terminal_summary(terminalreporter):
    own = [t for t in sorted(_unfinished, key=_task_order) if t not in _LATER]
    if own:
        terminalreporter.write_line(f"classroom: tasks not done yet: {', '.join(own)}. "
                                    "`python -m classroom check` shows where each stands.")
    later = [t for t in _unfinished if t in _LATER]
    if later:
        terminalreporter.write_line(f"classroom: {len(later)} tasks of later assignments "
                                    "stopped some tests; they come with their own release.")


def _stub(error):
    found = unfinished_stub(error)
    if found is None:            # a notebook cell: the kernel's traceback is text
        text = " ".join(str(a) for a in getattr(error, "args", ()))
        text += str(getattr(error, "inner_traceback", "") or "")
        found = stub_in_text(text)
    return found


def _location_of(item, error, task):
    """Like ``_stub_location``, from the exception itself (no pytest traceback yet)."""
    known = _REGION_STARTS.get(task)
    if known:
        return known
    import traceback
    frames = traceback.extract_tb(error.__traceback__)
    if not frames or frames[-1].filename.startswith("<"):
        path, lineno, _ = item.location
        return path, lineno + 1
    try:
        path = pathlib.Path(frames[-1].filename).resolve().relative_to(item.config.rootpath)
    except ValueError:
        path = pathlib.Path(frames[-1].filename)
    return path.as_posix(), frames[-1].lineno


def _stub_location(item, excinfo, task):
    """Where the task's stub is, relative to the repository: every test it stops is
    reported at that one place, so pytest folds them into one line."""
    if _is_notebook_cell(item):
        return item.parent.nodeid, None
    known = _REGION_STARTS.get(task)
    if known:
        return known
    entry = excinfo.traceback[-1]
    if str(entry.path).startswith("<") or isinstance(excinfo.value, AssertionError):
        path, lineno, _ = item.location       # (no file to point at: the test itself)
        return path, lineno + 1
    try:
        path = pathlib.Path(entry.path).resolve().relative_to(item.config.rootpath)
    except ValueError:
        path = pathlib.Path(entry.path)
    return path.as_posix(), entry.lineno + 1


def pytest_sessionstart(session):
    _REGION_STARTS.clear()
    _REGION_STARTS.update(_region_starts(session.config.rootpath))
    _LATER.clear()
    _LATER.update(_later_tasks(session.config.rootpath))


def _later_tasks(root):
    """The tasks of assignments after the copy's (stubbed until their own release)."""
    try:
        import json
        from classroom.course import RELEASE_FILE
        course = load(root)
        record = json.loads((course.root / RELEASE_FILE).read_text(encoding="utf-8"))
        return set(record.get("later_tasks") or ())
    except Exception:       # noqa: BLE001 (the instructor's repository: no record)
        return set()


def _region_starts(root):
    """``{task id: (path, first line)}`` of each task's first region in a Python file."""
    try:
        course = load(root)
        found = scan(course.root, course.settings.sources, suffixes=(".py",))
    except Exception:       # noqa: BLE001 (a student's broken markers: report where raised)
        return {}
    starts = {}
    for region in found:
        starts.setdefault(region.task, (region.path, region.start_line))
    return starts


def _is_notebook_cell(item):
    return item.parent is not None and str(getattr(item.parent, "path", "")).endswith(".ipynb")


def _task_order(task_id):
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in task_id.split(".")]
