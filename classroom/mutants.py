"""Generated mutants: small changes inside each region, to prove "one truth for a task".

A mutant changes one thing in one region of the solution: an operator (``+`` for
``-``, ``<`` for ``<=``, ``and`` for ``or``...), a constant (``0`` for ``1``,
``n`` for ``n + 1``, ``True`` for ``False``), a dropped statement (``pass``
instead), or two swapped arguments of a call.  It is graded with the tests that
ran the region in the traced solution (``classroom.reach``): when one of them
fails, the mutant *breaks the course*; it is *caught by its task* when one of the
failing tests is marked with the region's task.  A mutant that breaks the course
but not its task is a survivor: a student's code with that mistake would fail
``make test`` and still get the task's points from ``check`` and ``grade``.

``selfcheck`` grades a few mutants per task (``MUTANTS_IN_SELFCHECK``); ``python -m
classroom mutants`` (``make mutants``) grades them all and prints the table.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import random
import textwrap

from classroom import reach, regions as regions_mod

_SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
          ast.FloorDiv: ast.Mult, ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult,
          ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.LtE, ast.LtE: ast.Lt,
          ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
          ast.In: ast.NotIn, ast.NotIn: ast.In, ast.And: ast.Or, ast.Or: ast.And}


@dataclasses.dataclass
class Mutant:
    task: str
    region: object          # regions.Region
    number: int             # the region's number among its task's (1-based)
    what: str
    body: list              # the region's new body lines

    @property
    def label(self):
        return f"mutant of task {self.task}, region {self.number}: {self.what}"


def _sites(tree):
    """``[(node, kind)]`` of every place a mutation can be made, in a fixed order."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.BinOp, ast.BoolOp)) and type(node.op) in _SWAPS:
            found.append((node, "operator"))
        elif isinstance(node, ast.Compare) and type(node.ops[0]) in _SWAPS:
            found.append((node, "comparison"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float)) \
                and not isinstance(node.value, complex):
            found.append((node, "constant"))
        elif isinstance(node, ast.Call) and len(node.args) >= 2:
            found.append((node, "arguments"))
        if isinstance(node, (ast.FunctionDef, ast.For, ast.While, ast.If, ast.With,
                             ast.Module, ast.Try)):
            for statement in node.body:
                found.append((statement, "statement"))
    return found


def _mutate(node, kind):
    """Change ``node`` in place; returns what was done, in words."""
    if kind in ("operator", "comparison"):
        old = node.op if kind == "operator" else node.ops[0]
        new = _SWAPS[type(old)]()
        if kind == "operator":
            node.op = new
        else:
            node.ops[0] = new
        return f"{type(old).__name__} -> {type(new).__name__}"
    if kind == "constant":
        old = node.value
        node.value = (not old) if isinstance(old, bool) else (1 if old == 0 else 0) \
            if old in (0, 1) else old + 1
        return f"constant {old!r} -> {node.value!r}"
    if kind == "arguments":
        node.args[0], node.args[1] = node.args[1], node.args[0]
        return f"first two arguments of {ast.unparse(node.func)} swapped"
    return f"dropped `{ast.unparse(node).splitlines()[0][:50]}`"


def mutants_of(region, body_lines, number):
    """Every mutant of one region (its body parsed, changed, and written back)."""
    source = textwrap.dedent("".join(body_lines))
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found = []
    for index in range(len(_sites(tree))):
        changed = copy.deepcopy(tree)
        node, kind = _sites(changed)[index]
        if kind == "statement":
            holder = next(p for p in ast.walk(changed)
                          if isinstance(getattr(p, "body", None), list)
                          and any(s is node for s in p.body))
            holder.body[[id(s) for s in holder.body].index(id(node))] = ast.Pass()
            what = _mutate(node, kind)
        else:
            what = _mutate(node, kind)
        new_source = ast.unparse(changed)
        if new_source == ast.unparse(tree):
            continue
        found.append(Mutant(region.task, region, number, what,
                            regions_mod.reindent(new_source, region.indent)))
    return found


