"""Per-op overhead: a chain of 1,000 elementwise ops on a (16,) float32 tensor, then sum and backward.

The tensor is tiny, so the arithmetic costs next to nothing: what is measured
is what each implementation does around it (for minitorch: the Function call,
the node, the Tensor wrapper, then the engine's work in backward).
"""

import numpy as np

from ..harness import interleaved, summarize
from . import ratio_met, record

NAME = "per_op"
TITLE = "per-op overhead: chain of 1,000 elementwise ops (mul, add, exp, log) on a (16,) tensor, then sum and backward"
UNIT = "µs per op"
TARGET = {"reference": "torch", "max_ratio": 0.9,
          "text": "at most 0.9 x PyTorch's, measured in the same run (a margin for other CPUs)"}
N_OPS = 1000
SIZE = 16
REPS = {False: 10, True: 5}    # calls per round, full run and --quick


def run(impls, rounds, quick, log=None):
    x0 = np.random.default_rng(0).uniform(0.5, 1.5, SIZE).astype(np.float32)
    runs = {name: impl.op_chain(x0, N_OPS) for name, impl in impls.items()}
    grads = {name: f() for name, f in runs.items()}
    times = interleaved(runs, rounds, reps=REPS[quick], scale=1e6 / N_OPS, log=log)
    summary, ratios = summarize(times, TARGET["reference"])
    for name in summary:
        summary[name]["grad_dtype"] = grads[name].dtype.name
        summary[name]["max_abs_diff_vs_numpy"] = float(np.abs(grads[name] - grads["numpy"]).max())
    params = {"n_ops": N_OPS, "shape": [SIZE], "dtype": "float32", "reps_per_round": REPS[quick]}
    return record(params, summary, ratios, ratio_met(ratios, TARGET))
