"""``selfcheck``: proof that the course's tasks, tests and releases hold together.

Run in CI.  It checks that

* the markers pair up, every task has a region and every region a task, and each
  task's stub points at the section of its chapter that explains it;
* every task has tests (``@pytest.mark.task("<id>")``), and the solution scores
  full marks on every task (hidden tests included);
* every assignment's release scores 0 on its tasks, its own ``check`` reports each
  of them as not done, its test suite loads with the tasks still stubbed (so a
  student's ``make test`` runs), and nothing in it shows a released region's
  solution, even under other names (``classroom.similarity``);
* every release's GitHub workflow, run in a fresh virtual environment made from
  what the workflow installs, gives 0 points on the release and every task's
  points once the tasks are written, as ``check`` does; and the first and last
  releases pass their own ``make test``;
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
import shutil
import subprocess
import sys
import tempfile

from classroom import (messages, reach, regions as regions_mod, release as release_mod,
                       runner, student_check, try_alternatives, workflow, workspace)
from classroom.course import CourseError, toml_files
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
    answers = []
    for relpath, data in toml_files(course, course.settings.wrong_answers):
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


def selfcheck(course, jobs=1, say=print, task_ids=(), mutants=MUTANTS_IN_SELFCHECK,
              environments=None):
    """Run every check (only those of ``task_ids``' tasks, when given); ``say`` gets one
    line per finding.  ``mutants``: how many generated mutants per task (0: none).
    ``environments``: where releases' workflows run (default: fresh virtual environments
    made from what each workflow installs, ``workflow.FreshEnvironments``).
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
    check_sections(course, note, tasks)
    with tempfile.TemporaryDirectory(prefix="classroom-selfcheck-") as scratch:
        scratch = pathlib.Path(scratch)
        try:
            grader = Grader(course, try_alternatives.with_later_tasks(course, tasks),
                            scratch / "grading")
        except CourseError as error:
            note(False, str(error))
            return findings
        check_tests(course, grader, note, tasks)
        traced = TracedRuns(course, grader, tasks)
        runs = traced.runs() + planned_runs(course, grader, grouped, scratch, note, tasks,
                                            environments)
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


def _heading_text(text):
    """A heading as a reader sees it: without its code and emphasis marks."""
    return " ".join(text.replace("`", "").replace("*", "").split())


def section_outline(path):
    """``(headings, {task id: headings around its "Course task <id>" box})`` of a
    notebook or markdown page: every heading's text, and for each task the book's box
    names, the headings it sits under (its section and the sections around that)."""
    import nbformat
    if path.suffix == ".ipynb":
        texts = [c.source for c in nbformat.read(path, as_version=4).cells
                 if c.cell_type == "markdown"]
    else:
        texts = [path.read_text(encoding="utf-8")]
    headings, boxes, stack = [], {}, []
    for text in texts:
        for line in text.splitlines():
            heading = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
            if heading:
                level, title = len(heading[1]), _heading_text(heading[2])
                stack = [(lv, t) for lv, t in stack if lv < level] + [(level, title)]
                headings.append(title)
            for task_id in re.findall(r"Course task (\S+?)[`*:,.]?(?:\s|$)", line):
                boxes.setdefault(task_id, [t for _, t in stack])
    return headings, boxes


