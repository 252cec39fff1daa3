"""Timing: implementations interleaved round by round in one process, medians and per-round ratios.

These machines are shared: another process can take the CPU at any moment,
so an absolute time means little.  What holds up is a ratio between two
implementations measured moments apart.  So within each round the
implementations take turns call by call (in an order that rotates from round
to round), a round keeps each one's fastest call, and a ratio is taken inside
each round before the median over rounds.

The clock is the process's CPU time (``time.process_time``): time another
process takes while we wait does not count.  A full garbage collection runs
before every timed call (outside the timing): Python's collector decides when
to do its expensive full passes from the objects *all* implementations left
behind, so without it one implementation pays for another's garbage.  Within
a call the collector runs as usual.  Wall time (``perf_counter``) is
recorded beside it.  Every implementation runs on the same single thread, so
the two agree on an idle machine.
"""

import gc
import statistics
import time


def interleaved(runs, rounds, reps=1, scale=1.0, log=None):
    """Time each ``runs[name]()`` (a set-up already done) ``reps`` times per round.

    Within a round the implementations take turns, one call each, ``reps``
    times over, so that each one's fastest call comes from the same stretch of
    time as the others'.  Returns ``{name: {"cpu": [...], "wall": [...]}}``:
    per round, the fastest call times ``scale`` (to turn seconds into the
    workload's unit).  One untimed call of each comes first (warm-up).
    """
    names = list(runs)
    for name in names:
        runs[name]()
    times = {name: {"cpu": [], "wall": []} for name in names}
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        best = {name: [float("inf"), float("inf")] for name in names}
        for _ in range(reps):
            for name in order:
                gc.collect()
                c0, w0 = time.process_time(), time.perf_counter()
                runs[name]()
                c1, w1 = time.process_time(), time.perf_counter()
                best[name][0] = min(best[name][0], c1 - c0)
                best[name][1] = min(best[name][1], w1 - w0)
        for name in names:
            times[name]["cpu"].append(best[name][0] * scale)
            times[name]["wall"].append(best[name][1] * scale)
        if log:
            log(f"round {r + 1}/{rounds}: " + ", ".join(
                f"{name} {times[name]['cpu'][-1]:.4g}" for name in names))
    return times


def median(values):
    return statistics.median(values) if values else None


def ratio(per_round_a, per_round_b):
    """Per-round ratios a/b and their median."""
    per_round = [a / b for a, b in zip(per_round_a, per_round_b) if b]
    return {"per_round": per_round, "median": median(per_round)}


def summarize(times, reference, clock="cpu"):
    """Medians per implementation, and minitorch's ratios to each peer (per round, then median)."""
    impls = {name: {"rounds": t[clock], "wall_rounds": t["wall"], "median": median(t[clock]),
                    "wall_median": median(t["wall"])} for name, t in times.items()}
    ratios = {}
    if "minitorch" in times:
        for peer in times:
            if peer != "minitorch":
                ratios[f"minitorch/{peer}"] = ratio(times["minitorch"][clock], times[peer][clock])
    for name in times:     # every implementation against the target's reference, for the chart
        if name != reference and reference in times:
            impls[name]["ratio_to_reference"] = ratio(times[name][clock], times[reference][clock])["median"]
    return impls, ratios
