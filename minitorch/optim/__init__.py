"""``minitorch.optim``: optimizers that update a model's parameters from their gradients
(chapter 6, "Putting it together")."""

from .optimizer import Optimizer
from .sgd import SGD
from .adam import Adam

__all__ = ["Optimizer", "SGD", "Adam"]
