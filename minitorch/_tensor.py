"""The Tensor: a numpy array plus what autograd needs to know about it (chapters 3 to 5).

A Tensor holds:

* ``_data``: a numpy array with the values;
* ``_requires_grad``: whether operations on it are recorded;
* ``_grad_fn``: the graph node that produced it (None for leaves), and
  ``_output_nr``, which output of that node it is;
* ``_version_counter``: bumped by every in-place change, shared with its views
  (made on first use: most results are never changed, saved or viewed);
* ``grad``: the gradient backward accumulated into a leaf.

Every differentiable method is a one-liner that calls an ``autograd.Function``
from ``minitorch.ops`` (or a small function there that picks one): the
Tensor itself knows no derivative.  The methods are grouped as the chapters
meet them: what a tensor is, its place in autograd, conversions, arithmetic,
elementwise math, comparisons, reductions, shapes and indexing, in-place ops.
"""

import copy
import numbers
import warnings
import weakref

import numpy as np

from . import _dtype
from ._tensor_str import tensor_repr

__all__ = ["Tensor", "Size", "VersionCounter"]

_new = object.__new__


class _NoDim:
    """The default ``dim`` of reductions, where PyTorch tells "not given" from ``dim=None``
    (``x.sum(keepdim=True)`` is refused, ``x.sum(dim=None, keepdim=True)`` is not)."""
    __slots__ = ()

    def __repr__(self):
        return "<no dim>"


_NO_DIM = _NoDim()


class VersionCounter:
    """How many in-place changes a tensor's memory has seen.  One counter is
    shared by a tensor, its views and its detached aliases (chapter 5)."""

    __slots__ = ("version",)

    def __init__(self):
        self.version = 0

    def bump(self):
        self.version += 1


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

    def __getitem__(self, key):
        item = tuple.__getitem__(self, key)
        return Size(item) if isinstance(key, slice) else item

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))


