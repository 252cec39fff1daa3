"""The grading run's limits (``classroom.runner`` with ``classroom.grading_plugin``): once
two tests of a task ran out of time its other tests fail at once, a loop in code every task
calls costs a few time limits in all, and a thread a test left waiting does not keep the
run alive."""

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


HELPER_LOOPS = textwrap.dedent('''
    import pytest

    TASKS = ["9.1", "9.2", "9.3", "9.4", "9.5"]


    def helper():
        """Code that every task calls, looping forever."""
        while True:
            pass


    @pytest.mark.parametrize("n", [pytest.param(n, marks=pytest.mark.task(task),
                                                id=f"{task}-{n}")
                                   for task in TASKS for n in range(3)])
    def test_calls_the_helper(n):
        helper()
''')


def limits_course(tmp_path, tests):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_limits.py").write_text(tests)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\nmarkers = ["task(id): a classroom task"]\n')


def test_a_loop_in_a_helper_every_task_calls_costs_a_few_limits_not_two_per_task(tmp_path):
    """Five tasks of three tests each, all stopped by one endless loop: two tests run out
    of the whole limit, then one test of each other task out of a shrinking share of it
    (a third, a ninth, a tenth, a tenth): 2.64 limits in all.  Every other test fails at
    once, without running."""
    limits_course(tmp_path, HELPER_LOOPS)
    options = runner.RunOptions(package=None, test_timeout=1, run_timeout=120)
    tasks = ["9.1", "9.2", "9.3", "9.4", "9.5"]
    run = runner.run_tests(tmp_path, ["tests/test_limits.py"], tasks, options)
    assert len(run.results) == 15 and all(r.kind == "timeout" for r in run.results.values())
    ran_out = [r.message.split(" s,")[0].rsplit(" ", 1)[-1] for r in run.results.values()
               if "not run" not in r.message]
    assert ran_out == ["1", "1", "0.333333", "0.111111", "0.1", "0.1"]


def test_a_looping_task_costs_two_time_limits_and_a_waiting_thread_costs_nothing(tmp_path):
    limits_course(tmp_path, TESTS)
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


HOOKED_TESTS = textwrap.dedent('''
    import os

    import pytest


    @pytest.mark.task("9.1")
    def test_the_start_up_hook_ran():
        assert os.environ.get("STARTUP_HOOK_RAN") == "yes"
''')


def test_a_start_up_hook_on_the_parents_path_reaches_the_tests(tmp_path, monkeypatch):
    """`make test PERTURB=ulp` puts scripts/perturb (a sitecustomize.py) on PYTHONPATH:
    check and grade run their tests with it, while the rest of PYTHONPATH is dropped."""
    course = tmp_path / "course"
    course.mkdir()
    limits_course(course, HOOKED_TESTS)
    hook, other = tmp_path / "hook", tmp_path / "other"
    hook.mkdir()
    other.mkdir()
    (hook / "sitecustomize.py").write_text(
        "import os\nos.environ['STARTUP_HOOK_RAN'] = 'yes'\n")
    monkeypatch.setenv("PYTHONPATH", f"{other}:{hook}")
    assert runner.startup_hook_folders() == [str(hook)]
    options = runner.RunOptions(package=None, test_timeout=30, run_timeout=120)
    run = runner.run_tests(course, ["tests/test_limits.py"], ["9.1"], options)
    assert [r.kind for r in run.results.values()] == ["passed"]
