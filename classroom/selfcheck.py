"""``selfcheck``: proof that the course's tasks, tests and releases hold together.

Run in CI.  It checks that

* the markers pair up, every task has a region and every region a task;
* every task has tests (``@pytest.mark.task("<id>")``), and the solution scores
  full marks on every task (hidden tests included);
* every assignment's release scores 0 on its tasks, its own ``check`` reports
  each of them as not done, its test suite loads with the tasks still stubbed
  (so a student's ``make test`` runs), and nothing in it shows a released
  region's lines;
* no region is dead code: with just that region replaced by a ``raise``, its
  task loses points;
* every plausible wrong answer in the instructor's files loses points on its
  task (see ``classroom/wrong_answers/README.md`` for their format).

Given task ids, it checks only those tasks, and releases only the assignments
whose tasks are all among them: a quick check while writing a task.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import os
import pathlib
import re
import subprocess
import sys
import tempfile

try:
    import tomllib                      # Python 3.11 and later
except ModuleNotFoundError:             # Python 3.10: the same parser, as a package
    import tomli as tomllib

from classroom import (reach, regions as regions_mod, release as release_mod, runner,
                       student_check, workflow, workspace)
from classroom.course import CourseError
from classroom.grade import Grader, Job, points
from classroom.runner import score


MUTANTS_IN_SELFCHECK = 1     # generated mutants per task in selfcheck (`make mutants`: all)


@dataclasses.dataclass
class Finding:
    ok: bool
    what: str

    def line(self):
        return f"{'ok  ' if self.ok else 'FAIL'}  {self.what}"


@dataclasses.dataclass
class WrongAnswer:
    task: str
    name: str
    source: str                 # the file it comes from, for messages
    code: str | None = None     # the whole region's new body
    old: str | None = None      # or: replace this text of the region...
    new: str | None = None      # ...by this
    region: int | None = None   # which of the task's regions (1-based)
    why: str = ""               # what the mistake is, for the instructor reading the file


def load_wrong_answers(course):
    folder = course.root / course.settings.wrong_answers
    answers = []
    for path in sorted(folder.glob("*.toml")) if folder.is_dir() else ():
        relpath = path.relative_to(course.root).as_posix()
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as error:
            raise CourseError(f"{relpath} is not valid TOML: {error}") from None
        for entry in data.get("wrong", []):
            answers.append(_wrong_answer(entry, relpath))
    return answers


def _wrong_answer(entry, relpath):
    unknown = set(entry) - {"task", "name", "code", "old", "new", "region", "why"}
    if unknown:
        raise CourseError(f"a [[wrong]] in {relpath} has unknown keys {sorted(unknown)}")
    for key in ("task", "name"):
        if key not in entry:
            raise CourseError(f"a [[wrong]] in {relpath} has no {key!r}: {entry}")
    has_code, has_edit = "code" in entry, "old" in entry and "new" in entry
    if has_code == has_edit:
        raise CourseError(f"wrong answer {entry['name']!r} in {relpath}: give either `code` "
                          "(the whole region) or `old` and `new` (an edit in the region)")
    return WrongAnswer(task=str(entry["task"]), name=str(entry["name"]), source=relpath,
                       code=entry.get("code"), old=entry.get("old"), new=entry.get("new"),
                       region=entry.get("region"), why=str(entry.get("why", "")))


def wrong_answer_edit(answer, task_regions, base):
    """``(region, new body lines)`` for a wrong answer, checked against the solution."""
    label = f"wrong answer {answer.name!r} of task {answer.task} ({answer.source})"
    if not task_regions:
        raise CourseError(f"{label}: the task has no region")
    if answer.region is not None:
        if not 1 <= answer.region <= len(task_regions):
            raise CourseError(f"{label}: region = {answer.region}, but the task has "
                              f"{len(task_regions)} region(s)")
        candidates = [task_regions[answer.region - 1]]
    else:
        candidates = task_regions
    bodies = {r: _body(base, r) for r in candidates}
    if answer.code is not None:
        if len(candidates) > 1:
            raise CourseError(f"{label}: the task has {len(candidates)} regions; say which "
                              "with region = <1-based index>")
        region = candidates[0]
        return region, regions_mod.reindent(answer.code, region.indent)
    holding = [r for r in candidates if "".join(bodies[r]).count(answer.old) == 1]
    if len(holding) != 1:
        raise CourseError(f"{label}: the text {answer.old!r} must appear exactly once in one "
                          "region of the task's solution; update the wrong answer")
    region = holding[0]
    new_text = "".join(bodies[region]).replace(answer.old, answer.new)
    return region, new_text.splitlines(keepends=True)


def _body(root, region):
    source = regions_mod.open_source(pathlib.Path(root) / region.path)
    return regions_mod.body(source.blocks[region.cell], region.begin, region.end)


def _replacing(region, new_body):
    def prepare(workdir):
        regions_mod.rewrite_regions(workdir, [region], lambda r, old: new_body)
    return prepare


def selfcheck(course, jobs=1, say=print, task_ids=(), mutants=MUTANTS_IN_SELFCHECK):
    """Run every check (only those of ``task_ids``' tasks, when given); ``say`` gets one
    line per finding.  ``mutants``: how many generated mutants per task (0: none).
    Returns the findings."""
    findings = []
    tasks = course.select(task_ids)

    def note(ok, what):
        finding = Finding(bool(ok), what)
        findings.append(finding)
        say(finding.line())

    grouped = check_regions(course, note, tasks)
    if grouped is None:
        return findings
    with tempfile.TemporaryDirectory(prefix="classroom-selfcheck-") as scratch:
        scratch = pathlib.Path(scratch)
        try:
            grader = Grader(course, tasks, scratch / "grading")
        except CourseError as error:
            note(False, str(error))
            return findings
        check_tests(course, grader, note, tasks)
        traced = TracedRuns(course, grader, tasks)
        runs = traced.runs() + planned_runs(course, grader, grouped, scratch, note, tasks)
        run_all(runs, jobs, note)
        traced.judge(note, grouped)
        if mutants:
            check_mutants(course, grader, traced, grouped, tasks, mutants, jobs, note)
    return findings


def check_mutants(course, grader, traced, grouped, tasks, per_task, jobs, note,
                  say_table=None):
    """Grade ``per_task`` generated mutants of each task (None: all of them); at least
    90% of those that break a test must be caught by their own task."""
    from classroom import mutants as mutants_mod
    chosen = mutants_mod.sample(mutants_mod.all_mutants(course, grouped, tasks), per_task)
    planned, outcomes = mutants_mod.runs(course, grader, traced.results, chosen)
    run_all(planned, jobs, note)
    text, share = mutants_mod.table(outcomes, course)
    if say_table:
        say_table(text)
    note(share >= 0.9, f"{share:.0%} of the mutants that break a test are caught by their "
         "own task (at least 90%)" + "".join(f"\n        {line}" for line in
                                             text.splitlines() if line.startswith("- survivor")))


class TracedRuns:
    """The solution graded with every region traced (``classroom.reach``), one run per
    assignment: full marks, and from what each test ran, the checks that make the
    syllabus walkable (see ``judge``)."""

    def __init__(self, course, grader, tasks):
        self.course, self.grader, self.tasks = course, grader, tuple(tasks)
        self.results = {}

    def runs(self):
        by_assignment = {}
        for task in self.tasks:
            by_assignment.setdefault(task.assignment, []).append(task)
        return [(f"the solution, {name} (traced)", lambda ts=tuple(ts): self._run(ts))
                for name, ts in by_assignment.items()]

    def _run(self, tasks):
        run, _ = self.grader.run_tests(Job(self.course.root, tasks), self._trace)
        self.results.update(run.results)
        ids = {t.id for t in tasks}
        expected = {n: t for n, t in self.grader.expected.items() if set(t) & ids}
        return _full_marks(score(tasks, expected, run, self.course.settings.scoring))

    def _trace(self, workdir):
        reach.trace_regions(workdir, regions_mod.scan(workdir, self.course.settings.sources))

    def judge(self, note, grouped):
        if not self.results:
            return
        course = self.course
        order = [t.id for t in course.tasks]
        chosen = {t.id for t in self.tasks}
        wrong_marks = []
        for result in self.results.values():
            marks = [m for m in result.tasks if m in chosen]
            if not marks:
                continue
            want = reach.latest(reach.reached_tasks(result), course)
            if set(marks) != {want}:
                wrong_marks.append(f"{runner.test_name(result.nodeid)} is marked {marks} "
                                   f"but runs the code of {sorted(reach.reached_tasks(result), key=order.index)}: "
                                   f"mark it task({want!r})" if want else
                                   f"{runner.test_name(result.nodeid)} is marked {marks} "
                                   "but runs no task's code: drop its mark")
        note(not wrong_marks, "every test is marked with the latest task (in the syllabus) "
             "whose code it runs" + "".join(f"\n        {w}" for w in wrong_marks[:12])
             + (f"\n        ... and {len(wrong_marks) - 12} more" if len(wrong_marks) > 12
                else ""))
        needs = reach.needs_from(self.results.values(), course)
        for task in self.tasks:
            later = [n for n in needs[task.id] if order.index(n) > order.index(task.id)]
            note(not later, f"task {task.id} needs only earlier tasks"
                 + (f" ({', '.join(needs[task.id])})" if needs[task.id] else " (none)")
                 if not later else f"task {task.id}'s tests run the code of later tasks "
                 f"{later}: change the tests, move code between regions, or reorder the "
                 "syllabus (classroom/README.md, Dependencies)")
            declared = list(task.depends_on)
            note(declared == needs[task.id], f"task {task.id}: `needs` in tasks.toml is "
                 "what its tests reach" if declared == needs[task.id] else
                 f"task {task.id}: tasks.toml says needs = {declared}, its tests reach "
                 f"{needs[task.id]}: run python -m classroom needs --write")
        reached = {name for r in self.results.values() for name in (r.reached or ())
                   if reach.task_of(name) in r.tasks}
        for task in self.tasks:
            for number, region in enumerate(grouped.get(task.id, []), 1):
                name = f"{task.id}#{number}"
                note(name in reached, f"task {task.id}, region {number} ({region.where()}) "
                     + ("runs in its task's tests" if name in reached else
                        "never runs in its task's tests: dead code, or tests that miss it"))

def check_regions(course, note, tasks=None):
    """Markers pair up, every region has a task and every task (of ``tasks``, default
    all) a region; returns the regions by task (None when the markers are broken)."""
    try:
        all_regions = regions_mod.scan(course.root, course.settings.sources)
    except regions_mod.MarkerError as error:
        note(False, f"markers: {error}")
        return None
    grouped = regions_mod.by_task(all_regions)
    known = {t.id for t in course.tasks}
    for task_id in sorted(set(grouped) - known):
        note(False, f"regions marked for task {task_id}, which tasks.toml does not list: "
                    + "; ".join(r.where() for r in grouped[task_id]))
    for task in course.tasks if tasks is None else tasks:
        note(task.id in grouped, f"task {task.id} has a region"
             + (f" ({len(grouped[task.id])})" if task.id in grouped else
                ": mark it with ### BEGIN SOLUTION / ### END SOLUTION " + task.id))
    return grouped


def check_tests(course, grader, note, tasks=None):
    """Every task (of ``tasks``, default all) has a test in the solution's collection."""
    for task in course.tasks if tasks is None else tasks:
        count = sum(task.id in ids for ids in grader.expected.values())
        note(count > 0, f"task {task.id} has tests ({count})" if count else
             f"task {task.id} has no test marked @pytest.mark.task({task.id!r})")


def planned_runs(course, grader, grouped, scratch, note, chosen=None):
    """``[(label, run)]``: each ``run()`` grades something and returns ``(ok, detail)``.
    ``chosen``: the tasks to check (default: all)."""
    chosen = course.tasks if chosen is None else tuple(chosen)
    runs = [grading_run(grader, "the solution", Job(course.root, chosen),
                        lambda workdir: None, _full_marks)]
    for assignment in course.assignments:
        tasks = course.tasks_of(assignment.name)
        if not tasks or any(t.id not in grouped or t not in chosen for t in tasks):
            continue
        out = scratch / f"release-{assignment.name}"
        try:
            report = release_mod.release(course, out, assignment.name)
        except CourseError as error:
            note(False, f"release {assignment.name}: {error}")
            continue
        leaks = report.leaks + release_mod.solution_lines_in(out, course)
        note(not leaks, f"release {assignment.name} shows no solution and no marker of a "
             "solved region" + "".join(f"\n        {leak}" for leak in leaks[:12]))
        runs.append((f"release {assignment.name}: `check`",
                     lambda out=out, tasks=tasks: _student_copy_check(out, tasks)))
        runs.append((f"release {assignment.name}: its tests collect",
                     lambda out=out: _student_tests_collect(out)))
        runs.append(grading_run(grader, f"release {assignment.name}", Job(out, tasks), None,
                                _zero_marks))
        with_workflow = assignment.name == course.assignments[0].name
        if with_workflow:
            runs.append((f"release {assignment.name}: its workflow ({workflow.WORKFLOW_PATH})",
                         lambda out=out, tasks=tasks: _workflow_points(out, tasks, solved=False)))
        runs += walk_runs(course, grader, assignment, out, tasks, with_workflow)
    try:
        answers = load_wrong_answers(course)
    except CourseError as error:
        note(False, str(error))
        answers = []
    chosen_ids = {t.id for t in chosen}
    answers = [a for a in answers if a.task in chosen_ids or a.task not in
               {t.id for t in course.tasks}]
    with_answers = {a.task for a in answers}
    for task in chosen:
        note(task.id in with_answers, f"task {task.id} has wrong answers to catch" if
             task.id in with_answers else f"task {task.id} has no wrong answer in "
             f"{course.settings.wrong_answers}: add a plausible mistake or two")
    for answer in answers:
        label = f"wrong answer {answer.name!r} of task {answer.task}"
        try:
            task = course.task(answer.task)
            region, body = wrong_answer_edit(answer, grouped.get(task.id, []), course.root)
        except CourseError as error:
            note(False, f"{label}: {error}")
            continue
        runs.append(grading_run(grader, label, Job(course.root, (task,)),
                                _replacing(region, body), _loses_points))
    from classroom import try_alternatives      # other correct answers: full marks
    runs += try_alternatives.runs(course, grader, grouped, note, chosen)
    return runs


def walk_runs(course, grader, assignment, release_dir, tasks, with_workflow=False):
    """A student's walk through a release: the tasks filled in one at a time, in the
    syllabus' order, from the solution; after each step the task just written scores
    full marks, with the later ones still stubs, and the chapter that explains it runs
    in its notebook (``chapter_runs``).  (The earlier ones keep their marks: their
    tests run no later task's code, which the traced runs prove, so they are not run
    again at every step.)  With ``with_workflow``, the last step also runs the release's
    GitHub workflow there: every task's step gives its points."""
    runs = []
    for count in range(1, len(tasks) + 1):
        filled = tasks[:count]
        last = with_workflow and count == len(tasks)
        runs.append((f"walk {assignment.name}: after {filled[-1].id} ({count} of "
                     f"{len(tasks)} written)",
                     lambda filled=filled, last=last: _walk_step(course, grader, release_dir,
                                                                 filled, last)))
    return runs


def _walk_step(course, grader, release_dir, filled, run_workflow=False):
    task, after_tests = filled[-1], {}

    def after(workdir):
        after_tests["notebook"] = chapter_runs(course, workdir, task)
        if run_workflow:
            target = pathlib.Path(workdir) / workflow.WORKFLOW_PATH
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes((pathlib.Path(release_dir) / workflow.WORKFLOW_PATH).read_bytes())
            after_tests["workflow"] = _workflow_points(workdir, filled, solved=True)

    scores, _, _ = grader.run(Job(release_dir, (task,)), _filling(course, release_dir, filled),
                              after=after)
    results = [_full_marks(scores)]
    results.append(after_tests.get("notebook", (False, "its notebook was not run")))
    if run_workflow:
        ok, detail = after_tests.get("workflow", (False, "was not run"))
        results.append((ok, f"its workflow {detail}"))
    return all(ok for ok, _ in results), "; ".join(detail for _, detail in results)


def _workflow_points(folder, tasks, solved):
    """``(ok, detail)``: the grading steps of ``folder``'s workflow, run here as GitHub
    runs them (``classroom.workflow.run_locally``), one per task, give every task its
    points when ``solved`` and none in a fresh release."""
    steps = workflow.run_locally(folder)
    got = [s.points for s in steps]
    want = [int(t.points) if solved else 0 for t in tasks]
    if got == want and len(steps) == len(tasks):
        return True, (f"gives each of its {len(steps)} task steps its points ({sum(got)})"
                      if solved else f"gives its {len(steps)} task steps 0 points")
    wrong = [f"{s.name}: {s.points}/{s.max_points} ({s.output.strip().splitlines()[-1:]})"
             for s, w in zip(steps, want) if s.points != w]
    return False, f"{len(steps)} steps for {len(tasks)} tasks; " + "; ".join(wrong[:3])


NOTEBOOK_TIMEOUT = 900       # seconds for one chapter's notebook in the walk


def task_notebooks(task):
    """The notebooks that explain ``task``: its ``file`` in tasks.toml (one, or several
    separated by commas or spaces, when a chapter is split into pages)."""
    return [f for f in str(task.file).replace(",", " ").split() if f.endswith(".ipynb")]


def chapter_runs(course, workdir, task):
    """``(ok, detail)``: the notebook(s) of ``task``'s chapter run in ``workdir`` the way a
    student's ``make test`` runs them (nbval without comparing outputs, with the student
    plugin): no cell fails, and a cell may stop only at the stub of a task that comes
    later in the syllabus (a chapter uses later chapters' code here and there, see
    classroom/README.md, Dependencies)."""
    notebooks = task_notebooks(task)
    if not notebooks:
        return True, "no chapter notebook to run (tasks.toml names none: file = ...)"
    missing = [n for n in notebooks if not (pathlib.Path(workdir) / n).is_file()]
    if missing:
        return False, f"its notebook {', '.join(missing)} is not in the release"
    order = [t.id for t in course.tasks]
    with tempfile.TemporaryDirectory(prefix="classroom-chapter-") as scratch:
        env = runner.child_environment(pathlib.Path(workdir), pathlib.Path(scratch))
        env["PATH"] = str(pathlib.Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
        command = [sys.executable, "-m", "pytest", "-p", "classroom.student_plugin",
                   "-p", "no:cacheprovider", "--nbval-lax", "--nbval-current-env", "-q",
                   "-rs", "--no-header", "--rootdir", str(workdir)]
        config = pathlib.Path(workdir) / "pyproject.toml"
        command += ["-c", str(config)] if config.is_file() else []
        command += notebooks
        try:
            done = subprocess.run(command, cwd=workdir, env=env, capture_output=True,
                                  text=True, timeout=NOTEBOOK_TIMEOUT)
        except subprocess.TimeoutExpired:
            return False, f"{', '.join(notebooks)} did not finish in {NOTEBOOK_TIMEOUT} s"
    output = done.stdout + done.stderr
    stopped_by = set(re.findall(r"not done yet: Task (\S+) ", output)) | set(
        re.findall(r"needs task (\S+), not done yet", output))
    too_early = sorted(t for t in stopped_by if t not in order or
                       order.index(t) <= order.index(task.id))
    names = ", ".join(pathlib.Path(n).name for n in notebooks)
    if done.returncode not in (0,) or too_early:
        failed = [line for line in output.splitlines() if line.startswith(("FAILED", "ERROR"))]
        return False, (f"{names} does not run: " + ("; ".join(failed[:3]) or output[-400:])
                       + (f" (stopped by the stub of {too_early})" if too_early else ""))
    later = sorted(stopped_by, key=order.index)
    return True, (f"{names} runs" + (f" up to the stubs of later tasks {later}" if later
                                     else " to the end"))


def _filling(course, release_dir, filled):
    def prepare(workdir):
        workspace.overlay_submission(course, workdir, release_dir)
        for task in filled:
            found = regions_mod.by_task(regions_mod.scan(workdir, course.settings.sources))
            missing = workspace.splice_task(workdir, course.root, found.get(task.id, []))
            if missing or task.id not in found:
                raise CourseError(f"the release lost the markers of task {task.id}")
    return prepare


def grading_run(grader, label, job, prepare, judge):
    """A run that grades ``job`` (its workspace made by ``prepare``) and judges the scores."""
    return label, lambda: judge(grader.run(job, prepare=prepare)[0])


def _student_copy_check(out, tasks):
    result = student_check.run_check(root=out)
    scores = result.scores
    wrong = {t.id: f"{scores[t.id].status}: {scores[t.id].first_failure}" if t.id in scores
             else "not checked" for t in tasks
             if t.id not in scores or scores[t.id].status not in ("not-done", "blocked")}
    return not wrong, ("every task is reported as not done" if not wrong else
                       f"reports {wrong}; {'; '.join(result.problems)}")


def _student_tests_collect(out):
    """The release's own test suite loads with the tasks still stubbed: a test module that
    runs minitorch at import time would stop a student's `make test` before any test."""
    result = subprocess.run([sys.executable, "-m", "pytest", "tests", "--collect-only", "-q",
                             "-p", "no:cacheprovider"], cwd=out, capture_output=True,
                            text=True, timeout=600)
    if result.returncode in (0, 5):
        return True, "every test module loads"
    errors = [line for line in result.stdout.splitlines() if line.startswith("ERROR")]
    return False, "; ".join(errors[:3]) or result.stdout[-300:]


def _full_marks(scores):
    short = {i: f"{points(s.points)}/{points(s.max_points)} ({s.first_failure})"
             for i, s in scores.items() if s.points < s.max_points}
    return not short, (f"lost points: {short}" if short else "full marks")


def _zero_marks(scores):
    kept = {i: points(s.points) for i, s in scores.items() if s.points > 0}
    return not kept, (f"still scores {kept}" if kept else "scores 0 on every task")


def _loses_points(scores):
    (score,) = scores.values()
    lost = score.points < score.max_points
    return lost, (f"loses points ({points(score.points)}/{points(score.max_points)}: "
                  f"{score.first_failure})" if lost else "keeps full marks: the tests miss it")


def run_all(runs, jobs, note):
    """Run ``[(label, run)]`` ``jobs`` at a time; note each result in order."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for (label, _), (ok, detail) in zip(runs, pool.map(lambda r: r[1](), runs)):
            note(ok, f"{label}: {detail}")
