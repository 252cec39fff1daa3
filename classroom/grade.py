"""``grade``: every submission in a folder, graded with the instructor's tests.

Each submission (one folder each) is graded in a temporary copy of the
instructor's repository, hidden tests included, into which only the
submission's ``student_paths`` (by default) or, with ``--isolate``, only the
regions of the task being graded are copied.  So a student who edits the
tests or the tool gains nothing, the submission folder is never written to,
and with ``--isolate`` a missing task costs only its own points, not those of
the tasks that use it.

The instructor's tests are collected once, in the solution: a test that a
submission cannot even load still counts, as failed.  Every run is a child
process with time limits (see ``classroom.runner``); ``--jobs`` runs several
at once.  The result is one CSV row per submission (a column per task and the
total) and, with ``--feedback``, a markdown file per submission.
"""

from __future__ import annotations

import concurrent.futures
import csv
import dataclasses
import itertools
import pathlib
import shutil
import tempfile

from classroom import regions as regions_mod, runner, workspace
from classroom.course import CourseError

STATUS_WORDS = {"pass": "pass", "fail": "fail", "not-done": "not done",
                "blocked": "needs an unfinished task", "no-tests": "no tests"}


@dataclasses.dataclass
class SubmissionGrade:
    name: str
    scores: dict                # task id -> runner.TaskScore
    problems: list
    notes: list

    @property
    def total(self):
        return round(sum(s.points for s in self.scores.values()), 2)


@dataclasses.dataclass
class Job:
    submission: pathlib.Path
    tasks: tuple


class Grader:
    """Grades submissions of one course, for some tasks, against one solution copy."""

    def __init__(self, course, tasks, scratch, isolate=False):
        self.course = course
        self.tasks = tuple(tasks)
        self.scratch = pathlib.Path(scratch)
        self.isolate = isolate
        settings = course.settings
        self.options = runner.RunOptions(package=settings.package,
                                         test_timeout=settings.test_timeout,
                                         run_timeout=settings.run_timeout,
                                         memory_limit_mb=settings.memory_limit_mb)
        self.base = workspace.solution_copy(course, self.scratch / "solution")
        self.regions = regions_mod.by_task(regions_mod.scan(self.base, settings.sources))
        self._numbers = itertools.count(1)
        self.expected = self.collect_expected()

    def collect_expected(self):
        ids = [t.id for t in self.tasks]
        files = runner.task_test_files(self.base, self.course.settings.tests, ids)
        options = dataclasses.replace(self.options, collect_only=True)
        run = runner.run_tests(self.base, files, ids, options)
        if run.problems:
            raise CourseError("the instructor's tests do not load in the solution: "
                              + "; ".join(run.problems) + " (run python -m classroom selfcheck)")
        return run.collected

    def jobs_for(self, submission):
        if self.isolate:
            return [Job(submission, (task,)) for task in self.tasks]
        return [Job(submission, self.tasks)]

    def run(self, job, prepare=None, after=None):
        """Grade one job; ``prepare(workdir)`` replaces the usual way of putting the
        submission in (selfcheck uses it to plant wrong answers), and ``after(workdir)``
        is called once the tests ran, before the grading copy is removed (selfcheck runs
        a chapter's notebook there)."""
        run, notes = self.run_tests(job, prepare, after)
        ids = {t.id for t in job.tasks}
        expected = {n: t for n, t in self.expected.items() if set(t) & ids}
        scores = runner.score(job.tasks, expected, run, self.course.settings.scoring)
        return scores, run.problems, notes

    def run_tests(self, job, prepare=None, after=None):
        """``(runner.RunResult, notes)`` of one job's tests (see ``run``)."""
        workdir = self._new_workdir()
        notes = []
        try:
            workspace.copy_tree(self.base, workdir)
            if prepare is not None:
                prepare(workdir)
            elif self.isolate:
                notes += self._splice(workdir, job)
            else:
                workspace.overlay_submission(self.course, workdir, job.submission)
            ids = [t.id for t in job.tasks]
            files = runner.task_test_files(workdir, self.course.settings.tests, ids)
            run = runner.run_tests(workdir, files, ids, self.options)
            if after is not None:
                after(workdir)
            return run, notes
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def run_mutant(self, region, body, nodeids, task_ids):
        """Run the tests ``nodeids`` (of ``task_ids``) on the solution with ``region``'s
        body replaced by ``body`` (classroom.mutants)."""
        workdir = self._new_workdir()
        try:
            workspace.copy_tree(self.base, workdir)
            regions_mod.rewrite_regions(workdir, [region], lambda r, old: body)
            return runner.run_tests(workdir, list(nodeids), list(task_ids), self.options)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def _splice(self, workdir, job):
        task = job.tasks[0]
        missing = workspace.splice_task(workdir, job.submission, self.regions.get(task.id, []))
        if not missing:
            return []
        workspace.overlay_submission(self.course, workdir, job.submission)
        return [f"task {task.id}: its markers were not found in {', '.join(missing)}, so it "
                "was graded with the whole submission"]

    def _new_workdir(self):
        return self.scratch / f"run-{next(self._numbers)}"


def submissions_in(folder):
    folder = pathlib.Path(folder)
    if not folder.is_dir():
        raise CourseError(f"{folder} is not a folder: give the folder that holds one folder "
                          "per submission")
    found = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not found:
        raise CourseError(f"{folder} holds no submission folders")
    return found


