"""The MLP step of ``mlp_step`` (784-512-512-10, batch 256, float32), with the model
and its loss compiled by ``minitorch.compile`` (Part VI), against numpy by hand.
The optimizer (plain SGD) runs as written.  The first call's time (capture and
compile) is reported beside it.
"""

import time

import numpy as np

from ..harness import interleaved, summarize
from . import all_met, ratio_met, record
from . import mlp_step

NAME = "mlp_step_compiled"
TITLE = "MLP 784-512-512-10, ReLU, batch 256: SGD step, model and loss compiled"
UNIT = "ms per step"
TARGET = {"reference": "numpy", "max_ratio": 1.0,
          "text": "compiled: at most 1.0 x numpy by hand"}


class CompiledNet:
    """The benchmark's minitorch Net, with ``minitorch.compile`` on the model's loss."""

    def __init__(self, impl, weights, lr):
        import minitorch
        self.net = impl.Net(weights, lr)
        model, F = self.net.model, minitorch.nn.functional
        self.loss = minitorch.compile(lambda x, y: F.cross_entropy(model(x), y))

    def step(self, x, y):
        optimizer = self.net.optimizer
        optimizer.zero_grad()
        loss = self.loss(x, y)
        loss.backward()
        optimizer.step()
        return loss.item()


def run(impls, rounds, quick, log=None):
    sizes, batch, lr = mlp_step.SIZES, mlp_step.BATCH, mlp_step.LR    # the eager row's
    rng = np.random.default_rng(0)
    weights = mlp_step.init_weights(sizes, rng)
    x, y = mlp_step.data(rng, batch, sizes)
    nets = {"numpy": impls["numpy"].Net(weights, lr),
            "minitorch": CompiledNet(impls["minitorch"], weights, lr),
            "minitorch_eager": impls["minitorch"].Net(weights, lr)}
    batches = {"numpy": impls["numpy"].batch(x, y), "minitorch": impls["minitorch"].batch(x, y),
               "minitorch_eager": impls["minitorch"].batch(x, y)}
    start = time.process_time()
    first_loss = {"minitorch": nets["minitorch"].step(*batches["minitorch"])}
    compile_seconds = time.process_time() - start
    first_loss.update({n: nets[n].step(*batches[n]) for n in ("numpy", "minitorch_eager")})
    runs = {n: (lambda net=nets[n], b=batches[n]: net.step(*b)) for n in nets}
    times = interleaved(runs, rounds, reps=1 if quick else mlp_step.REPS[False], scale=1e3,
                        log=log)
    summary, ratios = summarize(times, TARGET["reference"])
    for name in summary:
        summary[name]["first_loss"] = first_loss[name]
    return record({"sizes": list(sizes), "batch": batch, "lr": lr}, summary, ratios,
                  all_met(ratio_met(ratios, TARGET)), compile_seconds=round(compile_seconds, 2),
                  note=f"compile {compile_seconds:.1f} s")
