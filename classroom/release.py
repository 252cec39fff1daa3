"""``release``: write a student's repository for one assignment (or for all of them).

The student's copy is the instructor's repository without version control,
environments, build outputs, hidden tests, wrong answers and anything listed
in ``instructor_only``, in which

* every region of the assignment's tasks holds a stub that raises
  ``TaskNotDone("Task 4.2 (...) is not done yet: ...")`` between its markers, and
  so does every region of a later assignment (its message names the assignment);
  an earlier assignment's tasks stay solved, without their markers;
* notebooks lose their exercise solutions and any output that shows a
  released region (see ``classroom.notebooks``);
* the edits of ``[[release.replace]]`` are made (the book's ``_config.yml``
  stops executing notebooks, so the book builds from stored outputs while
  tasks are unfinished; ``make test`` checks notebooks without comparing
  outputs; an edit with ``when_stubbed`` only while its task is a stub);
* a ``conftest.py`` loads ``classroom.student_plugin`` (an unfinished task is
  one line of the test report, not a traceback per test), ``README.md`` is the
  student's, the original README is kept as ``README_BOOK.md``, and
  ``classroom/release.json`` records the assignment.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import subprocess

import nbformat

from classroom import notebooks, regions as regions_mod, similarity, workflow, workspace
from classroom.course import RELEASE_FILE, CourseError

STUDENT_CONFTEST = '''"""The student copy's pytest set-up: tests that reach an unfinished
classroom task are reported as one "not done yet" line per task
(classroom/student_plugin.py)."""

pytest_plugins = ["classroom.student_plugin"]
'''


@dataclasses.dataclass
class ReleaseReport:
    out: pathlib.Path
    assignment: str | None
    tasks: tuple
    stubbed_files: list
    notebooks_changed: list
    leaks: list

    def lines(self):
        name = self.assignment or "all assignments"
        yield f"Wrote the student repository for {name} to {self.out}"
        yield f"  {len(self.tasks)} tasks stubbed in {len(self.stubbed_files)} files: " + \
            ", ".join(t.id for t in self.tasks)
        if self.notebooks_changed:
            yield "  notebooks without solutions: " + ", ".join(self.notebooks_changed)
        for leak in self.leaks:
            yield f"  WARNING: {leak}"


def excluded_paths(course, out):
    """What never goes into a student's copy (relative to the course root)."""
    settings = course.settings
    paths = [settings.hidden_tests, settings.wrong_answers, RELEASE_FILE,
             *settings.instructor_only, "classroom/out", "bench/out",
             ".github"]       # the instructor's CI: a release gets its own workflow
    try:
        paths.append(pathlib.Path(out).resolve().relative_to(course.root).as_posix())
    except ValueError:
        pass
    return tuple(paths)


def release(course, out, assignment=None):
    out = pathlib.Path(out).resolve()
    if out.exists() and any(out.iterdir()):
        raise CourseError(f"{out} exists and is not empty: give a new folder, or delete it")
    if out == course.root:
        raise CourseError("the release cannot overwrite the course itself: give another folder")
    tasks = course.tasks_of(assignment)
    later = later_tasks(course, assignment)
    all_regions = regions_mod.scan(course.root, course.settings.sources)
    released = check_released_regions(course, tasks + later, all_regions)
    if out.exists():
        out.rmdir()
    workspace.copy_tree(course.root, out, excluded_paths(course, out))
    later_ids = {t.id for t in later}
    stubbed = sorted(regions_mod.stub_tasks(out, released, tasks + later, later_ids))
    # Stubbing changed line numbers: find the solved regions again in the copy (a file may
    # hold regions of this assignment and of earlier ones).
    released_ids = {r.task for r in released}
    regions_mod.unmark(out, [r for r in regions_mod.scan(out, course.settings.sources)
                             if r.task not in released_ids])
    check_python_compiles(out, stubbed)
    solved_ids = {r.task for r in all_regions} - {r.task for r in released}
    finder = solution_finder(course, released, all_regions)
    stubbed_ids = {t.id for t in tasks + later}
    changed_notebooks = scrub_notebooks(course, out, released, tasks + later, later_ids,
                                        solved_ids, finder,
                                        printed_code_edits(course, stubbed_ids))
    noted = note_later_stops(course, out, assignment, tasks, {t.id for t in tasks + later})
    changed_notebooks += [page for page in noted if page not in changed_notebooks]
    apply_replacements(course, out, stubbed_ids)
    write_student_files(course, out, assignment, tasks)
    leaks = find_leaks(out, course, released) + copies_in(out, finder)
    return ReleaseReport(out, assignment, tasks, stubbed, changed_notebooks, leaks)


