"""What `check` says about a failure: one line, then what the failing test compared."""

import re

import numpy as np
import pytest

from classroom import messages, runner, student_check
from classroom.course import Task


def _raised(function):
    try:
        function()
    except BaseException as error:      # noqa: BLE001 (any failure, to describe it)
        return error
    raise AssertionError("expected a failure")


# numpy's messages, written in so that the tests do not depend on the numpy installed:
# numpy 2.3 and later list the first mismatches; numpy 2.2 (the last for Python 3.10)
# goes from the counts straight to the arrays.
NUMPY_2_3_MESSAGE = """
Not equal to tolerance rtol=1e-07, atol=0

Mismatched elements: 1 / 3 (33.3%)
Mismatch at index:
 [2]: 4.0 (ACTUAL), 3.0 (DESIRED)
Max absolute difference among violations: 1.
Max relative difference among violations: 0.33333333
 ACTUAL: array([1., 2., 4.])
 DESIRED: array([1., 2., 3.])"""
NUMPY_2_2_MESSAGE = """
Not equal to tolerance rtol=1e-07, atol=0

Mismatched elements: 1 / 3 (33.3%)
Max absolute difference among violations: 1.
Max relative difference among violations: 0.33333333
 ACTUAL: array([1., 2., 4.])
 DESIRED: array([1., 2., 3.])"""


def test_a_numpy_mismatch_shows_the_values_not_only_how_many_differ():
    error = AssertionError(NUMPY_2_3_MESSAGE)
    line = messages.describe_exception(error)
    assert line.startswith("a check failed: Not equal to tolerance")
    assert "[2]: 4.0 (ACTUAL), 3.0 (DESIRED)" in line
    details = messages.failure_details(error)
    assert details[:4] == ["Not equal to tolerance rtol=1e-07, atol=0",
                           " [2]: 4.0 (ACTUAL), 3.0 (DESIRED)",
                           " ACTUAL: array([1., 2., 4.])",
                           " DESIRED: array([1., 2., 3.])"]
    assert any(d.startswith("Mismatched elements: 1 / 3") for d in details)


def test_an_older_numpys_mismatch_shows_both_arrays_before_the_counts():
    details = messages.failure_details(AssertionError(NUMPY_2_2_MESSAGE))
    assert details[:3] == ["Not equal to tolerance rtol=1e-07, atol=0",
                           " ACTUAL: array([1., 2., 4.])",
                           " DESIRED: array([1., 2., 3.])"]
    assert any(d.startswith("Mismatched elements: 1 / 3") for d in details)


def test_the_installed_numpys_mismatch_shows_both_arrays():
    error = _raised(lambda: np.testing.assert_allclose([1.0, 2.0, 4.0], [1.0, 2.0, 3.0]))
    details = messages.failure_details(error)
    assert " ACTUAL: array([1., 2., 4.])" in details
    assert " DESIRED: array([1., 2., 3.])" in details


def test_a_big_array_mismatch_keeps_a_few_lines_of_each_array():
    error = _raised(lambda: np.testing.assert_array_equal(np.arange(30).reshape(5, 6),
                                                          np.zeros((5, 6))))
    details = messages.failure_details(error)
    assert len(details) <= messages.MAX_DETAIL_LINES
    assert sum("(ACTUAL)" in d for d in details) <= 2           # the first mismatches
    assert any(d.strip().startswith("ACTUAL: array([[ 0,  1,") for d in details)
    assert any(d.strip().startswith("DESIRED: array([[0.") for d in details)


def test_an_assert_shows_pytests_explanation_without_addresses():
    error = AssertionError("assert 3.0 == 5.0\n +  where 3.0 = <Value object at "
                           "0x7f42b8180310>.grad")
    assert messages.failure_details(error) == [
        "assert 3.0 == 5.0", " +  where 3.0 = <Value object at 0x...>.grad"]


def test_another_exception_shows_the_rest_of_its_message():
    error = ValueError("shapes do not match\n  left: (2, 3)\n  right: (3, 2)")
    assert messages.failure_details(error) == ["  left: (2, 3)", "  right: (3, 2)"]
    assert messages.failure_details(ValueError("one line")) == []


def _did_not_raise(*kinds, **match):
    def body():
        with pytest.raises(kinds[0] if len(kinds) == 1 else kinds, **match):
            pass
    return _raised(body)


