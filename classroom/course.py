"""The course description: ``classroom/tasks.toml`` read into plain objects.

A course has settings (``[course]``: the package students write, where solution
regions are marked, where the tests are, time limits), an ordered list of
assignments (``[[assignment]]``: one release each) and the tasks
(``[[task]]``: one region or a few that a student writes, graded by the tests
marked ``@pytest.mark.task("<id>")``).  Everything else in the tool takes a
``Course`` and never reads the TOML itself, so a mistake in the file is
reported once, here, with what to change.
"""

from __future__ import annotations

import dataclasses
import pathlib
try:
    import tomllib                      # Python 3.11 and later
except ModuleNotFoundError:             # Python 3.10: the same parser, as a package
    try:
        import tomli as tomllib
    except ModuleNotFoundError:         # said in plain words when the course is loaded
        tomllib = None

TASKS_FILE = "classroom/tasks.toml"
# Written into a student copy by `release`: which assignment it holds.
RELEASE_FILE = "classroom/release.json"


class CourseError(Exception):
    """tasks.toml (or the course's files) are not as the tool needs them."""


@dataclasses.dataclass(frozen=True)
class Task:
    id: str
    title: str
    chapter: int
    section: str
    points: float
    assignment: str
    depends_on: tuple[str, ...] = ()   # `needs` in tasks.toml: derived by selfcheck
    file: str = ""              # the chapter's notebook, e.g. book/04_autograd_graph.ipynb
    kind: str = "warm-up"       # "build": a whole component; "warm-up": a small part of one
    # The later task at whose stub this task's page (``file``) stops once this task and the
    # ones before it are written (selfcheck's walk checks it; a release says it on the page).
    page_stops_at: str = ""
    # Where the regions in some functions are explained, when not in ``section``
    # (``[[region_section]]`` in tasks.toml).
    region_sections: tuple[RegionSection, ...] = ()

    @property
    def notebooks(self):
        """The notebooks of ``file`` (one, or several separated by commas or spaces)."""
        return [f for f in self.file.replace(",", " ").split() if f.endswith(".ipynb")]

    def explained_in(self, function=""):
        """``(chapter, file, section)`` that explains the region in ``function`` (its
        qualified name, e.g. ``Node._apply``): the task's own unless a region_section
        names that function."""
        for place in self.region_sections:
            if function and function in place.functions:
                return place.chapter, place.file, place.section
        return self.chapter, self.file, self.section

    def stub_message(self, later=False, function=""):
        """What the student's copy raises until the task is done, one sentence (what
        ``check`` and the student plugin recognise: ``Task <id> (<title>) is not done
        yet``).  ``later``: the task belongs to a later assignment than the copy's;
        ``function``: the one holding the region (see ``explained_in``)."""
        if later:
            return (f"Task {self.id} ({self.title}) is not done yet: it comes with "
                    f"assignment {self.assignment}, in chapter {self.chapter}.")
        chapter, file, section = self.explained_in(function)
        where = f" ({file})" if file else ""
        return (f"Task {self.id} ({self.title}) is not done yet: write it between its "
                f"markers, as chapter {chapter}{where}, section “{section}”, "
                f"explains, and check it with python -m classroom check {self.id}.")


@dataclasses.dataclass(frozen=True)
class RegionSection:
    """The section that explains a task's regions in some of its functions, when the
    task's own section does not (a build task spread over a chapter's pages)."""
    task: str
    functions: tuple[str, ...]
    chapter: int
    file: str
    section: str


def toml_files(course, folder):
    """``(relpath, data)`` for each ``*.toml`` file of the course's ``folder``, in name
    order (none when there is no such folder): the wrong answers and the alternative
    answers are kept this way.  A file that is not valid TOML is a CourseError."""
    folder = course.root / folder
    for path in sorted(folder.glob("*.toml")) if folder.is_dir() else ():
        relpath = path.relative_to(course.root).as_posix()
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as error:
            raise CourseError(f"{relpath} is not valid TOML: {error}") from None
        yield relpath, data


@dataclasses.dataclass(frozen=True)
class PageStop:
    """A page of an assignment that, with every task of the assignment written, still
    stops at later assignments' stubs: the section holding the first cell that stops,
    and every later task the page reaches, in the order its cells meet them (checked by
    selfcheck; a release notes it at the top of the page)."""
    page: str
    section: str
    tasks: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class EarlyStop:
    """A page that stops at tasks of its assignment other than its own (the tasks whose
    ``file`` it is; a page of the assignment's chapters may have none) until they are
    written: those tasks, in the order a student meets them writing the assignment in
    the syllabus' order (checked by selfcheck; a release notes it at the top of the
    page)."""
    page: str
    tasks: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Assignment:
    name: str
    title: str
    chapters: tuple[int, ...] = ()
    stops_when_done: tuple[PageStop, ...] = ()
    stops_before_done: tuple[EarlyStop, ...] = ()

    def stop_of(self, page):
        """The ``PageStop`` of ``page`` (None when the page runs to its end)."""
        return next((s for s in self.stops_when_done if s.page == page), None)

    def early_stops_of(self, page):
        """The tasks of this assignment, not the page's own, that ``page`` stops at until
        they are written (``stops_before_done``; none when it names no such task)."""
        return next((s.tasks for s in self.stops_before_done if s.page == page), ())


