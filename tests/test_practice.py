"""Practice inside the chapters: predict-then-run prompts and build/debug exercises.

The markup is described in book/README-authoring.md ("Predict, then run"): a
markdown cell whose last paragraph starts ``**Predict, then run:**``, then the
code cell that answers it, then a markdown cell holding only the collapsed
``Answer`` admonition (classes ``dropdown predict-answer``, and the Jupyter
metadata that collapses it there too).  Every page of the book keeps that markup
(how many prompts a page asks is tests/test_pages.py's business), and every
numbered chapter, whatever the number of its pages, has at least one build or
debug exercise.
"""

import importlib.util
import json
import pathlib
from collections import defaultdict

import pytest

pytestmark = pytest.mark.book

ROOT = pathlib.Path(__file__).resolve().parents[1]
PROMPT = "**Predict, then run:**"
ANSWER_HEAD = "```{admonition} Answer\n:class: dropdown predict-answer\n"
_spec = importlib.util.spec_from_file_location("page_stats", ROOT / "scripts" / "page_stats.py")
page_stats = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(page_stats)
PAGES = [path for path, _ in page_stats.toc_pages(ROOT)]
# Chapter NN's pages are the numbered pages whose file names start with NN.
CHAPTERS = defaultdict(list)
for _path, _numbered in page_stats.toc_pages(ROOT):
    if _numbered and _path.stem[:2].isdigit():
        CHAPTERS[_path.stem[:2]].append(_path)
# Chapters whose build or debug exercise is still to be written.
WITHOUT_BUILD_EXERCISE = set()


def cells_of(path):
    return json.loads(path.read_text())["cells"]


def source(cell):
    return "".join(cell["source"])


def prompt_problems(cells):
    """A sentence per prompt that does not follow the markup, and the prompts found."""
    problems, prompts = [], 0
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "markdown" or PROMPT not in source(cell):
            continue
        prompts += 1
        last_paragraph = source(cell).strip().split("\n\n")[-1]
        if not last_paragraph.startswith(PROMPT):
            problems.append(f"cell {i}: the prompt is not the cell's last paragraph")
        code, answer = cells[i + 1:i + 2], cells[i + 2:i + 3]
        if not code or code[0]["cell_type"] != "code":
            problems.append(f"cell {i}: the prompt is not followed by a code cell")
        elif not answer or answer[0]["cell_type"] != "markdown" \
                or not source(answer[0]).startswith(ANSWER_HEAD) \
                or not source(answer[0]).rstrip().endswith("```"):
            problems.append(f"cell {i + 2}: no Answer admonition after the prompt's code cell")
        elif not answer[0]["metadata"].get("jupyter", {}).get("source_hidden"):
            problems.append(f"cell {i + 2}: the answer is not collapsed in Jupyter")
    return problems, prompts


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_each_prompt_follows_the_documented_markup(page):
    problems, _ = prompt_problems(cells_of(page))
    assert problems == []


def build_or_debug_exercise_runs(cells):
    """Whether a page has a build or debug exercise whose solution cells ran."""
    for i, cell in enumerate(cells):
        text = source(cell)
        if text.startswith("````{exercise}") and (
                "A build exercise." in text or "A debug exercise." in text):
            label = text.split(":label:")[1].split()[0]
            start = next((j for j, c in enumerate(cells)
                          if source(c).startswith(f"````{{solution-start}} {label}")), None)
            end = next((j for j in range(start or 0, len(cells))
                        if source(cells[j]).startswith("````{solution-end}")), None)
            if start is None or end is None:
                return False          # the exercise has no gated solution to run
            return any(c["cell_type"] == "code" and c["outputs"] is not None
                       and c.get("execution_count") for c in cells[start:end])
    return False


# (A student's copy of the course leaves the solutions out: classroom.student_plugin
# skips this test there.)
@pytest.mark.solutions
@pytest.mark.parametrize("chapter", sorted(CHAPTERS))
def test_each_chapter_has_a_build_or_debug_exercise_with_a_solution_that_runs(chapter):
    found = any(build_or_debug_exercise_runs(cells_of(page)) for page in CHAPTERS[chapter])
    if chapter in WITHOUT_BUILD_EXERCISE:
        assert not found, f"chapter {chapter} has one now: take it off WITHOUT_BUILD_EXERCISE"
    else:
        assert found, (f"chapter {chapter} has no exercise that says 'A build exercise.' "
                       "or 'A debug exercise.' with a solution that ran")


def test_the_checks_fail_on_a_prompt_without_its_answer():
    prompt = {"cell_type": "markdown", "metadata": {}, "source": [f"Text.\n\n{PROMPT} why?"]}
    code = {"cell_type": "code", "metadata": {}, "source": ["1"], "outputs": []}
    answer = {"cell_type": "markdown", "metadata": {"jupyter": {"source_hidden": True}},
              "source": [ANSWER_HEAD + "Because.\n```"]}
    assert prompt_problems([prompt, code, answer]) == ([], 1)
    assert prompt_problems([prompt, code])[0] != []
    assert prompt_problems([prompt, answer, code])[0] != []
    shown = dict(answer, metadata={})
    assert prompt_problems([prompt, code, shown])[0] != []
