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
import pathlib
import re
import shlex
import subprocess
import sys

WORKFLOW_PATH = ".github/workflows/classroom.yml"
PYTHON_VERSION = "3.12"
SETUP_COMMAND = ("python -m pip install --quiet --upgrade pip && "
                 "python -m pip install --quiet -r requirements-check.txt")
# What `check` needs to run the tests (not the book's build tools): classroom/student_check.py.
CHECK_REQUIREMENTS = ["numpy>=2.1", "pytest", "hypothesis", "nbformat", "ipython",
                      "tomli; python_version < \"3.11\""]
STEP_MINUTES = 10          # the command grader's timeout for one task, in minutes


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
    (pathlib.Path(out) / "requirements-check.txt").write_text(
        "# What `python -m classroom check` needs (the CI of your repository installs it)\n"
        + "\n".join(CHECK_REQUIREMENTS) + "\n", encoding="utf-8")
    return path


@dataclasses.dataclass
class StepResult:
    name: str
    points: int
    max_points: int
    output: str


def grader_steps(text):
    """``[(name, command, max score)]`` of the command-grader steps of a workflow file."""
    steps, current = [], None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("- name:"):
            current = {"name": _unquote(stripped[len("- name:"):].strip())}
        elif current is not None and stripped.startswith("uses: classroom-resources/"
                                                         "autograding-command-grader"):
            steps.append(current)
        elif current is not None and ":" in stripped:
            key, _, value = stripped.partition(":")
            current[key.strip()] = _unquote(value.strip())
    return [(s["name"], s["command"], int(s["max-score"])) for s in steps]


def _unquote(value):
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    return value


def run_locally(folder, python=sys.executable):
    """Run a folder's workflow's grading steps here, as GitHub would (with ``python`` for
    ``python``): ``[StepResult]``."""
    folder = pathlib.Path(folder)
    results = []
    for name, command, maximum in grader_steps((folder / WORKFLOW_PATH).read_text()):
        argv = shlex.split(command)
        if argv[0] == "python":
            argv[0] = python
        done = subprocess.run(argv, cwd=folder, capture_output=True, text=True,
                              timeout=STEP_MINUTES * 60)
        results.append(StepResult(name, maximum if done.returncode == 0 else 0, maximum,
                                  done.stdout + done.stderr))
    return results
