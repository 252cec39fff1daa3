"""``minitorch.nn``: Modules, Parameters, layers, losses, ``functional`` and ``init``
(chapters 7 and 8, "Module internals"; chapter 10, "Putting it together").

``import minitorch.nn as nn`` gives the names PyTorch code expects:
``nn.Module``, ``nn.Parameter``, ``nn.Linear``..., ``nn.functional`` (also
``import minitorch.nn.functional as F``) and ``nn.init``.
"""

from .parameter import Parameter, Buffer
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from . import modules, functional, init, utils, parallel  # noqa: F401
from .parallel import DataParallel
import minitorch.nn.functional as F  # noqa: F401

__all__ = ["Parameter", "Buffer", "functional", "init", "modules", "utils", "parallel",
           "DataParallel"] + list(_modules_all)
