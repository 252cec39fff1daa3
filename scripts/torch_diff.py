"""Re-run every chapter with PyTorch in place of minitorch and report the cells whose output
differs from the output stored in the notebook (which minitorch produced).

The book promises that its code gives the same results with `import torch`. This command
checks that promise cell by cell:

1. Every code cell is rewritten so that the name `minitorch` means PyTorch: `import minitorch
   as torch` becomes `import torch as torch`, `import minitorch.nn as nn` becomes
   `import torch.nn as nn`, `minitorch.tensor(...)` becomes `torch.tensor(...)`, and so on.
   Only the name is rewritten (strings and comments are left alone). The pictures module
   `minitorch.viz` and `minitorch.book` (the files chapter 17 uses) have no PyTorch
   counterpart and stay minitorch's.
2. The cells run one by one, in order, in one fresh kernel (nbclient), in the notebook's own
   folder. A cell tagged `torch-diff-skip` (a cell about minitorch itself: its source, its
   pictures) is not run.
3. Each cell's new output is compared with its stored output, after both are sanitised with
   the patterns of book/sanitize.cfg (addresses, paths, times) and `minitorch` is replaced
   by `torch` in the text. Text output and errors (`Type: message`; tracebacks differ by
   nature) are compared; pictures are not (only their text form is). Cells tagged
   `nbval-ignore-output` are run but not compared: their output is volatile by design.
4. A differing cell tagged `torch-diff-explained` (the text next to it says why PyTorch
   prints something else) is counted apart from the unexplained ones.

The report gives, per chapter, each differing cell (its index in the notebook, its first
line, the first differing lines) and the counts. It is a report: the exit code is 0, unless
`--strict` is given and some difference is unexplained.

    python -m scripts.torch_diff                     # all of book/*.ipynb
    python -m scripts.torch_diff book/04_autograd_graph.ipynb --out diff.md --strict
    make torch-diff                                  # in the benchmark environment

It needs PyTorch, nbclient and ipykernel: `make torch-diff` runs it in .venv-bench, the
benchmarks' own environment, because nothing else in the book may depend on PyTorch.
"""

from __future__ import annotations

import argparse
import configparser
import copy
import datetime as _dt
import difflib
import io
import platform
import re
import sys
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
SANITIZE_CFG = BOOK / "sanitize.cfg"

SKIP_TAG = "torch-diff-skip"
EXPLAINED_TAG = "torch-diff-explained"
VOLATILE_TAG = "nbval-ignore-output"
# Submodules of minitorch that PyTorch has no counterpart for: their names are kept.
MINITORCH_ONLY = ("viz", "book")
# Lines of a differing cell shown in the report.
DIFF_LINES = 12
# Source text that suggests a cell is about minitorch itself (a candidate for the skip tag).
ABOUT_MINITORCH = re.compile(
    r"minitorch\.viz|\bdraw_\w+\(|inspect\.getsource|show_source\(|getsourcelines"
)


# ----------------------------------------------------------------------------- rewriting


def _magic(line: str) -> bool:
    """An IPython line magic or shell escape (`%config ...`, `!pip ...`)."""
    return line.lstrip().startswith(("%", "!"))


def to_torch(source: str) -> str:
    """Rewrite a code cell so that the name `minitorch` refers to PyTorch.

    Only NAME tokens are touched, so strings and comments keep the word; `minitorch.viz`
    and `minitorch.book` (which PyTorch lacks) are kept. IPython magic lines are rewritten by a plain word match.
    """
    lines = source.splitlines(keepends=True)
    magic_rows = {i for i, line in enumerate(lines) if _magic(line)}
    # Blank out magic lines (same length) so the rest tokenizes as Python.
    masked = "".join(
        (" " * (len(line.rstrip("\r\n"))) + line[len(line.rstrip("\r\n")):])
        if i in magic_rows else line
        for i, line in enumerate(lines)
    )
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(masked).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return re.sub(r"\bminitorch\b(?!\.(?:%s)\b)" % "|".join(MINITORCH_ONLY), "torch", source)

    edits = []  # (row, col) of each `minitorch` NAME token to replace
    for k, tok in enumerate(tokens):
        if tok.type != tokenize.NAME or tok.string != "minitorch":
            continue
        nxt = tokens[k + 1 : k + 3]
        if (
            len(nxt) == 2
            and nxt[0].string == "."
            and nxt[1].type == tokenize.NAME
            and nxt[1].string in MINITORCH_ONLY
        ):
            continue
        edits.append(tok.start)
    for row, col in sorted(edits, reverse=True):
        line = lines[row - 1]
        lines[row - 1] = line[:col] + "torch" + line[col + len("minitorch"):]
    for i in magic_rows:
        lines[i] = re.sub(r"\bminitorch\b", "torch", lines[i])
    return "".join(lines)


