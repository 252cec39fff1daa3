"""The layers of ``minitorch.nn`` (chapter 7, "Module internals I"): one file per family,
as in PyTorch's ``torch/nn/modules``."""

from .module import Module
from .linear import Linear, Identity
from .activation import ReLU, Sigmoid, Tanh, Softmax, LogSoftmax
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .flatten import Flatten, Unflatten
from .dropout import Dropout
from .batchnorm import BatchNorm1d
from .loss import MSELoss, CrossEntropyLoss

__all__ = ["Module", "Linear", "Identity", "ReLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax",
           "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "Flatten",
           "Unflatten", "Dropout", "BatchNorm1d", "MSELoss", "CrossEntropyLoss"]