def test_did_not_raise_shows_what_the_test_expected():
    # pytest's message names the exception but not the pattern its message must match.
    error = _did_not_raise(RuntimeError, match=r"got 1, but expected 0\)")
    assert str(error).startswith("DID NOT RAISE")
    assert messages.failure_details(error) == [
        'expected: RuntimeError matching "got 1, but expected 0\\)"']
    assert messages.failure_details(_did_not_raise(TypeError, ValueError)) == [
        "expected: TypeError or ValueError"]


def test_check_prints_the_details_under_a_failing_task():
    task = Task("4.2", "counting dependencies", 4, "Counting", 4, "a1")
    score = runner.TaskScore(task, 2.0, 2, 4, "fail", "a check failed: Not equal / [2]: 4.0",
                             "tests/test_engine.py::test_diamond", (),
                             (" ACTUAL: array([1., 2., 4.])", " DESIRED: array([1., 2., 3.])"))
    lines = student_check.format_lines(student_check.CheckResult({"4.2": score}, []))
    assert lines[0].splitlines() == [
        "   4.2  counting dependencies  FAIL      0/4 points  2/4 tests passed  "
        "test_engine.py::test_diamond: a check failed: Not equal / [2]: 4.0",
        "        |  ACTUAL: array([1., 2., 4.])",
        "        |  DESIRED: array([1., 2., 3.])"]


@pytest.mark.parametrize("verbose", [False, True])
def test_check_v_adds_pytests_whole_output(release_a1, verbose, capsys, tmp_path):
    import shutil
    from classroom import regions, workspace
    from tests.classroom.fixture import make_course
    out = tmp_path / "wrong"
    shutil.copytree(release_a1[0], out)
    course_root = make_course(tmp_path / "course")
    found = regions.by_task(regions.scan(out, ["minigrad", "book"]))
    workspace.splice_task(out, course_root, found["1.1"])
    found = regions.by_task(regions.scan(out, ["minigrad", "book"]))
    workspace.splice_task(out, course_root, found["1.2"])
    engine = out / "minigrad" / "engine.py"
    engine.write_text(engine.read_text().replace("node.grad = node.grad + grad",
                                                 "node.grad = grad"))
    student_check.check("1.2", root=out, verbose=verbose)
    said = capsys.readouterr().out
    assert "FAIL      0/3 points  1/3 tests passed  test_engine.py::test_accumulates: a " \
        "check failed: assert 3.0 == 5.0" in said
    assert ("Traceback" in said or "def test_accumulates" in said) == verbose


def _property_failure():
    """The exception a failing hypothesis test raises under grading's settings (no
    shrinking, derandomised), with the note hypothesis adds."""
    from hypothesis import Phase, given, settings, strategies as st

    @settings(derandomize=True, database=None, print_blob=False,
              phases=[Phase.explicit, Phase.generate])
    @given(st.integers(1, 5), st.lists(st.just(0.5), min_size=2, max_size=2))
    def test_twice_is_plus(a, xs):
        np.testing.assert_allclose(np.array(xs) * 2, np.array(xs) + a)

    with pytest.raises(AssertionError) as caught:
        test_twice_is_plus()
    return caught.value


def test_a_property_tests_failure_shows_its_example_and_the_values():
    """`check` shows, without -v, the example hypothesis found failing (its arguments,
    not the test's name) and the values the failed check compared."""
    error = _property_failure()
    details = messages.failure_details(error)
    assert re.fullmatch(r"falsifying example: a=[1-5], xs=\[0\.5, 0\.5\]", details[0]), details
    assert any(line.strip().startswith("ACTUAL: array([1., 1.])") for line in details)
    assert "test_twice_is_plus" not in " ".join(details)
    task = Task("9.9", "a property", 9, "Properties", 2, "a1")
    score = runner.TaskScore(task, 0.0, 0, 1, "fail",
                             messages.describe_exception(error), "tests/test_p.py::test_p",
                             (), tuple(details))
    shown = student_check.format_lines(student_check.CheckResult({"9.9": score}, []))[0]
    assert "| falsifying example: a=" in shown and "|  ACTUAL: array([1., 1.])" in shown


# What pytest 9 says when two strings differ by a leading newline (its diff marks the
# blank line with a bare "-"), and the hint it adds under a diff it shortened.
LONG_STRING_ASSERT = (
    "assert '\\n\\ndef forw...n sum_1\\n    ' == '\\n\\n\\ndef fo...n sum_1\\n    '\n  \n"
    "  - \n    \n    \n    def forward(self, x):\n        return sum_1\n"
    "  ...\n  \n  ...Full output truncated (3 lines hidden), use '-vv' to show")