@dataclasses.dataclass(frozen=True)
class Replacement:
    """A textual edit `release` makes in the student copy (e.g. in _config.yml): ``old``
    becomes ``new``; or, when ``old`` would show code a release must not (tasks.toml is
    in every release), the lines from the one holding ``start`` up to the one holding
    ``until`` (kept).  With ``when_stubbed``, only in a copy where that task is a stub
    (given code that would show the task's answer, written otherwise meanwhile)."""
    path: str
    new: str
    old: str = ""
    why: str = ""
    when_stubbed: str = ""
    start: str = ""
    until: str = ""


@dataclasses.dataclass(frozen=True)
class Settings:
    name: str = "course"
    package: str = "minitorch"
    sources: tuple[str, ...] = ("minitorch",)
    tests: tuple[str, ...] = ("tests",)
    hidden_tests: str = "classroom/hidden_tests"
    wrong_answers: str = "classroom/wrong_answers"
    student_paths: tuple[str, ...] = ("minitorch",)
    instructor_only: tuple[str, ...] = ()
    test_timeout: float = 30.0
    run_timeout: float = 1200.0
    memory_limit_mb: int = 4096
    scoring: str = "proportional"


@dataclasses.dataclass(frozen=True)
class Course:
    root: pathlib.Path
    settings: Settings
    assignments: tuple[Assignment, ...]
    tasks: tuple[Task, ...]
    replacements: tuple[Replacement, ...] = ()

    def task(self, task_id):
        for task in self.tasks:
            if task.id == task_id:
                return task
        known = ", ".join(t.id for t in self.tasks)
        raise CourseError(f"there is no task {task_id!r} in {TASKS_FILE} (tasks: {known})")

    def assignment(self, name):
        for assignment in self.assignments:
            if assignment.name == name:
                return assignment
        known = ", ".join(a.name for a in self.assignments)
        raise CourseError(f"there is no assignment {name!r} in {TASKS_FILE} "
                          f"(assignments: {known})")

    def tasks_of(self, assignment_name=None):
        """The tasks of one assignment, or every task when the name is None."""
        if assignment_name is None:
            return self.tasks
        self.assignment(assignment_name)
        return tuple(t for t in self.tasks if t.assignment == assignment_name)

    def select(self, task_ids):
        """The named tasks in course order (every task when none is named)."""
        if not task_ids:
            return self.tasks
        wanted = {self.task(i).id for i in task_ids}
        return tuple(t for t in self.tasks if t.id in wanted)

    @property
    def total_points(self):
        return sum(t.points for t in self.tasks)


def find_root(start=None):
    """The course root: the folder holding classroom/tasks.toml, searched from
    ``start`` (default: the folder this package lives in) upwards."""
    here = pathlib.Path(start or pathlib.Path(__file__).resolve().parent.parent).resolve()
    for folder in (here, *here.parents):
        if (folder / TASKS_FILE).is_file():
            return folder
    raise CourseError(f"no {TASKS_FILE} in {here} or above it: run the command from the "
                      "course repository, or pass --root")


def load(root=None):
    """Read ``<root>/classroom/tasks.toml`` into a checked ``Course``."""
    root = find_root(root)
    path = root / TASKS_FILE
    if tomllib is None:
        raise CourseError("this Python (3.10) needs the package tomli to read "
                          f"{TASKS_FILE}: run `make setup`, or `pip install -r "
                          "requirements.txt` in your environment")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise CourseError(f"{path} is not valid TOML: {error}") from None
    course = Course(root=root,
                    settings=_settings(data.get("course", {})),
                    assignments=tuple(_assignment(a) for a in data.get("assignment", [])),
                    tasks=_with_region_sections(tuple(_task(t) for t in data.get("task", [])),
                                                data.get("region_section", [])),
                    replacements=tuple(_replacement(r)
                                       for r in data.get("release", {}).get("replace", [])))
    check_course(course)
    return course


