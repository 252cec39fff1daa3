"""A small, self-contained course for testing the classroom tool (and its benchmark).

``make_course(folder)`` writes a repository that has everything the tool
works on, at toy size: a package ``minigrad`` (a scalar autograd engine) with
three solution regions, a notebook with a fourth region, a show_source-style
output, exercise solutions in all three forms, tests marked per task, a hidden
test, wrong answers, and the classroom tool itself (its code copied from this
repository).  Tasks 1.1-1.3 form assignment ``a1``, task 2.1 assignment ``a2``.

``make_submission`` copies a course (or a release) and edits it, to fabricate
submissions: wrong, unfinished, broken, endless, crashing.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import pathlib
import shutil
import textwrap

import classroom
from classroom.course import Task
from classroom.regions import stub_lines

CLASSROOM_CODE = pathlib.Path(classroom.__file__).resolve().parent

PYPROJECT = '''\
[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["."]
addopts = ["-ra", "--strict-markers", "--ignore=classroom"]
markers = ["task(id): grades classroom task id (classroom/tasks.toml)"]
norecursedirs = [".*", "_build"]
'''

CONFIG = '''\
title: Minigrad
execute:
  execute_notebooks: force
  allow_errors: false
'''

TASKS = '''\
[course]
name = "Minigrad"
package = "minigrad"
sources = ["minigrad", "book"]
tests = ["tests"]
student_paths = ["minigrad", "book"]
instructor_only = ["notes"]
test_timeout = 5.0                     # roomy: a loaded CI machine starts IPython slowly
run_timeout = 120
scoring = "proportional"

[[release.replace]]
path = "_config.yml"
old = "execute_notebooks: force"
new = 'execute_notebooks: "off"'

[[assignment]]
name = "a1"
title = "The engine"
chapters = [1]

[[assignment]]
name = "a2"
title = "Operations"
chapters = [2]

[[task]]
id = "1.1"
title = "counting dependencies"
chapter = 1
file = "book/01_engine.ipynb"
section = "Counting"
points = 4
assignment = "a1"
page_stops_at = "1.3"

[[task]]
id = "1.2"
title = "accumulating gradients"
chapter = 1
file = "book/01_engine.ipynb"
section = "Accumulation"
points = 3
assignment = "a1"
depends_on = ["1.1"]
page_stops_at = "1.3"

[[task]]
id = "1.3"
title = "a square in the notebook"
chapter = 1
file = "book/01_engine.ipynb"
section = "Warming up"
points = 1
assignment = "a1"

[[task]]
id = "2.1"
title = "Mul backward"
chapter = 2
section = "Products"
points = 2
assignment = "a2"
depends_on = ["1.1", "1.2"]
'''

ENGINE = '''\
"""A toy scalar autograd engine."""


class Value:
    def __init__(self, data, parents=(), backward_fn=None):
        self.data = data
        self.grad = 0.0
        self.parents = tuple(parents)
        self.backward_fn = backward_fn

    def __add__(self, other):
        from minigrad.ops import add
        return add(self, other)

    def __mul__(self, other):
        from minigrad.ops import mul
        return mul(self, other)


def count_dependencies(root):
    """How many times each node (by id) is an input of a node reachable from root."""
    counts = {}
    stack, seen = [root], {id(root)}
    ### BEGIN SOLUTION 1.1
    while stack:
        node = stack.pop()
        for parent in node.parents:
            counts[id(parent)] = counts.get(id(parent), 0) + 1
            if id(parent) not in seen:
                seen.add(id(parent))
                stack.append(parent)
    ### END SOLUTION 1.1
    return counts


def accumulate(node, grad):
    """Add grad into node.grad."""
    ### BEGIN SOLUTION 1.2
    if grad is None:
        raise RuntimeError("cannot accumulate None into a gradient")
    node.grad = node.grad + grad
    ### END SOLUTION 1.2


def backward(root):
    counts = count_dependencies(root)
    accumulate(root, 1.0)
    ready = [root]
    while ready:
        node = ready.pop()
        if node.backward_fn is None:
            continue
        for parent, grad in zip(node.parents, node.backward_fn(node.grad)):
            accumulate(parent, grad)
            counts[id(parent)] -= 1
            if counts[id(parent)] == 0:
                ready.append(parent)
'''

OPS = '''\
"""Operations on Values."""

from minigrad.engine import Value


def add(a, b):
    return Value(a.data + b.data, (a, b), lambda grad: (grad, grad))


def mul(a, b):
    def backward_fn(grad):
        ### BEGIN SOLUTION 2.1
        return grad * b.data, grad * a.data
        ### END SOLUTION 2.1
    return Value(a.data * b.data, (a, b), backward_fn)
'''

INIT = '''\
"""minigrad: the classroom tool's test course."""

