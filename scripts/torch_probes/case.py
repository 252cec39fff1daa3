"""What a probe case is, and the registry the case modules fill.

A case is a small piece of Python run twice, once with ``torch`` bound to real
PyTorch and once with ``torch`` bound to minitorch.  Its source is kept as a
string so that both processes run exactly the same text and the report can
show it.  The snippet's result is the value of its last expression (as in a
REPL), or the variable ``out`` if the last statement is not an expression.
Whatever it prints is compared too, which is how order-of-events probes
(hooks, engine order) record what happened.
"""

import inspect
import textwrap
from dataclasses import dataclass, field, asdict


@dataclass
class Case:
    id: str                      # unique, stable: used to pair the two runs
    category: str                # agreement figures are given per category
    src: str                     # Python source; ``torch``, ``nn``, ``F``, ``np``, ``math`` are bound
    grad: bool = True            # backward through a float result that requires grad
    values: bool = True          # compare values (False for random draws)
    exact: bool = False          # values must be identical, not merely close
    rtol: float = None           # relative tolerance (default from the dtype)
    atol: float = None
    note: str = ""               # what the case is about, for the report
    tags: list = field(default_factory=list)

    def to_json(self):
        return asdict(self)


_REGISTRY = []


def add(category, src, id=None, **options):
    """Register one snippet case; ``id`` defaults to the category and a counter."""
    src = textwrap.dedent(src).strip("\n")
    if id is None:
        last = src.strip().splitlines()[-1].strip()
        id = f"{category}:{last[:70]}"
        taken = {c.id for c in _REGISTRY}
        n = 2
        while id in taken or f"{id}" in taken:
            id = f"{category}:{last[:70]}#{n}"
            n += 1
    case = Case(id=id, category=category, src=src, **options)
    _REGISTRY.append(case)
    return case


def probe(category, **options):
    """Decorator: register a function ``f(torch)`` as a case.  The snippet is the
    function's source followed by ``out = f(torch)``, so both runs execute the same text."""
    def register(fn):
        lines = textwrap.dedent(inspect.getsource(fn)).splitlines()
        while lines[0].startswith("@"):
            lines.pop(0)
        src = "\n".join(lines) + f"\n\nout = {fn.__name__}(torch)"
        add(category, src, id=options.pop("id", f"{category}:{fn.__name__}"), **options)
        return fn
    return register


def table(category, sources, **options):
    """Register each snippet of ``sources`` as a case of ``category``."""
    for src in sources:
        add(category, src, **options)


def registry():
    return list(_REGISTRY)


def clear():
    _REGISTRY.clear()
