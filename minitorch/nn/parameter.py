"""``nn.Parameter`` and ``nn.Buffer``: tensors that a Module registers when they are
assigned to its attributes (chapter 7, "Module internals I").

A Parameter is an ordinary leaf tensor with two differences:

* assigning one to a Module attribute (``self.weight = Parameter(...)``)
  registers it in the module's ``_parameters``, so ``parameters()``,
  ``state_dict()`` and optimizers find it;
* it requires grad by default.

It shares memory with the tensor it was made from, and prints as
``Parameter containing:`` followed by the tensor.

``nn.Buffer(t)`` does the same for buffers: ``self.mean = nn.Buffer(t)`` is
``self.register_buffer("mean", t)``.  As in PyTorch, what it returns is a
plain (detached) Tensor carrying a mark, so ``isinstance(b, nn.Buffer)`` is
true for marked tensors only.
"""

from .._tensor import Tensor
from .._creation import empty

__all__ = ["Parameter", "Buffer"]


class Parameter(Tensor):
    """A leaf tensor that Modules register as a parameter; requires grad by default."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach': "
                                 "a Parameter is made from a Tensor (use torch.tensor(...) first)")
        if not isinstance(requires_grad, bool):
            raise TypeError("_make_subclass(): argument 'require_grad' (position 3) must be bool, "
                            f"not {type(requires_grad).__name__}")
        if requires_grad and not data.is_floating_point():
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               f"gradients, and this one is {data.dtype}: make it with a float "
                               "dtype, or pass requires_grad=False")
        return Tensor._make_subclass(cls, data, requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        """A new parameter with copied values and the same ``requires_grad``.  As in
        PyTorch, the copy has no ``.grad`` (``copy.deepcopy(model)`` gives a model with
        no gradients) and none of the attributes set on the original."""
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.detach().clone(), self.requires_grad)
        return memo[id(self)]


class _BufferMeta(type):
    """``isinstance(t, Buffer)`` is true for the tensors ``Buffer(...)`` marked."""

    def __instancecheck__(cls, instance):
        if cls is Buffer and isinstance(instance, Tensor):
            return getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(metaclass=_BufferMeta):
    """Mark a tensor as a buffer: assigned to a Module attribute, it is registered with
    ``register_buffer`` (``persistent=False`` keeps it out of ``state_dict``)."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach': "
                                 "a Buffer is made from a Tensor (use torch.tensor(...) first)")
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t