def test_a_diffs_bare_markers_and_pytests_hints_stay_out_of_the_summary():
    line = messages.describe_exception(AssertionError(LONG_STRING_ASSERT))
    assert line == ("a check failed: assert '\\n\\ndef forw...n sum_1\\n ' == "
                    "'\\n\\n\\ndef fo...n sum_1\\n ' / def forward(self, x):")
    details = messages.failure_details(AssertionError(LONG_STRING_ASSERT))
    assert details[-1] == "(shortened: `check -v` shows the whole diff)"
    assert not any("-vv" in d for d in details)


def test_check_v_asks_pytest_for_whole_diffs(tmp_path):
    import subprocess
    import sys
    options = runner.RunOptions(package=None, test_timeout=10, run_timeout=60,
                                verbose=True)
    command = runner.pytest_command(tmp_path / "r", tmp_path / "s", [], [], options,
                                    tmp_path)
    extra = command[command.index("--classroom-verbose") + 1:]
    (tmp_path / "test_long.py").write_text(
        "def test_long():\n    assert list(range(40)) == list(range(1, 41))\n")
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          str(tmp_path / "test_long.py"), *extra],
                         capture_output=True, text=True, cwd=tmp_path,
                         env={"PATH": "/usr/bin:/bin"}).stdout      # not "CI"
    assert "39," in out and "truncated" not in out and "Use -v" not in out


def _drawing_failure():
    """A failing property test that draws its values with ``data.draw``: hypothesis
    reports ``data=data(...)`` and one ``Draw N:`` note per value."""
    from hypothesis import Phase, given, settings, strategies as st

    @settings(derandomize=True, database=None, print_blob=False,
              phases=[Phase.explicit, Phase.generate])
    @given(st.data())
    def test_shapes(data):
        for _ in range(5):
            shape = data.draw(st.tuples(st.integers(1, 3), st.integers(1, 3)))
        assert shape[0] < 0

    with pytest.raises(AssertionError) as caught:
        test_shapes()
    return caught.value


def test_a_property_tests_draws_are_in_the_summary():
    """`check` without -v shows what ``data.draw`` gave (a few draws), not only
    ``data=data(...)``."""
    details = messages.failure_details(_drawing_failure())
    assert details[0] == "falsifying example: data=data(...)", details
    assert [re.sub(r":.*", "", line) for line in details[1:4]] == [
        "  Draw 1", "  Draw 2", "  Draw 3"], details
    assert re.fullmatch(r"  Draw 1: \(\d, \d\)", details[1]), details
    assert details[4] == "  (and 2 more draws)", details


def test_raised_at_skips_installed_packages_and_falls_back_to_the_tests_line(tmp_path):
    """An exception raised in a test's own code names the test's line, not pytest's
    frames in a ``.venv`` inside the course; one raised in the package names the
    package's line."""
    venv = tmp_path / ".venv/lib/python3.11/site-packages/_pytest"
    test = tmp_path / "tests/autograd/test_graph.py"
    package = tmp_path / "minitorch/autograd/function.py"
    in_test = [(test, 12), (venv / "python.py", 187), (venv / "outcomes.py", 162)]
    said = messages.describe_exception(IndexError("tuple index out of range"), in_test,
                                       tmp_path)
    assert said.endswith("[raised at tests/autograd/test_graph.py:12]"), said
    in_package = [(test, 12), (package, 40), (venv / "python.py", 187)]
    said = messages.describe_exception(IndexError("x"), in_package, tmp_path)
    assert said.endswith("[raised at minitorch/autograd/function.py:40]"), said
    hidden = [(tmp_path / "_classroom_hidden/test_hidden_graph.py", 9)]
    assert "raised at" not in messages.describe_exception(IndexError("x"), hidden, tmp_path)


# ----- a file that does not import --------------------------------------------------------

def _import_error(root, name):
    """What importing ``name`` from ``root`` raises (the module is forgotten after)."""
    import importlib
    import sys
    sys.path.insert(0, str(root))
    try:
        return _raised(lambda: importlib.import_module(name))
    finally:
        sys.path.remove(str(root))
        for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[module]


