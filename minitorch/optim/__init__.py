"""``minitorch.optim``: optimizers that update a model's parameters from their gradients
(chapter 9, "Optimizers")."""

from .optimizer import Optimizer
from .sgd import SGD
from .adam import Adam
from .adamw import AdamW
from .rmsprop import RMSprop
from .adagrad import Adagrad

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad"]
