"""Which built-in ops have a jvp rule and a batching rule (chapters 12 and 13).

Reads the two tables (``autograd.forward_rules.JVP_RULES`` and
``func.batching_rules.BATCH_RULES``) and prints, for every BuiltinFunction, how
forward mode and vmap handle it::

    python -m scripts.transform_coverage            # a table
    python -m scripts.transform_coverage --summary  # counts only
"""

import sys

from minitorch.autograd import forward_rules
from minitorch.func import batching_rules


def coverage():
    """``{op name: (jvp kind, batching kind)}`` for every built-in op."""
    jvp = forward_rules.coverage()
    batch = batching_rules.coverage()
    rows = {}
    for cls in jvp:
        name = f"{cls.__module__.split('.')[-1]}.{cls.__name__}"
        rows[name] = (jvp[cls], batch[cls])
    return dict(sorted(rows.items()))


def main(argv):
    rows = coverage()
    if "--summary" not in argv:
        width = max(len(n) for n in rows)
        print(f"{'op':{width}}  {'jvp rule':16}  batching rule")
        for name, (jvp, batch) in rows.items():
            print(f"{name:{width}}  {jvp:16}  {batch}")
    kinds = [k for k, _ in rows.values()]
    batch = [b for _, b in rows.values()]
    neither = [n for n, (j, b) in rows.items() if j != "table" and b != "rule"]
    print(f"\n{len(rows)} built-in ops: jvp rule written {kinds.count('table')}, "
          f"derived through backward {kinds.count('through backward')}; batching rule "
          f"{batch.count('rule')}, loop fallback {batch.count('loop fallback')}; neither "
          f"written jvp nor batching rule: {len(neither)}")
    if "--summary" not in argv:
        print("neither:", ", ".join(neither))


if __name__ == "__main__":
    main(sys.argv[1:])
