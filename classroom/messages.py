"""Failures in plain words: one line that tells a student what went wrong.

Both pytest plugins (the grading one and the student copy's) and the reports
of ``check`` and ``grade`` use these, so a stub, an endless loop and a wrong
value read the same everywhere.
"""

from __future__ import annotations

import builtins
import os
import pathlib
import re

# A stub's message starts like this (see Task.stub_message).
STUB = re.compile(r"Task (?P<task>[^\s()]+) \((?P<title>.*?)\) is not done yet")
STUB_EXCEPTION = "TaskNotDone"
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
MAX_LENGTH = 240


class TestTimedOut(BaseException):
    """Raised into a test that ran past its time limit.  A BaseException, so a
    submission's ``except Exception`` cannot swallow it."""


def strip_ansi(text):
    return ANSI.sub("", text)


def shorten(text, limit=MAX_LENGTH):
    """One line of at most ``limit`` characters, without memory addresses (which
    change from run to run)."""
    text = re.sub(r"\b0x[0-9a-fA-F]{6,}\b", "0x...", " ".join(text.split()))
    return text if len(text) <= limit else text[:limit - 3].rstrip() + "..."


def stub_in_text(text):
    """``(task id, the stub's whole message)`` when ``text`` (a traceback printed by a
    notebook kernel, say) shows a stub's TaskNotDone, else None."""
    matches = list(re.finditer(STUB_EXCEPTION + r": (?P<message>" + STUB.pattern
                               + r"[^\n]*)", strip_ansi(text)))
    return (matches[-1]["task"], matches[-1]["message"].strip()) if matches else None


_EXCEPTION_GROUPS = getattr(builtins, "BaseExceptionGroup", ())   # Python 3.11 and later


def leaf_exceptions(error):
    """``error`` itself, or the exceptions inside an exception group, depth first."""
    inner = getattr(error, "exceptions", None)
    if isinstance(error, _EXCEPTION_GROUPS) and inner:
        for sub in inner:
            yield from leaf_exceptions(sub)
    else:
        yield error


def unfinished_task(error):
    """The task whose stub raised ``error`` (a TaskNotDone), or None."""
    found = unfinished_stub(error)
    return found[0] if found else None


def unfinished_stub(error):
    """``(task id, message)`` when ``error`` is a stub's TaskNotDone, or was caused by
    one, or quotes one (an assertion that printed it)."""
    for leaf in leaf_exceptions(error):
        for exception in _chain(leaf):
            text = str(exception)
            match = STUB.search(text)
            if match and (type(exception).__name__ == STUB_EXCEPTION or
                          isinstance(exception, AssertionError)):
                message = text[match.start():].split("\n")[0].rstrip("'\"")
                return match["task"], message
    return None


def _chain(error):
    """``error`` and the exceptions it was raised from or while handling."""
    seen = []
    while error is not None and all(error is not s for s in seen):
        seen.append(error)
        error = error.__cause__ or error.__context__
    return seen


def not_done(task_id, own_task=None):
    if own_task is not None and task_id != own_task:
        return f"needs task {task_id}, which is not done yet"
    return f"task {task_id} is not done yet: write its code between its markers"


def waiting(task_ids, passed):
    """A task whose only failures are other tasks' stubs."""
    names = f"task{'s' if len(task_ids) > 1 else ''} {', '.join(task_ids)}"
    if passed:
        return f"your code passes; it waits only on {names}, not done yet"
    return f"its tests cannot run before {names}, not done yet"


def timed_out(seconds):
    return (f"took longer than {seconds:g} s, the time limit for one test "
            "(an endless loop, or much slower code than needed?)")


def crashed(returncode):
    """Why a test run stopped, from the process's exit code."""
    if returncode is None:
        return "the Python interpreter stopped during this test"
    if returncode < 0:
        try:
            import signal
            name = signal.Signals(-returncode).name
        except (ValueError, ImportError):
            name = f"signal {-returncode}"
        return (f"the Python interpreter crashed during this test ({name}"
                f"{', a segmentation fault' if name == 'SIGSEGV' else ''})")
    return (f"the Python interpreter stopped during this test (exit code {returncode}: "
            "os._exit, or a crash)")


def describe_exception(error, traceback_entries=(), root=None):
    """A one-line account of ``error``: its type, its message, and where it was
    raised when that is in the course's own code (``root``)."""
    leaf = next(leaf_exceptions(error))
    if isinstance(leaf, TestTimedOut):
        return str(leaf)
    text = str(leaf).strip()
    if isinstance(leaf, AssertionError):
        lines = [line.strip() for line in _assertion_lines(text) if _says_something(line)]
        what = "a check failed" + (": " + " / ".join(lines[:2]) if lines else "")
    else:
        what = f"{type(leaf).__name__}: {text}" if text else type(leaf).__name__
    where = _where(traceback_entries, root)
    return shorten(what + (f" [raised at {where}]" if where and not isinstance(
        leaf, AssertionError) else ""))


