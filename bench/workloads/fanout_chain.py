"""A chain that fans out, ``y = y + y * 1e-4`` 10,000 times, then backward (seconds),
each implementation in a fresh process of its own.

Every step uses ``y`` twice, so backward adds two gradients at every node: the
engine's accumulation is on the path 10,000 times, unlike ``deep_chain``.  The
graph also grows to tens of thousands of Python objects while it is built,
and Python's cycle collector walks what it finds: a fresh process that
imported only the one implementation, without ``bench.run``'s ``gc.freeze()``,
shows that cost as a user's script meets it.  Each round starts one process per
implementation (in an order that rotates), which reports the CPU time of its
fastest call after a warm-up.

``python -m bench.workloads.fanout_chain --child NAME`` is that process.
"""

import json
import pathlib
import subprocess
import sys

import numpy as np

from ..harness import summarize
from . import ratio_met, record

NAME = "fanout_chain"
TITLE = "chain of depth 10,000 that fans out (y = y + y * 1e-4), float64, fresh process"
UNIT = "s"
TARGET = {"reference": "torch", "max_ratio": 1.0, "text": "at most PyTorch's"}
DEPTH = 10_000
SIZE = 16
REPS = {False: 3, True: 1}     # calls per process, full run and --quick
ROOT = pathlib.Path(__file__).resolve().parents[2]      # where ``-m bench...`` imports from


def start():
    return np.random.default_rng(0).uniform(0.5, 1.5, SIZE)       # float64


def child(name, depth, reps):
    """In the fresh process: warm up, then time ``reps`` calls; the fastest, and the
    gradient's sum (to check that the implementations agree)."""
    import gc
    import time
    from ..impls import load
    impls, missing = load((name,))
    if name not in impls:
        return {"error": missing[name]}
    run = impls[name].fanout_chain(start(), depth)
    grad = run()
    best = [float("inf"), float("inf")]
    for _ in range(reps):
        gc.collect()
        c0, w0 = time.process_time(), time.perf_counter()
        run()
        c1, w1 = time.process_time(), time.perf_counter()
        best = [min(best[0], c1 - c0), min(best[1], w1 - w0)]
    return {"cpu": best[0], "wall": best[1], "grad_sum": float(np.sum(grad))}


def in_fresh_process(name, depth, reps):
    out = subprocess.run([sys.executable, "-m", __name__, "--child", name, "--depth", str(depth),
                          "--reps", str(reps)], cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(impls, rounds, quick, log=None):
    names = list(impls)
    times = {name: {"cpu": [], "wall": []} for name in names}
    grad_sums = {}
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            result = in_fresh_process(name, DEPTH, REPS[quick])
            if "error" in result:
                raise RuntimeError(f"{name} did not load in a fresh process: {result['error']}")
            times[name]["cpu"].append(result["cpu"])
            times[name]["wall"].append(result["wall"])
            grad_sums[name] = result["grad_sum"]
        if log:
            log(f"round {r + 1}/{rounds}: " + ", ".join(
                f"{name} {times[name]['cpu'][-1]:.4g}" for name in names))
    summary, ratios = summarize(times, TARGET["reference"])
    for name in summary:
        summary[name]["grad_sum"] = grad_sums[name]
    params = {"depth": DEPTH, "shape": [SIZE], "dtype": "float64", "reps_per_process": REPS[quick],
              "process": "a fresh one per implementation and round, without gc.freeze()"}
    return record(params, summary, ratios, ratio_met(ratios, TARGET))


def main(argv=None):
    import argparse
    parser = argparse.ArgumentParser(description=TITLE)
    parser.add_argument("--child", required=True, help="the implementation to time")
    parser.add_argument("--depth", type=int, default=DEPTH)
    parser.add_argument("--reps", type=int, default=REPS[False])
    args = parser.parse_args(argv)
    print(json.dumps(child(args.child, args.depth, args.reps)))


if __name__ == "__main__":
    main()
