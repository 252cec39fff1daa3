"""Measure each page of the book against the one-sitting format (issue: book revision).

A page is one file listed in ``_toc.yml``.  One sitting means at most
``MAX_WORDS`` words of prose, at most ``MAX_CODE_CELLS`` code cells (hidden
ones included: a reader in Jupyter scrolls past them too) and at most
``MAX_CODE_LINES`` visible code lines: the non-blank source lines a reader of the
HTML book reads, that is, of code cells neither tagged hidden (``hide-input``,
``remove-input``, ``remove-cell``) nor inside an exercise's solution (between
``{solution-start}`` and ``{solution-end}``: the solution is folded).  Comments
count: a reader reads them.  A numbered page
also opens with a goal list (``**On this page you will:**`` or ``**In this
chapter you will:**``), ends with a ``## Summary`` section, and asks at least
``MIN_PROMPTS`` predict-then-run questions.

    python scripts/page_stats.py            # a table, one row per page
    python scripts/page_stats.py --markdown # the same as a Markdown table

Prose words are counted in markdown cells with fenced code blocks and MyST
option lines (``:label: ...``) left out.  A markdown cell tagged ``classroom-note``
is not the book's: a course release adds it to a student's copy of a page (where the
page stops at a later task), so the copy's page is measured as the book's.
"""

import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
MAX_WORDS = 1800
MAX_CODE_CELLS = 30
MAX_CODE_LINES = 120
MIN_PROMPTS = 3
GOAL_LINES = ("**On this page you will:**", "**In this chapter you will:**")
PROMPT = "**Predict, then run:**"
HIDDEN_TAGS = {"remove-input", "remove-cell", "hide-input"}
RELEASE_NOTE_TAG = "classroom-note"     # classroom/release.py's NOTE_TAG


def toc_pages(root=ROOT):
    """(path, numbered) for every notebook page in the table of contents, in order."""
    pages, numbered = [], True
    for line in (root / "_toc.yml").read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith("numbered:"):
            numbered = stripped.split(":", 1)[1].strip().lower() not in ("false", "0")
        if stripped.startswith("- file:"):
            path = root / (stripped.split(":", 1)[1].strip() + ".ipynb")
            if path.exists():
                pages.append((path, numbered))
    return pages


def text_of(cell):
    return "".join(cell["source"])


def prose_words(markdown):
    markdown = re.sub(r"^(`{3,})(?!\{)[^\n]*\n.*?^\1\s*$", " ", markdown, flags=re.S | re.M)
    markdown = re.sub(r"^:[a-z-]+:.*$", " ", markdown, flags=re.M)
    return len(re.findall(r"[A-Za-z0-9][\w'.-]*", markdown))


def is_hidden(cell):
    return bool(set(cell["metadata"].get("tags", [])) & HIDDEN_TAGS)


def visible_code_lines(cells):
    """Non-blank source lines of the code cells a reader sees unfolded."""
    count, in_solution = 0, False
    for cell in cells:
        if cell["cell_type"] == "markdown":
            text = text_of(cell)
            if "{solution-start}" in text:
                in_solution = True
            if "{solution-end}" in text:
                in_solution = False
        elif cell["cell_type"] == "code" and not in_solution and not is_hidden(cell):
            count += sum(bool(line.strip()) for line in text_of(cell).splitlines())
    return count


def measure(path):
    """The numbers of one page, as a dict."""
    cells = [c for c in json.loads(path.read_text())["cells"]
             if RELEASE_NOTE_TAG not in c["metadata"].get("tags", [])]
    markdown = [text_of(c) for c in cells if c["cell_type"] == "markdown"]
    code = [c for c in cells if c["cell_type"] == "code"]
    headings = [line for text in markdown for line in text.splitlines()]
    return {
        "page": path.stem,
        "words": sum(prose_words(text) for text in markdown),
        "code_cells": len(code),
        "visible_code": sum(not is_hidden(c) for c in code),
        "hidden_code": sum(is_hidden(c) for c in code),
        "code_lines": visible_code_lines(cells),
        "prompts": sum(PROMPT in text for text in markdown),
        "exercises": sum(text.lstrip().startswith(("````{exercise}", "```{exercise}"))
                         for text in markdown),
        "goal_list": bool(markdown) and any(goal in markdown[0] for goal in GOAL_LINES),
        "summary": "## Summary" in headings,
    }


def problems(stats, numbered):
    """Sentences saying how a page breaks the format (empty when it keeps it)."""
    found = []
    if stats["words"] > MAX_WORDS:
        found.append(f"{stats['words']} words of prose (at most {MAX_WORDS})")
    if stats["code_cells"] > MAX_CODE_CELLS:
        found.append(f"{stats['code_cells']} code cells (at most {MAX_CODE_CELLS})")
    if stats["code_lines"] > MAX_CODE_LINES:
        found.append(f"{stats['code_lines']} visible code lines (at most {MAX_CODE_LINES})")
    if numbered:
        if not stats["goal_list"]:
            found.append("no goal list in the first cell")
        if not stats["summary"]:
            found.append("no '## Summary' section")
        if stats["prompts"] < MIN_PROMPTS:
            found.append(f"{stats['prompts']} predict prompts (at least {MIN_PROMPTS})")
    return found


def main(argv):
    rows = [(measure(path), numbered) for path, numbered in toc_pages()]
    columns = ["page", "words", "code_cells", "visible_code", "hidden_code", "code_lines",
               "prompts", "exercises"]
    if "--markdown" in argv:
        print("| " + " | ".join(columns) + " | ok |")
        print("|" + " --- |" * (len(columns) + 1))
        for stats, numbered in rows:
            ok = "yes" if not problems(stats, numbered) else "; ".join(problems(stats, numbered))
            print("| " + " | ".join(str(stats[c]) for c in columns) + f" | {ok} |")
        return 0
    for stats, numbered in rows:
        issues = problems(stats, numbered)
        print(f"{stats['page']:32s} words {stats['words']:5d}  code {stats['code_cells']:3d} "
              f"(hidden {stats['hidden_code']:2d})  lines {stats['code_lines']:4d}  prompts {stats['prompts']}  "
              f"exercises {stats['exercises']}  {'ok' if not issues else '; '.join(issues)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
