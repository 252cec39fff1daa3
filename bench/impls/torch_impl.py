"""PyTorch (optional: ``bench/requirements.txt``), on one thread like the others."""

import torch

from ._torchlike import adapter

torch.set_num_threads(1)

NAME = "torch"
LABEL = "PyTorch"


def version():
    return torch.__version__


_a = adapter(torch)
op_chain, op_chain_no_grad, batch, Net = _a.op_chain, _a.op_chain_no_grad, _a.batch, _a.Net
seeds_graph, twice_graph, seeds_backward = _a.seeds_graph, _a.twice_graph, _a.seeds_backward
fanout_chain, seeded_backward = _a.fanout_chain, _a.seeded_backward