def later_tasks(course, assignment):
    """The tasks of the assignments after ``assignment``: a release stubs them too, so
    it holds no solution of a later assignment (none when every task is released)."""
    if assignment is None:
        return ()
    names = [a.name for a in course.assignments]
    after = set(names[names.index(course.assignment(assignment).name) + 1:])
    return tuple(t for t in course.tasks if t.assignment in after)


def check_released_regions(course, tasks, all_regions):
    known = {t.id for t in course.tasks}
    strays = sorted({r.task for r in all_regions} - known)
    if strays:
        where = [r.where() for r in all_regions if r.task in strays][:3]
        raise CourseError(f"regions are marked for tasks {strays} that classroom/tasks.toml "
                          f"does not list (at {'; '.join(where)}): add the tasks, or fix the ids")
    grouped = regions_mod.by_task(all_regions)
    missing = [t.id for t in tasks if t.id not in grouped]
    if missing:
        raise CourseError(f"tasks {missing} have no region in {list(course.settings.sources)}: "
                          "mark each with ### BEGIN SOLUTION <id> / ### END SOLUTION <id>")
    ids = {t.id for t in tasks}
    return [r for r in all_regions if r.task in ids]


def check_python_compiles(out, relpaths):
    for relpath in relpaths:
        if not relpath.endswith(".py"):
            continue
        path = out / relpath
        try:
            compile(path.read_text(encoding="utf-8"), str(path), "exec")
        except SyntaxError as error:
            raise CourseError(f"{relpath} does not compile once its regions are stubbed "
                              f"(line {error.lineno}: {error.msg}): a region must hold whole "
                              "statements, indented like its markers") from None


def _solution_bodies(course, released):
    bodies = {}
    for region in released:
        source = regions_mod.open_source(course.root / region.path)
        bodies[region] = regions_mod.body(source.blocks[region.cell], region.begin, region.end)
    return bodies


def scrub_notebooks(course, out, released, tasks, later_ids=(), solved_ids=(), finder=None,
                    code_edits=()):
    """Solutions out of every notebook and markdown page of the sources; outputs that
    show a released region re-rendered or cleared, outputs that print code a
    ``[[release.replace]]`` edits (``code_edits``, see ``printed_code_edits``) shown
    edited, and outputs that show a region under other names (found by ``finder``, see
    ``solution_finder``) replaced by a sentence.  Returns the changed notebooks."""
    by_id = {t.id: t for t in tasks}
    bodies = _solution_bodies(course, released)
    replacements = [(old, regions_mod.stub_lines(
                        by_id[r.task], r.indent, later=r.task in later_ids,
                        function=regions_mod.function_of(course.root, r)))
                    for r, old in bodies.items()] + list(code_edits)
    distinctive = [d for d in (notebooks.distinctive_lines(b) for b in bodies.values()) if d]
    region_cells = {}
    for region in released:
        if region.cell is not None:
            region_cells.setdefault(region.path, set()).add(region.cell)
    changed = []
    for path in regions_mod.source_files(out, course.settings.sources):
        if path.suffix == ".ipynb":
            relpath = path.relative_to(out).as_posix()
            if _scrub_notebook(path, region_cells.get(relpath, set()), replacements,
                               distinctive, solved_ids, finder):
                changed.append(relpath)
    for folder in course.settings.sources:
        for path in sorted((out / folder).rglob("*.md")) if (out / folder).is_dir() else ():
            text = path.read_text(encoding="utf-8")
            new, _ = notebooks.strip_solution_text(text)
            if new != text:
                path.write_text(new, encoding="utf-8")
    return changed


NOTE_TAG = "classroom-note"