def all_mutants(course, grouped, tasks):
    """``{task id: [Mutant]}`` for every region of ``tasks`` in the solution."""
    found = {}
    for task in tasks:
        for number, region in enumerate(grouped.get(task.id, []), 1):
            source = regions_mod.open_source(course.root / region.path)
            body = regions_mod.body(source.blocks[region.cell], region.begin, region.end)
            found.setdefault(task.id, []).extend(mutants_of(region, body, number))
    return found


def sample(mutants, per_task, seed=0):
    """At most ``per_task`` mutants of each task, the same ones on every run."""
    chosen = {}
    for task_id, found in mutants.items():
        picker = random.Random(f"{seed}:{task_id}")
        chosen[task_id] = found if per_task is None or len(found) <= per_task else \
            sorted(picker.sample(found, per_task), key=found.index)
    return chosen


@dataclasses.dataclass
class Outcome:
    mutant: Mutant
    breaks: bool            # a test that ran the region fails
    caught: bool            # ...and one of them is marked with the region's task
    failing: tuple = ()


def runs(course, grader, traced_results, mutants):
    """``([(label, run)], outcomes)`` for selfcheck's ``run_all``: each run grades one
    mutant with the tests that ran its region and returns ``(True, detail)`` (a survivor
    is judged with the others, by ``table``); ``outcomes`` collects each Outcome."""
    reached_by = {}
    for result in traced_results.values():
        for name in result.reached or ():
            reached_by.setdefault(name, []).append(result)
    outcomes = []

    def grade_one(mutant):
        tests = reached_by.get(f"{mutant.task}#{mutant.number}", [])
        if not tests:
            outcomes.append(Outcome(mutant, False, False))
            return True, "no test runs its region"
        # The task's own tests first: when one fails the mutant is caught, and the rest
        # (for a region on the common path, most of the course's tests) need not run.
        own = [r for r in tests if mutant.task in r.tasks]
        others = [r for r in tests if mutant.task not in r.tasks]
        failing = []
        for group in (own, others):
            if not group or failing:
                continue
            run = grader.run_mutant(mutant.region, mutant.body, [r.nodeid for r in group],
                                    sorted({t for r in group for t in r.tasks}))
            failing = [r for r in group if not run.results.get(r.nodeid) or
                       not run.results[r.nodeid].passed]
        caught = any(mutant.task in r.tasks for r in failing)
        outcomes.append(Outcome(mutant, bool(failing), caught,
                                tuple(r.nodeid for r in failing)))
        if not failing:
            return True, "no test notices it (equivalent, or untested)"
        if caught:
            return True, "caught by its task"
        return True, ("SURVIVES its task: only " + ", ".join(sorted(
            {reach.latest(r.tasks, course) or "?" for r in failing})) + " fail")

    planned = [(m.label, lambda m=m: grade_one(m)) for found in mutants.values()
               for m in found]
    return planned, outcomes


def table(outcomes, course):
    """The mutant table: per task, mutants, those that break a test, caught by the
    task, survivors; and the share caught overall."""
    rows, survivors = [], []
    order = [t.id for t in course.tasks]
    for task_id in order:
        mine = [o for o in outcomes if o.mutant.task == task_id]
        if not mine:
            continue
        breaking = [o for o in mine if o.breaks]
        caught = [o for o in breaking if o.caught]
        rows.append((task_id, len(mine), len(breaking), len(caught)))
        survivors += [o for o in breaking if not o.caught]
    lines = ["| task | mutants | break a test | caught by the task | survivors |",
             "| --- | --- | --- | --- | --- |"]
    lines += [f"| {t} | {n} | {b} | {c} | {b - c} |" for t, n, b, c in rows]
    breaking = sum(r[2] for r in rows)
    caught = sum(r[3] for r in rows)
    share = caught / breaking if breaking else 1.0
    lines.append(f"| all | {sum(r[1] for r in rows)} | {breaking} | {caught} | "
                 f"{breaking - caught} |")
    lines.append(f"\n{share:.0%} of the mutants that break a test are caught by their task.")
    for o in survivors:
        lines.append(f"- survivor: {o.mutant.label} ({o.mutant.region.where()}); fails "
                     + ", ".join(o.failing[:3]))
    return "\n".join(lines), share
