"""``nn.Parameter``: a tensor that a Module registers as a learnable weight (chapter 5, "Module internals").

A Parameter is an ordinary leaf tensor with two differences:

* assigning one to a Module attribute (``self.weight = Parameter(...)``)
  registers it in the module's ``_parameters``, so ``parameters()``,
  ``state_dict()`` and optimizers find it;
* it requires grad by default.

It shares memory with the tensor it was made from, and prints as
``Parameter containing:`` followed by the tensor.
"""

from .._tensor import Tensor
from .._creation import empty

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A leaf tensor that Modules register as a parameter; requires grad by default."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = empty(0)
        return Tensor._make_subclass(cls, data, requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()
