"""The student repository's CI (``classroom.workflow``): what it installs is what the
course's tests import, and selfcheck runs it in a fresh virtual environment made from
nothing but what the workflow installs."""

import pathlib
import re
import shutil
import sys

import pytest

from classroom import selfcheck, workflow

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_check_requirements_are_the_course_requirements_without_the_book_toolchain(tmp_path):
    (tmp_path / "requirements.txt").write_text(
        "# the book\njupyter-book==1.0.4.post1\nsphinx-exercise>=1.2.1,<2\n"
        "matplotlib>=3.9   # pictures\nscikit_learn>=1.5\nnumpy>=2.1\n"
        'tomli>=2.0; python_version < "3.11"\npytest>=8.2\nnbval>=0.11,<0.12\n'
        "ipykernel>=6.29\n-e .\n")
    assert workflow.check_requirements(tmp_path) == [
        "matplotlib>=3.9", "scikit_learn>=1.5", "numpy>=2.1",
        'tomli>=2.0; python_version < "3.11"', "pytest>=8.2", "hypothesis", "nbformat",
        "ipython"]
    assert workflow.check_requirements(tmp_path / "none") == [
        "numpy", "pytest", "hypothesis", "nbformat", "ipython",
        'tomli; python_version < "3.11"']


def test_the_committed_requirements_check_is_what_release_writes():
    assert (ROOT / workflow.REQUIREMENTS_PATH).read_text() == workflow.requirements_text(ROOT)
    assert "matplotlib>=3.9" in workflow.check_requirements(ROOT)    # chapter 2's first cell


def test_the_workflow_file_says_what_it_installs_and_runs(release_a1):
    out, _ = release_a1
    text = (out / workflow.WORKFLOW_PATH).read_text()
    assert workflow.python_version(text) == workflow.PYTHON_VERSION
    assert workflow.setup_commands(text) == [workflow.SETUP_COMMAND]
    assert "cache-dependency-path: requirements-check.txt" in text
    assert [c for _, c, _ in workflow.grader_steps(text)] == [
        "python -m classroom check 1.1", "python -m classroom check 1.2",
        "python -m classroom check 1.3"]


def _with_install(folder, command):
    """The folder's workflow, with its install step's command replaced by ``command``."""
    path = folder / workflow.WORKFLOW_PATH
    path.write_text(re.sub(r"(?m)^(\s+run: ).*$", lambda m: m[1] + command, path.read_text()))


def test_a_fresh_environment_runs_the_workflows_own_steps_with_its_own_python(release_a1,
                                                                           tmp_path):
    folder = tmp_path / "copy"
    shutil.copytree(release_a1[0], folder)
    _with_install(folder, "python -c \"import sys; open('prefix.txt', 'w').write(sys.prefix)\"")
    environments = workflow.FreshEnvironments(tmp_path / "venvs")
    made = environments.get(folder)
    assert (folder / "prefix.txt").read_text() == str(tmp_path / "venvs" /
                                                      f"venv-{environments.key(folder)}")
    assert pathlib.Path(made.python).parent == pathlib.Path(made.variables["PATH"].split(":")[0])
    assert environments.get(folder) is made                  # made once per install
    _with_install(folder, "python -c pass")
    assert environments.get(folder) is not made


def test_a_workflow_that_does_not_install_what_the_tests_import_fails_selfcheck(
        course, release_a1, tmp_path):
    """The state the course was in: the workflow installed less than the tests import, so a
    solved task got 0 points in GitHub Classroom while `check` passed it."""
    release = tmp_path / "release"
    shutil.copytree(release_a1[0], release)
    _with_install(release, "python -c pass")          # a fresh environment with nothing in it
    environments = workflow.FreshEnvironments(tmp_path / "venvs")
    ok, detail = selfcheck._solved_release_check(course, release, course.tasks_of("a1"),
                                                 tmp_path / "solved", environments)
    assert not ok
    assert "`check` passes every task" in detail
    assert "1.1: its step gives 0/4, `check` 4, expected 4" in detail
    assert "not installed" in detail                 # check's own words, from the step


@pytest.mark.slow
def test_the_release_workflow_in_a_fresh_environment_gives_zero_then_full_marks(
        course, release_a1, tmp_path):
    if workflow.find_python(workflow.PYTHON_VERSION) is None and sys.version_info < (3, 10):
        pytest.skip("no Python for a fresh environment")
    environments = workflow.FreshEnvironments(tmp_path / "venvs")
    tasks = course.tasks_of("a1")
    ok, detail = selfcheck._release_check(release_a1[0], tasks, environments)
    assert ok, detail
    assert "give 0 points, as `check` does" in detail
    ok, detail = selfcheck._solved_release_check(course, release_a1[0], tasks,
                                                 tmp_path / "solved", environments)
    assert ok, detail
    assert "give 8 points, as `check` does" in detail
    assert len(environments.made) == 1
