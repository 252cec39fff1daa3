"""Run the benchmarks of issues #5, #16 and #30 and write the table, ``latest.json`` and ``latest.png``.

    python -m bench.run [--quick] [--only WORKLOAD ...] [--rounds N] [--out DIR]

Every installed implementation (numpy by hand and minitorch always; PyTorch
and DeZero when ``bench/requirements.txt`` is installed) runs every workload,
interleaved round by round in this one process, on one thread.  A full run
writes to ``bench/results`` (the results the book shows, copied into the package by
``bench.publish``); ``--quick`` or ``--only`` runs write to ``bench/out`` unless ``--out``
says otherwise.
"""

import bench  # noqa: F401  (fixes the BLAS thread counts before numpy is imported)

import argparse
import datetime
import gc
import json
import os
import pathlib
import platform
import subprocess
import sys
import time

from . import THREADS, publish, report, workloads
from .impls import ORDER, load

ROOT = pathlib.Path(__file__).resolve().parent


def _limit_threads():
    """Also hold the loaded BLAS and OpenMP libraries to one thread (threadpoolctl), for when numpy
    was imported before ``bench``; returns what they are, for the record."""
    try:
        from threadpoolctl import threadpool_info, threadpool_limits
    except ImportError:
        return None, []
    return threadpool_limits(THREADS), threadpool_info()


def _cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _git_commit():
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True,
                             text=True, timeout=10)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def _numpy_simd():
    """numpy's SIMD extensions: those it was built for (baseline) and those it found on this
    CPU, which pick its kernels (and so its speed relative to PyTorch's own)."""
    import numpy as np
    try:
        simd = np.show_config(mode="dicts")["SIMD Extensions"]
    except (TypeError, KeyError, AttributeError):      # an older numpy
        return None
    return {"baseline": list(simd.get("baseline", [])), "found": list(simd.get("found", []))}


def machine_info(impls, missing, blas):
    import numpy as np
    info = {
        "cpu": _cpu_model(),
        "numpy_simd": _numpy_simd(),
        "cores": os.cpu_count(),
        "cores_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "threads": THREADS,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "threadpools": [{k: b.get(k) for k in ("user_api", "internal_api", "version", "num_threads",
                                                "architecture", "threading_layer", "filepath")} for b in blas],
        "env": {k: os.environ[k] for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                                           "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if k in os.environ},
        "versions": {name: impl.version() for name, impl in impls.items()},
        "not_installed": missing,
        # BENCH_REPOSITORY names the commit when the run is made from an exported copy (no .git).
        "repository": os.environ.get("BENCH_REPOSITORY") or _git_commit(),
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
    }
    return info


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 rounds and fewer repetitions")
    parser.add_argument("--only", nargs="+", choices=workloads.NAMES, metavar="WORKLOAD",
                        help="run only these workloads: " + ", ".join(workloads.NAMES))
    parser.add_argument("--rounds", type=int, help="rounds per workload (default 7, --quick 3)")
    parser.add_argument("--impls", nargs="+", choices=ORDER, default=list(ORDER),
                        help="implementations to run (default: all that are installed)")
    parser.add_argument("--out", type=pathlib.Path,
                        help="folder for latest.json and latest.png (default bench/results for a full "
                             "run, bench/out for --quick or --only)")
    args = parser.parse_args(argv)
    rounds = args.rounds or (3 if args.quick else 7)
    out = args.out or (ROOT / ("out" if args.quick or args.only else "results"))
    names = args.only or list(workloads.NAMES)

    impls, missing = load(args.impls)
    limiter, blas = _limit_threads()
    for required in ("numpy", "minitorch"):
        if required not in impls:
            parser.error(f"{required} is needed for every comparison: {missing.get(required, 'not selected')}")
    # What the imports made lives as long as the process: keep it out of the
    # collector's way, so a collection during a workload costs what the workload made.
    gc.collect()
    gc.freeze()
    try:
        return _run(args, impls, missing, blas, names, rounds, out)
    finally:
        gc.unfreeze()
        if limiter is not None:          # leave a calling program (a test) as it was
            limiter.restore_original_limits()


def _run(args, impls, missing, blas, names, rounds, out):
    for name, why in missing.items():
        print(f"[bench] {name} is not installed here, so it is left out ({why})")
    print(f"[bench] {', '.join(impls)}; {rounds} rounds; one thread; times are CPU times of this process")

    results = {"machine": machine_info(impls, missing, blas),
               "settings": {"rounds": rounds, "quick": args.quick, "clock": "process_time (CPU time)",
                            "per_round": "each implementation's fastest call; within a round they take turns, call by call",
                            "ratio": "median over rounds of the per-round ratio"},
               "workloads": {}}
    for name in names:
        module = workloads.get(name)
        print(f"[bench] {name}: {module.TITLE}", flush=True)
        started = time.perf_counter()
        result = module.run(dict(impls), rounds, args.quick,
                            log=lambda msg: print(f"[bench]   {msg}", flush=True))
        results["workloads"][name] = {"title": module.TITLE, "unit": module.UNIT, "target": module.TARGET,
                                      **result, "seconds": round(time.perf_counter() - started, 2)}

    out.mkdir(parents=True, exist_ok=True)
    with open(out / "latest.json", "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1, ensure_ascii=False, default=float)
        f.write("\n")
    try:
        report.chart(results, out / "latest.png")
    except ImportError as exc:
        print(f"[bench] no chart: {exc}")
    print()
    print(report.machine_line(results["machine"]))
    print(report.table(results))
    print()
    print(f"[bench] wrote {out / 'latest.json'} and {out / 'latest.png'}")
    if out.resolve() == publish.RESULTS.resolve():       # the results the book shows
        for path in publish.publish():
            print(f"[bench] and the copy the book reads, {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
