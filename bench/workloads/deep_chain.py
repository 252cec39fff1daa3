"""A chain 10,000 ops deep, then backward (seconds); and a chain 100,000 deep must work.

The same elementwise chain as ``per_op``, ten times longer: besides the
per-op cost this shows whether the engine scales with depth (no recursion,
no quadratic bookkeeping) and how long it takes to free a long graph.
"""

import time

import numpy as np

from ..harness import interleaved, summarize
from . import all_met, ratio_met, record

NAME = "deep_chain"
TITLE = "chain of depth 10,000 then backward"
UNIT = "s"
TARGET = {"reference": "torch", "max_ratio": 1.0, "text": "at most PyTorch's; depth 100,000 works"}
DEPTH = 10_000
DEEPEST = 100_000
REPS = {False: 3, True: 1}     # calls per round, full run and --quick


def run(impls, rounds, quick, log=None):
    x0 = np.random.default_rng(0).uniform(0.5, 1.5, 16).astype(np.float32)
    runs = {name: impl.op_chain(x0, DEPTH) for name, impl in impls.items()}
    times = interleaved(runs, rounds, reps=REPS[quick], log=log)
    summary, ratios = summarize(times, TARGET["reference"])
    deepest = None
    if "minitorch" in impls:
        t0 = time.perf_counter()
        try:
            grad = impls["minitorch"].op_chain(x0, DEEPEST)()
            deepest = {"ok": bool(np.isfinite(grad).all()), "seconds": time.perf_counter() - t0}
        except Exception as exc:   # RecursionError, MemoryError...: record it, the target is not met
            deepest = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    params = {"depth": DEPTH, "shape": [16], "dtype": "float32", "reps_per_round": REPS[quick]}
    return record(params, summary, ratios,
                  all_met(ratio_met(ratios, TARGET), deepest and deepest["ok"]),
                  minitorch_depth_100000=deepest)
