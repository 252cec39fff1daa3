"""The book's own course (``classroom/tasks.toml`` of this repository, not the small
course of ``fixture.py``): what its pages and files say about it agrees with the course.

``book/teaching.md`` writes, per assignment, each task's lines and points and the
totals; they are the numbers ``python -m classroom tasks --json`` (and a release's
``release.json``) gives, so a region that grows or a task that moves fails here, and the
page is corrected with it.
"""

import json
import math
import os
import pathlib
import re
import shutil
import subprocess
import sys
import textwrap

import nbformat
import pytest

from classroom import (cli, course as course_mod, notebooks, regions as regions_mod,
                       release as release_mod)

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEACHING = ROOT / "book" / "teaching.md"


@pytest.fixture(scope="module")
def book_course():
    return course_mod.load(ROOT)


@pytest.fixture(scope="module")
def tasks_json(book_course):
    found = regions_mod.by_task(regions_mod.scan(ROOT, book_course.settings.sources))
    return cli.tasks_json(book_course, found)


def syllabus_rows():
    """``{assignment: (tasks cell, lines cell, points cell)}`` of teaching.md's syllabus."""
    rows = {}
    for line in TEACHING.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and (name := re.fullmatch(r"\*\*(\S+)\*\*", cells[2])):
            rows[name[1]] = (cells[3], cells[4], cells[5])
    return rows


def task_entries(cell):
    """``[(first id, last id, lines, points)]`` of a syllabus cell: each entry is an id
    (or a range ``6.1-6.6``), its words, then ``(lines, points)``, summed over a range."""
    pattern = r"(\d+\.\d+)(?:-(\d+\.\d+))?[^()]*?(?:\([^()]*\)[^()]*?)*?\((\d+), (\d+)\)"
    return [(m[1], m[2] or m[1], int(m[3]), int(m[4]))
            for m in re.finditer(r"(?:\*\*B )?" + pattern, cell)]


def test_teaching_md_gives_each_assignment_its_tasks_lines_and_points(book_course,
                                                                      tasks_json):
    rows = syllabus_rows()
    assert set(rows) == {a.name for a in book_course.assignments}, \
        "book/teaching.md's syllabus table needs one row per assignment of tasks.toml"
    order = [t["id"] for t in tasks_json]
    by_id = {t["id"]: t for t in tasks_json}
    for assignment in book_course.assignments:
        cell, lines_cell, points_cell = rows[assignment.name]
        own = [t for t in tasks_json if t["assignment"] == assignment.name]
        covered = []
        for first, last, lines, points in task_entries(cell):
            span = order[order.index(first):order.index(last) + 1]
            covered += span
            wanted = (sum(by_id[i]["lines"] for i in span),
                      sum(by_id[i]["points"] for i in span))
            assert (lines, points) == wanted, (
                f"book/teaching.md, {assignment.name}: {first}"
                f"{'-' + last if last != first else ''} says ({lines}, {points}); "
                f"`python -m classroom tasks --json` gives {wanted}")
        assert covered == [t["id"] for t in own], (assignment.name, covered)
        build = sum(t["lines"] for t in own if t["kind"] == "build")
        warm = sum(t["lines"] for t in own if t["kind"] != "build")
        assert lines_cell == f"{build} + {warm}", (assignment.name, lines_cell, build, warm)
        assert points_cell == f"{sum(t['points'] for t in own):g}", assignment.name


def test_the_total_of_lines_in_the_prose_is_the_courses(tasks_json):
    """teaching.md and the repository's README say "about N lines": within 1 %."""
    total = sum(t["lines"] for t in tasks_json)
    for path in (TEACHING, ROOT / "README.md"):
        said = re.search(r"about ([\d,]+) lines", path.read_text(encoding="utf-8"))
        assert said, path
        stated = int(said[1].replace(",", ""))
        assert abs(stated - total) <= 0.01 * total, (path.name, stated, total)


def test_every_release_replacement_finds_its_text(book_course):
    """A ``[[release.replace]]`` whose text a later edit changed stops every release
    (and only `selfcheck` would say so): each one's text (or lines) is in its file."""
    for edit in book_course.replacements:
        text = (ROOT / edit.path).read_text(encoding="utf-8")
        try:
            release_mod.edited_text(edit, text)
        except course_mod.CourseError as error:
            pytest.fail(str(error))


def test_the_hours_table_gives_each_assignment_its_build_lines(book_course, tasks_json):
    """The estimate of hours (teaching.md) repeats each assignment's build lines and
    warm-ups: the same numbers as the course's."""
    rows = {}
    for line in TEACHING.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0] in {a.name for a in book_course.assignments}:
            rows[cells[0]] = cells
    assert set(rows) == {a.name for a in book_course.assignments}
    for name, (_, _, build, warm, _, _) in rows.items():
        own = [t for t in tasks_json if t["assignment"] == name]
        assert int(build) == sum(t["lines"] for t in own if t["kind"] == "build"), name
        assert int(warm) == sum(t["kind"] != "build" for t in own), name