def check_sections(course, note, tasks=None):
    """Each task's ``section`` is a heading of its ``file``, which its stub quotes; and
    when the chapter has a "Course task <id>" box for it, the box sits in that section
    (or in one of its subsections): the stub sends the student where the task is
    explained."""
    for task in course.tasks if tasks is None else tasks:
        files = [course.root / f for f in str(task.file or "").replace(",", " ").split()]
        files = [f for f in files if f.suffix in (".ipynb", ".md")]
        if not files or not task.section:
            continue
        missing = [f.relative_to(course.root).as_posix() for f in files if not f.is_file()]
        if missing:
            note(False, f"task {task.id}: its file {', '.join(missing)} does not exist")
            continue
        section = _heading_text(task.section)
        headings, boxes = set(), []
        for path in files:
            found, around = section_outline(path)
            headings.update(found)
            boxes += [around[task.id]] if task.id in around else []
        quoted = f"section “{task.section}”" in task.stub_message()
        problems = []
        if section not in headings:
            problems.append(f"its section {task.section!r} is no heading of {task.file}")
        if boxes and not any(section in around for around in boxes):
            problems.append(f"its \"Course task {task.id}\" box is under "
                            f"{' > '.join(boxes[0][1:] or boxes[0])!r}, not in section "
                            f"{task.section!r}: point `section` at the section that explains it")
        if not quoted:
            problems.append("its stub does not quote its section")
        note(not problems, f"task {task.id}: its stub points at section {task.section!r}, "
             "where the chapter explains it" if not problems else
             f"task {task.id}: " + "; ".join(problems))
        for place in task.region_sections:
            check_region_section(course, note, task, place)


def check_region_section(course, note, task, place):
    """A ``[[region_section]]``: its section is a heading of its file, and the stubs of
    the regions in its functions quote it (so each function holds a region of the
    task)."""
    path = course.root / place.file
    headings = section_outline(path)[0] if path.is_file() else []
    functions = {regions_mod.function_of(course.root, r)
                 for r in regions_mod.scan(course.root, course.settings.sources, (".py",))
                 if r.task == task.id}
    problems = [f"{place.file} has no heading {place.section!r}"
                for _ in [0] if _heading_text(place.section) not in headings]
    problems += [f"{name} holds no region of the task" for name in place.functions
                 if name not in functions]
    label = f"task {task.id}: the stubs in {', '.join(place.functions)}"
    note(not problems, f"{label} point at section {place.section!r} of {place.file}"
         if not problems else f"{label}: " + "; ".join(problems))


def check_tests(course, grader, note, tasks=None):
    """Every task (of ``tasks``, default all) has a test in the solution's collection."""
    for task in course.tasks if tasks is None else tasks:
        count = sum(task.id in ids for ids in grader.expected.values())
        note(count > 0, f"task {task.id} has tests ({count})" if count else
             f"task {task.id} has no test marked @pytest.mark.task({task.id!r})")


def planned_runs(course, grader, grouped, scratch, note, chosen=None, environments=None):
    """``[(label, run)]``: each ``run()`` grades something and returns ``(ok, detail)``.
    ``chosen``: the tasks to check (default: all)."""
    chosen = course.tasks if chosen is None else tuple(chosen)
    runs = [grading_run(grader, "the solution", Job(course.root, chosen),
                        lambda workdir: None, _full_marks)]
    environments = environments or workflow.FreshEnvironments(scratch)
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
        runs.append((f"release {assignment.name}: `check`, and its workflow in a fresh "
                     "environment", lambda out=out, tasks=tasks:
                     _release_check(out, tasks, environments)))
        runs.append((f"release {assignment.name}: its tests collect",
                     lambda out=out: _student_tests_collect(out)))
        runs.append(grading_run(grader, f"release {assignment.name}", Job(out, tasks), None,
                                _zero_marks))
        runs.append((f"release {assignment.name} with its tasks solved: `check`, and its "
                     "workflow in a fresh environment",
                     lambda out=out, tasks=tasks, name=assignment.name: _solved_release_check(
                         course, out, tasks, scratch / f"solved-{name}", environments)))
        if assignment.name in make_test_assignments(course):
            runs.append((f"release {assignment.name}: its own `make test`",
                         lambda out=out, name=assignment.name: release_make_test(
                             out, scratch / f"make-test-{name}")))
        runs += walk_runs(course, grader, assignment, out, tasks)
        runs.append((f"release {assignment.name} with its tasks written: its pages run to "
                     "their end or stop where stops_when_done says",
                     lambda out=out, assignment=assignment: pages_when_done(
                         course, assignment, out, scratch / f"pages-{assignment.name}")))
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
    runs += try_alternatives.runs(course, grader, grouped, note, chosen)
    return runs


