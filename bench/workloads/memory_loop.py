"""The seeds' loop: ten graphs ``y = square(square(square(x)))`` on a fresh
10,000-element array, with the cycle collector off.

Memory must stay flat (each new graph frees the last one by reference
counting alone, as the seeds' DeZero does once Function holds its outputs
weakly), and backward, which here frees intermediate results and keeps no
gradient but the leaf's, should need hardly more memory than numpy written
by hand.  Memory is read with ``tracemalloc``, which sees numpy's buffers and
Python's objects; it cannot see PyTorch's allocator, so PyTorch is left out.
"""

import gc
import statistics
import tracemalloc

import numpy as np

from . import all_met, record

NAME = "memory_loop"
TITLE = "chapter 2's loop: 10 graphs on a 10,000-element tensor, gc disabled"
UNIT = "bytes"
TARGET = {"reference": "numpy", "max_ratio": 1.1,
          "text": "flat; backward peak memory without retained gradients at most 1.1 x numpy by hand"}
SIZE = 10_000
ITERATIONS = 10
FLAT_BYTES = 8_000      # a tenth of one 10,000-element float64 array


def seeds_loop(impl, iterations, size, graph="seeds_graph", backward="seeds_backward"):
    """Memory still in use after each iteration, and each backward's peak above its start.
    ``graph`` and ``backward`` name the adapter's functions that build the loop's graph
    and run its backward."""
    make_graph, run_backward = getattr(impl, graph), getattr(impl, backward)
    rng = np.random.default_rng(0)
    run_backward(make_graph(rng.standard_normal(size)))     # warm-up, not traced
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    tracemalloc.start()
    try:
        current, peaks = [], []
        for _ in range(iterations):
            x = rng.standard_normal(size)             # float64, as in the seeds
            handle = make_graph(x)
            start = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            run_backward(handle)
            peaks.append(tracemalloc.get_traced_memory()[1] - start)
            current.append(tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
        if enabled:
            gc.enable()
    return current, peaks


def run(impls, rounds, quick, log=None, graph="seeds_graph", backward="seeds_backward"):
    measured = {name: impl for name, impl in impls.items() if name != "torch"}
    per_round = {name: {"growth": [], "peak": []} for name in measured}
    for r in range(rounds):
        for name, impl in measured.items():
            current, peaks = seeds_loop(impl, ITERATIONS, SIZE, graph, backward)
            per_round[name]["growth"].append(current[-1] - current[0])
            per_round[name]["peak"].append(statistics.median(peaks))
        if log:
            log(f"round {r + 1}/{rounds}: " + ", ".join(
                f"{name} peak {v['peak'][-1]:.0f} B growth {v['growth'][-1]} B"
                for name, v in per_round.items()))
    summary = {name: {"rounds": v["peak"], "median": statistics.median(v["peak"]),
                      "growth_rounds": v["growth"], "growth": max(v["growth"]),
                      "flat": max(v["growth"]) < FLAT_BYTES}
               for name, v in per_round.items()}
    if "torch" in impls:
        summary["torch"] = {"rounds": [], "median": None, "note": "tracemalloc cannot see PyTorch's allocator"}
    ratios = {}
    for name in measured:
        if name != "numpy":
            per = [a / b for a, b in zip(per_round[name]["peak"], per_round["numpy"]["peak"])]
            summary[name]["ratio_to_reference"] = statistics.median(per)
            if name == "minitorch":
                ratios["minitorch/numpy"] = {"per_round": per, "median": statistics.median(per)}
    met = None
    if "minitorch" in summary:
        met = all_met(summary["minitorch"]["flat"], ratios["minitorch/numpy"]["median"] <= TARGET["max_ratio"])
    params = {"size": SIZE, "iterations": ITERATIONS, "dtype": "float64", "flat_means_growth_below_bytes": FLAT_BYTES,
              "measure": "peak: tracemalloc's peak during backward above the memory in use when it starts "
                         "(median over the iterations); growth: memory in use after the last iteration "
                         "minus after the first"}
    return record(params, summary, ratios, met)
