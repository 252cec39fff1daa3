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

REACHED = set()


def reached(task_id):
    """Called by the first line of a traced region (see ``tracing_line``)."""
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
    """Put a ``reached`` line first in every region under ``root``."""
    from classroom import regions as regions_mod
    return regions_mod.rewrite_regions(
        root, regions, lambda r, old: [tracing_line(r.task, r.indent)] + list(old))


def needs_from(results, course):
    """``{task id: needed task ids in course order}`` from a traced run's results
    (``runner.TestResult`` with ``reached``)."""
    order = [t.id for t in course.tasks]
    needs = {t: set() for t in order}
    for result in results:
        for task in result.tasks:
            if task in needs:
                needs[task] |= set(result.reached or ()) - {task}
    return {t: [u for u in order if u in needs[t]] for t in order}


def derive_needs(course, grader):
    """Grade the solution with every region traced; ``(needs, run)``: the tasks each
    task's tests reach (see ``needs_from``) and the run itself."""
    from classroom import regions as regions_mod
    from classroom.grade import Job

    def prepare(workdir):
        trace_regions(workdir, regions_mod.scan(workdir, course.settings.sources))

    run, _ = grader.run_tests(Job(course.root, grader.tasks), prepare)
    return needs_from(run.results.values(), course), run
