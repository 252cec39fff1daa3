"""Check, and with --apply set, the cell tags the chapter notebooks use for the HTML book.

Two conventions (book/README-authoring.md describes all the tags):

- The first code cell of a chapter (it finds or installs minitorch and imports what the
  chapter needs) is tagged `hide-input`: the HTML book shows it collapsed.
- A cell whose code is only `assert` statements (comments and blank lines aside) is a
  check, not something to read: it is tagged `remove-input` and `remove-output`, so the
  HTML book leaves it out while nbval and the book build still run it.

    python -m scripts.nbtags                  # report what is tagged and what is missing
    python -m scripts.nbtags --check          # the same, exit 1 when a tag is missing
    python -m scripts.nbtags --apply          # add the missing tags (writes the notebooks)
    python -m scripts.nbtags --apply book/04_autograd_graph.ipynb

Only tags are added; no cell's source or output changes, and the notebook is written back
in Jupyter's own format, so the diff is the tag lines alone.
"""

from __future__ import annotations

import argparse
import ast
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"

FIRST_CELL_TAGS = ("hide-input",)
ASSERT_ONLY_TAGS = ("remove-input", "remove-output")


def is_assert_only(source: str) -> bool:
    """True when the code is one or more `assert` statements and nothing else.

    Comments and blank lines do not count. Code that does not parse as Python (an IPython
    magic, say) is not assert-only.
    """
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return False
    return bool(body) and all(isinstance(stmt, ast.Assert) for stmt in body)


@dataclass
class Finding:
    """A cell that should carry `tags`; `missing` are the ones it lacks."""

    index: int
    kind: str  # "first cell" or "assert-only"
    first_line: str
    tags: tuple[str, ...]
    missing: tuple[str, ...]
    note: str = ""


@dataclass
class NotebookReport:
    path: Path
    findings: list[Finding] = field(default_factory=list)

    @property
    def missing(self) -> list[Finding]:
        return [f for f in self.findings if f.missing]


def _first_line(source: str) -> str:
    lines = [line for line in source.splitlines() if line.strip()]
    return lines[0].strip()[:80] if lines else ""


def _cell_tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def inspect_notebook(nb, path: Path) -> NotebookReport:
    """Which cells should carry which tags, and which tags they lack."""
    report = NotebookReport(path)
    code = [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    for n, (index, cell) in enumerate(code):
        tags = _cell_tags(cell)
        if n == 0:
            wanted, kind = FIRST_CELL_TAGS, "first cell"
        elif is_assert_only(cell.source):
            wanted, kind = ASSERT_ONLY_TAGS, "assert-only"
        else:
            continue
        missing = tuple(t for t in wanted if t not in tags)
        note = ""
        if kind == "assert-only" and cell.get("outputs"):
            note = "it has output (a warning?), which remove-output hides too"
        report.findings.append(
            Finding(index, kind, _first_line(cell.source), wanted, missing, note)
        )
    return report


def apply_tags(nb, report: NotebookReport) -> int:
    """Add the missing tags to the notebook in memory; return how many were added."""
    added = 0
    for finding in report.missing:
        cell = nb.cells[finding.index]
        tags = _cell_tags(cell)
        tags += [t for t in finding.missing if t not in tags]
        cell.metadata["tags"] = tags
        added += len(finding.missing)
    return added


def format_report(report: NotebookReport, root: Path = ROOT) -> str:
    try:
        name = report.path.relative_to(root)
    except ValueError:
        name = report.path
    lines = [f"{name}:"]
    for f in report.findings:
        state = "missing " + ", ".join(f.missing) if f.missing else "tagged"
        note = f"  ({f.note})" if f.note else ""
        lines.append(f"  cell {f.index:3} {f.kind:11} {state:32} {f.first_line}{note}")
    if not report.findings:
        lines.append("  no code cells")
    return "\n".join(lines)


def default_notebooks() -> list[Path]:
    return sorted(BOOK.glob("*.ipynb"))


def main(argv: list[str] | None = None) -> int:
    import nbformat

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: book/*.ipynb")
    parser.add_argument("--apply", action="store_true", help="add the missing tags")
    parser.add_argument("--check", action="store_true", help="exit 1 if a tag is missing")
    args = parser.parse_args(argv)

    missing_total = 0
    for path in args.notebooks or default_notebooks():
        path = path.resolve()
        nb = nbformat.read(path, as_version=4)
        report = inspect_notebook(nb, path)
        print(format_report(report))
        missing_total += sum(len(f.missing) for f in report.missing)
        if args.apply and report.missing:
            added = apply_tags(nb, report)
            path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")
            print(f"  -> added {added} tags")
    verb = "added" if args.apply else "missing"
    print(f"{missing_total} tags {verb}")
    return 1 if args.check and missing_total and not args.apply else 0


if __name__ == "__main__":
    sys.exit(main())
