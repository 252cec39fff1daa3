"""The workflow a student's repository runs on every push: GitHub Classroom autograding.

``release`` writes ``.github/workflows/classroom.yml`` into a student's copy.  It
has one step per task of the assignment, each the action GitHub Classroom's own
autograding uses, ``classroom-resources/autograding-command-grader``: it runs
``python -m classroom check <task>`` and gives the task's points when the command
succeeds (the task passes in full), none otherwise.  The last step,
``classroom-resources/autograding-grading-reporter``, adds the points up; GitHub
Classroom shows them in the assignment's list of submissions, and the student sees
each task's result in the run's summary.  (The instructor's own ``grade`` gives
partial points and adds the hidden tests; the workflow is the students' quick
signal, and what GitHub Classroom shows.)

``run_locally`` runs the same steps on a folder without GitHub, the way the
instructor's CI checks that a release's workflow works.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import threading

WORKFLOW_PATH = ".github/workflows/classroom.yml"
REQUIREMENTS_PATH = "requirements-check.txt"
PYTHON_VERSION = "3.12"
SETUP_COMMAND = f"python -m pip install --quiet -r {REQUIREMENTS_PATH}"
# What `check` runs with, whatever the course needs besides: the tests (pytest, hypothesis),
# notebooks read and run cell by cell (nbformat, IPython), tasks.toml on Python 3.10.
CHECK_TOOL = ["pytest", "hypothesis", "nbformat", "ipython", 'tomli; python_version < "3.11"']
# requirements.txt lines that only build, serve or browse the book: `check` never needs them.
BOOK_ONLY = frozenset({"jupyter-book", "sphinx-exercise", "sphinx-mathjax-offline", "selenium",
                       "jupyterlab", "ipykernel", "nbval"})
STEP_MINUTES = 10          # the command grader's timeout for one task, in minutes


def _distribution(line):
    """The distribution a requirement line names (lower case, ``-`` for ``_``), or None."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", line)
    return match[1].lower().replace("_", "-") if match and not line.lstrip().startswith(
        ("-", "#")) else None


def check_requirements(root):
    """What a student's CI installs so that ``check`` grades every task as the course's own
    environment does: the course's ``requirements.txt`` without the book's toolchain
    (``BOOK_ONLY``) and without the editable install, plus what ``check`` itself runs with.
    So a package the tests import (matplotlib for a chapter's first cell, scikit-learn for
    a chapter's data) is installed as soon as the course needs it; ``selfcheck`` proves the
    list is enough, in a fresh virtual environment."""
    path = pathlib.Path(root) / "requirements.txt"
    lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else ["numpy"]
    wanted = [line.split(" #")[0].strip() for line in lines
              if _distribution(line) and _distribution(line) not in BOOK_ONLY]
    have = {_distribution(line) for line in wanted}
    return wanted + [line for line in CHECK_TOOL if _distribution(line) not in have]


def requirements_text(root):
    return ("# What `python -m classroom check` needs (your repository's CI installs it;\n"
            "# `make setup-check` too). Written by `python -m classroom release` from\n"
            "# requirements.txt, without the tools that build the book.\n"
            + "\n".join(check_requirements(root)) + "\n")


def step_id(task):
    return "task-" + re.sub(r"[^0-9a-zA-Z]+", "-", task.id)


def check_command(task):
    return f"python -m classroom check {task.id}"


