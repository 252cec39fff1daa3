"""The workloads of issues #5 and #16 and Part V's GPT step, one module each, all with the
same shape.

A workload module has ``NAME``, ``TITLE``, ``UNIT``, ``TARGET`` and
``run(impls, rounds, quick, log)``, which returns the workload's record for
``latest.json``: per implementation the per-round values and their median,
minitorch's per-round ratios to each peer, the target and whether it is met
(None when the target's reference implementation is not installed).
"""

import importlib

NAMES = ("per_op", "per_op_no_grad", "mlp_step", "deep_chain", "fanout_chain", "memory_loop",
         "memory_twice", "memory_seeded", "digits", "gpt_step", "mlp_step_compiled",
         "gpt_step_compiled")


def get(name):
    return importlib.import_module(f"{__name__}.{name}")


def record(params, impls, ratios, met, **extra):
    """A workload's result (``bench.run`` adds its title, unit and target)."""
    return {"params": params, "impls": impls, "ratios": ratios, "met": met, **extra}


def ratio_met(ratios, target):
    """Is minitorch's median per-round ratio to the target's reference within the target?"""
    r = ratios.get(f"minitorch/{target['reference']}")
    if r is None or r["median"] is None:
        return None
    return r["median"] <= target["max_ratio"]


def all_met(*conditions):
    """True when all hold, False when one fails, None when one could not be measured."""
    if any(c is False for c in conditions):
        return False
    return None if any(c is None for c in conditions) else True
