"""The GPT training step of ``gpt_step``, with the model compiled by
``minitorch.compile`` (Part VI): the same ``minitorch/book/gpt.py`` and ``train_step``, only
``model = minitorch.compile(model)`` added.  Forward and backward run the numpy
code the default backend generated; clipping and AdamW run as written.

Three implementations, interleaved round by round: compiled minitorch (the row's
"minitorch"), eager minitorch and PyTorch eager.  The targets: at most PyTorch
eager's time, and at most 0.6 x eager minitorch's.  The time of the first call
(capture and compile) is reported beside them, measured once, outside the rounds.
"""

import time

import numpy as np

from ..harness import interleaved, summarize
from . import all_met, record
from . import gpt_step

NAME = "gpt_step_compiled"
TITLE = "GPT 4 layers, d_model 128, context 64, batch 32: AdamW step, model compiled"
UNIT = "ms per step"
TARGET = {"reference": "torch", "max_ratio": 1.0, "max_ratio_eager": 0.6,
          "text": "compiled: at most 1.0 x PyTorch eager and 0.6 x eager minitorch"}


def make_step(library, idx, targets, compiled=False):
    lib, program = gpt_step.load_program(library)
    lib.manual_seed(0)
    model = program.GPT(program.GPTConfig(**gpt_step.CONFIG))
    optimizer = model.configure_optimizers(0.1, 1e-3)
    if compiled:
        model = lib.compile(model)
    x, y = lib.tensor(idx), lib.tensor(targets)
    return lambda: program.train_step(model, optimizer, x, y)


def first_call_seconds(step):
    """CPU seconds of the first call: capture, compile, and one step."""
    start = time.process_time()
    step()
    return time.process_time() - start


def run(impls, rounds, quick, log=None):
    config, batch = gpt_step.CONFIG, gpt_step.BATCH       # the same as the eager row's
    rng = np.random.default_rng(0)
    idx = rng.integers(0, config["vocab_size"], (batch, config["block_size"]))
    targets = rng.integers(0, config["vocab_size"], (batch, config["block_size"]))
    runs = {"minitorch": make_step("minitorch", idx, targets, compiled=True),
            "minitorch_eager": make_step("minitorch", idx, targets)}
    compile_seconds = first_call_seconds(runs["minitorch"])
    if "torch" in impls:
        runs["torch"] = make_step("torch", idx, targets)
    times = interleaved(runs, rounds, reps=1 if quick else 2, scale=1e3, log=log)
    summary, ratios = summarize(times, TARGET["reference"])
    met = all_met(_below(ratios, "minitorch/torch", TARGET["max_ratio"]),
                  _below(ratios, "minitorch/minitorch_eager", TARGET["max_ratio_eager"]))
    return record(dict(config, batch=batch), summary, ratios, met,
                  compile_seconds=round(compile_seconds, 2),
                  note=f"compile {compile_seconds:.1f} s")


def _below(ratios, pair, limit):
    r = ratios.get(pair)
    return None if r is None or r["median"] is None else r["median"] <= limit