class Tensor:
    """A multi-dimensional array that can record the operations applied to it."""

    __slots__ = ("_data", "_requires_grad", "_grad_fn", "_output_nr", "_counter",
                 "__weakref__", "__dict__")

    # Rarely set, so kept out of the slots (an instance dict is made on first use).
    _grad = None                    # set on leaves by backward
    _base = None                    # the tensor a view looks into
    _backward_hooks = None          # a leaf's register_hook hooks
    _post_accumulate_grad_hooks = None
    _retains_grad = False
    _acc_ref = None                 # weak reference to this leaf's AccumulateGrad node
    _is_inference = False
    _view_made_without_grad = False # a view taken under no_grad of a tensor that requires grad
    _fw_grads = None                # forward-mode tangents, by dual level (chapter 12)
    _tangent_free_alias = False     # detach(), unpack_dual: never sees its base's tangent

    __hash__ = object.__hash__      # tensors hash by identity, even though == is elementwise
    __array_priority__ = 1000       # numpy defers to Tensor in `ndarray + tensor`

    # ================================================================================
    # Making tensors (internal: users call minitorch.tensor, zeros, ...)
    # ================================================================================
    def __new__(cls, *args, **kwargs):
        """``Tensor(data)`` or ``Tensor(*sizes)``: PyTorch's legacy float32 constructor."""
        if kwargs:
            raise TypeError("Tensor() takes data or sizes only; use minitorch.tensor(data, "
                            "dtype=..., requires_grad=...) for the other options")
        if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
            data = args[0]
            if isinstance(data, numbers.Number):
                raise TypeError(f"new(): data must be a sequence (got {type(data).__name__}); "
                                "Tensor(n) with an int makes n elements, minitorch.tensor(x) "
                                "holds a number")
            t = _creation.tensor(data, dtype=_dtype.get_default_dtype())
        else:
            t = _creation.empty(*(args or (0,)))
        return t if cls is Tensor else cls._make_subclass(cls, t, False)

    @staticmethod
    def _wrap(array):
        """A new leaf Tensor around a numpy array, without copying: every op result starts here."""
        t = _new(Tensor)
        t._data = array
        t._requires_grad = False
        t._grad_fn = None
        t._output_nr = 0
        t._counter = None           # no version counter until one is asked for
        return t

    @staticmethod
    def _make_subclass(cls, data, requires_grad=False):
        """An instance of ``cls`` (e.g. ``nn.Parameter``) sharing ``data``'s memory, as a leaf."""
        if not isinstance(data, Tensor):
            raise TypeError(f"expected a Tensor as data, got {type(data).__name__}")
        t = _new(cls)
        t._data = data._data
        t._grad_fn = None
        t._output_nr = 0
        t._version_counter = data._version_counter
        t._requires_grad = False
        if data._is_inference:
            t._is_inference = True
        if requires_grad:
            t.requires_grad_(True)
        return t

    @staticmethod
    def _from_numpy_copy(array):
        """A new tensor with a copy of a numpy array (an ndarray operand of ``+``...)."""
        _dtype.from_numpy_dtype(array.dtype)
        return Tensor._wrap(np.array(array, dtype=array.dtype.newbyteorder("=")))

    def _alias_without_graph(self):
        """Another tensor object for the same memory and version counter, with no grad_fn."""
        t = Tensor._wrap(self._data)
        t._version_counter = self._version_counter
        if self._base is not None:
            t._base = self._base
        return t

    @staticmethod
    def _saved_output(data, version_counter, node, output_nr):
        """A saved output unpacked: its memory and version counter, and ``node`` as its
        grad_fn again (a new tensor object: the original was not kept, see chapter 2)."""
        t = _new(Tensor)
        t._data, t._counter = data, version_counter
        t._grad_fn, t._output_nr, t._requires_grad = node, output_nr, True
        return t

    def _accumulate_grad_node(self):
        """This leaf's AccumulateGrad node: one per leaf while any graph uses it.  A view
        taken under no_grad has none: gradients reaching it go nowhere, as in PyTorch."""
        if self._view_made_without_grad:
            return None
        node = self._acc_ref() if self._acc_ref is not None else None
        if node is None:
            node = AccumulateGrad(self)
            self._acc_ref = weakref.ref(node)
        return node

    def _unsafe_view(self, shape):
        return ops.UnsafeView.apply(self, tuple(shape))

    # ================================================================================
    # What a tensor is: shape, dtype, memory (chapter 3)
    # ================================================================================
    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[ops.normalize_dim(dim, self._data.ndim)]

    @property
    def dtype(self):
        return _dtype.from_numpy_dtype(self._data.dtype)

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    ndimension = dim

    def numel(self):
        return self._data.size

    nelement = numel

    def element_size(self):
        return self._data.itemsize

    @property
    def itemsize(self):
        return self._data.itemsize

    @property
    def nbytes(self):
        return self._data.nbytes

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def is_complex(self):
        return False

    def stride(self, dim=None):
        """Steps, in elements, between neighbours along each dim (chapter 3)."""
        strides = tuple(s // self._data.itemsize for s in self._data.strides)
        return strides if dim is None else strides[ops.normalize_dim(dim, self._data.ndim)]

    def storage_offset(self):
        """Where this view starts in its base's memory, in elements."""
        base = self._base._data if self._base is not None else self._data
        start = self._data.__array_interface__["data"][0]
        return (start - base.__array_interface__["data"][0]) // max(self._data.itemsize, 1)

    def is_contiguous(self, memory_format=None):
        return bool(self._data.flags.c_contiguous)

    def data_ptr(self):
        return self._data.__array_interface__["data"][0]

    def untyped_storage(self):
        raise NotImplementedError("minitorch tensors keep their values in a numpy array; look "
                                  "at tensor.numpy().base for the memory a view shares")

    @property
    def device(self):
        return _device.device("cpu")

    is_cpu = True
    is_cuda = False
    is_sparse = False
    is_quantized = False
    is_meta = False

    def get_device(self):
        return -1

    # ================================================================================
    # Its place in autograd (chapters 4 and 5)
    # ================================================================================
    @property
    def is_leaf(self):
        """True for tensors no recorded op produced: user-made tensors and results of no_grad code."""
        return self._grad_fn is None

    @property
    def grad_fn(self):
        """The node that produced this tensor, or None for a leaf."""
        return self._grad_fn

    @property
    def output_nr(self):
        return self._output_nr

    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if type(value) is not bool:
            raise RuntimeError(f"requires_grad must be a bool, not {type(value).__name__}")
        self._set_requires_grad(value, "only Tensors of floating point and complex dtype")

    def requires_grad_(self, requires_grad=True):
        """Start (or stop) recording operations on this leaf tensor.  Returns self."""
        if type(requires_grad) is not bool:
            raise TypeError(f"requires_grad_(): argument 'requires_grad' (position 1) must be "
                            f"bool, not {ops.type_name_of(requires_grad)}")
        return self._set_requires_grad(requires_grad, "only Tensors of floating point dtype")

    def _set_requires_grad(self, requires_grad, which):
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
            raise RuntimeError(f"{which} can require gradients: this one is {self.dtype}; "
                               "convert it first, e.g. x.float().requires_grad_()")
        if requires_grad and self._is_inference and not grad_mode.is_inference_mode_enabled():
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        self._requires_grad = requires_grad
        return self

    @property
    def grad(self):
        """The gradient accumulated by backward (leaves, or tensors that called retain_grad)."""
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
                ".grad attribute won't be populated during autograd.backward(). If you indeed want "
                "the gradient for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor.",
                UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype "
                    f"'{_C_NAMES.get(value.dtype.name, value.dtype.name)}' to a tensor with "
                    f"grad_dtype '{self.dtype.type_name}'. The gradient must match the tensor's "
                    "grad_dtype (defaults to the tensor's dtype): convert it first, e.g. "
                    f"with .to({self.dtype!r})")
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor "
                    f"of size '{list(self.shape)}'. Please ensure that the gradient and the "
                    "tensor are the same size: the assigned grad has data of a different size "
                    "than the tensor.")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def _version_counter(self):
        """The counter of in-place changes to this tensor's memory (chapter 5), made when
        first asked for: saving the tensor for backward, a view of it, or an in-place
        change.  Most results of operations meet none of these, and never get one."""
        counter = self._counter
        if counter is None:
            counter = self._counter = VersionCounter()
        return counter

    @_version_counter.setter
    def _version_counter(self, counter):
        self._counter = counter

    @property
    def _version(self):
        """How many in-place changes this tensor's memory has seen (shared with its views)."""
        if self._is_inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._version_counter.version

    @property
    def data(self):
        """The same memory as a tensor outside autograd: no grad_fn, requires_grad=False,
        and a version counter of its own, so in-place changes through it go unnoticed."""
        return Tensor._wrap(self._data)

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got "
                            f"{ops.type_name_of(value)}")
        if value._data.dtype.kind != "f" and self._requires_grad:
            raise RuntimeError("data set to a tensor that requires gradients must be floating "
                               "point")
        self._data = value._data

    @property
    def retains_grad(self):
        return self._retains_grad

    def is_inference(self):
        return self._is_inference

    def detach(self):
        """Same memory and version counter, but cut from the graph: a new leaf that needs no grad."""
        t = self._alias_without_graph()
        t._is_inference = self._is_inference
        t._tangent_free_alias = True     # detach() drops forward-mode tangents too
        return t

    def detach_(self):
        """Cut this tensor itself from the graph."""
        if self._base is not None and self._grad_fn is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self._grad_fn = None
        self._requires_grad = False
        return self

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute the gradient of this tensor with respect to the graph's leaves.

        A scalar needs no ``gradient``; any other tensor needs one of its own
        shape (the vector in a vector-Jacobian product).  The leaves' ``.grad``
        change only if the whole backward succeeds (see ``autograd.engine``).
        """
        autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def retain_grad(self):
        """Keep this non-leaf tensor's gradient in ``.grad`` during backward."""
        ### BEGIN SOLUTION 5.4
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:
            return
        self._grad_fn._retain_grad_of(self._output_nr, self)
        self._retains_grad = True
        ### END SOLUTION 5.4

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; a returned tensor
        replaces it.  Returns a handle whose ``remove()`` unregisters the hook."""
        ### BEGIN SOLUTION 5.4
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                               "gradient")
        if not callable(hook):
            raise TypeError(f"register_hook expects a callable, got {type(hook).__name__}")
        if self._grad_fn is not None:
            return self._grad_fn._register_tensor_hook(self._output_nr, hook)
        if self._backward_hooks is None:
            self._backward_hooks = hook_dict()
        node = self._acc_ref() if self._acc_ref is not None else None
        if node is not None:            # a graph already uses this leaf: tell its node
            node._hooked = True
        return _add_hook(self._backward_hooks, hook)
        ### END SOLUTION 5.4

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(tensor)`` after backward has stored this leaf's ``.grad``."""
        ### BEGIN SOLUTION 5.4
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                               "gradient")
        if self._post_accumulate_grad_hooks is None:
            self._post_accumulate_grad_hooks = hook_dict()
        return _add_hook(self._post_accumulate_grad_hooks, hook)
        ### END SOLUTION 5.4

    # ================================================================================
    # Conversions
    # ================================================================================
    def numpy(self, *, force=False):
        """The values as a numpy array sharing this tensor's memory (``force``: a copy)."""
        if self._requires_grad and not force and grad_mode.is_grad_enabled():
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return self._data.copy() if force else self._data

    def __array__(self, dtype=None, copy=None):
        if self._requires_grad and grad_mode.is_grad_enabled():
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return self._data if dtype is None else self._data.astype(dtype)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """What a numpy function of a tensor returns (``np.exp(t)``, ``t @ np_array``): a
        tensor, as in PyTorch, when its dtype is one minitorch has."""
        array = np.asarray(array)
        try:
            _dtype.from_numpy_dtype(array.dtype)
        except TypeError:
            return array
        return Tensor._wrap(array)

    def item(self):
        """The single value of a one-element tensor, as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar; index an element first or reduce it (e.g. .sum())")
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def __float__(self):
        return float(self._one_value("float"))

    def __int__(self):
        return int(self._one_value("int"))

    def __complex__(self):
        return complex(self._one_value("complex"))

    def _one_value(self, kind):
        if self._data.size != 1:
            raise ValueError(f"only one element tensors can be converted to Python scalars "
                             f"(this one has {self._data.size}); use .tolist() for all of them")
        return self._data.reshape(()).item()

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self._data.reshape(()).item())

    def __bool__(self):
        if self._data.size != 1:
            if self._data.size == 0:
                raise RuntimeError("Boolean value of Tensor with no values is ambiguous; use "
                                   ".any() or .all(), or test .numel()")
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

    def __contains__(self, element):
        if not isinstance(element, (Tensor, numbers.Number)):
            raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you "
                               f"passed in a {type(element).__name__}.")
        return bool((self == element).any())

    def __repr__(self, *, tensor_contents=None):
        return tensor_repr(self)

    def __format__(self, spec):
        """A 0-d tensor formats as its number (``f"{loss:.3f}"``); others only without a
        format spec, as their repr."""
        if self._data.ndim == 0 and type(self) is Tensor:
            return format(self.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__: only 0-d "
                            "tensors take a format spec; format x.item() or x.tolist()")
        return repr(self)

    def __copy__(self):
        """``copy.copy(t)``: another tensor object for the same memory (writes through it
        change ``t``), a leaf that requires grad if ``t`` does."""
        copied = Tensor._make_subclass(type(self), self, self._requires_grad)
        copied._base = self._base
        return copied

    def __deepcopy__(self, memo):
        """A new leaf with copied data, ``requires_grad`` and ``.grad`` (``copy.deepcopy(model)``)."""
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment. Deep-copy "
                               "x.detach() instead.")
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

    def to(self, *args, **kwargs):
        """A copy converted to a dtype (``self`` if it already has it).  ``"cpu"`` is the only
        device; ``x.to(other)`` takes ``other``'s dtype."""
        dtype, copy_ = _device.parse_to(args, kwargs)
        return ops.to_dtype(self, dtype or self.dtype, copy_)

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """Without arguments, the legacy type name (``'torch.FloatTensor'``); with a dtype
        (or such a name), a converted copy."""
        if dtype is None:
            return f"torch.{self.dtype.type_name}Tensor"
        return self.to(_device.dtype_from_type_name(dtype))

    def float(self):
        return self.to(_dtype.float32)

    def double(self):
        return self.to(_dtype.float64)

    def half(self):
        return self.to(_dtype.float16)

    def long(self):
        return self.to(_dtype.int64)

    def int(self):
        return self.to(_dtype.int32)

    def short(self):
        return self.to(_dtype.int16)

    def char(self):
        return self.to(_dtype.int8)

    def byte(self):
        return self.to(_dtype.uint8)

    def bool(self):
        return self.to(_dtype.bool)

    def type_as(self, other):
        return self.to(_tensor_argument(other, "type_as").dtype)

    def cpu(self, memory_format=None):
        return self

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        raise _device.no_cuda_error()

    def contiguous(self, memory_format=None):
        return self if self._data.flags.c_contiguous else self.clone()

    def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
        return _creation.tensor(data, dtype=dtype or self.dtype, device=device,
                                requires_grad=requires_grad)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
        return _creation.zeros(*size, dtype=dtype or self.dtype, device=device,
                               requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
        return _creation.ones(*size, dtype=dtype or self.dtype, device=device,
                              requires_grad=requires_grad)

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
        return self.new_zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
        return _creation.full(size, fill_value, dtype=dtype or self.dtype, device=device,
                              requires_grad=requires_grad)

    # ================================================================================
    # Arithmetic (ops/arithmetic.py, ops/linalg.py): + - * / ** @ and friends
    # ================================================================================
    # ``x * 0.5``: a Python number goes straight to the op that takes one (the common
    # case, written out for speed); anything else to the dispatcher in ops/arithmetic.py.
    def __add__(self, other):
        if type(other) is float or type(other) is int:
            return ops.AddScalar.apply(self, other)
        if type(other) is Tensor:
            return ops.Add.apply(self, other)
        return ops.add(self, other)

    __radd__ = __add__

    def __sub__(self, other):
        if type(other) is float or type(other) is int:
            return ops.SubScalar.apply(self, other)
        return ops.sub(self, other)

    def __rsub__(self, other):
        return ops.rsub(self, other)

    def __mul__(self, other):
        if type(other) is float or type(other) is int:
            return ops.MulScalar.apply(self, other)
        return ops.mul(self, other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        if type(other) is float or type(other) is int:
            return ops.DivScalar.apply(self, other)
        return ops.div(self, other)

    def __rtruediv__(self, other):
        return ops.rdiv(self, other)

    def __floordiv__(self, other):
        return ops.floor_divide(self, other)

    def __rfloordiv__(self, other):
        other = ops.operand(other)
        return NotImplemented if other is NotImplemented else _as_tensor(other, self) // self

    def __mod__(self, other):
        return ops.remainder(self, other)

    def __rmod__(self, other):
        other = ops.operand(other)
        return NotImplemented if other is NotImplemented else _as_tensor(other, self) % self

    def __pow__(self, exponent):
        return ops.pow(self, exponent)

    def __rpow__(self, base):
        return ops.rpow(self, base)

    def __matmul__(self, other):
        if not isinstance(other, Tensor):
            return NotImplemented
        return ops.matmul(self, other)

    def __rmatmul__(self, other):
        if isinstance(other, np.ndarray):
            return ops.matmul(Tensor._from_numpy_copy(other), self)
        return NotImplemented

    def __neg__(self):
        return ops.Neg.apply(self)

    def __pos__(self):
        return self

    def add(self, other, *, alpha=1):
        result = ops.add(self, other) if _is_one(alpha) else ops.add_alpha(self, other, alpha)
        return result if result is not NotImplemented else _not_an_operand("add", other)

    def sub(self, other, *, alpha=1):
        result = ops.sub(self, other) if _is_one(alpha) else ops.sub_alpha(self, other, alpha)
        return result if result is not NotImplemented else _not_an_operand("sub", other)

    subtract = sub

    def mul(self, other):
        result = ops.mul(self, other)
        return result if result is not NotImplemented else _not_an_operand("mul", other)

    multiply = mul

    def div(self, other, *, rounding_mode=None):
        if rounding_mode is None:
            result = ops.div(self, other)
            return result if result is not NotImplemented else _not_an_operand("div", other)
        if rounding_mode == "floor":
            return self // other
        if rounding_mode == "trunc":
            return (self / other).trunc() if self.is_floating_point() else \
                (self / other).trunc().to(self.dtype)
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")

    divide = true_divide = div

    def floor_divide(self, other):
        return self // other

    def remainder(self, other):
        return self % other

    def neg(self):
        return -self

    negative = neg

    def reciprocal(self):
        return ops.Reciprocal.apply(self)

    def pow(self, exponent):
        return self ** exponent

    def matmul(self, other):
        return ops.matmul(self, other)

    def mm(self, mat2):
        return ops.mm(self, mat2)

    def mv(self, vec):
        return ops.mv(self, vec)

    def dot(self, other):
        return ops.dot(self, other)

    def bmm(self, mat2):
        return ops.bmm(self, mat2)

    # ================================================================================
    # Elementwise math (ops/pointwise.py)
    # ================================================================================
    def exp(self, *no_arguments):
        if no_arguments:
            raise _no_arguments("exp", no_arguments)
        return ops.Exp.apply(self)

    def log(self, *no_arguments):
        if no_arguments:
            raise _no_arguments("log", no_arguments)
        return ops.Log.apply(self)

    def sqrt(self, *no_arguments):
        if no_arguments:
            raise _no_arguments("sqrt", no_arguments)
        return ops.Sqrt.apply(self)

    def abs(self, *no_arguments):
        if no_arguments:
            raise _no_arguments("abs", no_arguments)
        return ops.Abs.apply(self)

    __abs__ = absolute = abs

    def sign(self, *no_arguments):
        if no_arguments:
            raise _no_arguments("sign", no_arguments)
        return ops.Sign.apply(self)

    def relu(self, *no_arguments):
        if no_arguments:
            raise _no_arguments("relu", no_arguments)
        return ops.Relu.apply(self)

    def sigmoid(self, *no_arguments):
        if no_arguments:
            raise _no_arguments("sigmoid", no_arguments)
        return ops.Sigmoid.apply(self)

    def tanh(self, *no_arguments):
        if no_arguments:
            raise _no_arguments("tanh", no_arguments)
        return ops.Tanh.apply(self)

    def clamp(self, min=None, max=None):
        return ops.clamp(self, min, max)

    clip = clamp

    def maximum(self, other):
        return ops.maximum(self, other)

    def minimum(self, other):
        return ops.minimum(self, other)

    def masked_fill(self, mask, value):
        return ops.masked_fill(self, mask, value)

    def where(self, condition, other):
        return ops.where(condition, self, other)

    # ================================================================================
    # Comparisons and logic: not differentiable, so plain functions of the values
    # ================================================================================
    def _compare(self, other, compare):
        if not isinstance(other, Tensor):
            other = ops.operand(other)
            if other is NotImplemented:
                return NotImplemented
        x, y = ops.binary_operands(self, other)
        try:
            return Tensor._wrap(np.asarray(compare(x, y)))
        except ValueError:
            raise ops.broadcast_error(x, y) from None

    def __eq__(self, other):
        return self._compare(other, np.equal)

    def __ne__(self, other):
        return self._compare(other, np.not_equal)

    def __lt__(self, other):
        return self._compare(other, np.less)

    def __le__(self, other):
        return self._compare(other, np.less_equal)

    def __gt__(self, other):
        return self._compare(other, np.greater)

    def __ge__(self, other):
        return self._compare(other, np.greater_equal)

    eq, ne, lt, le, gt, ge = __eq__, __ne__, __lt__, __le__, __gt__, __ge__
    greater, greater_equal, less, less_equal = gt, ge, lt, le

    def _logical(self, other, combine, name):
        if not isinstance(other, (Tensor, bool, int)):
            return NotImplemented
        if self.is_floating_point() or isinstance(other, Tensor) and other.is_floating_point():
            raise RuntimeError(f'"{name}_cpu" not implemented for \'Float\': bitwise operators '
                               "need bool or integer tensors")
        x, y = ops.binary_operands(self, other)
        return Tensor._wrap(np.asarray(combine(x, y)))

    def __and__(self, other):
        return self._logical(other, np.bitwise_and, "bitwise_and")

    def __or__(self, other):
        return self._logical(other, np.bitwise_or, "bitwise_or")

    def __xor__(self, other):
        return self._logical(other, np.bitwise_xor, "bitwise_xor")

    __rand__, __ror__, __rxor__ = __and__, __or__, __xor__

    def __invert__(self):
        if self.is_floating_point():
            raise TypeError("~ (bitwise_not) is only supported for integer and bool tensors")
        return Tensor._wrap(np.invert(self._data))

    def logical_not(self):
        return Tensor._wrap(np.logical_not(self._data))

    def logical_and(self, other):
        return Tensor._wrap(np.logical_and(self._data, _values(other)))

    def logical_or(self, other):
        return Tensor._wrap(np.logical_or(self._data, _values(other)))

    def logical_xor(self, other):
        return Tensor._wrap(np.logical_xor(self._data, _values(other)))

    def equal(self, other):
        """True if ``other`` has the same shape and the same values."""
        if not isinstance(other, Tensor):
            raise TypeError(f"equal(): argument 'other' (position 1) must be Tensor, not "
                            f"{type(other).__name__}")
        return bool(self.shape == other.shape and np.array_equal(self._data, other._data))

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return bool(self.isclose(other, rtol, atol, equal_nan, name="allclose").all())

    def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False, *, name="isclose"):
        other = _tensor_argument(other, name)
        if other._data.dtype != self._data.dtype:
            raise RuntimeError(f"{self.dtype.type_name} did not match {other.dtype.type_name}: "
                               "compare tensors of one dtype (convert one with .to())")
        ops.broadcast_shapes(self._data, other._data)
        return Tensor._wrap(np.isclose(self._data, other._data, rtol=rtol, atol=atol,
                                       equal_nan=equal_nan))

    def isnan(self):
        return Tensor._wrap(np.isnan(self._data))

    def isinf(self):
        return Tensor._wrap(np.isinf(self._data))

    def isfinite(self):
        return Tensor._wrap(np.isfinite(self._data))

    # ================================================================================
    # Reductions (ops/reduction.py)
    # ================================================================================
    def sum(self, dim=_NO_DIM, keepdim=False, *, dtype=None):
        return ops.sum(self, dim, keepdim, dtype=dtype)

    def mean(self, dim=_NO_DIM, keepdim=False, *, dtype=None):
        return ops.mean(self, dim, keepdim, dtype=dtype)

    def max(self, dim=_NO_DIM, keepdim=False):
        return ops.max(self, dim, keepdim)

    def min(self, dim=_NO_DIM, keepdim=False):
        return ops.min(self, dim, keepdim)

    def sum_to_size(self, *size):
        return ops.sum_to_size(self, *size)

    def softmax(self, dim, dtype=None):
        return ops.softmax(self, dim, dtype)

    def log_softmax(self, dim, dtype=None):
        return ops.log_softmax(self, dim, dtype)

    def argmax(self, dim=None, keepdim=False):
        return ops.argmax(self, dim, keepdim)

    def argmin(self, dim=None, keepdim=False):
        return ops.argmin(self, dim, keepdim)

    def any(self, dim=None, keepdim=False):
        return Tensor._wrap(np.asarray(np.any(self._data, axis=_axis(self, dim),
                                              keepdims=keepdim)))

    def all(self, dim=None, keepdim=False):
        return Tensor._wrap(np.asarray(np.all(self._data, axis=_axis(self, dim),
                                              keepdims=keepdim)))

    def nonzero(self, *, as_tuple=False):
        """Where the nonzero elements are (int64, never recorded): one row of indices per
        element, or with ``as_tuple=True`` one 1-D tensor per dimension (chapter 10)."""
        found = np.nonzero(np.atleast_1d(self._data))       # a 0-d tensor counts as 1-D
        if as_tuple:
            return tuple(Tensor._wrap(i.astype(np.int64)) for i in found)
        rows = np.stack(found, axis=1)[:, :self.ndim]
        return Tensor._wrap(rows.astype(np.int64))

    # ================================================================================
    # Shapes and views (ops/shape.py)
    # ================================================================================
    def view(self, *shape):
        return ops.view(self, *shape)

    def view_as(self, other):
        return ops.view(self, *_tensor_argument(other, "view_as").shape)

    def reshape(self, *shape):
        return ops.reshape(self, *shape)

    def reshape_as(self, other):
        return ops.reshape(self, *_tensor_argument(other, "reshape_as").shape)

    def flatten(self, start_dim=0, end_dim=-1):
        return ops.flatten(self, start_dim, end_dim)

    def unflatten(self, dim, sizes):
        return ops.unflatten(self, dim, sizes)

    def transpose(self, dim0, dim1):
        return ops.transpose(self, dim0, dim1)

    swapaxes = swapdims = transpose

    def permute(self, *dims):
        return ops.permute(self, *dims)

    def t(self):
        return ops.T.apply(self)

    @property
    def T(self):
        return ops.permute(self, tuple(reversed(range(self._data.ndim))))

    @property
    def mT(self):
        if self.ndim < 2:
            raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. "
                               f"Got {self.ndim}-D tensor.")
        return ops.transpose(self, -2, -1)

    def unsqueeze(self, dim):
        return ops.unsqueeze(self, dim)

    def squeeze(self, dim=None):
        return ops.squeeze(self, dim)

    def expand(self, *sizes):
        return ops.expand(self, *sizes)

    def expand_as(self, other):
        return ops.expand(self, *_tensor_argument(other, "expand_as").shape)

    def clone(self, *, memory_format=None):
        return ops.Clone.apply(self)

    # ================================================================================
    # Indexing (ops/indexing.py)
    # ================================================================================
    def __getitem__(self, key):
        return ops.getitem(self, key)

    def __setitem__(self, key, value):
        ops.check_in_place(self, value, through_view=True)
        ops.record_change_in_base(ops.setitem(self, key, value))

    def select(self, dim, index):
        return ops.select(self, dim, index)

    def narrow(self, dim, start, length):
        return ops.narrow(self, dim, start, length)

    def gather(self, dim, index):
        return ops.gather(self, dim, index)

    def scatter(self, dim, index, src=None, *, value=None, reduce=None):
        return ops.scatter(self, dim, index, value if src is None else src, reduce)

    def scatter_add(self, dim, index, src):
        return ops.indexing.scatter_add(self, dim, index, src)

    def index_select(self, dim, index):
        return ops.index_select(self, dim, index)

    # ================================================================================
    # In place (ops/inplace.py): checked first, then the memory is overwritten
    # ================================================================================
    def add_(self, other, *, alpha=1):
        return _add_in_place(ops.AddInplace, self, other, alpha, "add_")

    def sub_(self, other, *, alpha=1):
        return _add_in_place(ops.SubInplace, self, other, alpha, "sub_")

    def mul_(self, other):
        return ops.in_place(ops.MulInplace, self, _number_or_tensor(other), "mul_")

    def div_(self, other):
        return ops.in_place(ops.DivInplace, self, _number_or_tensor(other), "div_")

    def __iadd__(self, other):
        return self.add_(other) if _is_operand(other) else NotImplemented

    def __isub__(self, other):
        return self.sub_(other) if _is_operand(other) else NotImplemented

    def __imul__(self, other):
        return self.mul_(other) if _is_operand(other) else NotImplemented

    def __itruediv__(self, other):
        return self.div_(other) if _is_operand(other) else NotImplemented

    def relu_(self):
        return ops.relu_(self)

    def zero_(self):
        ops.check_in_place(self)
        return ops.record_change_in_base(ops.Zero.apply(self))

    def fill_(self, value):
        return ops.inplace.fill_(self, value)

    def copy_(self, src, non_blocking=False):
        return ops.inplace.copy_(self, src)

    # ================================================================================
    # More math (ops/trig.py, exponential.py, rounding.py, statistics.py, sorting.py,
    # rearranging.py, random.py): the same pattern, for the rest of PyTorch's everyday ops
    # ================================================================================
    def sin(self):
        return ops.Sin.apply(self)

    def cos(self):
        return ops.Cos.apply(self)

    def tan(self):
        return ops.Tan.apply(self)

    def asin(self):
        return ops.Asin.apply(self)

    def acos(self):
        return ops.Acos.apply(self)

    def atan(self):
        return ops.Atan.apply(self)

    def sinh(self):
        return ops.Sinh.apply(self)

    def cosh(self):
        return ops.Cosh.apply(self)

    def atan2(self, other):
        return ops.Atan2.apply(self, other)

    arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2

    def log1p(self):
        return ops.Log1p.apply(self)

    def expm1(self):
        return ops.Expm1.apply(self)

    def log2(self):
        return ops.Log2.apply(self)

    def log10(self):
        return ops.Log10.apply(self)

    def exp2(self):
        return ops.Exp2.apply(self)

    def rsqrt(self):
        return ops.Rsqrt.apply(self)

    def square(self):
        return self ** 2

    def erf(self):
        return ops.Erf.apply(self)

    def lerp(self, end, weight):
        return ops.lerp(self, end, weight)

    def floor(self):
        return ops.Floor.apply(self)

    def ceil(self):
        return ops.Ceil.apply(self)

    def trunc(self):
        return ops.Trunc.apply(self)

    fix = trunc

    def round(self, decimals=0):
        return ops.Round.apply(self, decimals)

    def frac(self):
        return ops.Frac.apply(self)

    def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return ops.var(self, dim, unbiased, keepdim, correction=correction)

    def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return ops.std(self, dim, unbiased, keepdim, correction=correction)

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        return ops.norm(self, p, dim, keepdim, dtype)

    def prod(self, dim=None, keepdim=False, *, dtype=None):
        return ops.prod(self, dim, keepdim, dtype=dtype)

    def cumsum(self, dim, *, dtype=None):
        return ops.cumsum(self, dim, dtype=dtype)

    def cumprod(self, dim, *, dtype=None):
        return ops.cumprod(self, dim, dtype=dtype)

    def logsumexp(self, dim, keepdim=False):
        return ops.logsumexp(self, dim, keepdim)

    def amax(self, dim=(), keepdim=False):
        return ops.amax(self, dim, keepdim)

    def amin(self, dim=(), keepdim=False):
        return ops.amin(self, dim, keepdim)

    def sort(self, dim=-1, descending=False, stable=False):
        return ops.sort(self, dim, descending, stable)

    def argsort(self, dim=-1, descending=False, stable=False):
        return ops.argsort(self, dim, descending, stable)

    def topk(self, k, dim=-1, largest=True, sorted=True):
        return ops.topk(self, k, dim, largest, sorted)

    def kthvalue(self, k, dim=-1, keepdim=False):
        return ops.kthvalue(self, k, dim, keepdim)

    def matrix_exp(self):
        from .linalg import matrix_exp
        return matrix_exp(self)

    def repeat(self, *sizes):
        return ops.repeat(self, *sizes)

    def tile(self, *dims):
        return ops.tile(self, *dims)

    def split(self, split_size, dim=0):
        return ops.split(self, split_size, dim)

    def chunk(self, chunks, dim=0):
        return ops.chunk(self, chunks, dim)

    def unbind(self, dim=0):
        return ops.unbind(self, dim)

    def flip(self, *dims):
        return ops.flip(self, *dims)

    def roll(self, shifts, dims=None):
        return ops.roll(self, shifts, dims)

    def diagonal(self, offset=0, dim1=0, dim2=1):
        return ops.diagonal(self, offset, dim1, dim2)

    def tril(self, diagonal=0):
        return ops.tril(self, diagonal)

    def triu(self, diagonal=0):
        return ops.triu(self, diagonal)

    def tril_(self, diagonal=0):
        return ops.rearranging.tril_(self, diagonal)

    def triu_(self, diagonal=0):
        return ops.rearranging.triu_(self, diagonal)

    def multinomial(self, num_samples, replacement=False, *, generator=None):
        from ._sampling import multinomial
        return multinomial(self, num_samples, replacement, generator=generator)

    def trace(self):
        return ops.trace(self)

    def masked_select(self, mask):
        return ops.masked_select(self, mask)

    def movedim(self, source, destination):
        return ops.movedim(self, source, destination)

    moveaxis = movedim

    def uniform_(self, a=0.0, b=1.0, *, generator=None):
        return ops.uniform_(self, a, b, generator=generator)

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        return ops.normal_(self, mean, std, generator=generator)

    def exponential_(self, lambd=1.0, *, generator=None):
        return ops.exponential_(self, lambd, generator=generator)

    def bernoulli_(self, p=0.5, *, generator=None):
        return ops.bernoulli_(self, p, generator=generator)

    def bernoulli(self, p=None, *, generator=None):
        from ._sampling import bernoulli
        return bernoulli(self, p, generator=generator)

    def random_(self, low=None, high=None, *, generator=None):
        return ops.random_(self, low, high, generator=generator)

    def _in_place_result(self, result):
        """``x.op_()`` for ops without an in-place Function: compute, then copy back."""
        return self.copy_(result)

    def _in_place_unary(self, method):
        """``x.sin_()``: ``x.sin()`` copied back; while recording, computed from a clone,
        since backward needs the values before the change (PyTorch saves them too)."""
        source = self.clone() if self._requires_grad and grad_mode.is_grad_enabled() else self
        return self.copy_(getattr(source, method)())

    def clamp_(self, min=None, max=None):
        return self._in_place_result(self.clamp(min, max))

    clip_ = clamp_

    def masked_fill_(self, mask, value):
        return self._in_place_result(self.masked_fill(mask, value))

    def pow_(self, exponent):
        return self._in_place_result(self ** exponent)

    def lerp_(self, end, weight):
        return self._in_place_result(self.lerp(end, weight))

    def addcmul_(self, tensor1, tensor2, *, value=1):
        return self.add_(tensor1 * tensor2 * value if value != 1 else tensor1 * tensor2)

    def addcdiv_(self, tensor1, tensor2, *, value=1):
        return self.add_(tensor1 / tensor2 * value if value != 1 else tensor1 / tensor2)

    def neg_(self):
        return self.mul_(-1)

    def reciprocal_(self):
        return self._in_place_unary("reciprocal")

    def exp_(self):
        return self._in_place_unary("exp")

    def log_(self):
        return self._in_place_unary("log")

    def sqrt_(self):
        return self._in_place_unary("sqrt")

    def abs_(self):
        return self._in_place_unary("abs")

    def sign_(self):
        return self._in_place_unary("sign")

    def sigmoid_(self):
        return self._in_place_unary("sigmoid")

    def tanh_(self):
        return self._in_place_unary("tanh")

    def sin_(self):
        return self._in_place_unary("sin")

    def cos_(self):
        return self._in_place_unary("cos")

    def tan_(self):
        return self._in_place_unary("tan")

    def asin_(self):
        return self._in_place_unary("asin")

    def acos_(self):
        return self._in_place_unary("acos")

    def atan_(self):
        return self._in_place_unary("atan")

    def sinh_(self):
        return self._in_place_unary("sinh")

    def cosh_(self):
        return self._in_place_unary("cosh")

    def log1p_(self):
        return self._in_place_unary("log1p")

    def expm1_(self):
        return self._in_place_unary("expm1")

    def log2_(self):
        return self._in_place_unary("log2")

    def log10_(self):
        return self._in_place_unary("log10")

    def exp2_(self):
        return self._in_place_unary("exp2")

    def rsqrt_(self):
        return self._in_place_unary("rsqrt")

    def square_(self):
        return self._in_place_unary("square")

    def erf_(self):
        return self._in_place_unary("erf")

    def floor_(self):
        return self._in_place_unary("floor")

    def ceil_(self):
        return self._in_place_unary("ceil")

    def trunc_(self):
        return self._in_place_unary("trunc")

    def round_(self):
        return self._in_place_unary("round")

    def frac_(self):
        return self._in_place_unary("frac")