def note_later_stops(course, out, assignment, tasks, stubbed_ids):
    """A note at the top of each page of the assignment's tasks, and of each other page
    that stops at a task's stub: the page's own tasks (``tasks`` whose ``file`` it is,
    whose cells stop until they are written) and the others it stops at until they are
    written (each own task's ``page_stops_at``, which selfcheck's walk checks, and the
    assignment's ``stops_before_done``, for any page of its chapters, which selfcheck
    checks too); and where it still stops with the whole assignment written, at which
    later assignments' tasks (the assignment's ``stops_when_done``, checked too); and
    that such a stop is expected, so that a student reading the page is not misled by
    an error about another task.  Returns the changed pages."""
    if not assignment:
        return []
    by_id = {t.id: t for t in course.tasks}
    order = [t.id for t in course.tasks]
    this = course.assignment(assignment)
    own, stops = {}, {}
    for task in tasks:
        for page in _notebooks_of(task):
            own.setdefault(page, []).append(task.id)
            stop = task.page_stops_at
            if stop in stubbed_ids and not (this.stop_of(page) and
                                            by_id[stop].assignment != assignment):
                stops.setdefault(page, set()).add(stop)
    for early in this.stops_before_done:
        stops.setdefault(early.page, set()).update(t for t in early.tasks if t in stubbed_ids)
    for stop in this.stops_when_done:
        stops.setdefault(stop.page, set())
    for page in own:
        stops.setdefault(page, set())
    changed = []
    for page, stopped in stops.items():
        path = out / page
        done = this.stop_of(page)
        if not path.is_file() or not (stopped or done or own.get(page)):
            continue
        explained = [t.id for t in tasks if page not in _notebooks_of(t) and any(
            place.file == page for place in t.region_sections)]
        notebook = nbformat.read(path, as_version=4)
        cell = nbformat.v4.new_markdown_cell(later_stops_note(
            [i for i in own.get(page, []) if i not in stopped],
            [by_id[i] for i in sorted(stopped, key=order.index)],
            assignment, done and (done.section, [by_id[i] for i in done.tasks]),
            explained=explained, order=order, on_page=own.get(page, ())))
        cell.metadata["tags"] = [NOTE_TAG]
        at = 1 if notebook.cells and notebook.cells[0].cell_type == "markdown" else 0
        notebook.cells.insert(at, cell)
        nbformat.write(notebook, path)
        changed.append(page)
    return changed


def later_stops_note(own_ids, stops, assignment, when_done=None, explained=(), order=(),
                     on_page=()):
    """The note's words: the page's own tasks, the others its cells stop at until they
    are written, and ``when_done``: ``(section, tasks)`` where the page still stops with
    the whole assignment written, and every later assignment's task it then reaches.
    ``explained``: tasks (not the page's own) that the page explains part of;
    ``order``: the syllabus' task ids (to say whether a task comes after the page's);
    ``on_page``: tasks written on this page (a stop at one of them says so)."""
    def name(task):
        place = order.index(task.id) if order and own_ids else None
        when = ("" if place is None else "later " if place > max(map(order.index, own_ids))
                else "earlier " if place < min(map(order.index, own_ids)) else "")
        when = (when + "in this assignment" if task.assignment == assignment else
                f"with assignment {task.assignment}")
        if task.id in on_page and task.id not in own_ids:
            when += ", further down this page"
        title = task.title.replace("_", "\\_").replace("*", "\\*")   # markdown's emphasis
        return f"task {task.id} ({title}), which comes {when}"

    several = len(own_ids) > 1
    yours = f"task{'s' if several else ''} {_and(own_ids)}" if own_ids else ""
    if own_ids:
        check = (f"That is expected, and no sign of a mistake in {yours}: `make check "
                 f"TASKS=\"{' '.join(own_ids)}\"` checks {'them' if several else 'it'}.")
        explains = f"this page explains {yours}"
    else:
        ids = [t.id for t in stops]
        check = (f"That is expected: `make check TASKS=\"{' '.join(ids)}\"` checks "
                 f"{'those tasks' if len(ids) > 1 else 'that task'} once you have written "
                 f"{'them' if len(ids) > 1 else 'it'}.")
        explains = ("this page explains part of " + _and([f"task {i}" for i in explained])
                    if explained else "this page has no task of its own")
    text = f"**In your copy of the course** (assignment {assignment}): {explains}"
    if stops:
        first = stops[0]
        ran = ("that task's code" if len(stops) == 1 else "those tasks' code") \
            if {t.id for t in stops} <= set(explained) and not own_ids else "; then of ".join(
                "code of " * (i == 0) + name(t) for i, t in enumerate(stops))
        text += ((", and some of its cells run " if own_ids or explained else
                  ", but some of its cells run ") + ran + ". Until that code is "
                 f"written, the first cell that needs it stops with `TaskNotDone: Task "
                 f"{first.id} ({first.title}) is not done yet` (and the cells after it may "
                 "stop too). " + check + " The page runs further as "
                 + ("those tasks are" if len(stops) > 1 else "that task is") + " done."
                 + (f" Cells that run the code of {yours} stop the same way until you "
                    f"write {'them' if several else 'it'}." if own_ids else ""))
    elif when_done:
        text += ". "
    else:
        it = "them" if several else "it"
        its, each = ("their", "each") if several else ("its", "the")
        text += (f". Until you write {it}, the cells that run {its} code stop with a "
                 "`TaskNotDone` error that names the task (and the cells after them may "
                 f"stop too): that is where {each} task starts, not a fault. `make check "
                 f"TASKS=\"{' '.join(own_ids)}\"` checks {it}; the page runs further as you "
                 f"write {it}.")
    if when_done:
        section, later = when_done
        text += ((" " if stops else "") + "With every task of this assignment written, the "
                 f"page still stops in section \u201c{section}\u201d, at a cell that runs "
                 f"code of {name(later[0])}.")
        if later[1:]:
            groups = {}
            for task in later[1:]:
                groups.setdefault(task.assignment, []).append(task.id)
            text += (" From there on, its cells also run code of tasks " + _and(
                [f"{_and(ids)} ({name})" for name, ids in groups.items()]) + ".")
        text += " Those cells run as you do those assignments." + ("" if stops else
                                                                    " " + check)
    return text


