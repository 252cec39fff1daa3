"""pytest plugin of a student's copy: an unfinished task is one line, not a traceback.

``release`` writes a ``conftest.py`` that loads this plugin.  A test (or a
notebook cell run by nbval) that reaches a stub, that is a
``NotImplementedError("Task 4.2 (...): ...")``, is reported as *skipped* with
the reason ``not done yet: Task 4.2 (...)`` at the stub's line; pytest's
summary folds equal reasons, so each unfinished task is one line of the
report.  In a notebook, the cells after such a cell are skipped too (they
would only fail for want of what it defines).  At the end, one line lists the
unfinished tasks and says how to look at them.
"""

from __future__ import annotations

import pathlib

import pytest

from classroom.messages import stub_in_text, unfinished_stub

_unfinished = {}          # task id -> message
_stopped_notebooks = {}   # notebook node id -> task id


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and _is_notebook_cell(item) and item.parent.nodeid in _stopped_notebooks:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
        report.longrepr = (item.parent.nodeid, None, reason)
        return
    if call.excinfo is None or report.when == "teardown" or not report.failed:
        return
    found = _stub(call.excinfo.value)
    if found is None:
        return
    task, message = found
    _unfinished.setdefault(task, message)
    path, lineno = _stub_location(item, call.excinfo)
    report.outcome = "skipped"
    report.longrepr = (path, lineno, f"not done yet: {message}")
    if _is_notebook_cell(item):
        _stopped_notebooks.setdefault(item.parent.nodeid, task)


def pytest_runtest_setup(item):
    if _is_notebook_cell(item) and item.parent.nodeid in _stopped_notebooks:
        task = _stopped_notebooks[item.parent.nodeid]
        pytest.skip(f"not run: an earlier cell of this notebook needs task {task}, "
                    "not done yet")


def pytest_terminal_summary(terminalreporter):
    if not _unfinished:
        return
    tasks = ", ".join(sorted(_unfinished, key=_task_order))
    terminalreporter.write_line(f"classroom: tasks not done yet: {tasks}. "
                                "`python -m classroom check` shows where each task stands.")


def _stub(error):
    found = unfinished_stub(error)
    if found is None:            # a notebook cell: the kernel's traceback is text
        text = " ".join(str(a) for a in getattr(error, "args", ()))
        text += str(getattr(error, "inner_traceback", "") or "")
        found = stub_in_text(text)
    return found


def _stub_location(item, excinfo):
    """Where the stub raised, relative to the repository (grouping the report by it)."""
    if _is_notebook_cell(item):
        return item.parent.nodeid, None
    entry = excinfo.traceback[-1]
    try:
        path = pathlib.Path(entry.path).resolve().relative_to(item.config.rootpath)
    except ValueError:
        path = pathlib.Path(entry.path)
    return path.as_posix(), entry.lineno + 1


def _is_notebook_cell(item):
    return item.parent is not None and str(getattr(item.parent, "path", "")).endswith(".ipynb")


def _task_order(task_id):
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in task_id.split(".")]