# ----- small helpers of the methods above -----------------------------------------------------
def _is_one(alpha):
    """Is ``alpha`` the default 1 (an int: other types are checked first)?"""
    return type(alpha) is int and alpha == 1

def _is_operand(x):
    return isinstance(x, (Tensor, numbers.Real, np.ndarray))


def _number_or_tensor(x):
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return Tensor._from_numpy_copy(x)
    return x


def _add_in_place(function, t, other, alpha, name):
    """``t.add_(other, alpha=...)`` (or ``sub_``).  A tensor of ``t``'s floating dtype is
    scaled inside the in-place op (an optimizer's update: one node, no temporary tensor);
    anything else is scaled first, by PyTorch's promotion rules."""
    if type(alpha) is float and type(other) is Tensor and other._data.dtype is t._data.dtype \
            and t._data.dtype.kind == "f" and other._data.shape == t._data.shape:
        ops.check_in_place(t, other)    # an optimizer's update: nothing else to check
        state = grad_mode._state
        if not (state.enabled and (t._requires_grad or other._requires_grad)) \
                and not state.inference and transform_apply[0] is None:
            return ops.update_unrecorded(function, t, other, alpha)
        return function.apply(t, other, alpha)
    other = _number_or_tensor(other)
    if _is_one(alpha):
        return ops.in_place(function, t, other, name)
    alpha = ops.check_alpha(alpha, name, t._data.dtype.kind == "b")
    if alpha == 1 or not isinstance(other, (Tensor, numbers.Real)):
        return ops.in_place(function, t, other, name)   # a wrong other is refused there
    if isinstance(other, Tensor) and other._data.dtype == t._data.dtype \
            and t._data.dtype.kind == "f":
        return ops.in_place(function, t, other, name, alpha)
    return ops.in_place(function, t, other * alpha, name)