def _settings(table):
    fields = {f.name: f for f in dataclasses.fields(Settings)}
    unknown = set(table) - set(fields)
    if unknown:
        raise CourseError(f"[course] in {TASKS_FILE} has unknown keys {sorted(unknown)}; "
                          f"known keys: {sorted(fields)}")
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in table.items()}
    settings = Settings(**values)
    if settings.scoring not in ("proportional", "all-or-nothing"):
        raise CourseError(f"[course] scoring must be \"proportional\" or \"all-or-nothing\", "
                          f"not {settings.scoring!r}")
    return settings


def _required(table, key, kind):
    if key not in table:
        raise CourseError(f"a [[{kind}]] in {TASKS_FILE} has no {key!r}: {table}")
    return table[key]


def _assignment(table):
    name = str(_required(table, "name", "assignment"))
    allowed = {"name", "title", "chapters", "stops_when_done", "stops_before_done"}
    unknown = set(table) - allowed
    if unknown:
        raise CourseError(f"assignment {name!r} in {TASKS_FILE} has unknown keys "
                          f"{sorted(unknown)}; known keys: {sorted(allowed)}")
    return Assignment(name=name, title=str(table.get("title", name)),
                      chapters=tuple(int(c) for c in table.get("chapters", ())),
                      stops_when_done=tuple(_page_stop(s, name)
                                            for s in table.get("stops_when_done", ())),
                      stops_before_done=tuple(_early_stop(s, name)
                                              for s in table.get("stops_before_done", ())))


def _page_stop(table, assignment):
    kind = f"assignment.stops_when_done of {assignment}"
    tasks = _page_entry_tasks(table, kind, ("page", "section", "tasks"),
                              "a page that runs to its end needs no entry")
    return PageStop(page=str(_required(table, "page", kind)),
                    section=str(_required(table, "section", kind)), tasks=tasks)


def _early_stop(table, assignment):
    kind = f"assignment.stops_before_done of {assignment}"
    tasks = _page_entry_tasks(table, kind, ("page", "tasks"),
                              "a page that stops at none of its assignment's tasks needs no "
                              "entry")
    return EarlyStop(page=str(_required(table, "page", kind)), tasks=tasks)


def _page_entry_tasks(table, kind, known, why_not_empty):
    """The ``tasks`` of a ``[[kind]]`` page entry, after checking its keys are ``known``
    and that it names some task."""
    unknown = set(table) - set(known)
    if unknown:
        raise CourseError(f"a [[{kind}]] in {TASKS_FILE} has unknown keys {sorted(unknown)};"
                          f" known keys: {', '.join(known)}")
    tasks = tuple(str(t) for t in _required(table, "tasks", kind))
    if not tasks:
        raise CourseError(f"a [[{kind}]] in {TASKS_FILE} names no task: {why_not_empty}")
    return tasks


def _task(table):
    allowed = {"id", "title", "chapter", "file", "section", "points", "assignment",
               "needs", "depends_on", "notes", "kind", "page_stops_at"}
    unknown = set(table) - allowed
    if unknown:
        raise CourseError(f"task {table.get('id')!r} in {TASKS_FILE} has unknown keys "
                          f"{sorted(unknown)}; known keys: {sorted(allowed)}")
    return Task(id=str(_required(table, "id", "task")),
                title=str(_required(table, "title", "task")),
                chapter=int(_required(table, "chapter", "task")),
                section=str(_required(table, "section", "task")),
                points=float(_required(table, "points", "task")),
                assignment=str(_required(table, "assignment", "task")),
                depends_on=tuple(str(d) for d in table.get("needs",
                                                           table.get("depends_on", ()))),
                file=str(table.get("file", "")),
                kind=_kind(table),
                page_stops_at=str(table.get("page_stops_at", "")))


def _with_region_sections(tasks, tables):
    """``tasks`` with each ``[[region_section]]`` given to its task."""
    places = []
    for table in tables:
        unknown = set(table) - {"task", "functions", "chapter", "file", "section"}
        if unknown:
            raise CourseError(f"a [[region_section]] in {TASKS_FILE} has unknown keys "
                              f"{sorted(unknown)}: it takes task, functions, chapter, file "
                              "and section")
        places.append(RegionSection(
            task=str(_required(table, "task", "region_section")),
            functions=tuple(str(f) for f in _required(table, "functions", "region_section")),
            chapter=int(_required(table, "chapter", "region_section")),
            file=str(_required(table, "file", "region_section")),
            section=str(_required(table, "section", "region_section"))))
    ids = {t.id for t in tasks}
    for place in places:
        if place.task not in ids:
            raise CourseError(f"a [[region_section]] in {TASKS_FILE} names task "
                              f"{place.task!r}, which is no task")
    return tuple(dataclasses.replace(t, region_sections=tuple(p for p in places
                                                              if p.task == t.id))
                 for t in tasks)


