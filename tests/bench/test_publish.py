"""The benchmarks' results that the book's appendix reads ship inside the package
(``minitorch/book/benchmarks.json`` and ``.png``, so that the page runs from its launch
button), and they are the results of ``bench/results``: a full ``make bench`` writes both,
and nothing else may make them differ."""

import json
import pathlib

from bench import publish, run as bench_run
from bench.workloads import per_op

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_package_carries_the_results_of_bench_results():
    for name, copy in publish.COPIES.items():
        shipped = ROOT / "minitorch" / "book" / copy
        measured = ROOT / "bench" / "results" / name
        assert shipped.read_bytes() == measured.read_bytes(), (
            f"minitorch/book/{copy} is not bench/results/{name}: run `python -m bench.publish`")


def test_the_shipped_results_name_their_machine():
    machine = json.loads((ROOT / "minitorch" / "book" / "benchmarks.json")
                         .read_text(encoding="utf-8"))["machine"]
    assert machine["cpu"] and machine["numpy_simd"]["found"] is not None


def _folders(tmp_path, monkeypatch):
    results, package = tmp_path / "results", tmp_path / "package"
    package.mkdir()
    monkeypatch.setattr(publish, "RESULTS", results)
    monkeypatch.setattr(publish, "PACKAGE", package)
    monkeypatch.setattr(per_op, "N_OPS", 8)
    return results, package


def test_a_run_into_bench_results_writes_the_packaged_copy_too(tmp_path, monkeypatch):
    results, package = _folders(tmp_path, monkeypatch)
    argv = ["--only", "per_op", "--rounds", "1", "--impls", "numpy", "minitorch"]
    assert bench_run.main([*argv, "--out", str(results)]) == 0
    assert (package / "benchmarks.json").read_bytes() == (results / "latest.json").read_bytes()
    assert (package / "benchmarks.png").read_bytes() == (results / "latest.png").read_bytes()


def test_a_run_elsewhere_leaves_the_packaged_copy_alone(tmp_path, monkeypatch):
    results, package = _folders(tmp_path, monkeypatch)
    argv = ["--only", "per_op", "--rounds", "1", "--impls", "numpy", "minitorch"]
    assert bench_run.main([*argv, "--out", str(tmp_path / "elsewhere")]) == 0
    assert list(package.iterdir()) == []
