"""One training step of the GPT of ``minitorch/book/gpt.py`` (chapter 17, Part V):
4 layers, d_model 128, 4 heads, context 64, batch 32, vocabulary 65, float32; forward,
cross-entropy, backward, gradient clipping, AdamW.

The same program file runs on both libraries (minitorch stands in for ``torch``
when it is loaded for minitorch).  There is no numpy-by-hand version, so the
reference is PyTorch; without PyTorch the workload reports minitorch alone.

It has the shape of the other workloads (``run(impls, rounds, quick, log)``) and
also runs on its own: ``python -m bench.workloads.gpt_step [--rounds N]``.
"""

import importlib
import importlib.util
import pathlib
import sys

import numpy as np

from ..harness import interleaved, summarize
from . import all_met, ratio_met, record

NAME = "gpt_step"
TITLE = "GPT 4 layers, d_model 128, context 64, batch 32: AdamW step with clipping"
UNIT = "ms per step"
TARGET = {"reference": "torch", "max_ratio": 1.3,
          "text": "at most 1.3 x PyTorch, float32, one thread"}
CONFIG = dict(vocab_size=65, block_size=64, n_layer=4, n_head=4, n_embd=128)
BATCH = 32
PROGRAM = pathlib.Path(__file__).resolve().parents[2] / "minitorch" / "book" / "gpt.py"
LIBRARIES = {"torch": "torch", "minitorch": "minitorch"}


def load_program(library):
    """``minitorch/book/gpt.py`` with ``library`` answering its ``import torch``."""
    lib = importlib.import_module(library)
    names = {"torch": lib, "torch.nn": lib.nn, "torch.nn.functional": lib.nn.functional,
             "torch.optim": lib.optim}
    saved = {name: sys.modules.get(name) for name in names}
    sys.modules.update(names)
    try:
        spec = importlib.util.spec_from_file_location(f"gpt_program_{library}", PROGRAM)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        for name, old in saved.items():
            if old is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = old
    return lib, module


def make_step(library, idx, targets):
    lib, program = load_program(library)
    lib.manual_seed(0)
    model = program.GPT(program.GPTConfig(**CONFIG))
    optimizer = model.configure_optimizers(0.1, 1e-3)
    x, y = lib.tensor(idx), lib.tensor(targets)
    return lambda: program.train_step(model, optimizer, x, y)


def run(impls, rounds, quick, log=None):
    rng = np.random.default_rng(0)
    idx = rng.integers(0, CONFIG["vocab_size"], (BATCH, CONFIG["block_size"]))
    targets = rng.integers(0, CONFIG["vocab_size"], (BATCH, CONFIG["block_size"]))
    runs = {name: make_step(LIBRARIES[name], idx, targets) for name in impls
            if name in LIBRARIES}
    times = interleaved(runs, rounds, reps=1 if quick else 2, scale=1e3, log=log)
    summary, ratios = summarize(times, TARGET["reference"])
    params = dict(CONFIG, batch=BATCH)
    return record(params, summary, ratios, all_met(ratio_met(ratios, TARGET)))


def main(argv=None):
    import argparse
    from ..impls import load
    parser = argparse.ArgumentParser(description=TITLE)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args(argv)
    impls, missing = load(("torch", "minitorch"))
    result = run(impls, args.rounds, quick=False)
    for name, r in result["impls"].items():
        print(f"{name:10s} median {r['median']:.1f} {UNIT} (CPU time)")
    for pair, r in result["ratios"].items():
        print(f"{pair}: median per-round ratio {r['median']:.2f} (target {TARGET['text']})")
    for name, why in missing.items():
        print(f"{name}: not measured ({why})")


if __name__ == "__main__":
    main()
