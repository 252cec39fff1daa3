"""Practice inside the chapters: predict-then-run prompts and build/debug exercises.

The markup is described in book/README-authoring.md ("Predict, then run"): a
markdown cell whose last paragraph starts ``**Predict, then run:**``, then the
code cell that answers it, then a markdown cell holding only the collapsed
``Answer`` admonition (classes ``dropdown predict-answer``, and the Jupyter
metadata that collapses it there too).  Each chapter listed below asks at least
three such questions and has at least one build or debug exercise.
"""

import json
import pathlib

import pytest

pytestmark = pytest.mark.book

BOOK = pathlib.Path(__file__).resolve().parents[1] / "book"
PROMPT = "**Predict, then run:**"
ANSWER_HEAD = "```{admonition} Answer\n:class: dropdown predict-answer\n"
CHAPTERS = ["01_refcount", "02_weakref", "04_autograd_graph", "05_autograd_modes",
            "06_functions"]


def cells_of(chapter):
    return json.loads((BOOK / f"{chapter}.ipynb").read_text())["cells"]


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


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_each_chapter_asks_three_predictions_in_the_documented_markup(chapter):
    problems, prompts = prompt_problems(cells_of(chapter))
    assert problems == []
    assert prompts >= 3


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_each_chapter_has_a_build_or_debug_exercise_with_a_solution_that_runs(chapter):
    cells = cells_of(chapter)
    for i, cell in enumerate(cells):
        text = source(cell)
        if text.startswith("````{exercise}") and (
                "A build exercise." in text or "A debug exercise." in text):
            label = text.split(":label:")[1].split()[0]
            start = next(j for j, c in enumerate(cells)
                         if source(c).startswith(f"````{{solution-start}} {label}"))
            end = next(j for j in range(start, len(cells))
                       if source(cells[j]).startswith("````{solution-end}"))
            assert any(c["cell_type"] == "code" and c["outputs"] is not None
                       and c.get("execution_count") for c in cells[start:end])
            return
    pytest.fail(f"{chapter} has no exercise that says 'A build exercise.' or "
                "'A debug exercise.'")


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
