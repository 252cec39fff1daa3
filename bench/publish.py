"""Copy the benchmarks' results into the package, where the book's benchmarks appendix reads them.

    python -m bench.publish

A full ``make bench`` writes ``bench/results/latest.json`` and ``latest.png`` and then calls
this, so the two copies are always of the same run. The copies ship inside minitorch
(``minitorch/book/benchmarks.json`` and ``benchmarks.png``) because a page opened from its
launch button has only the installed package, no file of the repository. Run this by hand
only when ``bench/results`` changed without ``make bench`` (a merge, say);
``tests/bench/test_publish.py`` fails until the copies match again.
"""

import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent
RESULTS = ROOT / "results"
PACKAGE = ROOT.parent / "minitorch" / "book"
# bench/results/<name> -> minitorch/book/<copy>
COPIES = {"latest.json": "benchmarks.json", "latest.png": "benchmarks.png"}


def publish(results=None, package=None):
    """Copy each results file of ``results`` (``bench/results``) into ``package``
    (``minitorch/book``), atomically: a reader of a copy never sees half a file. Returns
    the paths written."""
    results, package = results or RESULTS, package or PACKAGE
    written = []
    for name, copy in COPIES.items():
        data = (results / name).read_bytes()
        target = package / copy
        partial = target.with_name(target.name + ".partial")
        partial.write_bytes(data)
        os.replace(partial, target)
        written.append(target)
    return written


def main():
    for path in publish():
        print(f"[bench] wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
