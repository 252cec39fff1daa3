"""Which tasks' code a test really runs: how ``needs`` in tasks.toml is derived.

``selfcheck`` grades a copy of the solution in which every region starts with
one extra line, ``reached("<task id>")``: the grading plugin clears the set
before each test and reports it after.  The tasks a task's tests reach, other
than the task itself, are what the task *needs*: with any of them still a stub,
some of its tests cannot pass.  (A stub raises ``TaskNotDone``, which no test
catches, so reaching a stub is failing.)
"""

from __future__ import annotations

import json
import os
import pathlib

REACHED = set()
# When set, the file to which ``reached`` appends each region's name the first time it
# runs (since the last ``take``): how selfcheck learns, in order, which tasks' code a
# notebook's cells run, in the notebook's own kernel.
LOG_VARIABLE = "CLASSROOM_REACHED_LOG"


def reached(task_id):
    """Called by the first line of a traced region (see ``tracing_line``)."""
    if task_id not in REACHED and os.environ.get(LOG_VARIABLE):
        with open(os.environ[LOG_VARIABLE], "a", encoding="utf-8") as log:
            log.write(task_id + "\n")
    REACHED.add(task_id)


def take():
    """The tasks reached since the last call, sorted; the set starts empty again."""
    found = sorted(REACHED)
    REACHED.clear()
    return found


def tracing_line(task_id, indent):
    return (f"{indent}__import__('classroom.reach', fromlist=['reached'])"
            f".reached({json.dumps(task_id)})\n")


def trace_regions(root, regions):
    """Put a ``reached`` line first in every region under ``root``; each is named
    ``<task>#<n>``, its task's n-th region (1-based, in ``regions``' order)."""
    from classroom import regions as regions_mod
    names, counts = {}, {}
    for region in regions:
        counts[region.task] = counts.get(region.task, 0) + 1
        names[region] = f"{region.task}#{counts[region.task]}"
    return regions_mod.rewrite_regions(
        root, regions, lambda r, old: [tracing_line(names[r], r.indent)] + list(old))


def task_of(name):
    """``4.2`` from a traced region's name ``4.2#1``."""
    return name.split("#")[0]


def reached_tasks(result):
    return {task_of(name) for name in result.reached or ()}


def needs_from(results, course):
    """``{task id: needed task ids in course order}`` from a traced run's results
    (``runner.TestResult`` with ``reached``)."""
    order = [t.id for t in course.tasks]
    needs = {t: set() for t in order}
    for result in results:
        for task in result.tasks:
            if task in needs:
                needs[task] |= reached_tasks(result) - {task}
    return {t: [u for u in order if u in needs[t]] for t in order}


def latest(tasks, course):
    """The task of ``tasks`` that comes last in the syllabus (None for none)."""
    order = [t.id for t in course.tasks]
    known = [t for t in tasks if t in order]
    return max(known, key=order.index) if known else None


def derive_needs(course, grader):
    """Grade the solution with every region traced; ``(needs, run)``: the tasks each
    task's tests reach (see ``needs_from``) and the run itself."""
    from classroom import regions as regions_mod
    from classroom.grade import Job

    def prepare(workdir):
        trace_regions(workdir, regions_mod.scan(workdir, course.settings.sources))

    run, _ = grader.run_tests(Job(course.root, grader.tasks), prepare)
    return needs_from(run.results.values(), course), run


def write_needs(path, needs):
    """Rewrite the ``needs = [...]`` line of every ``[[task]]`` of tasks.toml at ``path``
    (added after ``assignment = ...`` when missing; none when a task needs nothing)."""
    import re
    text = pathlib.Path(path).read_text(encoding="utf-8")
    blocks = re.split(r"(?=^\[\[task\]\]$)", text, flags=re.M)
    out = []
    for block in blocks:
        match = re.search(r'^id = "(?P<id>[^"]+)"$', block, flags=re.M)
        if not block.startswith("[[task]]") or not match or match["id"] not in needs:
            out.append(block)
            continue
        block = re.sub(r"^(needs|depends_on) = .*\n", "", block, flags=re.M)
        wanted = needs[match["id"]]
        if wanted:
            line = "needs = [" + ", ".join(json.dumps(t) for t in wanted) + "]\n"
            block = re.sub(r"^(assignment = .*\n)", lambda m: m[1] + line, block, count=1,
                           flags=re.M)
        out.append(block)
    pathlib.Path(path).write_text("".join(out), encoding="utf-8")