def test_an_import_failure_names_the_file_being_imported_and_its_line(tmp_path):
    """The file whose import failed, and its line; not the ``import`` that reached it
    (pytest's report and the traceback's last module line in a package's __init__)."""
    package = tmp_path / "brokenpkg_s9"
    package.mkdir()
    (package / "__init__.py").write_text("from brokenpkg_s9.inner import VALUE\n")
    inner = package / "inner.py"
    inner.write_text("import math\n\nVALUE = (1,\n")
    assert messages.import_failure(_import_error(tmp_path, "brokenpkg_s9"), tmp_path) == (
        "brokenpkg_s9/inner.py, line 3", "SyntaxError: '(' was never closed")
    inner.write_text("import math\n\n\nVALUE = undefined_name\n")
    assert messages.import_failure(_import_error(tmp_path, "brokenpkg_s9"), tmp_path) == (
        "brokenpkg_s9/inner.py, line 4", "NameError: name 'undefined_name' is not defined")
    # Raised in a function that a module-level line calls: the line, and where it raised.
    inner.write_text("def shape():\n    return 1 / 0\n\n\nVALUE = shape()\n")
    assert messages.import_failure(_import_error(tmp_path, "brokenpkg_s9"), tmp_path) == (
        "brokenpkg_s9/inner.py, line 5",
        "ZeroDivisionError: division by zero [raised at brokenpkg_s9/inner.py:2]")
    # Nothing of the folder to blame (the error is not from a file under it).
    assert messages.import_failure(ValueError("no traceback"), tmp_path) is None


def _unloaded_release(release_a1, tmp_path, edits=None, extra_files=None):
    from tests.classroom.fixture import make_submission
    return make_submission(release_a1[0], tmp_path / "student", edits, extra_files)


def test_check_counts_no_file_that_did_not_import_as_a_test(release_a1, tmp_path):
    """A SyntaxError in the package: each test file of the task fails to load.  The line
    says which file of the package could not be imported, at which line, and counts only
    the tests that ran (none), the files that did not load apart."""
    out = _unloaded_release(release_a1, tmp_path, {"minigrad/engine.py": [
        ("def accumulate(node, grad):", "def accumulate(node, grad)")]})
    line_no = next(n for n, text in enumerate(
        (out / "minigrad" / "engine.py").read_text().splitlines(), 1)
        if text.startswith("def accumulate(node, grad)"))
    result = student_check.run_check(["1.1", "1.2"], root=out)
    why = f"could not import minigrad/engine.py, line {line_no}: SyntaxError: expected ':'"
    for task_id in ("1.1", "1.2"):
        score = result.scores[task_id]
        assert (score.status, score.passed, score.total, score.first_failure) == \
            ("fail", 0, 0, why)
        assert score.unloaded == ("tests/test_engine.py",)
    lines = student_check.format_lines(result)
    assert lines[-3].endswith("  FAIL      0/4 points  no test ran: 1 test file not loaded  "
                              + why), lines
    assert not any(re.search(r"\d+/\d+ tests passed", line) for line in lines), lines
    assert result.problems == [
        f"minigrad does not import: SyntaxError: expected ':' (minigrad/engine.py, line "
        f"{line_no})", why]


def test_check_counts_the_tests_that_ran_beside_a_test_file_that_did_not(release_a1,
                                                                          tmp_path):
    """A test module of task 1.2 that cannot import: the task fails for it (not for its
    stub), with the module's line, and its count is of the tests of the other module."""
    extra = ("import pytest\n\nfrom minigrad import no_such_name\n\n\n"
             "@pytest.mark.task(\"1.2\")\ndef test_more():\n    assert no_such_name\n")
    out = _unloaded_release(release_a1, tmp_path, extra_files={"tests/test_more.py": extra})
    result = student_check.run_check(["1.2"], root=out)
    score = result.scores["1.2"]
    why = ("could not import tests/test_more.py, line 3: ImportError: cannot import name "
           "'no_such_name' from 'minigrad' (minigrad/__init__.py)")
    assert (score.status, score.passed, score.total, score.first_failure) == \
        ("fail", 0, 3, why)
    assert score.unloaded == ("tests/test_more.py",)
    [line] = [line for line in student_check.format_lines(result) if "1.2" in line]
    assert line.endswith("FAIL      0/3 points  0/3 tests passed, 1 test file not loaded  "
                         + why), line
    assert result.problems == [why]