def walk_runs(course, grader, assignment, release_dir, tasks):
    """A student's walk through a release: the tasks filled in one at a time, in the
    syllabus' order, from the solution; after each step the task just written scores
    full marks, with the later ones still stubs, and the chapter that explains it runs
    in its notebook (``chapter_runs``).  (The earlier ones keep their marks: their
    tests run no later task's code, which the traced runs prove, so they are not run
    again at every step.)"""
    runs = []
    for count in range(1, len(tasks) + 1):
        filled = tasks[:count]
        runs.append((f"walk {assignment.name}: after {filled[-1].id} ({count} of "
                     f"{len(tasks)} written)",
                     lambda filled=filled: _walk_step(course, grader, release_dir, filled)))
    return runs


def _walk_step(course, grader, release_dir, filled):
    task, after_tests = filled[-1], {}

    def after(workdir):
        after_tests["notebook"] = chapter_runs(course, workdir, task)

    scores, _, _ = grader.run(Job(release_dir, (task,)), _filling(course, release_dir, filled),
                              after=after)
    results = [_full_marks(scores)]
    results.append(after_tests.get("notebook", (False, "its notebook was not run")))
    return all(ok for ok, _ in results), "; ".join(detail for _, detail in results)


def _release_check(out, tasks, environments):
    """``(ok, detail)``: in an untouched release, ``check`` reports every task as not done,
    and the release's workflow, run in a fresh environment, gives every step 0 points."""
    result = student_check.run_check(root=out)
    scores = result.scores
    wrong = {t.id: f"{scores[t.id].status}: {scores[t.id].first_failure}" if t.id in scores
             else "not checked" for t in tasks
             if t.id not in scores or scores[t.id].status not in ("not-done", "blocked")}
    ok, detail = _workflow_agrees(out, tasks, result, environments, solved=False)
    return not wrong and ok, (("`check` reports every task as not done" if not wrong else
                               f"`check` reports {wrong}; {'; '.join(result.problems)}")
                              + "; " + detail)


def _solved_release_check(course, release_dir, tasks, folder, environments):
    """``(ok, detail)``: a copy of the release with every task of its assignment written
    (from the solution): ``check`` passes every task, and the workflow, run in a fresh
    environment, gives every step its points."""
    shutil.copytree(release_dir, folder, symlinks=True)
    for task in tasks:
        found = regions_mod.by_task(regions_mod.scan(folder, course.settings.sources))
        if task.id not in found or workspace.splice_task(folder, course.root,
                                                         found[task.id]):
            return False, f"the release lost the markers of task {task.id}"
    result = student_check.run_check(root=folder)
    failing = {i: f"{s.status}: {s.first_failure}" for i, s in result.scores.items()
               if s.status != "pass"}
    ok, detail = _workflow_agrees(folder, tasks, result, environments, solved=True)
    return not failing and ok, (("`check` passes every task" if not failing else
                                 f"`check` reports {failing}") + "; " + detail)