def _kind(table):
    kind = str(table.get("kind", "warm-up"))
    if kind not in ("build", "warm-up"):
        raise CourseError(f"task {table.get('id')!r} in {TASKS_FILE}: kind must be \"build\" "
                          f"(a whole component) or \"warm-up\", not {kind!r}")
    return kind


def _replacement(table):
    path = str(_required(table, "path", "release.replace"))
    if ("old" in table) == ("start" in table or "until" in table) or \
            ("start" in table) != ("until" in table):
        raise CourseError(f"a [[release.replace]] of {path} in {TASKS_FILE} needs either "
                          "old (the text to replace) or start and until (the lines from "
                          "the one holding start up to the one holding until)")
    return Replacement(path=path, new=str(_required(table, "new", "release.replace")),
                       old=str(table.get("old", "")), why=str(table.get("why", "")),
                       when_stubbed=str(table.get("when_stubbed", "")),
                       start=str(table.get("start", "")), until=str(table.get("until", "")))


def check_course(course):
    """Ids unique, every task in a known assignment, dependencies known and acyclic."""
    ids = [t.id for t in course.tasks]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise CourseError(f"task ids appear twice in {TASKS_FILE}: {duplicates}")
    names = [a.name for a in course.assignments]
    for task in course.tasks:
        if task.assignment not in names:
            raise CourseError(f"task {task.id} belongs to assignment {task.assignment!r}, "
                              f"which no [[assignment]] in {TASKS_FILE} defines ({names})")
        if task.points <= 0:
            raise CourseError(f"task {task.id} has {task.points} points: give it more than 0")
        for dep in task.depends_on:
            if dep not in ids:
                raise CourseError(f"task {task.id} needs {dep!r}, which is not a task")
        if task.page_stops_at and (task.page_stops_at not in ids or
                                   ids.index(task.page_stops_at) <= ids.index(task.id)):
            raise CourseError(f"task {task.id}: page_stops_at = {task.page_stops_at!r} must "
                              "be a task that comes after it in the syllabus")
    for assignment in course.assignments:
        _check_page_stops(course, assignment, ids, names)
    for edit in course.replacements:
        if edit.when_stubbed and edit.when_stubbed not in ids:
            raise CourseError(f"a [[release.replace]] of {edit.path} has when_stubbed = "
                              f"{edit.when_stubbed!r}, which is not a task")
    _check_acyclic(course)


def _check_page_stops(course, assignment, ids, names):
    """Each page named by ``stops_when_done`` is a page of the assignment's tasks (or one
    that ``stops_before_done`` names), once, and it stops only at tasks of later
    assignments; each page named by ``stops_before_done`` is named once, with tasks of
    the assignment that are not its own, in the syllabus' order."""
    mine = course.tasks_of(assignment.name)
    early = [s.page for s in assignment.stops_before_done]
    for stop in assignment.stops_before_done:
        own = [t.id for t in mine if stop.page in t.notebooks]
        wrong = [t for t in stop.tasks if t not in {m.id for m in mine} or t in own]
        if early.count(stop.page) > 1 or wrong or \
                list(stop.tasks) != sorted(stop.tasks, key=ids.index):
            raise CourseError(
                f"assignment {assignment.name}: stops_before_done of {stop.page} "
                + ("is given twice" if early.count(stop.page) > 1 else
                   f"names {wrong}, which are not tasks of {assignment.name} or are the "
                   "page's own (its note names those already)" if wrong else
                   f"names {list(stop.tasks)}: list them in the syllabus' order"))
    own_pages = {p for t in mine for p in t.notebooks} | set(early)
    later = {t.id for t in course.tasks
             if names.index(t.assignment) > names.index(assignment.name)}
    pages = [s.page for s in assignment.stops_when_done]
    for stop in assignment.stops_when_done:
        if stop.page not in own_pages or pages.count(stop.page) > 1:
            raise CourseError(f"assignment {assignment.name}: stops_when_done names "
                              f"{stop.page!r} " + ("twice" if stop.page in own_pages else
                              f"which is no page of its tasks ({sorted(own_pages)})"))
        wrong = [t for t in stop.tasks if t not in later]
        if wrong:
            raise CourseError(f"assignment {assignment.name}: stops_when_done of {stop.page} "
                              f"names {wrong}, which are not tasks of a later assignment")


def _check_acyclic(course):
    deps = {t.id: t.depends_on for t in course.tasks}
    state = {}

    def visit(task_id, path):
        if state.get(task_id) == "done":
            return
        if state.get(task_id) == "visiting":
            cycle = " -> ".join(path[path.index(task_id):] + [task_id])
            raise CourseError(f"the tasks' depends_on form a cycle: {cycle}")
        state[task_id] = "visiting"
        for dep in deps[task_id]:
            visit(dep, path + [task_id])
        state[task_id] = "done"

    for task_id in deps:
        visit(task_id, [])