from minigrad.engine import Value, backward, count_dependencies
'''

TESTS_CONFTEST = '''\
from hypothesis import settings

settings.register_profile("fixture", max_examples=30, deadline=None)
settings.load_profile("fixture")
'''

TEST_ENGINE = '''\
import pytest

from minigrad import Value, backward, count_dependencies
from minigrad.engine import accumulate


@pytest.mark.task("1.1")
def test_counts_a_diamond():
    x = Value(1.0)
    y = x + x
    z = y * y
    counts = count_dependencies(z)
    assert counts[id(x)] == 2 and counts[id(y)] == 2


@pytest.mark.task("1.1")
def test_counts_a_chain():
    a = Value(1.0)
    b = a + Value(2.0)
    counts = count_dependencies(b + Value(3.0))
    assert counts[id(a)] == 1 and counts[id(b)] == 1


@pytest.mark.task("1.2")
def test_accumulates():
    v = Value(1.0)
    accumulate(v, 2.0)
    accumulate(v, 3.0)
    assert v.grad == 5.0


@pytest.mark.task("1.2")
def test_accumulating_nothing_is_refused():
    with pytest.raises(RuntimeError, match="cannot accumulate None"):
        accumulate(Value(1.0), None)


@pytest.mark.task("1.2")
def test_backward_of_a_sum_with_itself():
    x = Value(3.0)
    backward(x + x)
    assert x.grad == 2.0


def test_not_graded():
    assert Value(1.0).data == 1.0
'''

TEST_OPS = '''\
import pytest
from hypothesis import given, strategies as st

from minigrad import Value, backward

floats = st.floats(-10, 10)


@pytest.mark.task("2.1")
@given(floats, floats)
def test_mul_backward(a, b):
    x, y = Value(a), Value(b)
    backward(x * y)
    assert x.grad == b and y.grad == a
'''

TEST_NOTEBOOK = '''\
import pytest

from classroom.nbcode import notebook_namespace


@pytest.mark.task("1.3")
def test_square():
    square = notebook_namespace("book/01_engine.ipynb", task="1.3")["square"]
    assert square(3) == 9 and square(-2) == 4
'''

HIDDEN_TEST = '''\
import pytest

from minigrad import Value, count_dependencies


@pytest.mark.task("1.1")
def test_counts_a_leaf_used_three_times():
    x = Value(2.0)
    counts = count_dependencies(x * x + x)
    assert counts[id(x)] == 3
'''

WRONG_ANSWERS = '''\
[[wrong]]
task = "1.1"
name = "counts each parent once"
old = "counts[id(parent)] = counts.get(id(parent), 0) + 1"
new = "counts[id(parent)] = 1"

[[wrong]]
task = "1.2"
name = "overwrites instead of accumulating"
code = "node.grad = grad"

[[wrong]]
task = "1.3"
name = "wrong sign"
code = "return -x * x"