def _workflow_agrees(folder, tasks, check_result, environments, solved):
    """``(ok, detail)``: the grading steps of ``folder``'s workflow, run in a fresh virtual
    environment made from what the workflow installs (``classroom.workflow``), give each
    task its points when ``solved`` and none otherwise, and each step gives what `check`
    (run in the course's environment) gives its task."""
    try:
        environment = environments.get(folder)
    except RuntimeError as error:
        return False, f"its workflow's fresh environment could not be made: {error}"
    steps = workflow.run_locally(folder, environment=environment)
    by_task = dict(zip((t.id for t in tasks), steps))
    wrong = []
    for task in tasks:
        step = by_task.get(task.id)
        score = check_result.scores.get(task.id)
        checked = int(task.points) if score is not None and score.status == "pass" else 0
        wanted = int(task.points) if solved else 0
        if step is None or step.points != wanted or step.points != checked:
            why = [line.strip() for line in (step.output if step else "").splitlines()
                   if line.strip()][-2:]
            wrong.append(f"{task.id}: its step gives {step.points if step else 'no step'}"
                         f"{'' if step is None else '/' + str(step.max_points)}, `check` "
                         f"{checked}, expected {wanted} ({' / '.join(why)})")
    where = f" ({environment.note})" if environment.note else ""
    if len(steps) != len(tasks):
        wrong.insert(0, f"{len(steps)} grading steps for {len(tasks)} tasks")
    if wrong:
        return False, "its workflow in a fresh environment" + where + ": " + "; ".join(wrong[:4])
    return True, (f"its {len(steps)} workflow steps, in a fresh environment{where}, give "
                  f"{sum(s.points for s in steps)} points, as `check` does")


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
    try:
        done = run_pages(workdir, notebooks)
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
    said = f"{names} runs" + (f" up to the stubs of later tasks {later}" if later
                              else " to the end")
    if later[:1] != ([task.page_stops_at] if task.page_stops_at else []):
        fix = (f'page_stops_at = "{later[0]}"' if later else "no page_stops_at")
        return False, (f"{said}, but tasks.toml says page_stops_at = "
                       f"{task.page_stops_at or 'nothing'} for task {task.id}: write {fix} "
                       "(a release notes it at the top of the page)")
    return True, said