# ----------------------------------------------------------------------------- comparing


def load_sanitizers(path: Path = SANITIZE_CFG) -> list[tuple[re.Pattern, str]]:
    """The (regex, replacement) pairs of an nbval sanitize file, in file order."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(path, encoding="utf-8")
    return [
        (re.compile(parser[s]["regex"]), parser[s]["replace"])
        for s in parser.sections()
        if "regex" in parser[s] and "replace" in parser[s]
    ]


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def output_text(outputs: list, sanitizers: list[tuple[re.Pattern, str]]) -> list[str]:
    """The comparable text of a cell's outputs, one string per line.

    Streams (consecutive chunks of one stream merged), the text form of results and
    displays (a picture counts by its mime type only when it has no text form), and errors
    as `Type: message`. Sanitised, and `minitorch` read as `torch`.
    """
    parts: list[str] = []
    last_stream = None
    for out in outputs:
        kind = out.get("output_type")
        if kind == "stream":
            text = _text(out.get("text", ""))
            if last_stream == out.get("name") and parts:
                parts[-1] += text
            else:
                parts.append(text)
            last_stream = out.get("name")
            continue
        last_stream = None
        if kind in ("execute_result", "display_data"):
            data = out.get("data", {})
            if "text/plain" in data:
                parts.append(_text(data["text/plain"]))
            else:
                parts.append(" ".join(f"[{mime}]" for mime in sorted(data)))
        elif kind == "error":
            parts.append(f"{out.get('ename', '')}: {out.get('evalue', '')}")
    text = "\n".join(p.rstrip("\n") for p in parts)
    for pattern, replacement in sanitizers:
        text = pattern.sub(replacement, text)
    text = re.sub(r"\bminitorch\b", "torch", text)
    return text.splitlines()


def first_differences(stored: list[str], fresh: list[str], limit: int = DIFF_LINES) -> list[str]:
    """The first lines of a diff: `-` lines are minitorch's output, `+` lines PyTorch's."""
    diff = difflib.unified_diff(stored, fresh, "minitorch", "torch", n=1, lineterm="")
    lines = list(diff)[2:]  # drop the file headers
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more diff lines)"]
    return lines


# ----------------------------------------------------------------------------- running


@dataclass
class CellResult:
    index: int  # position in the notebook's cells (0-based, Markdown cells counted)
    status: str  # same, differs, explained, skipped, volatile
    first_line: str = ""
    diff: list[str] = field(default_factory=list)
    hint: str = ""


@dataclass
class ChapterResult:
    notebook: str
    cells: list[CellResult] = field(default_factory=list)
    error: str = ""

    def count(self, status: str) -> int:
        return sum(c.status == status for c in self.cells)


def _first_line(source: str) -> str:
    for line in source.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            return line.strip()[:90]
    return source.strip().splitlines()[0][:90] if source.strip() else ""


def run_notebook(path: Path, sanitizers, timeout: int = 300, kernel: str = "python3"):
    """Run one notebook with PyTorch, cell by cell, and compare each cell's output."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    nb = nbformat.read(path, as_version=4)
    result = ChapterResult(path.name)
    work = copy.deepcopy(nb)
    client = NotebookClient(
        work,
        timeout=timeout,
        kernel_name=kernel,
        allow_errors=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    with client.setup_kernel():
        for index, cell in enumerate(work.cells):
            if cell.cell_type != "code":
                continue
            tags = set(cell.metadata.get("tags", []))
            stored = nb.cells[index].get("outputs", [])
            line = _first_line(cell.source)
            if SKIP_TAG in tags:
                result.cells.append(CellResult(index, "skipped", line))
                continue
            cell.source = to_torch(cell.source)
            cell.outputs = []
            try:
                client.execute_cell(cell, index)
            except (CellExecutionError, CellTimeoutError) as exc:
                cell.outputs.append(
                    {"output_type": "error", "ename": type(exc).__name__, "evalue": str(exc)}
                )
            except DeadKernelError as exc:
                result.error = f"the kernel died at cell {index}: {exc}"
                break
            if VOLATILE_TAG in tags:
                result.cells.append(CellResult(index, "volatile", line))
                continue
            old = output_text(stored, sanitizers)
            new = output_text(cell.outputs, sanitizers)
            if old == new:
                result.cells.append(CellResult(index, "same", line))
                continue
            status = "explained" if EXPLAINED_TAG in tags else "differs"
            hint = "about minitorch itself?" if ABOUT_MINITORCH.search(nb.cells[index].source) else ""
            result.cells.append(CellResult(index, status, line, first_differences(old, new), hint))
    return result


# ----------------------------------------------------------------------------- reporting


def _versions() -> str:
    try:
        import torch

        torch_version = torch.__version__
    except ImportError:  # pragma: no cover - the command needs torch
        torch_version = "not installed"
    import numpy

    return (
        f"PyTorch {torch_version}, numpy {numpy.__version__}, "
        f"Python {platform.python_version()}"
    )


def report(chapters: list[ChapterResult]) -> str:
    """The Markdown report: a table of counts, then each chapter's differing cells."""
    now = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    out = [
        "# torch-diff: the chapters run with PyTorch in place of minitorch",
        "",
        f"Run {now} with {_versions()}. Each code cell's output under PyTorch is compared "
        "with the output stored in the notebook (minitorch's), after sanitising both "
        "(book/sanitize.cfg, and `minitorch` read as `torch`).",
        "",
        "| chapter | code cells | same | differ (unexplained) | differ (explained) "
        "| skipped (`torch-diff-skip`) | not compared (`nbval-ignore-output`) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for ch in chapters:
        out.append(
            f"| {ch.notebook} | {len(ch.cells)} | {ch.count('same')} | {ch.count('differs')} "
            f"| {ch.count('explained')} | {ch.count('skipped')} | {ch.count('volatile')} |"
        )
    total = sum(ch.count("differs") for ch in chapters)
    explained = sum(ch.count("explained") for ch in chapters)
    out += ["", f"Unexplained differences: {total}. Explained: {explained}.", ""]
    for ch in chapters:
        out += [f"## {ch.notebook}", ""]
        if ch.error:
            out += [f"**The run stopped: {ch.error}**", ""]
        differing = [c for c in ch.cells if c.status in ("differs", "explained")]
        if not differing:
            out += ["No differences.", ""]
            continue
        for c in differing:
            label = "explained" if c.status == "explained" else "differs"
            hint = f" ({c.hint})" if c.hint else ""
            out.append(f"- cell {c.index}, {label}{hint}: `{c.first_line}`")
            out.append("")
            out.append("  ```diff")
            out += [f"  {line}" for line in c.diff]
            out.append("  ```")
        out.append("")
    return "\n".join(out)


def default_notebooks() -> list[Path]:
    return sorted(BOOK.glob("*.ipynb"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: book/*.ipynb")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "torch-diff.md",
                        help="where to write the Markdown report (default: %(default)s)")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 when any difference is unexplained")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per cell")
    parser.add_argument("--kernel", default="python3", help="Jupyter kernel name")
    args = parser.parse_args(argv)

    try:
        import torch  # noqa: F401
    except ImportError:
        print("torch-diff needs PyTorch: run it with `make torch-diff`, which uses the "
              "benchmarks' environment .venv-bench.", file=sys.stderr)
        return 2

    sanitizers = load_sanitizers()
    chapters = []
    for path in args.notebooks or default_notebooks():
        print(f"torch-diff: running {path.name} with PyTorch ...", file=sys.stderr, flush=True)
        chapters.append(run_notebook(path.resolve(), sanitizers, args.timeout, args.kernel))
    text = report(chapters)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text + "\n", encoding="utf-8")
    for ch in chapters:
        print(f"{ch.notebook:28} differ: {ch.count('differs'):3}  explained: "
              f"{ch.count('explained'):3}  skipped: {ch.count('skipped'):3}  same: "
              f"{ch.count('same'):3}  not compared: {ch.count('volatile'):3}"
              + (f"  STOPPED: {ch.error}" if ch.error else ""))
    print(f"report: {args.out}")
    unexplained = sum(ch.count("differs") for ch in chapters)
    if args.strict and (unexplained or any(ch.error for ch in chapters)):
        print(f"torch-diff --strict: {unexplained} unexplained differences.", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
