"""Run every probe case under PyTorch and under minitorch and report where they differ.

    /work/torchenv/bin/python -m scripts.torch_probes --minitorch-python .venv/bin/python

(from the repository root; see README.md in this folder for the options).
"""

import argparse
import importlib
import json
import os
import pkgutil
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import case as case_module
from .compare import compare, classify
from . import report

ROOT = Path(__file__).resolve().parents[2]


def collect_cases(seed, scale):
    """Import every module of ``cases`` (each registers its cases) and run its generators."""
    from . import cases as package
    case_module.clear()
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        generate = getattr(module, "generate", None)
        if generate is not None:
            generate(random.Random(f"{seed}:{info.name}"), scale)
    cases = case_module.registry()
    seen = set()
    for c in cases:
        if c.id in seen:
            raise SystemExit(f"duplicate case id {c.id!r}")
        seen.add(c.id)
    return cases


def run_backend(python, backend, cases_path, out_path, env):
    cmd = [python, "-m", "scripts.torch_probes.worker", backend, cases_path, out_path]
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m scripts.torch_probes", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--torch-python", default=sys.executable,
                        help="interpreter with torch installed (default: this one)")
    parser.add_argument("--minitorch-python", default=str(ROOT / ".venv/bin/python"),
                        help="interpreter with numpy (minitorch comes from this repository)")
    parser.add_argument("--minitorch-path", default=str(ROOT),
                        help="folder put first on PYTHONPATH for minitorch (default: this repository)")
    parser.add_argument("-k", "--select", action="append", default=[],
                        help="run only cases whose id or category contains this text (repeatable)")
    parser.add_argument("--seed", default="0", help="seed of the generated (fuzz) cases")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiply the number of generated cases (e.g. 0.2 for a quick run)")
    parser.add_argument("--out", default=str(ROOT / "_build/torch_probes"),
                        help="folder for report.json and report.md")
    parser.add_argument("--list", action="store_true", help="list the cases and stop")
    parser.add_argument("--show", metavar="ID", help="print both runs of one case in full")
    parser.add_argument("--fail-on-diff", action="store_true", help="exit 1 if any case disagrees")
    args = parser.parse_args(argv)

    cases = collect_cases(args.seed, args.scale)
    if args.select:
        cases = [c for c in cases if any(s in c.id or s in c.category for s in args.select)]
    if args.show:
        cases = [c for c in cases if c.id == args.show]
    if args.list:
        for c in cases:
            print(f"{c.id:50s} {c.category}")
        print(f"{len(cases)} cases")
        return 0
    if not cases:
        print("no case selected")
        return 2

    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    specs = [c.to_json() for c in cases]
    with tempfile.TemporaryDirectory() as tmp:
        cases_path = os.path.join(tmp, "cases.json")
        with open(cases_path, "w") as f:
            json.dump(specs, f)
        env_t = dict(os.environ, PYTHONPATH=str(ROOT))
        env_m = dict(os.environ, PYTHONPATH=os.pathsep.join([args.minitorch_path, str(ROOT)]))
        started = time.time()
        procs = {"torch": run_backend(args.torch_python, "torch", cases_path,
                                      os.path.join(tmp, "torch.json"), env_t),
                 "minitorch": run_backend(args.minitorch_python, "minitorch", cases_path,
                                          os.path.join(tmp, "minitorch.json"), env_m)}
        runs = {}
        for name, proc in procs.items():
            _, err = proc.communicate()
            if proc.returncode != 0:
                print(f"the {name} worker failed (exit {proc.returncode}):\n{err[-3000:]}", file=sys.stderr)
                return 2
            with open(os.path.join(tmp, f"{name}.json")) as f:
                runs[name] = json.load(f)
        elapsed = time.time() - started

    by_id = {name: {r["id"]: r for r in run["results"]} for name, run in runs.items()}
    comparisons = {}
    for spec in specs:
        t, m = by_id["torch"][spec["id"]], by_id["minitorch"][spec["id"]]
        diffs = compare(spec, t, m)
        comparisons[spec["id"]] = (diffs, classify(t, m, diffs, spec["category"]))

    if args.show:
        print(json.dumps({"case": specs[0], "torch": by_id["torch"][args.show],
                          "minitorch": by_id["minitorch"][args.show],
                          "diffs": comparisons[args.show][0]}, indent=1))
        return 0

    by_cat, rows = report.build(specs, by_id["torch"], by_id["minitorch"], comparisons)
    meta = {"torch": runs["torch"]["meta"]["version"], "minitorch": runs["minitorch"]["meta"]["version"],
            "seed": args.seed, "scale": args.scale, "seconds": round(elapsed, 1)}
    with open(out_dir / "report.json", "w") as f:
        json.dump({"meta": meta, "figures": {k: dict(v) for k, v in by_cat.items()}, "cases": rows},
                  f, indent=1)
    (out_dir / "report.md").write_text(report.markdown(by_cat, rows, meta))
    print(report.figures_table(by_cat))
    print(f"\n{len(specs)} cases in {elapsed:.1f} s; report: {out_dir / 'report.md'} and report.json")
    disagree = sum(1 for d, _ in comparisons.values() if d)
    return 1 if args.fail_on_diff and disagree else 0


if __name__ == "__main__":
    sys.exit(main())