def run_pages(workdir, notebooks, junit=None, extra_env=None):
    """Run ``notebooks`` in ``workdir`` as a student's ``make test`` runs them (nbval
    without comparing outputs, with the student plugin: the cells after one that reaches
    a stub are skipped); the finished process.  ``junit``: a file for pytest's JUnit XML
    report (one test case per code cell)."""
    with tempfile.TemporaryDirectory(prefix="classroom-chapter-") as scratch:
        env = runner.child_environment(pathlib.Path(workdir), pathlib.Path(scratch))
        env["PATH"] = str(pathlib.Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
        env.update(extra_env or {})
        command = [sys.executable, "-m", "pytest", "-p", "classroom.student_plugin",
                   "-p", "no:cacheprovider", "--nbval-lax", "--nbval-current-env", "-q",
                   "-rs", "--no-header", "--rootdir", str(workdir)]
        config = pathlib.Path(workdir) / "pyproject.toml"
        command += ["-c", str(config)] if config.is_file() else []
        command += [f"--junitxml={junit}"] if junit else []
        command += notebooks
        return subprocess.run(command, cwd=workdir, env=env, capture_output=True,
                              text=True, timeout=NOTEBOOK_TIMEOUT)


@dataclasses.dataclass(frozen=True)
class PageReach:
    """How far a page ran: ``task`` is the task whose stub stopped it (None: it ran to its
    end), at its ``cell``-th code cell (nbval's count, from 0), in ``section``."""
    page: str
    task: str | None = None
    cell: int | None = None
    section: str = ""
    failure: str = ""          # a cell that failed for another reason than a stub

    def where(self):
        return (f"code cell {self.cell} (section \u201c{self.section}\u201d)"
                if self.task else "its end")


def page_reach(workdir, page, extra_env=None):
    """Run one page in ``workdir`` (``run_pages``) and say where it stopped (``PageReach``)."""
    import xml.etree.ElementTree as ElementTree
    with tempfile.TemporaryDirectory(prefix="classroom-reach-") as scratch:
        junit = pathlib.Path(scratch) / "cells.xml"
        try:
            done = run_pages(workdir, [page], junit, extra_env)
        except subprocess.TimeoutExpired:
            return PageReach(page, failure=f"did not finish in {NOTEBOOK_TIMEOUT} s")
        cases = ElementTree.parse(junit).getroot().iter("testcase") if junit.is_file() else ()
    for case in cases:
        number = re.fullmatch(r"Cell (\d+)", case.get("name", ""))
        failed = case.find("failure") if case.find("failure") is not None else \
            case.find("error")
        if failed is not None:
            return PageReach(page, cell=int(number[1]) if number else None,
                             failure=(failed.get("message") or "")[:300])
        skipped = case.find("skipped")
        stub = messages.STUB.search(skipped.get("message", "") + " " + (skipped.text or "")) \
            if skipped is not None else None
        if stub and number:
            cell = int(number[1])
            return PageReach(page, stub["task"], cell,
                             section_of_code_cell(pathlib.Path(workdir) / page, cell))
    if done.returncode not in (0, 5):
        return PageReach(page, failure=(done.stdout + done.stderr)[-300:])
    return PageReach(page)


def section_of_code_cell(path, number):
    """The heading (as a reader sees it) of the section holding a notebook's
    ``number``-th code cell (counted from 0, as nbval counts)."""
    import nbformat
    section, seen = "", -1
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "markdown":
            headings = re.findall(r"^#{1,6}\s+(.*?)\s*#*\s*$", cell.source, flags=re.M)
            section = _heading_text(headings[-1]) if headings else section
        elif cell.cell_type == "code":
            seen += 1
            if seen == number:
                return section
    return section


def stops_when_done(course, folder, page, later_ids, scratch, own_ids=()):
    """``(first, later)``: where ``page`` first stops in ``folder`` (a release with its
    assignment's tasks written; a ``PageReach``), and, when it stops, the tasks of
    ``later_ids`` (later assignments') whose code the rest of the page runs, in the order
    its cells first run them: found in a copy with each of them written from the solution
    and traced (``reach``), where the page must run to its end (else ``later`` is that
    run's ``PageReach``).  ``own_ids``: the assignment's tasks (written in ``folder``)
    are traced too, the copy is run first, and ``later`` then holds the ones the page
    runs as well, in the same order; ``folder`` is run only when the copy's page runs a
    later task's code (else it runs as the copy, to its end: one kernel saved)."""
    first = None if own_ids else page_reach(folder, page)
    if first is not None and (first.failure or not first.task):
        return first, []
    copy = pathlib.Path(scratch) / "all-written"
    shutil.copytree(folder, copy, symlinks=True)
    sources = course.settings.sources
    found = regions_mod.by_task(regions_mod.scan(copy, sources))
    for task_id in [t for t in later_ids if t in found]:
        regions = regions_mod.by_task(regions_mod.scan(copy, sources))[task_id]
        if workspace.splice_task(copy, course.root, regions):
            return first or PageReach(page), PageReach(
                page, failure=f"the release lost task {task_id}'s markers")
    traced = set(later_ids) | set(own_ids)
    reach.trace_regions(copy, [r for r in regions_mod.scan(copy, sources) if r.task in traced])
    log = pathlib.Path(scratch) / "reached.txt"
    rest = page_reach(copy, page, {reach.LOG_VARIABLE: str(log)})
    if rest.task or rest.failure:
        return first or page_reach(folder, page), rest
    names = log.read_text(encoding="utf-8").split() if log.is_file() else []
    reached = list(dict.fromkeys(reach.task_of(name) for name in names))
    if first is None:
        first = page_reach(folder, page) if set(reached) & set(later_ids) else \
            PageReach(page)
    return first, reached


def early_stops(reached, syllabus):
    """The tasks a page stops at, in turn, as the tasks of ``syllabus`` (ids, in its
    order) are written one by one, when the page runs the code of ``reached`` in that
    order: each time, the first of ``reached`` still unwritten (a cell before it runs
    only written code, so it runs as with the whole solution)."""
    stops = []
    for count in range(len(syllabus) + 1):
        written = set(syllabus[:count])
        stop = next((t for t in reached if t not in written), None)
        if stop is not None and stop not in stops:
            stops.append(stop)
    return stops


def pages_when_done(course, assignment, release_dir, folder):
    """``(ok, detail)``: in a copy of ``assignment``'s release with every one of its tasks
    written (from the solution), each page of its tasks runs to its end, or stops where
    the assignment's ``stops_when_done`` in tasks.toml says (what the release's note on
    the page tells the student): first in that section, and the rest of the page runs
    the code of those later assignments' tasks, in that order (``stops_when_done``).
    A page whose last task of the assignment has no ``page_stops_at`` is not run again:
    the walk ran it to its end after that task, and writing more tasks cannot stop it.
    Each page that the assignment's ``stops_before_done`` names is run with the
    assignment's tasks traced too: the tasks (not its own) it stops at as a student
    writes them in the syllabus' order (``early_stops``) must be the ones declared."""
    tasks = course.tasks_of(assignment.name)
    own_ids = [t.id for t in tasks]
    later_ids = [t.id for t in release_mod.later_tasks(course, assignment.name)]
    shutil.copytree(release_dir, folder, symlinks=True)
    missing = _fill(course, folder, tasks)
    if missing:
        return False, missing
    early = [s.page for s in assignment.stops_before_done]
    pages = list(dict.fromkeys([p for t in tasks for p in t.notebooks] + early))
    wrong, said = [], []
    for page in pages:
        name = pathlib.Path(page).name
        mine = [t for t in tasks if page in t.notebooks]
        if page not in early and not mine[-1].page_stops_at:
            last = mine[-1]
            said.append(f"{name}: runs to its end (the walk ran it after {last.id})")
            if assignment.stop_of(page):
                wrong.append(f"{name} runs to its end (the walk ran it after {last.id}), but "
                             f"tasks.toml's stops_when_done of {assignment.name} names it: "
                             "drop its entry")
            continue
        with tempfile.TemporaryDirectory(prefix="classroom-stops-") as scratch:
            first, later = stops_when_done(course, folder, page, later_ids, scratch,
                                           own_ids if page in early else ())
        failed = first if first.failure else later if isinstance(later, PageReach) else None
        if failed:
            wrong.append(f"{name} " + (f"stops at {failed.task} in {failed.where()} even with"
                                       " every later task written" if failed.task else
                                       f"fails at code cell {failed.cell}: {failed.failure}"))
            continue
        if page in early:
            found = [t for t in early_stops([t for t in later if t in own_ids], own_ids)
                     if t not in {m.id for m in mine}]
            declared = list(assignment.early_stops_of(page))
            said.append(f"{name}: stops at {found} until they are written")
            if found != declared:
                wrong.append(f"{name} stops at {found} as {assignment.name}'s tasks are "
                             "written in the syllabus' order, but tasks.toml's "
                             f"stops_before_done of {assignment.name} says {declared}: "
                             + (f'write page = "{page}", tasks = {found}' if found else
                                "drop its entry"))
            later = [t for t in later if t not in own_ids]
        declared = assignment.stop_of(page)
        said.append(f"{name}: " + (f"stops at {first.task} in {first.where()}, and runs the "
                                   f"code of {later}" if first.task else "runs to its end"))
        if not first.task and declared is None:
            continue
        if declared is None or tuple(later) != declared.tasks or \
                first.section != declared.section:
            wrong.append(f"{name} " + (f"stops at {first.task} in {first.where()}, and runs "
                                       f"the code of {later}" if first.task else
                                       "runs to its end")
                         + f", but tasks.toml's stops_when_done of {assignment.name} says "
                         + (f"{list(declared.tasks)} in \u201c{declared.section}\u201d"
                            if declared else "nothing")
                         + ": " + (f'write page = "{page}", section = "{first.section}", '
                                   f"tasks = {later}" if first.task else "drop its entry"))
    if wrong:
        return False, "; ".join(wrong)
    return True, "; ".join(said)


def _fill(course, folder, tasks):
    """Write ``tasks`` into ``folder`` from the solution; what went wrong ("" if nothing)."""
    for task in tasks:
        found = regions_mod.by_task(regions_mod.scan(folder, course.settings.sources))
        if task.id not in found or workspace.splice_task(folder, course.root, found[task.id]):
            return f"the release lost the markers of task {task.id}"
    return ""


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


MAKE_TEST_TIMEOUT = 3600     # seconds for a release's whole `make test`
NOTEBOOK_CELL_TIMEOUT = 1200  # seconds for one notebook cell in it


def make_test_assignments(course):
    """The releases whose own ``make test`` selfcheck runs: the first assignment's (every
    task a stub: a test that fails, rather than skips, at any task's stub fails there) and
    the last one's (every earlier task solved: almost every notebook runs to its end).
    The ones between hold no stub the first does not, and no solved region the last
    does not; each ``make test`` costs minutes, so they are left out.  None when the
    course has no Makefile (its releases have no ``make test`` to run)."""
    if not (course.root / "Makefile").is_file():
        return set()
    names = [a.name for a in course.assignments]
    return set(names[:1] + names[-1:])


def release_make_test(out, copy=None):
    """``(ok, detail)``: an untouched release's own ``make test`` (its Makefile, its
    tests, its notebooks under nbval) passes, unfinished tasks reported as skips.  It
    runs with this environment in place of the one ``make setup`` would make in the
    release (the same requirements: the set-up stamps must agree), and with the release
    first on the import path (this environment's ``minitorch`` is the course's own).
    With ``copy``, it runs in a copy of the release made there (what the tests and the
    notebooks write stays out of the release, which other checks read meanwhile)."""
    if copy is not None:
        shutil.copytree(out, copy, symlinks=True)
        out = copy
    venv = pathlib.Path(sys.prefix)
    if not (venv / "bin" / "python").exists() or sys.prefix == sys.base_prefix:
        return False, "selfcheck must run in the course's virtual environment (make selfcheck)"
    stamp = venv / ".requirements-stamp"
    if (pathlib.Path(out) / "requirements.txt").is_file() and stamp.is_file() and \
            stamp.read_text().strip() != _requirements_stamp(out):
        return False, ("the release's requirements.txt or pyproject.toml differ from what this "
                       "environment was set up with: run make setup, then selfcheck again")
    variables = workflow.clean_variables()
    variables["PYTHONPATH"] = str(out)
    # (A notebook cell gets NOTEBOOK_CELL_TIMEOUT s, not make test's 300: selfcheck runs
    # beside other checks, and a slow cell is not what this check is about.)
    command = ["make", "-o", "setup", "test", f"VENV={os.path.relpath(venv, out)}",
               f"NB_TIMEOUT={NOTEBOOK_CELL_TIMEOUT}"]
    try:
        done = subprocess.run(command, cwd=out, env=variables, capture_output=True,
                              text=True, timeout=MAKE_TEST_TIMEOUT)
    except subprocess.TimeoutExpired:
        return False, f"did not finish in {MAKE_TEST_TIMEOUT} s"
    output = done.stdout + done.stderr
    summary = [line.strip("= ") for line in output.splitlines()
               if re.match(r"^=* ?\d+ (passed|failed|skipped|errors?)\b", line)]
    if done.returncode == 0:
        return True, f"passes ({summary[-1] if summary else 'no summary'})"
    failed = [line for line in output.splitlines() if line.startswith(("FAILED", "ERROR"))]
    return False, (f"fails (exit {done.returncode}): " + "; ".join(failed[:6])
                   + (f" ... and {len(failed) - 6} more" if len(failed) > 6 else "")
                   + (f" ({summary[-1]})" if summary else "") if failed else output[-600:])


def _requirements_stamp(root):
    """What scripts/setup.sh writes into .venv/.requirements-stamp for ``root``'s
    requirements (this Python, requirements.txt and pyproject.toml)."""
    import hashlib
    digest = hashlib.sha256(sys.version.encode())
    for name in ("requirements.txt", "pyproject.toml"):
        path = pathlib.Path(root) / name
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


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
