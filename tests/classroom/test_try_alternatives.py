"""``try_alternatives``: another correct answer to a task must keep full marks on its
task and on the later tasks of its assignment that run its code.

In the fixture course, task 1.2's ``backward`` counts down what 1.1's
``count_dependencies`` returns; task 1.3 never calls it, and task 2.1 (which does) is in
the next assignment, whose release ships 1.1 solved."""

from classroom import course as course_mod, regions, selfcheck, try_alternatives
from classroom.grade import Grader

RECURSIVE = '''
def visit(node):
    for parent in node.parents:
        counts[id(parent)] = counts.get(id(parent), 0) + 1
        if id(parent) not in seen:
            seen.add(id(parent))
            visit(parent)
visit(root)
'''

# Right counts, handed back read-only: 1.1's tests only read them, 1.2's backward
# counts them down.
READ_ONLY = '''
import types
pending = [root]
while pending:
    node = pending.pop()
    for parent in node.parents:
        counts[id(parent)] = counts.get(id(parent), 0) + 1
        if id(parent) not in seen:
            seen.add(id(parent))
            pending.append(parent)
counts = types.MappingProxyType(counts)
'''


def _alternative(task, name, function, body):
    return (f'[[alternative]]\ntask = "{task}"\nname = "{name}"\n'
            f"[alternative.bodies]\n\"{function}\" = '''{body}'''\n\n")


def _graded(course_root, alternatives, tmp_path):
    folder = course_root / "classroom" / "alternatives"
    folder.mkdir()
    (folder / "fixture.toml").write_text("".join(alternatives), encoding="utf-8")
    course = course_mod.load(course_root)
    grouped = regions.by_task(regions.scan(course_root, course.settings.sources))
    grader = Grader(course, course.tasks, tmp_path / "grading")
    found = []
    note = lambda ok, what: found.append((ok, what))       # noqa: E731
    selfcheck.run_all(try_alternatives.runs(course, grader, grouped, note, course.tasks),
                      1, note)
    return found


def test_an_alternative_is_graded_with_the_later_tasks_of_its_assignment_that_need_it(
        course):
    graded = try_alternatives.graded_with(course.task("1.1"), course.tasks)
    assert [t.id for t in graded] == ["1.1", "1.2"]
    assert [t.id for t in try_alternatives.graded_with(course.task("1.3"), course.tasks)] \
        == ["1.3"]
    # `selfcheck 1.1` (or `try_alternatives 1.1`): its grader must know 1.2's tests too
    assert [t.id for t in try_alternatives.with_later_tasks(course, (course.task("1.1"),))] \
        == ["1.1", "1.2"]


def test_an_alternative_that_breaks_a_later_task_fails(fresh_course, tmp_path):
    found = _graded(fresh_course, [
        _alternative("1.1", "a recursive walk", "count_dependencies", RECURSIVE),
        _alternative("1.1", "read-only counts", "count_dependencies", READ_ONLY)],
        tmp_path)
    [(right, right_what)] = [(ok, w) for ok, w in found if "recursive" in w]
    [(wrong, wrong_what)] = [(ok, w) for ok, w in found if "read-only" in w]
    assert not wrong, wrong_what        # full marks with 1.1's tests alone
    assert "'1.1'" not in wrong_what.split("loses points")[1]      # its own task: full marks
    assert "2/3 (tests/test_engine.py::test_backward_of_a_sum_with_itself: " in wrong_what
    assert "it breaks the later task 1.2 that builds on it" in wrong_what
    assert right, right_what
    assert "with the later tasks that run its code: 1.2)" in right_what
    assert "full marks on every one" in right_what


def test_an_alternative_of_a_task_no_later_task_of_its_assignment_needs(fresh_course,
                                                                        tmp_path):
    body = "if grad is None:\n    raise RuntimeError('cannot accumulate None')\n" \
           "node.grad += grad\n"
    [(ok, what)] = _graded(fresh_course, [_alternative("1.2", "in place", "accumulate",
                                                       body)], tmp_path)
    assert ok and what.endswith("of task 1.2: full marks"), what