def _and(items):
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _notebooks_of(task):
    return [f for f in str(task.file).replace(",", " ").split() if f.endswith(".ipynb")]


def _scrub_notebook(path, stubbed_cells, replacements, distinctive, solved_ids=(),
                    finder=None):
    notebook = nbformat.read(path, as_version=4)
    before = nbformat.writes(notebook)
    for index in stubbed_cells:            # (indices are from before solutions are removed)
        notebooks.clear_outputs(notebook.cells[index])
    notebooks.strip_solutions(notebook)
    notebooks.rerender_outputs(notebook, replacements)
    notebooks.clear_leaking_outputs(notebook, distinctive)
    if finder is not None:
        notebooks.replace_copied_outputs(notebook, finder)
    notebooks.drop_marker_lines(notebook, set(solved_ids))
    if nbformat.writes(notebook) == before:
        return False
    nbformat.write(notebook, path)
    return True


def apply_replacements(course, out, stubbed_ids):
    """Make the ``[[release.replace]]`` edits in the copy ``out`` whose tasks stub
    ``stubbed_ids`` (an edit with ``when_stubbed`` only when its task is one of them)."""
    for edit in replacements_for(course, stubbed_ids):
        path = out / edit.path
        if not path.is_file():
            raise CourseError(f"[[release.replace]] edits {edit.path}, which the release "
                              "does not have: fix the path in classroom/tasks.toml")
        path.write_text(edited_text(edit, path.read_text(encoding="utf-8")),
                        encoding="utf-8")


def edited_text(edit, text):
    """``text`` (of ``edit.path``) with the ``[[release.replace]]`` edit made."""
    return text.replace(edited_span(edit, text), edit.new)


def edited_span(edit, text):
    """The part of ``text`` (of ``edit.path``) that the edit replaces."""
    fix = "update the entry in classroom/tasks.toml to match the file"
    if edit.old:
        if edit.old not in text:
            raise CourseError(f"[[release.replace]] looks for {edit.old!r} in {edit.path} "
                              f"and does not find it: {fix}")
        return edit.old
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if edit.start in line]
    if len(starts) != 1:
        raise CourseError(f"[[release.replace]] looks for one line holding {edit.start!r} in "
                          f"{edit.path} and finds {len(starts)}: {fix}")
    ends = [i for i in range(starts[0] + 1, len(lines)) if edit.until in lines[i]]
    if not ends:
        raise CourseError(f"[[release.replace]] looks for a line holding {edit.until!r} after "
                          f"{edit.start!r} in {edit.path} and finds none: {fix}")
    return "".join(lines[starts[0]:ends[0]])


