"""``nn.utils.parametrize``: a tensor computed from others by a module
(chapter "Module surgery").

``register_parametrization(module, "weight", P())`` makes ``module.weight``
mean ``P()(original)``, computed afresh on every read.  Three moves do it:

* the Parameter leaves ``module._parameters`` and goes to a
  ``ParametrizationList`` (a ``ModuleList`` holding ``P()``), as its own
  parameter ``original``; the list sits in ``module.parametrizations``, a
  ``ModuleDict``, so the state-dict key becomes
  ``parametrizations.weight.original``;
* the module's class is swapped for a subclass made on the spot,
  ``Parametrized<Class>``, so that the next move touches this module only;
* that subclass gets a ``property`` ``weight``: its getter runs the list
  (``P()(original)``), its setter runs the inverse direction
  (``P().right_inverse(value)``) and stores the result in ``original``.

Inside ``with cached():`` each parametrized tensor is computed once and
reused.  ``remove_parametrizations`` undoes all three moves.
"""

import collections.abc
import contextlib
import copy

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations",
           "transfer_parametrizations_and_params"]

_cache_enabled = 0
_cache = {}


@contextlib.contextmanager
def cached():
    """Within the block, compute each parametrized tensor at its first read and reuse it
    (a layer that reads ``weight`` many times, as a recurrent one does, pays once)."""
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module, name, value):
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_values(dest, src):
    """Make ``dest`` (kept as the same object, so optimizers still hold it) carry
    ``src``'s values, shape and dtype."""
    with no_grad():
        dest.data = src


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the tensor(s) they start
    from: ``original``, or ``original0, original1...`` when ``right_inverse`` returns
    several."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = original.shape, original.dtype
        new = _inverse_through(self, original, skip_missing=True)
        if isinstance(new, Tensor):
            self.is_tensor, self.ntensors = True, 1
            if new.dtype != dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change "
                                 f"the dtype.\noriginal.dtype: {dtype}\n"
                                 f"right_inverse(original).dtype: {new.dtype}")
            _set_values(original, new)
            _register_parameter_or_buffer(self, "original", original)
        elif isinstance(new, collections.abc.Sequence):
            self.is_tensor, self.ntensors = False, len(new)
            for i, part in enumerate(new):
                self._register_part(i, part, original)
        else:
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        if not self.unsafe:
            _check_same_kind(self(), shape, dtype)

    def _register_part(self, i, part, original):
        """Store ``right_inverse``'s ``i``-th tensor as ``original<i>``: a Parameter if
        the tensor it replaces was one, else a buffer."""
        if not isinstance(part, Tensor):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got element {i} of the sequence with type "
                             f"{type(part).__name__}.")
        if isinstance(original, Parameter):
            part = Parameter(part, original.requires_grad)
        part.requires_grad_(original.requires_grad)
        _register_parameter_or_buffer(self, f"original{i}", part)

    def right_inverse(self, value):
        """Assigning ``module.<name> = value``: run each parametrization's
        ``right_inverse``, last to first, and store the result in the original(s)."""
        with no_grad():
            value = _inverse_through(self, value, skip_missing=False)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError("`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype "
                                     f"{value.dtype} while `original` has dtype "
                                     f"{self.original.dtype}")
                _set_values(self.original, value)
                return
            if not isinstance(value, collections.abc.Sequence):
                raise ValueError("'right_inverse' must return a sequence of tensors. Got "
                                 f"{type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError("'right_inverse' must return a sequence of tensors of length "
                                 f"{self.ntensors}. Got a sequence of length {len(value)}.")
            for i, part in enumerate(value):
                original = getattr(self, f"original{i}")
                if not isinstance(part, Tensor):
                    raise ValueError("'right_inverse' must return a sequence of tensors or "
                                     "reference-type opaques. Got element "
                                     f"{i} of type {type(part).__name__}.")
                if part.dtype != original.dtype:
                    raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype "
                                     f"{part.dtype} while `original{i}` has dtype "
                                     f"{original.dtype}")
                _set_values(original, part)

    def forward(self):
        """The parametrized tensor: the first module on the original(s), each next module
        on the result."""
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _inverse_through(modules, value, skip_missing):
    """``value`` taken back through the modules' ``right_inverse``, last module first.
    At registration a module without one (or that raises NotImplementedError) is
    skipped; on assignment that is an error."""
    with no_grad():
        for module in reversed(list(modules)):
            if not hasattr(module, "right_inverse"):
                if skip_missing:
                    continue
                raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                   "implement right_inverse.")
            try:
                value = module.right_inverse(value)
            except NotImplementedError:
                if not skip_missing:
                    raise
    return value


