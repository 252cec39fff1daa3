"""The layers of ``minitorch.nn`` (chapter 7, "Module internals I"): one file per family,
as in PyTorch's ``torch/nn/modules``."""

from .module import Module
from .linear import Linear, Identity
from .activation import (ReLU, Sigmoid, Tanh, Softmax, LogSoftmax, LeakyReLU, GELU, ELU, Softplus,
                         SiLU, LogSigmoid, Hardtanh, ReLU6)
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .flatten import Flatten, Unflatten
from .dropout import Dropout, Dropout2d
from .batchnorm import BatchNorm1d, BatchNorm2d
from .normalization import LayerNorm, GroupNorm
from .sparse import Embedding
from .conv import Conv1d, Conv2d
from .pooling import MaxPool2d, AvgPool2d, AdaptiveAvgPool2d
from .loss import (MSELoss, CrossEntropyLoss, NLLLoss, L1Loss, SmoothL1Loss, HuberLoss, BCELoss,
                   BCEWithLogitsLoss, KLDivLoss)
from .distance import CosineSimilarity
from .attention import MultiheadAttention
from .transformer import (Transformer, TransformerEncoderLayer, TransformerEncoder,
                          TransformerDecoderLayer, TransformerDecoder)
from .rnn import RNNBase, RNN, GRU, LSTM, RNNCellBase, RNNCell, GRUCell, LSTMCell

__all__ = ["Module", "Linear", "Identity", "ReLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax",
           "LeakyReLU", "GELU", "ELU", "Softplus", "SiLU", "LogSigmoid", "Hardtanh", "ReLU6",
           "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "Flatten",
           "Unflatten", "Dropout", "Dropout2d", "BatchNorm1d", "BatchNorm2d", "LayerNorm",
           "GroupNorm",
           "Embedding", "Conv1d", "Conv2d", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d",
           "MSELoss", "CrossEntropyLoss", "NLLLoss", "L1Loss", "SmoothL1Loss", "HuberLoss",
           "BCELoss", "BCEWithLogitsLoss", "KLDivLoss", "CosineSimilarity"]
__all__ += ["MultiheadAttention", "Transformer", "TransformerEncoderLayer", "TransformerEncoder",
            "TransformerDecoderLayer", "TransformerDecoder", "RNNBase", "RNN", "GRU", "LSTM",
            "RNNCellBase", "RNNCell", "GRUCell", "LSTMCell"]