def printed_code_edits(course, stubbed_ids):
    """``(old lines, new lines)`` of each ``[[release.replace]]`` edit of a Python file:
    a notebook output that prints the code (``show_source``) shows it edited, as the
    release's code is."""
    pairs = []
    for edit in replacements_for(course, stubbed_ids):
        path = course.root / edit.path
        if path.suffix == ".py" and path.is_file():
            old = edited_span(edit, path.read_text(encoding="utf-8"))
            pairs.append((old.splitlines(keepends=True), edit.new.splitlines(keepends=True)))
    return pairs


def replacements_for(course, stubbed_ids):
    """The ``[[release.replace]]`` edits of a release that stubs ``stubbed_ids``."""
    return [edit for edit in course.replacements
            if not edit.when_stubbed or edit.when_stubbed in stubbed_ids]


def write_student_files(course, out, assignment, tasks):
    readme = out / "README.md"
    if readme.exists():
        readme.rename(out / "README_BOOK.md")
    readme.write_text(student_readme(course, assignment, tasks), encoding="utf-8")
    conftest = out / "conftest.py"
    if conftest.exists():
        conftest.write_text(conftest.read_text(encoding="utf-8") + "\n" + STUDENT_CONFTEST,
                            encoding="utf-8")
    else:
        conftest.write_text(STUDENT_CONFTEST, encoding="utf-8")
    workflow.write(out, tasks)
    grouped = regions_mod.by_task(regions_mod.scan(course.root, course.settings.sources))
    record = {"assignment": assignment, "tasks": [t.id for t in tasks],
              "later_tasks": [t.id for t in later_tasks(course, assignment)],
              "source_commit": _commit(course.root),
              # what `tasks` reports in the copy, where the regions hold stubs
              "lines": {t.id: regions_mod.code_lines(course.root, grouped.get(t.id, []))
                        for t in course.tasks}}
    (out / RELEASE_FILE).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


def _commit(root):
    try:
        done = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"],
                              capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def task_files(course, tasks):
    """``{task id: [path, ...]}``: the files a task's regions are in (modules of the
    package, or a chapter's notebook), in order, for the student's README."""
    found = regions_mod.by_task(regions_mod.scan(course.root, course.settings.sources))
    return {t.id: list(dict.fromkeys(r.path for r in found.get(t.id, []))) for t in tasks}


def _page_order_note(tasks):
    """A sentence naming the tasks that the table lists after a task of a later page (the
    syllabus order: see book/teaching.md), or "" when the table follows the pages."""
    late, last_page = [], ""
    for task in tasks:
        page = task.file if task.file.endswith(".ipynb") else ""
        if page and page < last_page:
            late.append(f"{task.id} ({pathlib.PurePosixPath(page).stem})")
        last_page = max(last_page, page)
    if not late:
        return ""
    names = ", ".join(late[:-1]) + " and " + late[-1] if len(late) > 1 else late[0]
    return (f" That is not always the pages' order: {names} come"
            f"{'s' if len(late) == 1 else ''} after tasks of later pages (column *needs* "
            "says which tasks each one's tests run). Read the pages in the book's order, "
            "and write each task when the table comes to it.")


def _where_read(task):
    pages = [pathlib.PurePosixPath(f).name for f in str(task.file or "").replace(",", " ").split()]
    return f"{task.chapter}{' (' + _code_list(pages) + ')' if pages else ''}, {task.section}"


def _code_list(paths):
    return ", ".join(f"`{path}`" for path in paths) or "-"


def _points(value):
    return f"{value:g}"


