"""The grading run's limits (``classroom.runner`` with ``classroom.grading_plugin``): once
two tests of a task ran out of time its other tests fail at once, and a thread a test left
waiting does not keep the run alive."""

import textwrap
import time

import pytest

from classroom import runner


TESTS = textwrap.dedent('''
    import threading

    import pytest


    @pytest.mark.task("9.1")
    @pytest.mark.parametrize("n", range(4))
    def test_loops(n):
        while True:
            pass


    @pytest.mark.task("9.2")
    def test_fine():
        assert True


    @pytest.mark.task("9.2")
    def test_leaves_a_thread_waiting():
        threading.Thread(target=threading.Event().wait).start()
''')


def test_a_looping_task_costs_two_time_limits_and_a_waiting_thread_costs_nothing(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_limits.py").write_text(TESTS)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\nmarkers = ["task(id): a classroom task"]\n')
    options = runner.RunOptions(package=None, test_timeout=1, run_timeout=60)
    started = time.monotonic()
    run = runner.run_tests(tmp_path, ["tests/test_limits.py"], ["9.1", "9.2"], options)
    took = time.monotonic() - started
    kinds = {nodeid.split("::")[-1]: r.kind for nodeid, r in run.results.items()}
    assert kinds == {"test_loops[0]": "timeout", "test_loops[1]": "timeout",
                     "test_loops[2]": "timeout", "test_loops[3]": "timeout",
                     "test_fine": "passed", "test_leaves_a_thread_waiting": "passed"}
    later = [r.message for n, r in run.results.items() if n.endswith(("[2]", "[3]"))]
    assert all("not run: earlier tests of task 9.1 ran out of time" in m for m in later)
    assert took < 30, f"the run took {took:.0f} s"
