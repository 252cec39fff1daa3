"""Chapter 2's loop again, each square written ``u * u``: the same tensor twice in one op.

Both inputs of each multiplication are the same tensor, so two gradients
arrive at the same place and are summed there.  Backward's peak memory must
stay as close to numpy by hand (``2 * u * g``, the same math) as in
``memory_loop``: the engine adds the second gradient into the first one in
place when it owns it, instead of keeping a third array.
"""

from . import memory_loop

NAME = "memory_twice"
TITLE = "chapter 2's loop written y = x * x (the same tensor twice in one op), gc disabled"
UNIT = memory_loop.UNIT
TARGET = memory_loop.TARGET


def run(impls, rounds, quick, log=None):
    result = memory_loop.run(impls, rounds, quick, log=log, graph="twice_graph")
    result["params"]["graph"] = "a = x * x; b = a * a; y = b * b"
    return result
