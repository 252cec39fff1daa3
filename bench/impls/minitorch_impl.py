"""minitorch, through the same PyTorch-style code as PyTorch (see ``_torchlike``)."""

import minitorch

from ._torchlike import adapter

NAME = "minitorch"
LABEL = "minitorch"


def version():
    return minitorch.__version__


_a = adapter(minitorch)
op_chain, batch, Net = _a.op_chain, _a.batch, _a.Net
seeds_graph, seeds_backward = _a.seeds_graph, _a.seeds_backward