def workflow_text(tasks):
    """The workflow file for these tasks (YAML, written by hand: no YAML library needed)."""
    lines = [
        "# GitHub Classroom autograding: each task's points when `python -m classroom check",
        "# <task>` passes. Written by `python -m classroom release`; see README.md.",
        "name: Autograding Tests",
        "'on': [push, workflow_dispatch, repository_dispatch]",
        "permissions:",
        "  checks: write",
        "  actions: read",
        "  contents: read",
        "jobs:",
        "  run-autograding-tests:",
        "    runs-on: ubuntu-latest",
        "    if: github.actor != 'github-classroom[bot]'",
        "    steps:",
        "      - name: Checkout code",
        "        uses: actions/checkout@v4",
        "      - name: Set up Python",
        "        uses: actions/setup-python@v5",
        "        with:",
        f"          python-version: '{PYTHON_VERSION}'",
        "          cache: pip",
        f"          cache-dependency-path: {REQUIREMENTS_PATH}",
        "      - name: Install what the checks need",
        f"        run: {SETUP_COMMAND}",
    ]
    for task in tasks:
        lines += [
            f"      - name: {_quoted('Task ' + task.id + ': ' + task.title)}",
            f"        id: {step_id(task)}",
            "        uses: classroom-resources/autograding-command-grader@v1",
            "        with:",
            f"          test-name: {_quoted(task.id + ' ' + task.title)}",
            "          setup-command: ''",
            f"          command: {check_command(task)}",
            f"          timeout: {STEP_MINUTES}",
            f"          max-score: {int(task.points)}",
        ]
    lines += [
        "      - name: Autograding Reporter",
        "        uses: classroom-resources/autograding-grading-reporter@v1",
        "        env:",
    ]
    lines += [f"          {step_id(t).upper()}_RESULTS: "
              f"\"${{{{steps.{step_id(t)}.outputs.result}}}}\"" for t in tasks]
    lines += ["        with:", f"          runners: {','.join(step_id(t) for t in tasks)}"]
    return "\n".join(lines) + "\n"


def _quoted(text):
    return "'" + text.replace("'", "''") + "'"


def write(out, tasks):
    path = pathlib.Path(out) / WORKFLOW_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(workflow_text(tasks), encoding="utf-8")
    (pathlib.Path(out) / REQUIREMENTS_PATH).write_text(requirements_text(out), encoding="utf-8")
    return path


# ----- running a workflow here, as GitHub runs it --------------------------------------------

@dataclasses.dataclass
class StepResult:
    name: str
    points: int
    max_points: int
    output: str


def workflow_steps(text):
    """The steps of a workflow file's (first) job, as dictionaries."""
    import yaml                 # instructors only (selfcheck): PyYAML comes with the book's tools
    jobs = yaml.safe_load(text)["jobs"]
    return list(jobs.values())[0]["steps"]


def grader_steps(text):
    """``[(name, command, max score)]`` of the command-grader steps of a workflow file."""
    return [(step["name"], step["with"]["command"], int(step["with"]["max-score"]))
            for step in workflow_steps(text)
            if str(step.get("uses", "")).startswith("classroom-resources/"
                                                    "autograding-command-grader")]


def setup_commands(text):
    """The ``run:`` commands of a workflow file (what it installs), in order."""
    return [step["run"] for step in workflow_steps(text) if "run" in step]


def python_version(text):
    """The ``python-version`` a workflow sets up (None: whatever the runner has)."""
    for step in workflow_steps(text):
        if str(step.get("uses", "")).startswith("actions/setup-python"):
            version = (step.get("with") or {}).get("python-version")
            return None if version is None else str(version)
    return None


@dataclasses.dataclass
class Environment:
    """A virtual environment: ``python`` runs in it, with ``variables`` for its processes."""
    python: str
    variables: dict
    note: str = ""


def clean_variables(bin_folder=None):
    """This process's environment without what would change how a student's CI runs
    (PYTHONPATH, PYTEST_ADDOPTS, a virtual environment, hypothesis profiles), with
    ``bin_folder`` first on PATH."""
    dropped = ("PYTHON", "PYTEST_", "HYPOTHESIS_", "COVERAGE_", "VIRTUAL_ENV", "CONDA_")
    variables = {k: v for k, v in os.environ.items() if not k.startswith(dropped)}
    if bin_folder is not None:
        variables["PATH"] = str(bin_folder) + os.pathsep + variables.get("PATH", "")
        variables["VIRTUAL_ENV"] = str(pathlib.Path(bin_folder).parent)
    return variables