def student_readme(course, assignment, tasks):
    if assignment:
        title = course.assignment(assignment).title
        heading = f"{course.settings.name}: {title} (assignment {assignment})"
    else:
        heading = f"{course.settings.name}: every assignment"
    places = task_files(course, tasks)
    rows = "\n".join(f"| {t.id} | {t.title} | {_code_list(places[t.id])} | {_where_read(t)} | "
                     f"{_points(t.points)} | {', '.join(t.depends_on) or '-'} |" for t in tasks)
    notebook_tasks = [t.id for t in tasks if any(f.endswith(".ipynb") for f in places[t.id])]
    total = _points(sum(t.points for t in tasks))
    package = course.settings.package
    graded_paths = "`, `".join(course.settings.student_paths)
    example = tasks[0] if tasks else course.tasks[0] if course.tasks else None
    marker = example.id if example else "4.2"
    stub = "".join(regions_mod.stub_lines(example, "    ")) if example else \
        "    raise TaskNotDone(...)\n"
    notebook_note = "" if not notebook_tasks else (
        f"\n**Task{'s' if len(notebook_tasks) > 1 else ''} {', '.join(notebook_tasks)} "
        f"{'are' if len(notebook_tasks) > 1 else 'is'} written in a notebook** (the column "
        "*you edit* below): `make lab` runs `make setup` the first time, then opens the "
        "notebooks in JupyterLab, where you edit the marked cell, save, and run `make check` "
        "as for the other tasks. Any editor that opens notebooks works as well.\n")
    return f"""# {heading}

This repository is your copy of the course. Some of `{package}`'s code is missing: each
missing piece is a *task*, marked in the source like this:

```python
    ### BEGIN SOLUTION {marker}
{stub}    ### END SOLUTION {marker}
```

Replace the stub (the import and the `raise`) with your code, **between the two marker
lines**, and keep the markers: grading finds your code by them. Keep all of a task's code
between its markers (a helper you need goes there too). The stub's message names the
chapter, its notebook and the section that explains what the code has to do. (`TaskNotDone` is not an
`Exception`: no `except Exception` in the tests or in your code catches it by accident.)

## Getting started

You need Python 3.10 or newer and `make`. In this folder:

```bash
make setup-check     # 1 to 3 minutes: .venv with only what `check` needs
make check           # one line per task of this assignment
```

On a fresh copy every task says `not done`: that is where each task starts, not an error,
and `make check` then ends with a note and exit status 0. It exits 1 (make's `Error 1`)
when a task FAILs. `python -m classroom check`, what your CI runs, exits 0 only when
every task checked passes (3 when nothing failed but some are not done yet).

`make setup-check` installs `requirements-check.txt` (numpy, pytest, hypothesis, the
notebook reader and the few packages the chapters' code imports), exactly what your
repository's CI installs. To read and run the book's pages (`make lab`, or
`.venv/bin/jupyter nbconvert --to markdown book/NAME.ipynb` for a page as text), build the
book or run `make test`, run `make setup` once (Jupyter, the book's build tools, Graphviz;
a few minutes); `make test`, `make book` and `make lab` run it themselves when it has not
been done. Without `make`:

```bash
python3 -m venv .venv
.venv/bin/python -m pip install -r requirements-check.txt
.venv/bin/python -m classroom check
```
{notebook_note}
## Your tasks ({total} points)

| task | what | you edit | chapter (page), section | points | needs |
| --- | --- | --- | --- | --- | --- |
{rows}

Do them in this order (the course's syllabus): each task's tests run only its own code
and that of the tasks above it, so a task passes as soon as it and the ones above it are
written.{_page_order_note(tasks)} The tasks of later assignments are stubs too, until their
own release; a test that reaches one says so ("... it comes with assignment ...").

## Checking your work

```bash
make check                    # every task of this assignment, one line each
make check TASKS="{marker}"        # just one (or several: TASKS="4.1 4.2")
.venv/bin/python -m classroom check -v {marker}    # with pytest's whole output
```

From a notebook cell: `from classroom import check; check("{marker}")`.
Each task gets one line: `pass`, `not done`, `waiting` (your code passes, but a task above
it is not done yet), or `FAIL` with the first failing test in plain words, followed by
what that test compared (the expected and the actual values). `check -v` adds pytest's
whole report, every traceback and every diff in full. The tests are in `tests/`; read
them when a message is not enough. Grading runs the instructor's copy of these tests, and
some more: passing `check` is a very good sign, not a promise.

## The other commands

- `make test` runs all the tests and every notebook (5 to 10 minutes on two cores: more
  of the pages run as more of the course is written), without comparing the notebooks'
  printed outputs with the book's (your correct code may print other digits); tests that
  reach an unfinished task are reported as one `not done yet` line per task (skipped,
  not failed). `make check` is the quick one.
- One page alone: run pytest with the thread limits `make test` sets (without them,
  numpy's BLAS threads may fight over the cores and slow a page such as 17_gpt a lot):
  `OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
  .venv/bin/python -m pytest book/17_gpt.ipynb --nbval-lax`.
- `make book` builds the book into `_build/html` from the notebooks' stored outputs (it
  does not run your code, so it builds while tasks are unfinished).
- `make lab` opens the notebooks in JupyterLab.

`README_BOOK.md` is the book's own README: more on the environment and the notebooks.

## Your repository checks itself

Every push to your repository on GitHub runs `.github/workflows/classroom.yml`: it
installs `requirements-check.txt`, then runs one step per task,
`python -m classroom check <task>`, worth the task's points when the task passes in full.
The results are in your repository's **Actions** tab (open the latest run: the summary
lists each task and the points). With GitHub Classroom, your instructor sees the same
points.

## Reading PyTorch

`{package}` keeps PyTorch's names and behaviour, so PyTorch's own source (its
`nn.Module`, its optimizers...) is close to the answers of several tasks. For this course
you may run PyTorch to compare what your code does with what it does, and read its
documentation; do not read or copy its source code (or another student's) for your tasks.
Write them from the book, the stubs' docstrings and the tests.

## Handing in

Hand in this whole folder (or push it to your repository), as your instructor says.
Only `{graded_paths}` are taken from your copy when grading;
changes to the tests or the tools are not.
"""


