"""``nn.DataParallel``: split a batch over accelerators (chapter 10, "Putting it together").

With accelerators, PyTorch's wrapper copies the module to each of them and
splits every batch between the copies.  Without any (PyTorch on a CPU, and
minitorch always), the wrapper only calls the module it holds: code written
for several GPUs runs unchanged, on the CPU.  The wrapped module is the
submodule ``module``, so parameter names gain the ``module.`` prefix.
"""

from .modules.module import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    """Hold ``module`` and call it: no accelerator, so nothing to split."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []        # PyTorch's value when no accelerator is available

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
