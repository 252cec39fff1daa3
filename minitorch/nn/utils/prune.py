"""``nn.utils.prune``: zeroing weights with a mask and a forward pre-hook
(chapter "Module surgery").

Pruning a parameter ``weight`` of a module is three moves on the dicts that
chapter 7 introduced, and one hook from chapter 8:

* the Parameter moves from ``_parameters["weight"]`` to
  ``_parameters["weight_orig"]`` (the optimizer keeps training it);
* a buffer ``weight_mask`` of zeros and ones joins ``_buffers`` (so it is in
  the state dict);
* ``weight`` becomes a plain attribute, ``weight_orig * weight_mask``, and a
  forward pre-hook (the pruning method object itself) computes it again
  before every call, so the product follows the training of ``weight_orig``.

Pruning the same tensor again multiplies the new mask into the old one: the
methods are collected in a ``PruningContainer``, which prunes only the
entries (or channels) the earlier masks left.  ``remove`` makes it
permanent: ``weight`` is a Parameter again, holding the pruned values.
"""

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

from ..._creation import ones_like, rand, rand_like, zeros_like
from ...autograd.grad_mode import no_grad
from .convert_parameters import parameters_to_vector

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask",
           "identity", "random_unstructured", "l1_unstructured", "random_structured",
           "ln_structured", "global_unstructured", "custom_from_mask", "remove",
           "is_pruned"]


