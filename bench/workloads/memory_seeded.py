"""The squares chain of ``memory_twice`` (``y = sq(sq(sq(x)))``, each square written
``u * u``), with backward started from a gradient the caller passes,
``y.backward(torch.ones_like(y))``, instead of from a sum.

The caller holds that gradient, a whole 10,000-element array, until backward
returns, so it adds to every step's peak; numpy by hand is given the same
gradient and holds it the same way.  (Compared with numpy by hand that drops
it after the first step, minitorch's peak is a third higher: that is the
caller's array, not the engine's.)
"""

from . import memory_loop

NAME = "memory_seeded"
TITLE = "the x * x loop, backward from a gradient the caller passes and holds, gc disabled"
UNIT = memory_loop.UNIT
TARGET = memory_loop.TARGET


def run(impls, rounds, quick, log=None):
    result = memory_loop.run(impls, rounds, quick, log=log, graph="twice_graph",
                             backward="seeded_backward")
    result["params"]["graph"] = "a = x * x; b = a * a; y = b * b; y.backward(ones_like(y))"
    return result
