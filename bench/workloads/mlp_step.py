"""One training step of an MLP 784-512-512-10 (ReLU) on a batch of 256: softmax
cross-entropy, backward, SGD.  float32 throughout, gradients included.

The matrix products dominate (about 0.8 GFLOP per step), so here minitorch is
measured against the floor: numpy with the backward written by hand.
"""

import numpy as np

from ..harness import interleaved, summarize
from . import all_met, ratio_met, record

NAME = "mlp_step"
TITLE = "MLP 784-512-512-10, ReLU, batch 256, softmax cross-entropy, SGD step"
UNIT = "ms per step"
TARGET = {"reference": "numpy", "max_ratio": 1.05,
          "text": "at most 1.05 x numpy by hand, float32 throughout (gradients too)"}
SIZES = (784, 512, 512, 10)
BATCH = 256
LR = 0.01
REPS = {False: 5, True: 3}     # calls per round, full run and --quick


def init_weights(sizes, rng):
    """PyTorch's default for nn.Linear: W and b uniform in +-1/sqrt(fan_in), here float32 from numpy."""
    weights = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        bound = 1 / np.sqrt(n_in)
        weights.append((rng.uniform(-bound, bound, (n_out, n_in)).astype(np.float32),
                        rng.uniform(-bound, bound, n_out).astype(np.float32)))
    return weights


def data(rng, batch, sizes):
    x = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    y = rng.integers(0, sizes[-1], batch).astype(np.int64)
    return x, y


def run(impls, rounds, quick, log=None):
    rng = np.random.default_rng(0)
    weights = init_weights(SIZES, rng)
    x, y = data(rng, BATCH, SIZES)
    nets = {name: impl.Net(weights, LR) for name, impl in impls.items()}
    batches = {name: impl.batch(x, y) for name, impl in impls.items()}
    # One step from the same weights on the same batch: the losses agree (checked outside the timing).
    first_loss = {name: nets[name].step(*batches[name]) for name in impls}
    runs = {name: (lambda net=nets[name], b=batches[name]: net.step(*b)) for name in impls}
    reps = REPS[quick]
    times = interleaved(runs, rounds, reps=reps, scale=1e3, log=log)
    summary, ratios = summarize(times, TARGET["reference"])
    for name in summary:
        summary[name]["first_loss"] = first_loss[name]
        summary[name]["dtypes"] = sorted(nets[name].dtypes())
    float32 = summary["minitorch"]["dtypes"] == ["float32"] if "minitorch" in summary else None
    params = {"sizes": list(SIZES), "batch": BATCH, "lr": LR, "reps_per_round": reps}
    return record(params, summary, ratios, all_met(ratio_met(ratios, TARGET), float32),
                  minitorch_float32=float32)