def parse_shard(text):
    """``(I, N)`` from ``"I/N"`` (1 <= I <= N): the I-th of N slices of the submissions."""
    try:
        index, count = (int(part) for part in str(text).split("/"))
    except ValueError:
        index = count = 0
    if not 1 <= index <= count:
        raise CourseError(f"--shard takes I/N with 1 <= I <= N (say 2/3), not {text!r}")
    return index, count


def shard_of(submissions, shard):
    """The submissions of slice ``shard = (I, N)``: every N-th one of the sorted list,
    from the I-th on, so that the N slices together hold each submission once."""
    if shard is None:
        return list(submissions)
    index, count = shard
    return [s for number, s in enumerate(submissions) if number % count == index - 1]


def grade(course, submissions_dir, assignment=None, isolate=False, jobs=1, progress=True,
          shard=None):
    """Grade every submission folder (or one slice of them, ``shard = (I, N)``); returns
    ``[SubmissionGrade]`` sorted by name."""
    tasks = course.tasks_of(assignment)
    submissions = shard_of(submissions_in(submissions_dir), shard)
    if not submissions:
        return []
    with tempfile.TemporaryDirectory(prefix="classroom-grade-") as scratch:
        grader = Grader(course, tasks, scratch, isolate)
        work = [job for s in submissions for job in grader.jobs_for(s)]
        outcomes = run_jobs(grader, work, jobs, progress)
    return combine(submissions, work, outcomes, tasks)


def run_jobs(grader, work, jobs, progress):
    bar = _progress_bar(len(work), progress)
    outcomes = [None] * len(work)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(grader.run, job): index for index, job in enumerate(work)}
        for future in concurrent.futures.as_completed(futures):
            outcomes[futures[future]] = future.result()
            bar.update(1)
    bar.close()
    return outcomes


def _progress_bar(total, enabled):
    from tqdm import tqdm
    return tqdm(total=total, desc="grading", unit="run", disable=not enabled, leave=True)


def combine(submissions, work, outcomes, tasks):
    grades = {s: SubmissionGrade(s.name, {}, [], []) for s in submissions}
    for job, (scores, problems, notes) in zip(work, outcomes):
        grade = grades[job.submission]
        grade.scores.update(scores)
        grade.problems += [p for p in problems if p not in grade.problems]
        grade.notes += notes
    for grade in grades.values():
        grade.scores = {t.id: grade.scores[t.id] for t in tasks}
    return list(grades.values())


ID_COLUMN = "student_id"     # the submission folder's name: what an LMS matches rows by


def merge(csv_paths, out, feedback_dirs=(), feedback_out=None):
    """Join the CSV files (and feedback folders) of shards into one: the rows sorted by
    name, as one run over every submission writes them.  Returns the number of rows."""
    header, rows = None, {}
    for path in csv_paths:
        with open(path, newline="", encoding="utf-8") as handle:
            table = list(csv.reader(handle))
        if not table:
            raise CourseError(f"{path} is empty: was that shard graded?")
        if header is None:
            header = table[0]
        elif table[0] != header:
            raise CourseError(f"{path} has the columns {table[0]}, the first file "
                              f"{header}: merge the shards of one assignment only")
        for row in table[1:]:
            if row[0] in rows:
                raise CourseError(f"{row[0]} is in two shards' files ({path} and another): "
                                  "give each shard's CSV once")
            rows[row[0]] = row
    out = pathlib.Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows[name] for name in sorted(rows))
    if feedback_out is not None:
        target = pathlib.Path(feedback_out)
        target.mkdir(parents=True, exist_ok=True)
        for folder in feedback_dirs:
            for path in sorted(pathlib.Path(folder).glob("*.md")):
                shutil.copy2(path, target / path.name)
    return len(rows)


def points(value):
    return f"{round(value, 2):g}"


def write_csv(grades, tasks, path):
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow([ID_COLUMN, *[t.id for t in tasks], "total"])
        for grade in grades:
            writer.writerow([grade.name, *[points(grade.scores[t.id].points) for t in tasks],
                             points(grade.total)])


def feedback_text(grade, tasks, title):
    maximum = sum(t.points for t in tasks)
    lines = [f"# {title}: feedback for {grade.name}", "",
             f"**Total: {points(grade.total)} / {points(maximum)} points**", "",
             "| task | what | points | tests passed | result |",
             "| --- | --- | --- | --- | --- |"]
    for task in tasks:
        s = grade.scores[task.id]
        lines.append(f"| {task.id} | {task.title} | {points(s.points)} / {points(task.points)} | "
                     f"{s.passed}/{s.total} | {STATUS_WORDS[s.status]} |")
    failing = [grade.scores[t.id] for t in tasks if grade.scores[t.id].status != "pass"]
    if failing:
        lines += ["", "## What to look at", ""]
        for s in failing:
            name = runner.test_name(s.failing_test) if s.failing_test else ""
            test = f"{name}: " if runner.is_hidden(s.failing_test) else \
                f"`{name}`: " if name else ""
            lines.append(f"- **Task {s.task.id}** ({s.task.title}; chapter {s.task.chapter}, "
                         f"{s.task.section}): {test}{s.first_failure}")
    if grade.problems or grade.notes:
        lines += ["", "## Notes", ""] + [f"- {p}" for p in grade.problems + grade.notes]
    return "\n".join(lines) + "\n"


def write_feedback(grades, tasks, folder, title):
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for grade in grades:
        (folder / f"{grade.name}.md").write_text(feedback_text(grade, tasks, title),
                                                 encoding="utf-8")