def find_python(version):
    """An interpreter of ``version`` ("3.12") on this machine, or None."""
    names = [f"python{version}"]
    candidates = [shutil.which(name) for name in names]
    pyenv = pathlib.Path(os.environ.get("PYENV_ROOT", pathlib.Path.home() / ".pyenv"))
    candidates += sorted(str(p) for p in pyenv.glob(f"versions/{version}.*/bin/python{version}"))
    for candidate in filter(None, candidates):
        done = subprocess.run([candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                              capture_output=True, text=True, timeout=60)
        if done.returncode == 0 and done.stdout.strip() == version:
            return candidate
    return None


def fresh_environment(folder, where):
    """A new virtual environment in ``where`` holding exactly what ``folder``'s workflow
    installs: made with the Python version it sets up (this one when that is not on the
    machine: said in the note), then each ``run:`` step of the workflow run in ``folder``
    with that environment's ``python`` first on PATH.  Raises RuntimeError when a step
    fails."""
    text = (pathlib.Path(folder) / WORKFLOW_PATH).read_text(encoding="utf-8")
    version = python_version(text)
    interpreter = find_python(version) if version else None
    this = f"{sys.version_info[0]}.{sys.version_info[1]}"
    note = (f"Python {version}" if interpreter else
            f"Python {version} is not on this machine: used {this}" if version else
            f"Python {this}")
    where = pathlib.Path(where)
    done = subprocess.run([interpreter or sys.executable, "-m", "venv", str(where)],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"could not make a virtual environment: {done.stderr[-500:]}")
    variables = clean_variables(where / "bin")
    for command in setup_commands(text):
        done = subprocess.run(["bash", "-e", "-c", command], cwd=folder, env=variables,
                              capture_output=True, text=True, timeout=1800)
        if done.returncode != 0:
            raise RuntimeError(f"the workflow's step `{command}` failed: "
                               f"{(done.stdout + done.stderr)[-800:]}")
    return Environment(str(where / "bin" / "python"), variables, note)


class FreshEnvironments:
    """Fresh environments made once per selfcheck run: one for each different install
    (the workflow's set-up commands, Python version and the files they read), shared by
    every release whose workflow installs the same."""

    def __init__(self, scratch):
        self.scratch = pathlib.Path(scratch)
        self.made, self.lock = {}, threading.Lock()

    def key(self, folder):
        text = (pathlib.Path(folder) / WORKFLOW_PATH).read_text(encoding="utf-8")
        digest = hashlib.sha256(repr((setup_commands(text), python_version(text))).encode())
        requirements = pathlib.Path(folder) / REQUIREMENTS_PATH
        if requirements.is_file():
            digest.update(requirements.read_bytes())
        return digest.hexdigest()[:16]

    def get(self, folder):
        key = self.key(folder)
        with self.lock:
            if key not in self.made:
                try:
                    self.made[key] = fresh_environment(folder, self.scratch / f"venv-{key}")
                except (RuntimeError, OSError, subprocess.SubprocessError) as error:
                    self.made[key] = error
        made = self.made[key]
        if isinstance(made, Exception):
            raise RuntimeError(str(made))
        return made


class ThisEnvironment:
    """The course's own environment in place of fresh ones: for the tool's quick tests,
    which prove the rest of a workflow's run without installing anything."""
    note = "the course's own environment, not a fresh one"

    def get(self, folder):
        return Environment(sys.executable,
                           clean_variables(pathlib.Path(sys.executable).parent), self.note)


def run_locally(folder, python=sys.executable, environment=None):
    """Run a folder's workflow's grading steps here, as GitHub would: with
    ``environment`` (an ``Environment``, see ``fresh_environment``), or else with
    ``python`` for ``python``.  ``[StepResult]``."""
    folder = pathlib.Path(folder)
    variables = environment.variables if environment else None
    python = environment.python if environment else python
    results = []
    for name, command, maximum in grader_steps((folder / WORKFLOW_PATH).read_text()):
        argv = shlex.split(command)
        if argv[0] == "python":
            argv[0] = python
        try:
            done = subprocess.run(argv, cwd=folder, capture_output=True, text=True,
                                  env=variables, timeout=STEP_MINUTES * 60)
            passed, output = done.returncode == 0, done.stdout + done.stderr
        except subprocess.TimeoutExpired:
            passed, output = False, f"timed out after {STEP_MINUTES} minutes"
        results.append(StepResult(name, maximum if passed else 0, maximum, output))
    return results