def solution_finder(course, released, all_regions):
    """A ``similarity.Finder`` for the solutions of the ``released`` regions, with the
    course's own code outside every region (the package and the public tests) as what
    counts as an idiom."""
    bodies = _solution_bodies(course, released)
    solutions = [similarity.Solution(r.task, r.where(), similarity.normalise("".join(b)))
                 for r, b in bodies.items()]
    return similarity.Finder(solutions, _code_outside_regions(course, all_regions))


def _code_outside_regions(course, all_regions):
    """``Tokens`` of each Python file of the package and the public tests, without the
    lines of its regions."""
    inside = {}
    for region in all_regions:
        if region.cell is None:
            inside.setdefault(region.path, set()).update(range(region.begin, region.end + 1))
    left_out = tuple(course.settings.instructor_only) + (course.settings.hidden_tests,)
    found = []
    for folder in (course.settings.package, *course.settings.tests):
        for path in sorted((course.root / folder).rglob("*.py")):
            relpath = path.relative_to(course.root).as_posix()
            if any(relpath == p or relpath.startswith(p.rstrip("/") + "/") for p in left_out):
                continue
            skip = inside.get(relpath, set())
            lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
            found.append(similarity.normalise(
                "".join(line for i, line in enumerate(lines) if i not in skip)))
    return found


def copies_in(out, finder):
    """Where the files of the student's copy ``out`` show a stubbed task's solution, also
    under other names (``classroom.similarity``): one sentence each."""
    found = []
    for path in _text_files(out):
        relpath = path.relative_to(out).as_posix()
        for where, text, markup in _shown_parts(path):
            for match in finder.matches(similarity.normalise(text, markup=markup)):
                found.append(f"{relpath}{where}: {match.describe()}")
    return found


