"""Per-op overhead in inference: the ``per_op`` chain of 1,000 elementwise ops under
``no_grad()``, without backward.

Nothing is recorded, so what is measured is the forward half of the per-op
cost without the graph: the op's dispatch, its checks and the result's
wrapper around numpy's arithmetic.
"""

import numpy as np

from ..harness import interleaved, summarize
from . import ratio_met, record

NAME = "per_op_no_grad"
TITLE = ("per-op overhead under no_grad (inference): chain of 1,000 elementwise ops (mul, add, "
         "exp, log) on a (16,) tensor, no backward")
UNIT = "µs per op"
TARGET = {"reference": "torch", "max_ratio": 1.0, "text": "at most PyTorch's, measured in the same run"}
N_OPS = 1000
SIZE = 16
REPS = {False: 10, True: 5}    # calls per round, full run and --quick


def run(impls, rounds, quick, log=None):
    x0 = np.random.default_rng(0).uniform(0.5, 1.5, SIZE).astype(np.float32)
    runs = {name: impl.op_chain_no_grad(x0, N_OPS) for name, impl in impls.items()}
    values = {name: f() for name, f in runs.items()}
    times = interleaved(runs, rounds, reps=REPS[quick], scale=1e6 / N_OPS, log=log)
    summary, ratios = summarize(times, TARGET["reference"])
    for name in summary:
        summary[name]["max_abs_diff_vs_numpy"] = float(np.abs(values[name] - values["numpy"]).max())
    params = {"n_ops": N_OPS, "shape": [SIZE], "dtype": "float32", "reps_per_round": REPS[quick]}
    return record(params, summary, ratios, ratio_met(ratios, TARGET))
