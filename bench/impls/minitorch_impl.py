"""minitorch, through the same PyTorch-style code as PyTorch (see ``_torchlike``)."""

import minitorch

from ._torchlike import adapter

NAME = "minitorch"
LABEL = "minitorch"


def version():
    return minitorch.__version__


_a = adapter(minitorch)
op_chain, op_chain_no_grad, batch, Net = _a.op_chain, _a.op_chain_no_grad, _a.batch, _a.Net
seeds_graph, twice_graph, seeds_backward = _a.seeds_graph, _a.twice_graph, _a.seeds_backward
fanout_chain, seeded_backward = _a.fanout_chain, _a.seeded_backward
