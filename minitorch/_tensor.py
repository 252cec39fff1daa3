"""The Tensor: a numpy array plus what autograd needs to know about it (chapters 2 and 3).

A Tensor holds:

* ``_data``: a numpy array with the values;
* ``requires_grad``: whether operations on it are recorded;
* ``grad_fn``: the graph node that produced it (None for leaves);
* ``grad``: the accumulated gradient of a leaf;
* a version counter, shared with its views, bumped by every in-place change.

Every differentiable method below is a one-liner that calls an
``autograd.Function`` from ``minitorch.ops``: the Tensor itself knows no
derivative.
"""

import copy
import numbers
import warnings
import weakref

import numpy as np

from . import _dtype
from ._dtype import from_numpy_dtype
from ._tensor_str import tensor_repr
from . import autograd as _autograd
from .autograd import function as _function_module, engine as _engine_module, graph as _graph_module
from .autograd.grad_mode import _state as _grad_state
from .autograd.graph import AccumulateGrad

__all__ = ["Tensor"]

_new = object.__new__
_SCALARS = (int, float, bool)


class Tensor:
    """A multi-dimensional array that can record the operations applied to it."""

    __slots__ = ("_data", "_requires_grad", "_grad_fn", "_version_counter", "__weakref__", "__dict__")

    # Rarely set, so kept out of the per-tensor slots (an instance dict is made on first use).
    _output_nr = 0      # which output of grad_fn this is
    _grad = None        # set on leaves by backward
    _base = None        # the tensor a view looks into
    _backward_hooks = None
    _retains_grad = False
    _acc_ref = None
    _is_inference = False

    __hash__ = object.__hash__   # tensors hash by identity, even though == is elementwise

    def __new__(cls, *args):
        """``Tensor(data)`` or ``Tensor(*sizes)``: PyTorch's legacy float32 constructor."""
        from ._creation import tensor, empty
        if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
            t = tensor(args[0], dtype=_dtype.float32)
        else:
            t = empty(*args)
        if cls is not Tensor:
            return cls._make_subclass(cls, t, False)
        return t

    # ----- construction (internal) -------------------------------------------------
    @staticmethod
    def _wrap(array):
        """A new leaf Tensor around a numpy array (no copy).  Every op result starts here."""
        t = _new(Tensor)
        t._data = array
        t._requires_grad = False
        t._grad_fn = None
        t._version_counter = [0]
        return t

    @staticmethod
    def _make_subclass(cls, data, requires_grad=False):
        """An instance of ``cls`` (e.g. ``nn.Parameter``) sharing ``data``'s memory, as a leaf."""
        if not isinstance(data, Tensor):
            raise TypeError(f"expected a Tensor as data, got {type(data).__name__}")
        t = _new(cls)
        t._data = data._data
        t._grad_fn = None
        t._version_counter = data._version_counter
        t._requires_grad = False
        if requires_grad:
            t.requires_grad_(True)
        return t

    def _alias_without_graph(self):
        """Another tensor object for the same memory and version counter, with no grad_fn."""
        t = Tensor._wrap(self._data)
        t._version_counter = self._version_counter
        t._base = self._base
        return t

    @staticmethod
    def _saved_output(data, version_counter, node, output_nr):
        """A saved output unpacked: its memory, its version counter, and ``node`` as grad_fn again."""
        t = _new(Tensor)
        t._data = data
        t._version_counter = version_counter
        t._grad_fn = node
        t._requires_grad = True
        if output_nr:
            t._output_nr = output_nr
        return t

    def _accumulate_grad_node(self):
        """This leaf's AccumulateGrad node: one per leaf while any graph uses it."""
        node = self._acc_ref() if self._acc_ref is not None else None
        if node is None:
            node = AccumulateGrad(self)
            self._acc_ref = weakref.ref(node)
        return node

    @staticmethod
    def _default_float_np():
        return _dtype.get_default_dtype().numpy_dtype

    @staticmethod
    def _dtype_from_numpy(np_dtype):
        return from_numpy_dtype(np_dtype)

    # ----- attributes ------------------------------------------------------------------
    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        from .ops._util import normalize_dim
        return self._data.shape[normalize_dim(dim, self._data.ndim)]

    @property
    def dtype(self):
        return from_numpy_dtype(self._data.dtype)

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    nelement = numel

    def element_size(self):
        return self._data.itemsize

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    @property
    def device(self):
        return "cpu"

    def is_inference(self):
        return self._is_inference

    @property
    def is_leaf(self):
        """True for tensors no recorded op produced: user-made tensors and results of no_grad code."""
        return self._grad_fn is None

    @property
    def grad_fn(self):
        """The node that produced this tensor, or None for a leaf."""
        return self._grad_fn

    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad=True):
        """Start (or stop) recording operations on this leaf tensor.  Returns self."""
        if not isinstance(requires_grad, bool):
            raise TypeError(f"requires_grad must be a bool, got {type(requires_grad).__name__}")
        if self._grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")
        if requires_grad and self._data.dtype.kind != "f":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        if requires_grad and self._is_inference and not _grad_state.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode "
                               "is not allowed.")
        self._requires_grad = requires_grad
        return self

    @property
    def grad(self):
        """The gradient accumulated by backward (leaves, or tensors that called retain_grad)."""
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
                "attribute won't be populated during autograd.backward(). If you indeed want the "
                "gradient for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor.",
                UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            if value.shape != self.shape:
                raise RuntimeError(f"assigned grad has data of a different size: "
                                   f"{list(value.shape)} instead of {list(self.shape)}")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(f"assigned grad has data of a different type: "
                                   f"{value.dtype} instead of {self.dtype}")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def _version(self):
        """How many in-place changes this tensor's memory has seen (shared with its views)."""
        return self._version_counter[0]

    @property
    def data(self):
        """The same memory as a tensor outside autograd: no grad_fn, requires_grad=False,
        and a version counter of its own, so in-place changes through it go unnoticed."""
        t = Tensor._wrap(self._data)
        return t

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be set to a Tensor, not {type(value).__name__}")
        self._data = value._data

    @property
    def retains_grad(self):
        return self._retains_grad

    # ----- conversion -------------------------------------------------------------------
    def numpy(self, *, force=False):
        """The values as a numpy array sharing this tensor's memory."""
        if self._requires_grad and not force and _grad_state.enabled:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. "
                               "Use tensor.detach().numpy() instead.")
        return self._data.copy() if force and self._requires_grad else self._data

    def __array__(self, dtype=None, copy=None):
        if self._requires_grad and _grad_state.enabled:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. "
                               "Use tensor.detach().numpy() instead.")
        return self._data if dtype is None else self._data.astype(dtype)

    def item(self):
        """The single value of a one-element tensor, as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to "
                               "Scalar; index an element first or reduce (e.g. .sum())")
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self._data.dtype.kind not in "iub":
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError(f"Boolean value of Tensor with more than one value is ambiguous "
                               f"(it has {self._data.size}); use .any() or .all()")
        return bool(self._data.reshape(()))

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __repr__(self):
        return tensor_repr(self)

    def __format__(self, spec):
        if self._data.ndim == 0 and spec:
            return format(self.item(), spec)
        return repr(self)

    def __deepcopy__(self, memo):
        """A new leaf with copied data, ``requires_grad`` and ``.grad`` (``copy.deepcopy(model)``)."""
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the "
                               "deepcopy protocol at the moment. Deep-copy x.detach() instead.")
        if id(self) in memo:
            return memo[id(self)]
        copied = Tensor._make_subclass(type(self), Tensor._wrap(self._data.copy()), False)
        copied._requires_grad = self._requires_grad
        memo[id(self)] = copied
        if self._grad is not None:
            copied._grad = self._grad.__deepcopy__(memo)
        for key, value in self.__dict__.items():     # a user's own attributes, not autograd's
            if not key.startswith("_"):
                setattr(copied, key, copy.deepcopy(value, memo))
        return copied

    def __reduce_ex__(self, protocol):
        raise TypeError("minitorch tensors are not pickled; use minitorch.save/minitorch.load, "
                        "which store arrays in a format that cannot run code when loaded")

    def to(self, dtype=None, *args, **kwargs):
        """A copy converted to ``dtype`` (``self`` if it already has it).  Devices are ignored."""
        if isinstance(dtype, str):          # .to("cpu")
            dtype = kwargs.get("dtype")
        dtype = kwargs.get("dtype", dtype)
        if dtype is None or dtype.numpy_dtype == self._data.dtype:
            return self
        from .ops.shape import ToDtype
        return ToDtype.apply(self, dtype.numpy_dtype)

    def float(self):
        return self.to(_dtype.float32)

    def double(self):
        return self.to(_dtype.float64)

    def long(self):
        return self.to(_dtype.int64)

    def bool(self):
        return self.to(_dtype.bool)

    def type_as(self, other):
        return self.to(other.dtype)

    def cpu(self):
        return self

    def contiguous(self):
        return self

    # ----- autograd -------------------------------------------------------------------
    def detach(self):
        """Same memory and version counter, but cut from the graph: a new leaf that needs no grad."""
        t = self._alias_without_graph()
        t._is_inference = self._is_inference
        return t

    def detach_(self):
        if self._base is not None and self._grad_fn is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self._grad_fn = None
        self._requires_grad = False
        return self

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute the gradient of this tensor with respect to the graph's leaves.

        A scalar needs no ``gradient``; any other tensor needs one of its own
        shape (the vector in a vector-Jacobian product).
        """
        _autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def retain_grad(self):
        """Keep this non-leaf tensor's gradient in ``.grad`` during backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:
            return
        self._grad_fn._retain_grad_of(self._output_nr, self)
        self._retains_grad = True

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; a returned tensor replaces it."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            return self._grad_fn._register_tensor_hook(self._output_nr, hook)
        from .utils.hooks import RemovableHandle, hook_dict
        if self._backward_hooks is None:
            self._backward_hooks = hook_dict()
        node = self._acc_ref() if self._acc_ref is not None else None
        if node is not None:
            node._hooked = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    # ----- comparisons (not differentiable: plain bool tensors) --------------------------
    def _compare(self, other, op):
        other = other._data if isinstance(other, Tensor) else other
        try:
            return Tensor._wrap(np.asarray(op(self._data, other)))
        except ValueError:
            from .ops._util import broadcast_error
            raise broadcast_error(self._data, other) from None

    def __eq__(self, other):
        if not isinstance(other, (Tensor, numbers.Number, np.ndarray)):
            return NotImplemented
        return self._compare(other, np.equal)

    def __ne__(self, other):
        if not isinstance(other, (Tensor, numbers.Number, np.ndarray)):
            return NotImplemented
        return self._compare(other, np.not_equal)

    def __lt__(self, other):
        return self._compare(other, np.less)

    def __le__(self, other):
        return self._compare(other, np.less_equal)

    def __gt__(self, other):
        return self._compare(other, np.greater)

    def __ge__(self, other):
        return self._compare(other, np.greater_equal)

    def eq(self, other):
        return self == other

    def equal(self, other):
        """True if ``other`` has the same shape and the same values."""
        return bool(self.shape == other.shape and np.array_equal(self._data, other._data))

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return bool(np.allclose(self._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))

    def argmax(self, dim=None, keepdim=False):
        if dim is None:
            return Tensor._wrap(np.asarray(np.argmax(self._data), dtype=np.int64))
        return Tensor._wrap(np.argmax(self._data, axis=dim, keepdims=keepdim).astype(np.int64))

    def argmin(self, dim=None, keepdim=False):
        if dim is None:
            return Tensor._wrap(np.asarray(np.argmin(self._data), dtype=np.int64))
        return Tensor._wrap(np.argmin(self._data, axis=dim, keepdims=keepdim).astype(np.int64))

    def any(self):
        return Tensor._wrap(np.asarray(self._data.any()))

    def all(self):
        return Tensor._wrap(np.asarray(self._data.all()))

    def sign(self):
        return _ops.Sign.apply(self)


class Size(tuple):
    """A tensor's shape: a tuple that prints as ``minitorch.Size([2, 3])``."""

    __slots__ = ()

    def __repr__(self):
        return f"minitorch.Size({list(self)})"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n


_function_module.Tensor = Tensor
_function_module._wrap = Tensor._wrap
_engine_module.Tensor = Tensor
_graph_module.Tensor = Tensor

from . import _tensor_ops as _ops  # noqa: E402  (attaches the differentiable methods)