MAX_DETAIL_LINES = 10
MAX_DETAIL_WIDTH = 160
# pytest's hints under a shortened diff: `check -v` shows the whole diff instead.
_PYTEST_HINTS = re.compile(r"Use -v to get more diff|Full output truncated|"
                           r"use '-vv' to show|Omitting \d+ identical items")


_CHECK_V = "(shortened: `check -v` shows the whole diff)"


def _says_something(line):
    """False for the lines of pytest's diff that carry no text of their own (a bare
    ``-``, ``+`` or ``?`` marker of a blank line) and for its hints about ``-v``."""
    return bool(line.strip().strip("-+? ")) and not _PYTEST_HINTS.search(line)

_NUMPY_VALUES = ("ACTUAL:", "DESIRED:", "x:", "y:")


def _assertion_lines(text):
    """The lines of an assertion's message worth reading, in order.  numpy's testing
    functions write a header, the first mismatches ``[2]: 4.0 (ACTUAL), 3.0 (DESIRED)``,
    counts and differences, then both arrays: keep the header, the first two mismatches
    and the arrays (three lines each), so the values come before the statistics."""
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    if not any(line.strip().startswith(_NUMPY_VALUES) for line in lines):
        return lines
    header = [lines[0]]
    mismatches = [line for line in lines if "(ACTUAL)" in line][:2]
    arrays, current = [], None
    for line in lines:
        if line.strip().startswith(_NUMPY_VALUES):
            current = [line]
            arrays.append(current)
        elif current is not None and line.startswith((" ", "\t")) and len(current) < 3:
            current.append(line)
        else:
            current = None
    counts = [line for line in lines if line.startswith(("Mismatched elements", "Max "))][:2]
    return header + mismatches + [line for block in arrays for line in block] + counts


# What hypothesis calls the example it reports (the words changed between its versions).
_EXAMPLE_NOTES = ("Falsifying example", "Falsifying explicit example", "Failing test case")


def falsifying_example(error):
    """The arguments of the example hypothesis found failing, on one line
    (``a=3, xs=[0.0, 0.0]``), from the note it adds to the exception; None when
    ``error`` did not come from a property test.  The test's name is left out (a
    hidden test is never named)."""
    for note in getattr(error, "__notes__", ()):
        if not str(note).startswith(_EXAMPLE_NOTES):
            continue
        text = strip_ansi(str(note)).split(":", 1)[1].strip()
        inside = text[text.find("(") + 1:text.rfind(")")] if "(" in text else text
        arguments = " ".join(line.strip() for line in inside.splitlines() if line.strip())
        return arguments.rstrip(",") or "(no arguments)"
    return None


MAX_DRAWS = 3


def hypothesis_draws(error):
    """The values a property test drew with ``data.draw`` in the failing example
    (hypothesis's ``Draw 1: ((1, 3), (3, 3))`` notes), the first ``MAX_DRAWS``: what
    ``data=data(...)`` in the falsifying example leaves out."""
    draws = [strip_ansi(str(note)).strip() for note in getattr(error, "__notes__", ())
             if re.match(r"Draw \d+\b", strip_ansi(str(note)).strip())]
    more = len(draws) - MAX_DRAWS
    return draws[:MAX_DRAWS] + ([f"(and {more} more draws)"] if more > 0 else [])


def expected_raise(error):
    """For pytest's "DID NOT RAISE": which exception the test expected and the pattern its
    message had to match (``expected: RuntimeError matching "got 1, but expected 0"``),
    which pytest's own message leaves out.  Read from the ``pytest.raises`` context found
    in the traceback (``match``/``expected_exceptions`` in pytest 9, ``match_expr``/
    ``expected_exception`` in pytest 8); None for any other failure."""
    if not strip_ansi(str(error)).startswith("DID NOT RAISE"):
        return None
    tb = error.__traceback__
    while tb is not None:
        context = tb.tb_frame.f_locals.get("self")
        kinds = getattr(context, "expected_exceptions", None) or getattr(
            context, "expected_exception", None)
        if kinds is not None:
            kinds = kinds if isinstance(kinds, tuple) else (kinds,)
            names = " or ".join(getattr(kind, "__name__", str(kind)) for kind in kinds)
            pattern = getattr(context, "match", None)
            if pattern is None or callable(pattern):
                pattern = getattr(context, "match_expr", None)
            pattern = getattr(pattern, "pattern", pattern)
            return f"expected: {names}" + (f' matching "{pattern}"' if pattern else "")
        tb = tb.tb_next
    return None