def _shown_parts(path):
    """``[(where, text, is markup)]``: a file's text, or a notebook's cells' sources and
    text outputs."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix != ".ipynb":
        return [("", text, path.suffix == ".html")]
    notebook = nbformat.reads(text, as_version=4)
    return [(f" cell {index} ({kind})", part, markup)
            for index, cell in enumerate(notebook.cells)
            for kind, part, markup in notebooks.shown_texts(cell)]


def find_leaks(out, course, released):
    """Files of the student's copy that still show a released region's lines."""
    bodies = _solution_bodies(course, released)
    found = []
    for region, body in bodies.items():
        distinctive = notebooks.distinctive_lines(body)
        if not distinctive:
            continue
        for path in _text_files(out):
            if _file_leaks(path, distinctive):
                found.append(f"{path.relative_to(out).as_posix()} shows lines of the solution "
                             f"of task {region.task} ({region.where()})")
    return sorted(set(found))


def _text_files(out):
    for path in sorted(out.rglob("*")):
        if path.is_file() and path.suffix in (".py", ".ipynb", ".md", ".txt", ".html", ".toml",
                                               ".json", ".yml", ".rst"):
            if not any(p.startswith(".") for p in path.relative_to(out).parts):
                yield path


def _file_leaks(path, distinctive):
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix != ".ipynb":
        return notebooks.leaks(text, distinctive)
    notebook = nbformat.reads(text, as_version=4)
    for cell in notebook.cells:
        outputs = "\n".join(notebooks._get(h, k) for h, k in notebooks.output_texts(cell))
        if notebooks.leaks(cell.source, distinctive) or notebooks.leaks(outputs, distinctive):
            return True
    return False


# A line this short, or one of these, is common code: it says nothing of a solution.
# (The last five: how any code walks a graph through PyTorch's ``next_functions``, as
# chapter 4's toy walks and drawings do, and a notebook's printed error.)
_COMMON_LINES = {"else:", "try:", "continue", "break", "return", "pass", "return None",
                 "return False", "return True", "finally:", "raise",
                 "for child, _ in node.next_functions:", "if child is not None:",
                 "stack.append(child)", "if grad is None:", "except Exception as error:"}
MIN_SOLUTION_LINE = 16


def solution_lines_in(out, course):
    """Where a release shows a line of the solution of a task it stubs (its own tasks and
    the later assignments'), or a marker of a region it left solved.  A line counts when
    it is not common code: not in ``_COMMON_LINES``, at least ``MIN_SOLUTION_LINE``
    characters, found nowhere in the package's source outside the regions, and not an
    idiom that several other files of the course use (a chapter quoting a solution is
    one place; ``if ctx.needs_input_grad[0]:`` in three is the way Functions read)."""
    record = json.loads((out / RELEASE_FILE).read_text(encoding="utf-8"))
    stubbed = set(record.get("tasks") or ()) | set(record.get("later_tasks") or ())
    all_regions = regions_mod.scan(course.root, course.settings.sources)
    outside = _lines_outside_regions(course, all_regions) | _idioms(out)
    wanted = {}
    for region, body in _solution_bodies(course, [r for r in all_regions
                                                  if r.task in stubbed]).items():
        for line in notebooks.distinctive_lines(body):
            if len(line) >= MIN_SOLUTION_LINE and line not in _COMMON_LINES \
                    and line not in outside:
                wanted.setdefault(line, region.task)
    sources = set(regions_mod.source_files(out, course.settings.sources))
    found = []
    for path in _text_files(out):
        relpath = path.relative_to(out).as_posix()
        for number, line in enumerate(_shown_lines(path), 1):
            task = wanted.get(line)
            if task is not None:
                found.append(f"{relpath} shows a line of task {task}'s solution: {line!r}")
                break
            match = regions_mod._MARKER.match(line) if path in sources else None
            if match and match["kind"] == "BEGIN" and match["rest"].strip() not in stubbed:
                found.append(f"{relpath} still marks the solved region of task "
                             f"{match['rest'].strip()}")
                break
    return found


def _idioms(out, places=3):
    """Stripped lines that ``places`` or more files of the release show."""
    seen = {}
    for path in _text_files(out):
        for line in set(_shown_lines(path)):
            seen[line] = seen.get(line, 0) + 1
    return {line for line, count in seen.items() if count >= places}


def _lines_outside_regions(course, all_regions):
    """Stripped lines of the package's Python files that are outside every region."""
    inside = {}
    for region in all_regions:
        inside.setdefault(region.path, []).append(region)
    lines = set()
    package = course.root / course.settings.package
    for path in sorted(package.rglob("*.py")):
        relpath = path.relative_to(course.root).as_posix()
        text = path.read_text(encoding="utf-8").splitlines()
        skip = set()
        for region in inside.get(relpath, ()):
            if region.cell is None:
                skip.update(range(region.begin, region.end + 1))
        lines.update(line.strip() for i, line in enumerate(text) if i not in skip)
    return lines


def _shown_lines(path):
    """The stripped lines a file shows: a notebook's cell sources and text outputs."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".ipynb":
        notebook = nbformat.reads(text, as_version=4)
        parts = []
        for cell in notebook.cells:
            parts.append(cell.source)
            parts += [notebooks._get(h, k) for h, k in notebooks.output_texts(cell)]
        text = "\n".join(parts)
    return [line.strip() for line in text.splitlines()]
