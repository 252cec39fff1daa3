"""What a student's copy of a notebook leaves out: solutions, and outputs that show them.

Conventions (the book's notebooks follow them; ``release`` relies on them):

* an exercise's solution in a markdown cell is a sphinx-exercise directive,
  ``{solution}`` (a fenced block, backticks or colons), or the gated pair
  ``{solution-start}`` ... ``{solution-end}``, whose content may span several
  cells, code cells included: all of it is removed;
* any cell tagged ``solution`` is removed (an executable exercise solution;
  in the instructor's book it also carries ``remove-input`` or ``hide-input``);
* a code cell holding a task's region keeps its markers around the stub, and
  loses its outputs;
* an output that prints a released region (chapters print minitorch's source
  with ``show_source``) is re-rendered: the region's lines are replaced by the
  stub's, so the student's copy shows what the student's source holds; any
  other output that still shows a region's lines is cleared.

Cells that lose or change outputs are tagged ``nbval-ignore-output``, and
execution counts are renumbered 1, 2, ... after removals, so the notebook still
passes the repository's notebook checks.
"""

from __future__ import annotations

import math
import re

_DIRECTIVE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|:{3,})\s*\{(?P<name>solution(?:-start|"
                        r"-end)?)\}")
IGNORE_OUTPUT_TAG = "nbval-ignore-output"
MIN_LEAK_CHARACTERS = 40   # a shared run of lines shorter than this proves nothing


# ----- solutions in markdown ---------------------------------------------------------------

def _closing(line, fence):
    stripped = line.strip()
    return (len(stripped) >= len(fence) and set(stripped) == {fence[0]})


def split_directives(text):
    """``[(kind, lines)]``: the text cut into plain runs and solution directive blocks
    (kind ``text``, ``solution``, ``solution-start`` or ``solution-end``)."""
    lines = text.splitlines(keepends=True)
    pieces, plain, index = [], [], 0
    while index < len(lines):
        match = _DIRECTIVE.match(lines[index])
        if not match:
            plain.append(lines[index])
            index += 1
            continue
        if plain:
            pieces.append(("text", plain))
            plain = []
        end = index + 1
        while end < len(lines) and not _closing(lines[end], match["fence"]):
            end += 1
        pieces.append((match["name"], lines[index:end + 1]))
        index = end + 1
    if plain:
        pieces.append(("text", plain))
    return pieces


def strip_solution_text(text, inside_gate=False):
    """``(text without solutions, still inside a solution-start gate)``."""
    kept = []
    for kind, lines in split_directives(text):
        if kind == "solution-start":
            inside_gate = True
        elif kind == "solution-end":
            inside_gate = False
        elif kind == "text" and not inside_gate:
            kept.extend(lines)
    return _tidy("".join(kept)), inside_gate


def _tidy(text):
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n") + ("\n" if text.endswith("\n") else "")


def strip_solutions(notebook):
    """Remove every solution from ``notebook`` in place; return how many cells changed
    or went."""
    kept, changed, inside_gate = [], 0, False
    for cell in notebook.cells:
        tags = set(cell.metadata.get("tags", []))
        if "solution" in tags:
            changed += 1
            continue
        if cell.cell_type != "markdown":
            if inside_gate:
                changed += 1
                continue
            kept.append(cell)
            continue
        new_text, inside_gate_after = strip_solution_text(cell.source, inside_gate)
        if new_text != cell.source:
            changed += 1
        inside_gate = inside_gate_after
        if new_text.strip():
            cell.source = new_text
            kept.append(cell)
    notebook.cells = kept
    renumber(notebook)
    return changed


def renumber(notebook):
    """Execution counts 1, 2, ... over the code cells that had one."""
    count = 0
    for cell in notebook.cells:
        if cell.cell_type != "code" or cell.get("execution_count") is None:
            continue
        count += 1
        cell.execution_count = count
        for output in cell.get("outputs", []):
            if "execution_count" in output:
                output["execution_count"] = count


# ----- outputs ------------------------------------------------------------------------------

def tag(cell, name=IGNORE_OUTPUT_TAG):
    tags = cell.metadata.setdefault("tags", [])
    if name not in tags:
        tags.append(name)


def clear_outputs(cell):
    if cell.get("outputs"):
        cell.outputs = []
        tag(cell)


def output_texts(cell):
    """``[(output, key)]`` for every text an output holds (streams and text data)."""
    found = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            found.append((output, "text"))
        for mime in ("text/plain", "text/html", "text/markdown"):
            if mime in output.get("data", {}):
                found.append((output.data, mime))
    return found


def _get(holder, key):
    value = holder[key]
    return "".join(value) if isinstance(value, list) else value


def replace_blocks(text, replacements):
    """``text`` with each solution block replaced by its stub, also when printed with
    some of its indentation removed.  ``replacements`` are ``(old_lines, new_lines)``."""
    for old_lines, new_lines in replacements:
        for strip in range(_common_indent(old_lines) + 1):
            old = "".join(_dedent_line(line, strip) for line in old_lines)
            if old.strip() and old in text:
                text = text.replace(old, "".join(_dedent_line(line, strip) for line in new_lines))
                break
    return text


def _common_indent(lines):
    indents = [len(line) - len(line.lstrip(" ")) for line in lines if line.strip()]
    return min(indents) if indents else 0


def _dedent_line(line, count):
    """``line`` without up to ``count`` leading spaces."""
    spaces = len(line) - len(line.lstrip(" "))
    return line[min(count, spaces):]


def drop_marker_lines(notebook, task_ids):
    """Remove the marker lines of ``task_ids``' regions from every output (a printed
    copy of a region that a release leaves solved, without its markers)."""
    from classroom.regions import _MARKER
    for cell in notebook.cells:
        for holder, key in output_texts(cell):
            text = _get(holder, key)
            kept = [line for line in text.splitlines(keepends=True)
                    if not ((m := _MARKER.match(line.rstrip("\r\n")))
                            and m["rest"].strip() in task_ids)]
            if len(kept) != len(text.splitlines(keepends=True)):
                holder[key] = "".join(kept)


def rerender_outputs(notebook, replacements):
    """Replace printed solution blocks by their stubs in every output; return the
    number of cells changed."""
    changed = 0
    for cell in notebook.cells:
        touched = False
        for holder, key in output_texts(cell):
            text = _get(holder, key)
            new = replace_blocks(text, replacements)
            if new != text:
                holder[key] = new
                touched = True
        if touched:
            tag(cell)
            changed += 1
    return changed


# ----- finding solution lines that should not be there ---------------------------------------

def distinctive_lines(body_lines):
    """A region's code lines, stripped, without blank lines and comments: what a
    leak is looked for with (see ``leaks``)."""
    return [line.strip() for line in body_lines
            if line.strip() and not line.strip().startswith("#")]


def leaks(text, distinctive):
    """True when ``text`` shows a run of a region's lines, in order and one after the
    other, that covers at least half of them and at least ``MIN_LEAK_CHARACTERS``
    characters (so a common line like ``return grad * result`` alone is no leak)."""
    if not distinctive:
        return False
    lines = [line.strip() for line in text.splitlines()
             if line.strip() and not line.strip().startswith("#")]
    needed = max(1, math.ceil(len(distinctive) / 2))
    return any(run >= needed and size >= MIN_LEAK_CHARACTERS
               for run, size in _common_runs(distinctive, lines))


def _common_runs(region, lines):
    """``(length, characters)`` of every run of consecutive lines shared by both."""
    previous = [0] * (len(region) + 1)
    for line in lines:
        current = [0] * (len(region) + 1)
        for index, region_line in enumerate(region, 1):
            if line == region_line:
                current[index] = previous[index - 1] + 1
                run = current[index]
                yield run, sum(len(x) for x in region[index - run:index])
        previous = current


def clear_leaking_outputs(notebook, distinctive_sets):
    """Clear every output that still shows a released region; return how many."""
    cleared = 0
    for cell in notebook.cells:
        texts = "\n".join(_get(holder, key) for holder, key in output_texts(cell))
        if texts and any(leaks(texts, d) for d in distinctive_sets):
            clear_outputs(cell)
            cleared += 1
    return cleared


def shown_texts(cell):
    """``[(where, text, is markup)]``: what a cell shows: its source and each text output."""
    texts = [("source", cell.source, False)]
    for holder, key in output_texts(cell):
        texts.append(("output", _get(holder, key), key == "text/html"))
    return texts


def left_out_sentence(task_ids):
    names = ", ".join(sorted(task_ids))
    return (f"(This output is left out of your copy of the course: it shows code that "
            f"task{'s' if len(task_ids) > 1 else ''} {names} ask{'' if len(task_ids) > 1 else 's'} "
            "you to write.)\n")


def replace_copied_outputs(notebook, finder):
    """Replace the outputs of every code cell that shows a task's solution, even under
    other names (``classroom.similarity``), by one sentence that says so; return the
    tasks whose solution each changed cell showed (``{cell index: task ids}``)."""
    import nbformat
    from classroom.similarity import normalise
    replaced = {}
    for index, cell in enumerate(notebook.cells):
        tasks = {m.solution.task for _, text, markup in shown_texts(cell)[1:]
                 for m in finder.matches(normalise(text, markup=markup))}
        if tasks:
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout",
                                                    text=left_out_sentence(tasks))]
            tag(cell)
            replaced[index] = tasks
    return replaced