def failure_details(error):
    """A few lines (at most ``MAX_DETAIL_LINES``) that show what failed: the example a
    property test (hypothesis) failed on, then for a failed check, the values it compared
    (numpy's ACTUAL and DESIRED, pytest's explanation of an ``assert``); for another
    exception, the lines of its message after the first."""
    leaf = next(leaf_exceptions(error))
    text = strip_ansi(str(leaf))
    if isinstance(leaf, TestTimedOut):
        return []
    if isinstance(leaf, AssertionError):
        lines = _assertion_lines(text)
    else:
        lines = [line.rstrip() for line in text.splitlines() if line.strip()][1:]
    expected = expected_raise(leaf)
    if expected is not None:
        lines.insert(0, expected)
    example = falsifying_example(leaf)
    if example is not None:
        lines[:0] = [f"falsifying example: {example}"] + [
            "  " + draw for draw in hypothesis_draws(leaf)]
    lines = [re.sub(r"\b0x[0-9a-fA-F]{6,}\b", "0x...", line) for line in lines]
    lines = [_CHECK_V if _PYTEST_HINTS.search(line) else line for line in lines]
    return [line if len(line) <= MAX_DETAIL_WIDTH else line[:MAX_DETAIL_WIDTH - 3] + "..."
            for line in lines[:MAX_DETAIL_LINES]]


def _where(entries, root):
    """``path:line`` of the last traceback entry inside ``root`` but outside the tests,
    or else of the last one in a public test (an exception the test itself raised, such
    as pytest's "DID NOT RAISE").  Installed packages are never chosen, though a
    ``.venv`` may sit inside ``root``: pytest's own frames say nothing about the task."""
    if root is None:
        return None
    root = pathlib.Path(root).resolve()
    found = in_test = None
    for path, lineno in entries:
        if str(path).startswith("<"):         # code with no file (an IPython cell)
            continue
        try:
            relative = pathlib.Path(path).resolve().relative_to(root)
        except (ValueError, OSError):
            continue
        parts = relative.parts
        if not parts or "site-packages" in parts or parts[0].startswith("."):
            continue
        if parts[0] == "tests":
            in_test = f"{relative.as_posix()}:{lineno}"
        elif not relative.name.startswith("test_") and parts[0] != "classroom":
            found = f"{relative.as_posix()}:{lineno}"
    return found or in_test


def import_failure(error, root):
    """Where and why importing a module of ``root`` failed: ``(place, what)``, such as
    ``("minitorch/func/_vmap.py, line 139", "SyntaxError: '(' was never closed")``, or
    None when no file of ``root`` is to blame.

    ``error`` is what the import raised, or pytest's CollectError for a test module that
    did not load (its cause is the import's error).  The place is the file being
    imported and its line: for a SyntaxError, where the compiler stopped; otherwise the
    innermost module-level line of ``root`` in the traceback (the import of a module
    that itself fails is not the place: the failing module is), and when the error was
    raised deeper, in a function that line called, ``what`` says where."""
    if type(error).__name__ == "CollectError" and error.__cause__ is not None:
        error = error.__cause__
    error = next(leaf_exceptions(error))
    root = pathlib.Path(root).resolve()
    if isinstance(error, SyntaxError) and error.filename:
        source = _inside(error.filename, root)
        if source is None:
            return None
        what = f"{type(error).__name__}: {error.msg}"
        return (f"{source}, line {error.lineno}" if error.lineno else source), shorten(what)
    module = deepest = None
    traceback = error.__traceback__
    while traceback is not None:
        source = _inside(traceback.tb_frame.f_code.co_filename, root)
        if source is not None:
            deepest = f"{source}:{traceback.tb_lineno}"
            if traceback.tb_frame.f_code.co_name == "<module>":
                module = (source, traceback.tb_lineno)
        traceback = traceback.tb_next
    if module is None:
        return None
    text = " ".join(str(error).replace(f"{root}{os.sep}", "").split())
    what = f"{type(error).__name__}: {text}" if text else type(error).__name__
    if deepest != f"{module[0]}:{module[1]}":
        what += f" [raised at {deepest}]"
    return f"{module[0]}, line {module[1]}", shorten(what)


def _inside(filename, root):
    """``filename`` relative to ``root`` (POSIX form) when it is a file of the course
    there, not of an installed package, a hidden folder or pytest; else None."""
    if not filename or str(filename).startswith("<"):
        return None
    try:
        relative = pathlib.Path(filename).resolve().relative_to(root)
    except (ValueError, OSError):
        return None
    parts = relative.parts
    if not parts or "site-packages" in parts or parts[0].startswith("."):
        return None
    return relative.as_posix()