def _check_same_kind(result, shape, dtype):
    """Without ``unsafe``, a parametrization must give a tensor of the original's shape
    and dtype."""
    if not isinstance(result, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(result).__name__}.")
    if result.dtype != dtype:
        raise ValueError("Registering a parametrization may not change the dtype of the tensor, "
                         f"unless `unsafe` flag is enabled.\nunparametrized dtype: {dtype}\n"
                         f"parametrized dtype: {result.dtype}")
    if result.shape != shape:
        raise ValueError("Registering a parametrization may not change the shape of the tensor, "
                         f"unless `unsafe` flag is enabled.\nunparametrized shape: {shape}\n"
                         f"parametrized shape: {result.shape}")


# ----- the class swap and the property ---------------------------------------------------
def _refuse_pickling(self):
    raise RuntimeError(
        "Serialization of parametrized modules is only supported through state_dict(). See:\n"
        "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
        "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _deepcopy_by_dict(self, memo):
    """``copy.deepcopy`` of a parametrized module: a new instance of the same generated
    class, with a deep copy of the instance's ``__dict__`` (pickling is refused)."""
    if id(self) in memo:
        return memo[id(self)]
    replica = self.__new__(type(self))
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    return replica


def _swap_in_parametrized_class(module):
    """Give ``module`` (this instance only) a class of its own, ``Parametrized<Class>``,
    a subclass of its class, where the properties of its parametrized tensors will go."""
    cls = type(module)
    namespace = {"__getstate__": _refuse_pickling}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _deepcopy_by_dict
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _add_property(module, name):
    """Make ``module.<name>`` read ``module.parametrizations[name]()`` and assign through
    its ``right_inverse``."""
    if hasattr(module, name):
        raise AssertionError(f"Module already has an attribute named '{name}'")

    def compute(self):
        parametrization = self.parametrizations[name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), name)
        if _cache.get(key) is None:
            _cache[key] = parametrization()
        return _cache[key]

    def assign(self, value):
        self.parametrizations[name].right_inverse(value)

    setattr(type(module), name, property(compute, assign))


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make ``module.<tensor_name>`` (a parameter or a buffer) be computed by
    ``parametrization`` from the tensor it replaces, which moves to
    ``module.parametrizations[tensor_name].original``.

    Registering a second parametrization on the same tensor applies it after
    the first.  ``unsafe=True`` allows one that changes shape or dtype.
    Returns ``module``.
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_next_parametrization(module, tensor_name, parametrization)
        chain = module.parametrizations[tensor_name]
        chain.append(parametrization)
        chain.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        chain = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _swap_in_parametrized_class(module)
            module.parametrizations = ModuleDict()
        _add_property(module, tensor_name)
        module.parametrizations[tensor_name] = chain
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def _check_next_parametrization(module, name, parametrization):
    """A parametrization added to a parametrized tensor keeps its shape and dtype, and so
    does its ``right_inverse`` if it has one."""
    before = getattr(module, name)
    after = parametrization(before)
    if not isinstance(after, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(after).__name__}.")
    for what, got in (("dtype", after.dtype), ("shape", after.shape)):
        if got != getattr(before, what):
            raise ValueError(
                f"Registering a parametrization may not change the {what} of the tensor, "
                f"unless the `unsafe` flag is enabled.\nmodule.{name}.{what}: "
                f"{getattr(before, what)}\nparametrization(module.{name}).{what}: {got}")
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        back = parametrization.right_inverse(after)
    except NotImplementedError:
        return
    if not isinstance(back, Tensor):
        raise ValueError("parametrization.right_inverse must return a tensor. Got: "
                         f"{type(back).__name__}")
    for what, got in (("dtype", back.dtype), ("shape", back.shape)):
        if got != getattr(before, what):
            raise ValueError(
                "The tensor returned by parametrization.right_inverse must have the same "
                f"{what} as module.{name}, unless the `unsafe` flag is enabled.\n"
                f"module.{name}.{what}: {getattr(before, what)}\nreturned {what}: {got}")


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` has any parametrization (or one on ``tensor_name``)."""
    parametrizations = getattr(module, "parametrizations", None)
    if not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo ``register_parametrization`` for ``tensor_name``: it becomes a plain parameter
    (or buffer) again, holding the parametrized value (``leave_parametrized=True``) or
    the original one.  With no parametrization left the module gets its class back."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chain = module.parametrizations[tensor_name]
    if chain.is_tensor:
        original = chain.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
            _set_values(original, value)
    elif leave_parametrized:
        value = getattr(module, tensor_name)
        original = Parameter(value) if value.requires_grad else value
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                         "that is parametrized in terms of a sequence of tensors.")
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class before ``register_parametrization`` swapped it."""
    if is_parametrized(module):
        return type(module).__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Give ``to_module`` the parametrizations (the same modules) and originals of
    ``from_module``: all of them, or those of ``tensor_name``."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        source = from_module.parametrizations[name]
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for parametrization in source:
            register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        if hasattr(source, "original"):
            target.original = source.original
        else:
            i = 0
            while hasattr(source, f"original{i}"):
                setattr(target, f"original{i}", getattr(source, f"original{i}"))
                i += 1
    return to_module