class BasePruningMethod(ABC):
    """A way of choosing which entries of a tensor to zero.

    Subclasses say how in ``compute_mask``; this class does the surgery
    (``apply``, ``remove``) and is the forward pre-hook that recomputes the
    pruned tensor before each call.
    """

    _tensor_name = None

    def __call__(self, module, inputs):
        """The forward pre-hook: refresh ``module.<name>`` from ``<name>_orig`` and the mask."""
        ### BEGIN SOLUTION 8.4
        setattr(module, self._tensor_name, self.apply_mask(module))
        ### END SOLUTION 8.4

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """A mask of ``t``'s shape: 0 where an entry is pruned, 1 where it is kept.
        ``default_mask`` is the mask so far; entries it zeroed must stay zero."""

    def apply_mask(self, module):
        """The pruned tensor: the original times the mask (a differentiable product, so
        the gradient reaches ``<name>_orig`` only through the kept entries)."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        ### BEGIN SOLUTION 8.4
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig
        ### END SOLUTION 8.4

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with a new ``cls(*args, **kwargs)``, composed with any
        pruning already on that tensor.  Returns the method that is now the hook."""
        method = _compose_with_earlier(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is None:
            importance_scores = orig
        elif importance_scores.shape != orig.shape:
            raise AssertionError(
                f"importance_scores should have the same shape as parameter {name} of "
                f"{module}, got {importance_scores.shape} vs {orig.shape}")
        first_time = not isinstance(method, PruningContainer)
        if first_time:     # move the Parameter aside: weight -> weight_orig
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first_time:  # put the Parameter back where it was
                module.register_parameter(name, module._parameters.pop(name + "_orig"))
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` times this method's mask, without touching any module."""
        if importance_scores is None:
            importance_scores = t
        elif importance_scores.shape != t.shape:
            raise AssertionError("importance_scores should have the same shape as tensor t, "
                                 f"got {importance_scores.shape} vs {t.shape}")
        if default_mask is None:
            default_mask = ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module):
        """Make the pruning permanent: ``<name>`` is a Parameter again (the same object
        as ``<name>_orig``, now holding the pruned values); the mask buffer goes."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be "
                                 "removed")
        name = self._tensor_name
        pruned = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        orig = module._parameters.pop(name + "_orig")
        orig.data = pruned.data
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


def _compose_with_earlier(cls, module, name, *args, **kwargs):
    """The method to install for a new ``cls`` pruning of ``name``: the new method alone,
    or, if ``name`` is already pruned, a container holding the earlier method(s) and it.
    The earlier hook is taken off ``module``; ``apply`` installs the result."""
    earlier = [(hook_id, hook) for hook_id, hook in module._forward_pre_hooks.items()
               if isinstance(hook, BasePruningMethod) and hook._tensor_name == name]
    if len(earlier) > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} "
                             f"of module {module}. Use a PruningContainer.")
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if not earlier:
        return method
    hook_id, old = earlier[0]
    del module._forward_pre_hooks[hook_id]
    if not isinstance(old, PruningContainer):
        old = PruningContainer(old)
    old.add_pruning_method(method)
    return old


class PruningContainer(BasePruningMethod):
    """The pruning methods applied, in turn, to one tensor.  Its mask is the last method's
    mask computed on what the earlier masks kept."""

    def __init__(self, *methods):
        self._pruning_methods = ()
        if len(methods) == 1:
            self._tensor_name = methods[0]._tensor_name
        for method in methods:
            self.add_pruning_method(method)

    def add_pruning_method(self, method):
        if method is not None and not isinstance(method, BasePruningMethod):
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError("Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found "
                             f"'{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, index):
        return self._pruning_methods[index]

    def compute_mask(self, t, default_mask):
        """Let the newest method choose among what is left: unstructured methods see the
        surviving entries, structured ones the surviving channels, a custom mask all."""
        method = self._pruning_methods[-1]
        where = _still_alive(method, t, default_mask)
        new_mask = default_mask.to(dtype=t.dtype)
        chosen = method.compute_mask(t[where], default_mask=default_mask[where])
        new_mask[where] = chosen.to(dtype=new_mask.dtype)
        return new_mask


def _still_alive(method, t, mask):
    """The index of the part of ``t`` that ``method`` may still prune."""
    kind = method.PRUNING_TYPE
    if kind == "unstructured":
        return mask == 1
    if kind == "global":
        return (slice(None),) * t.ndim
    if kind != "structured":
        raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
    if not hasattr(method, "dim"):
        raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the '
                             "attribute `dim` defined.")
    dim = method.dim + t.ndim if method.dim < 0 else method.dim
    if dim < 0:
        raise IndexError(f"Index is out of bounds for tensor with dimensions {t.ndim}")
    others = [d for d in range(t.ndim) if d != dim]
    alive_channels = mask.sum(dim=others) != 0
    index = [slice(None)] * t.ndim
    index[dim] = alive_channels
    return tuple(index)


# ----- the methods ----------------------------------------------------------------------
class Identity(BasePruningMethod):
    """Prunes nothing: the surgery alone (a mask of ones)."""
    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prunes ``amount`` entries (a fraction, or a count) chosen at random."""
    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        count = _count_to_prune(self.amount, t.numel())
        mask = default_mask.clone()
        if count:
            chosen = rand_like(t).view(-1).topk(count).indices
            mask.view(-1)[chosen] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the ``amount`` entries of smallest absolute value."""
    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        count = _count_to_prune(self.amount, t.numel())
        mask = default_mask.clone()
        if count:
            smallest = t.abs().view(-1).topk(count, largest=False).indices
            mask.view(-1)[smallest] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount,
                             importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole channels along ``dim`` (rows of a Linear weight for
    ``dim=0``), chosen at random."""
    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _check_amount(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _check_structured(t, self.dim)
        channels = t.shape[self.dim]
        count = _count_to_prune(self.amount, channels)
        if count == 0:
            return default_mask
        draws = rand(channels)
        keep = draws > draws.kthvalue(count).values
        return _channel_mask(t, self.dim, keep) * default_mask.to(dtype=t.dtype)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` channels along ``dim`` of smallest L``n`` norm."""
    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _check_amount(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _check_structured(t, self.dim)
        channels = t.shape[self.dim]
        count = _count_to_prune(self.amount, channels)
        dim = self.dim % t.ndim
        norms = t.norm(p=self.n, dim=[d for d in range(t.ndim) if d != dim])
        keep = norms.topk(channels - count, largest=True).indices
        if count == 0:
            return default_mask
        return _channel_mask(t, self.dim, keep) * default_mask.to(dtype=t.dtype)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where a given mask is 0."""
    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match "
                                 f"self.mask shape {self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


# ----- the functions tutorials call -------------------------------------------------------
def identity(module, name):
    """Prune nothing, but do the surgery (``<name>_orig``, ``<name>_mask``, the hook)."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Zero ``amount`` random entries of ``module.<name>`` (a fraction or a count)."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Zero the ``amount`` entries of ``module.<name>`` of smallest absolute value (or of
    smallest ``importance_scores``)."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Zero ``amount`` random channels of ``module.<name>`` along ``dim``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Zero the ``amount`` channels along ``dim`` of smallest L``n`` norm."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    """Zero the entries of ``module.<name>`` where ``mask`` is 0."""
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune several tensors as if they were one: ``parameters`` is an iterable of
    ``(module, name)`` pairs, and ``pruning_method`` (an unstructured class such as
    ``L1Unstructured``, with its ``amount`` in ``kwargs``) chooses among all their
    entries together.  Each tensor then gets its share as a custom mask."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    importance_scores = {} if importance_scores is None else importance_scores
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    scores = parameters_to_vector([importance_scores.get((m, n), getattr(m, n))
                                   for m, n in parameters])
    masks_so_far = parameters_to_vector([_mask_so_far(m, n) for m, n in parameters])
    method = pruning_method(**kwargs)
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the '
                        f"`pruning_method`. Found method {pruning_method} of type "
                        f"{method.PRUNING_TYPE}")
    method._tensor_name = "temp"
    container = PruningContainer()
    container._tensor_name = "temp"
    container.add_pruning_method(method)
    final_mask = container.compute_mask(scores, masks_so_far)
    start = 0
    for module, name in parameters:
        tensor = getattr(module, name)
        share = final_mask[start:start + tensor.numel()].view_as(tensor)
        custom_from_mask(module, name, mask=share)
        start += tensor.numel()


def _mask_so_far(module, name):
    """The mask of ``module.<name>`` if it is pruned already, else ones."""
    mask = getattr(module, name + "_mask", None)
    return ones_like(getattr(module, name)) if mask is None else mask


def remove(module, name):
    """Make the pruning of ``module.<name>`` permanent and take its hook off."""
    for hook_id, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[hook_id]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning "
                     "can be removed")


def is_pruned(module):
    """Whether any module of the tree carries a pruning hook."""
    return any(isinstance(hook, BasePruningMethod)
               for sub in module.modules() for hook in sub._forward_pre_hooks.values())


# ----- checks ----------------------------------------------------------------------------
def _check_amount(amount):
    """``amount`` is a count (int >= 0) or a fraction in [0, 1]."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and not 0.0 <= float(amount) <= 1.0):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         "non-negative integer")


def _count_to_prune(amount, size):
    """How many of ``size`` entries (or channels) ``amount`` asks to prune."""
    count = amount if isinstance(amount, numbers.Integral) else round(amount * size)
    if isinstance(amount, numbers.Integral) and amount > size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to "
                         f"prune={size}")
    return count


def _check_structured(t, dim):
    if t.ndim <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. "
                         f"Found tensor of shape {t.shape} with {t.ndim} dims")
    if dim >= t.ndim:
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _channel_mask(t, dim, keep):
    """Zeros of ``t``'s shape with ones in the channels ``keep`` (a bool mask or indices)
    along ``dim``."""
    mask = zeros_like(t)
    index = [slice(None)] * t.ndim
    index[dim] = keep
    with no_grad():
        mask[tuple(index)] = 1
    return mask

