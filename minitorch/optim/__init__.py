"""``minitorch.optim``: optimizers that update a model's parameters from their gradients,
and ``lr_scheduler`` to change their learning rate as training goes (chapter 9, "Optimizers")."""

from .optimizer import Optimizer
from .sgd import SGD
from .adam import Adam
from .adamw import AdamW
from .rmsprop import RMSprop
from .adagrad import Adagrad
from . import lr_scheduler

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]
