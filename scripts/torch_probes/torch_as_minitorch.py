"""A pytest plugin that makes ``import minitorch`` give real PyTorch.

Used only to check the repository's tests against the reference: a test that
encodes PyTorch's behaviour must pass when ``minitorch`` *is* PyTorch.  Run it
through ``python -m scripts.torch_probes.validate_tests`` (see README.md); the
tests themselves never import torch.
"""

import sys

import torch
import torch.autograd.function
import torch.autograd.graph
import torch.nn
import torch.nn.functional
import torch.nn.init
import torch.nn.modules.module
import torch.optim

ALIASES = {
    "minitorch": torch,
    "minitorch.nn": torch.nn,
    "minitorch.nn.functional": torch.nn.functional,
    "minitorch.nn.init": torch.nn.init,
    "minitorch.nn.modules": torch.nn.modules,
    "minitorch.nn.modules.module": torch.nn.modules.module,
    "minitorch.autograd": torch.autograd,
    "minitorch.autograd.function": torch.autograd.function,
    "minitorch.autograd.graph": torch.autograd.graph,
    "minitorch.optim": torch.optim,
}
sys.modules.update(ALIASES)
torch.set_num_threads(1)