[[wrong]]
task = "2.1"
name = "swapped operands"
old = "grad * b.data, grad * a.data"
new = "grad * a.data, grad * b.data"
'''

README = "# Minigrad\n\nThe classroom tool's test course.\n"


def _source_of(path, name):
    """What ``inspect.getsource`` prints for function ``name`` of the file ``path``."""
    spec = importlib.util.spec_from_file_location(f"_fixture_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return inspect.getsource(getattr(module, name))


def _code(source, count, outputs=(), tags=()):
    cell = {"cell_type": "code", "execution_count": count, "metadata": {}, "source": source,
            "outputs": list(outputs)}
    if tags:
        cell["metadata"]["tags"] = list(tags)
    return cell


def _markdown(source):
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def _stream(text):
    return {"output_type": "stream", "name": "stdout", "text": text}


def notebook(engine_path):
    accumulate_source = _source_of(engine_path, "accumulate")
    cells = [
        _markdown("# Chapter 1: the engine\n\n## Counting\n\nHow many edges lead into a node.\n\n"
                  "## Accumulation\n\nGradients add up.\n\n## Warming up\n\n"
                  "```{admonition} Course task 1.3\nWrite the square.\n```\n"),
        _code("def square(x):\n    ### BEGIN SOLUTION 1.3\n    return x * x\n"
              "    ### END SOLUTION 1.3", 1),
        _code("print(square(3))", 2, [_stream("9\n")]),
        _code("import inspect\nimport minigrad.engine\n"
              "print(inspect.getsource(minigrad.engine.accumulate))", 3,
              [_stream(accumulate_source + "\n")]),
        _markdown("## Exercises\n\n````{exercise}\n:label: ex-cube\n\nWrite a cube.\n````\n\n"
                  "````{solution} ex-cube\n:class: dropdown\n\n```python\n"
                  "def cube(x):\n    return x * x * x  # THE-CUBE-SOLUTION\n```\n````\n\n"
                  "Text after the exercise.\n"),
        _code("print(square(4))  # THE-TAGGED-SOLUTION", 4, [_stream("16\n")],
              tags=("solution", "remove-input")),
        _markdown("````{exercise}\n:label: ex-fourth\n\nWrite a fourth power.\n````\n\n"
                  "```{solution-start} ex-fourth\n:class: dropdown\n```\n"),
        _code("fourth = lambda x: square(square(x))  # THE-GATED-SOLUTION", 5),
        _markdown("```{solution-end}\n```\n\nAfter the gated solution.\n"),
        _code("print('the end')", 6, [_stream("the end\n")]),
    ]
    for number, cell in enumerate(cells):
        cell["id"] = f"cell-{number}"
    return {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                        "language": "python"}}}


def _write(root, relpath, text):
    path = pathlib.Path(root) / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text) if relpath.endswith(".toml") else text,
                    encoding="utf-8")


def copy_classroom_code(root):
    target = pathlib.Path(root) / "classroom"
    target.mkdir(parents=True, exist_ok=True)
    for path in CLASSROOM_CODE.glob("*.py"):
        shutil.copy2(path, target / path.name)


def make_course(root):
    """Write the test course into ``root`` (a new folder); returns its path."""
    root = pathlib.Path(root)
    files = {
        "pyproject.toml": PYPROJECT, "_config.yml": CONFIG, "README.md": README,
        "minigrad/__init__.py": INIT, "minigrad/engine.py": ENGINE, "minigrad/ops.py": OPS,
        "tests/__init__.py": "", "tests/conftest.py": TESTS_CONFTEST,
        "tests/test_engine.py": TEST_ENGINE, "tests/test_ops.py": TEST_OPS,
        "tests/test_notebook.py": TEST_NOTEBOOK,
        "classroom/tasks.toml": TASKS,
        "classroom/hidden_tests/test_hidden_engine.py": HIDDEN_TEST,
        "classroom/wrong_answers/fixture.toml": WRONG_ANSWERS,
        "notes/plan.md": "instructor's notes, never released\n",
    }
    for relpath, text in files.items():
        _write(root, relpath, text)
    _write(root, "book/01_engine.ipynb",
           json.dumps(notebook(root / "minigrad/engine.py"), indent=1) + "\n")
    copy_classroom_code(root)
    return root


def make_submission(source, destination, edits=None, extra_files=None):
    """A copy of ``source`` (a course or a release), with ``edits``: ``{relpath:
    [(old, new), ...]}`` (each ``old`` must be there), and ``extra_files``."""
    shutil.copytree(source, destination, ignore=shutil.ignore_patterns(
        "__pycache__", ".pytest_cache", ".hypothesis"))
    for relpath, changes in (edits or {}).items():
        path = pathlib.Path(destination) / relpath
        if path.suffix == ".ipynb":
            _edit_notebook(path, changes)
            continue
        text = path.read_text(encoding="utf-8")
        for old, new in changes:
            assert old in text, f"{old!r} is not in {relpath}"
            text = text.replace(old, new)
        path.write_text(text, encoding="utf-8")
    for relpath, text in (extra_files or {}).items():
        _write(destination, relpath, text)
    return pathlib.Path(destination)


def _edit_notebook(path, changes):
    """Apply ``(old, new)`` edits to the sources of a notebook's cells."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for old, new in changes:
        hits = 0
        for cell in notebook["cells"]:
            source = cell["source"]
            source = "".join(source) if isinstance(source, list) else source
            if old in source:
                cell["source"] = source.replace(old, new)
                hits += 1
        assert hits, f"{old!r} is in no cell of {path}"
    path.write_text(json.dumps(notebook, indent=1) + "\n", encoding="utf-8")


SOLUTION_1_1 = ENGINE.split("### BEGIN SOLUTION 1.1\n")[1].split("    ### END")[0]
SOLUTION_1_2 = ENGINE.split("### BEGIN SOLUTION 1.2\n")[1].split("    ### END")[0]


# ----- fabricated submissions -----------------------------------------------------------------

def _stub(task_id, title, section):
    task = Task(task_id, title, 1, section, 1, "a1", file="book/01_engine.ipynb")
    return "".join(stub_lines(task, "    "))


STUB_1_1 = _stub("1.1", "counting dependencies", "Counting")
STUB_1_2 = _stub("1.2", "accumulating gradients", "Accumulation")
STUB_1_3 = _stub("1.3", "a square in the notebook", "Warming up")


def solved_release_edits():
    """Edits that turn a release of a1 back into the solution."""
    return {"minigrad/engine.py": [(STUB_1_1, SOLUTION_1_1), (STUB_1_2, SOLUTION_1_2)],
            "book/01_engine.ipynb": [(STUB_1_3.rstrip("\n"), "    return x * x")]}


FOREIGN_INIT = '''\
import importlib.util
import os
import sys