def test_the_estimated_hours_follow_from_the_rates_the_prose_gives():
    """teaching.md's rates: a page in 30-45 minutes, build code at 15-25 lines an hour, a
    warm-up in 15-45 minutes; each row's hours are its pages, lines and warm-ups at those
    rates, rounded to the nearest hour."""
    text = TEACHING.read_text(encoding="utf-8")
    assert ("a chapter page read and run in 30-45 minutes,\nbuild code written and debugged "
            "at 15-25 lines an hour") in text and "a warm-up in 15-45 minutes" in text
    rows = [[c.strip() for c in line.strip().strip("|").split("|")]
            for line in text.splitlines() if line.startswith("| a")]
    rows = [cells for cells in rows if len(cells) == 6 and cells[1].isdigit()]
    assert len(rows) == 7
    for name, pages, build, warm, hours, _ in rows:
        pages, build, warm = int(pages), int(build), int(warm)
        fast = pages * 30 / 60 + build / 25 + warm * 15 / 60
        slow = pages * 45 / 60 + build / 15 + warm * 45 / 60
        assert hours == f"{round(fast)}-{round(slow)}", name


# What the fast path of built-in ops (minitorch/ops/_common.py) does that task 4.1's
# link_into_graph, describe_outputs and save_and_mark_dirty do: a release that stubs 4.1
# has none of it (a student would read the answer there), and records through them.
RECORDING = ("next(_sequence)", "_next_edges =", "edge_to(", "_grad_fn, out._requires_grad",
             "_pack_saved(", "remember_forward(", "def _edges(")


def common_as_released(book_course, stubbed_ids):
    """minitorch/ops/_common.py as a release that stubs ``stubbed_ids`` has it."""
    text = (ROOT / "minitorch" / "ops" / "_common.py").read_text(encoding="utf-8")
    for edit in release_mod.replacements_for(book_course, stubbed_ids):
        if edit.path == "minitorch/ops/_common.py":
            text = release_mod.edited_text(edit, text)
    return text


def test_a_release_that_stubs_4_1_has_no_fast_path_recording(book_course):
    stubbing = {t.id for t in book_course.tasks}     # a1's release stubs 4.1 and all after
    text = common_as_released(book_course, stubbing)
    shown = [line.strip() for line in text.splitlines()
             if any(piece in line for piece in RECORDING)]
    assert shown == [], ("a release that stubs task 4.1 shows how built-in ops record "
                         f"themselves: {shown}")
    compile(text, "_common.py", "exec")
    # once 4.1 is given (later assignments), the fast path stays
    assert "next(_sequence)" in common_as_released(book_course, stubbing - {"4.1"})


def test_the_printed_fast_path_is_shown_as_such_a_release_has_it(book_course):
    """The performance appendix prints ``BuiltinFunction.apply``: its stored output, as
    a release that stubs 4.1 shows it, is that release's code."""
    page = nbformat.read(ROOT / "book" / "appendix_performance.ipynb", as_version=4)
    printed = [output.text for cell in page.cells if cell.cell_type == "code"
               and "show_source(BuiltinFunction.apply)" in cell.source
               for output in cell.outputs if output.get("name") == "stdout"]
    assert len(printed) == 1 and "next(_sequence)" in printed[0]
    edits = release_mod.printed_code_edits(book_course, {t.id for t in book_course.tasks})
    shown = notebooks.replace_blocks(printed[0], edits)
    assert [p for p in RECORDING if p in shown] == []
    assert "return _apply_general(cls, ctx, args, result, needs)" in shown