def _not_an_operand(name, other):
    raise TypeError(f"{name}(): argument 'other' (position 1) must be Tensor, not "
                    f"{ops.type_name_of(other)}")


# C type names in PyTorch's messages
_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
            "bool": "bool"}


def _tensor_argument(other, name):
    if not isinstance(other, Tensor):
        raise ops.must_be_tensor(other, name, "other")
    return other


def _no_arguments(name, given):
    return TypeError(f"{name}() takes no arguments ({len(given)} given): call it as "
                     f"x.{name}() or minitorch.{name}(x)")


def _values(x):
    return x._data if isinstance(x, Tensor) else x


def _as_tensor(x, like):
    return x if isinstance(x, Tensor) else _creation.tensor(x)


def _axis(t, dim):
    if dim is None:
        return None
    return ops.normalize_dims(dim, t.ndim) if t.ndim else None


def _add_hook(hooks, hook):
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


# ================================================================================
# Binding the core together
# ================================================================================
# Tensor is the foundation of the core: autograd and the ops build Tensors, so
# they import this module.  The names the methods above use from them are
# imported here, once the class exists.  This is the one place where the
# core's modules are tied to each other.
from .autograd import grad_mode  # noqa: E402
from .autograd.function import transform_apply  # noqa: E402  (forward mode, vmap)
from .autograd.graph import AccumulateGrad  # noqa: E402
from .utils.hooks import RemovableHandle, hook_dict  # noqa: E402
from . import ops, autograd, _creation, _device  # noqa: E402