_spec = importlib.util.spec_from_file_location(
    "minigrad", {init!r}, submodule_search_locations=[os.path.dirname({init!r})])
_module = importlib.util.module_from_spec(_spec)
sys.modules["minigrad"] = _module
_spec.loader.exec_module(_module)
'''

# A crash or a loop that only `test_accumulates` reaches (its second call adds 3.0): each
# kind costs one test, so one restart, and grading the fixture stays quick.
ONLY_IN_ONE_TEST = "if grad == 3.0:\n        {}\n    node.grad = node.grad + grad"

# name -> (edits of a solved a1 release, extra files); each makes a kind of submission
SUBMISSION_KINDS = {
    "solved": ({}, {}),
    "wrong-1.2": ({"minigrad/engine.py": [("node.grad = node.grad + grad", "node.grad = grad")]},
                  {"tests/test_engine.py": "def test_nothing():\n    pass\n"}),
    "no-import": ({"minigrad/engine.py": [("def accumulate(node, grad):",
                                           "def accumulate(node, grad)")]}, {}),
    "endless": ({"minigrad/engine.py": [("node.grad = node.grad + grad", ONLY_IN_ONE_TEST.format(
        "while True:\n            pass"))]}, {}),
    "swallows-timeout": ({"minigrad/engine.py": [("node.grad = node.grad + grad",
                                                  ONLY_IN_ONE_TEST.format(
        "while True:\n            try:\n                while True:\n                    pass\n"
        "            except BaseException:\n                pass"))]}, {}),
    "exits": ({"minigrad/engine.py": [("node.grad = node.grad + grad", ONLY_IN_ONE_TEST.format(
        "import os\n        os._exit(3)"))]}, {}),
    "segfault": ({"minigrad/engine.py": [("node.grad = node.grad + grad", ONLY_IN_ONE_TEST.format(
        "import ctypes\n        ctypes.string_at(0)"))]}, {}),
    "foreign": ({}, {}),     # its package is loaded from elsewhere (see make_kind)
}


def make_kind(release_a1, destination, kind, foreign_copy=None):
    """A submission of one kind (see SUBMISSION_KINDS), made from a release of a1."""
    edits, extra = SUBMISSION_KINDS[kind]
    all_edits = {k: list(v) for k, v in solved_release_edits().items()}
    for path, changes in edits.items():
        all_edits.setdefault(path, []).extend(changes)
    if kind == "foreign":
        extra = {"minigrad/__init__.py": FOREIGN_INIT.format(
            init=str(pathlib.Path(foreign_copy) / "minigrad" / "__init__.py"))}
    return make_submission(release_a1, destination, all_edits, extra)


def add_a_product_cell(root):
    """Give the fixture's page a section whose cell multiplies Values: with assignment a1
    written it still stops there, at task 2.1's stub (assignment a2), as the walk finds
    after 1.3 (its `page_stops_at`)."""
    path = pathlib.Path(root) / "book" / "01_engine.ipynb"
    data = json.loads(path.read_text(encoding="utf-8"))
    at = next(i for i, c in enumerate(data["cells"]) if "## Exercises" in "".join(c["source"]))
    cells = [_markdown("## Products\n\nA product's backward.\n"),
             _code("from minigrad.engine import Value, backward\n"
                   "a, b = Value(2.0), Value(3.0)\nbackward(a * b)\nprint(a.grad, b.grad)",
                   7, [_stream("3.0 2.0\n")])]
    for number, cell in enumerate(cells):
        cell["id"] = f"product-{number}"
    data["cells"][at:at] = cells
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    tasks = pathlib.Path(root) / "classroom" / "tasks.toml"
    marker = 'section = "Warming up"\npoints = 1\nassignment = "a1"\n'
    text = tasks.read_text(encoding="utf-8")
    assert marker in text
    tasks.write_text(text.replace(marker, marker + 'page_stops_at = "2.1"\n'), encoding="utf-8")


def declare_stops_when_done(root, section, tasks):
    """Say in the fixture's tasks.toml where a1's page stops with a1 written."""
    _add_to_a1(root, "\n[[assignment.stops_when_done]]\npage = \"book/01_engine.ipynb\"\n"
                     f"section = \"{section}\"\ntasks = {json.dumps(list(tasks))}\n")


def _add_to_a1(root, entry):
    """Put ``entry`` (a sub-table of assignment a1) into the fixture's tasks.toml."""
    path = pathlib.Path(root) / "classroom" / "tasks.toml"
    text = path.read_text(encoding="utf-8")
    marker = 'title = "The engine"\nchapters = [1]\n'
    assert marker in text
    path.write_text(text.replace(marker, marker + entry), encoding="utf-8")


def add_a_page_without_a_task(root, tasks=None):
    """A second page of chapter 1, ``book/01b_more.ipynb``, that is no task's ``file``:
    its one code cell runs backward, so it stops at task 1.1's stub, then (1.1 written)
    at 1.2's.  ``tasks``: declare those stops in tasks.toml (``stops_before_done``)."""
    cells = [_markdown("# More of the engine\n\n## Backward again\n\nA sum's backward.\n"),
             _code("from minigrad.engine import Value, backward\n"
                   "a = Value(2.0)\nbackward(a + a)\nprint(a.grad)", 1, [_stream("2.0\n")])]
    for number, cell in enumerate(cells):
        cell["id"] = f"more-{number}"
    page = {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                        "language": "python"}}}
    _write(root, "book/01b_more.ipynb", json.dumps(page, indent=1) + "\n")
    if tasks is not None:
        _add_to_a1(root, "\n[[assignment.stops_before_done]]\npage = \"book/01b_more.ipynb\"\n"
                         f"tasks = {json.dumps(list(tasks))}\n")