def test_built_in_ops_of_such_a_release_record_through_link_into_graph(book_course, tmp_path):
    """The release's _common.py in a copy of the (solved) package: built-in ops reach
    link_into_graph, and still give PyTorch's gradients."""
    package = tmp_path / "minitorch"
    shutil.copytree(ROOT / "minitorch", package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    (package / "ops" / "_common.py").write_text(
        common_as_released(book_course, {t.id for t in book_course.tasks}), encoding="utf-8")
    script = textwrap.dedent("""
        import json
        import minitorch as torch
        from minitorch.ops import _common
        calls = []
        given = _common.link_into_graph
        _common.link_into_graph = lambda *a: calls.append(1) or given(*a)
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = torch.tensor([3.0, 4.0], requires_grad=True)
        ((a * b).exp() * 2 + a).sum().backward()
        print(json.dumps([torch.__file__, len(calls), a.grad.tolist(), b.grad.tolist()]))
        """)
    run = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                         text=True, check=True, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    where, calls, grad_a, grad_b = json.loads(run.stdout)
    assert where.startswith(str(tmp_path)) and calls == 5     # *, exp, * 2, + a, sum
    exp = [math.exp(3.0), math.exp(8.0)]
    assert grad_a == pytest.approx([2 * 3 * exp[0] + 1, 2 * 4 * exp[1] + 1])
    assert grad_b == pytest.approx([2 * 1 * exp[0], 2 * 2 * exp[1]])


def _sections_named_by_stubs(book_course, tmp_path, task_id):
    """``{function: {"<chapter> (<file>), section “<section>”,"}}`` that the stubs of
    ``task_id``'s regions in autograd/function.py name, from a stubbed copy."""
    relpath = "minitorch/autograd/function.py"
    (tmp_path / relpath).parent.mkdir(parents=True)
    shutil.copy(ROOT / relpath, tmp_path / relpath)
    found = [r for r in regions_mod.scan(tmp_path, ["minitorch"]) if r.task == task_id]
    named = {regions_mod.function_of(tmp_path, r) for r in found}
    regions_mod.stub_tasks(tmp_path, found, [book_course.task(task_id)])
    stubbed = regions_mod.scan(tmp_path, ["minitorch"])
    source = regions_mod.open_source(tmp_path / relpath).blocks[None]
    said = {}
    for region in (r for r in stubbed if r.task == task_id):
        text = "".join(regions_mod.body(source, region.begin, region.end))
        message = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', text))
        said.setdefault(regions_mod.function_of(tmp_path, region), set()).add(
            re.search(r"as chapter (.*?) explains", message)[1])
    assert set(said) == named
    return said


def test_each_stub_of_4_1_points_at_the_section_that_explains_its_function(book_course,
                                                                          tmp_path):
    """Task 4.1's regions are explained in two sections of page 04: the stub of each names
    its own (student-a1 finding 5: every stub named "Recording a call", which covers two of
    them), and none names a page of a later assignment (walk a1b finding 9: as_outputs and
    save_and_mark_dirty named chapter 6, whose section prints a 6.8 stub)."""
    said = _sections_named_by_stubs(book_course, tmp_path, "4.1")
    page_4 = "4 (book/04_autograd_graph.ipynb), section"
    recording = f"{page_4} “Recording a call: an edge to each input”,"
    calling = f"{page_4} “A node calling its backward”,"
    assert said == {"edge_to": {recording}, "link_into_graph": {recording},
                    "_differentiable": {recording}, "BackwardCFunction._apply": {calling},
                    "_zeros_for_missing": {calling}, "describe_outputs": {calling},
                    "as_outputs": {calling}, "save_and_mark_dirty": {calling}}


def test_each_stub_of_6_8_points_at_the_section_that_explains_its_function(book_course,
                                                                          tmp_path):
    """Task 6.8's contract is spread over 06, 06b, 06d, 06c and chapter 12: each stub
    names its own section (student-a2 finding 1: all 14 named "What apply does")."""
    said = _sections_named_by_stubs(book_course, tmp_path, "6.8")

    def at(chapter, page, section):
        return {f"{chapter} (book/{page}.ipynb), section “{section}”,"}
    applying = at(6, "06_functions", "What apply does")
    returning = at(6, "06b_ctx", "What backward must return")
    dirty = at(6, "06d_ctx_more", "Changing an input in place: mark_dirty")
    assert said == {
        "FunctionCtx.save_for_backward": at(6, "06b_ctx", "save_for_backward and saved_tensors"),
        "FunctionCtx.save_for_forward": at(12, "12_forward_mode", "A jvp for a custom Function"),
        "FunctionCtx.mark_dirty": dirty, "_check_in_place": dirty,
        "FunctionCtx.set_materialize_grads": at(6, "06d_ctx_more", "set_materialize_grads"),
        "BackwardCFunction._check_gradients": returning,
        "BackwardCFunction._check_gradient": returning,
        "once_differentiable.wrapper": at(6, "06c_builtin_functions",
                                          "Double backward and once_differentiable"),
        "Function._apply_with_ctx": applying, "_bind_arguments": applying,
        "_run_forward": applying, "_record": applying, "_mark_views_of_inputs": applying,
        "_describe_inputs_and_outputs": applying}


def test_a1s_readme_says_which_tasks_come_out_of_the_pages_order(book_course):
    """The release README lists a1's tasks in the syllabus order, where 4.4 (page 04c)
    and 4.2 (page 04b) come after chapter 5's tasks: it says so (student-a1 finding 10),
    and says nothing for an assignment whose table follows the pages."""
    readme = release_mod.student_readme(book_course, "a1-engine",
                                        list(book_course.tasks_of("a1-engine")))
    assert ("That is not always the pages' order: 4.4 (04c_gradients) and 4.2 (04b_engine) "
            "come after tasks of later pages") in " ".join(readme.split())
    assert release_mod._page_order_note(book_course.tasks_of("a3-modules")) == ""


def test_every_course_task_box_of_the_book_names_a_task_of_the_course(book_course):
    """A page's "Course task N.M" names a task of ``tasks.toml`` (student-a3/a4 findings:
    page 08b named a task 8.3 and page 09b a task 9.2, neither of which exists)."""
    ids = {task.id for task in book_course.tasks}
    named = set()
    for page in sorted((ROOT / "book").glob("*.ipynb")):
        for cell in nbformat.read(page, as_version=4).cells:
            for task_id in re.findall(r"Course task (\d+\.\d+)", cell.source):
                named.add((page.name, task_id))
    assert named, "no page names a course task: the pattern no longer matches the boxes"
    assert sorted((page, t) for page, t in named if t not in ids) == []
