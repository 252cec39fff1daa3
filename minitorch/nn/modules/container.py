"""Containers: ``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList`` and
``ParameterDict`` (chapter 7, "Module internals I").

``Sequential`` and ``ModuleList`` keep their layers in ``_modules`` under
the names ``"0"``, ``"1"``..., so everything Module does (``parameters()``,
``state_dict()`` with keys like ``"0.weight"``, ``__repr__``) works on them
unchanged.  ``Sequential`` also has a ``forward`` that feeds each layer's
output into the next; ``ModuleList`` is only a list that registers what it
holds, and ``ModuleDict`` the same keyed by names.

``ParameterList`` and ``ParameterDict`` do for parameters what the other
two do for modules: each entry is an attribute, so ``Module.__setattr__``
registers it (a plain tensor is wrapped in a ``Parameter`` first).
"""

import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping

from ... import Tensor
from ..parameter import Parameter
from .module import Module, _addindent, _typename

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _index(idx, length):
    """``idx`` (maybe negative) as a position in ``range(length)``, or PyTorch's IndexError."""
    idx = operator.index(idx)
    if not -length <= idx < length:
        raise IndexError(f"index {idx} is out of range")
    return idx % length


def _renumber(container):
    """Name the children "0", "1", ... again after a deletion, as PyTorch does."""
    modules = list(container._modules.values())
    container._modules.clear()
    for i, module in enumerate(modules):
        container._modules[str(i)] = module

class Sequential(Module):
    """Layers applied one after the other: ``Sequential(a, b, c)(x) == c(b(a(x)))``.

    Build it from modules (named ``"0"``, ``"1"``...) or from an OrderedDict
    of named modules.  Index it, slice it, take its ``len``, iterate over it.
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[_index(idx, len(self))]

    def __setitem__(self, idx, module):
        key = list(self._modules)[_index(idx, len(self))]
        setattr(self, key, module)

    def __delitem__(self, idx):
        keys = list(self._modules)
        for key in (keys[idx] if isinstance(idx, slice) else [keys[_index(idx, len(self))]]):
            delattr(self, key)
        _renumber(self)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        """Put ``module`` at position ``index`` (``-len <= index <= len``); later layers move up."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        index = index + n if index < 0 else index
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def extend(self, sequential):
        """Append every module of ``sequential`` (any iterable of modules)."""
        for module in sequential:
            self.append(module)
        return self

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def __add__(self, other):
        """A new Sequential with the layers of both (the layer objects are shared)."""
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        return Sequential(*self, *other)

    def __iadd__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        return self.extend(list(other))

    def __mul__(self, times):
        """``Sequential(a, b) * 2`` is ``Sequential(a, b, a, b)`` (the same layer objects)."""
        _check_factor(self, times)
        return Sequential(*(list(self) * times))

    __rmul__ = __mul__

    def __imul__(self, times):
        _check_factor(self, times)
        return self.extend(list(self) * (times - 1))

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input


def _check_factor(sequential, times):
    if not isinstance(times, int):
        raise TypeError(f"unsupported operand type(s) for *: {type(sequential)} and {type(times)}")
    if times <= 0:
        raise ValueError(f"Non-positive multiplication factor {times} for {type(sequential)}")


class ModuleList(Module):
    """A Python list of modules that registers them as children.

    Use it when layers are built in a loop; call them yourself in ``forward``.
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self)))]

    def __setitem__(self, idx, module):
        setattr(self, str(_index(idx, len(self))), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(_index(idx, len(self))))
        _renumber(self)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        """A new ModuleList holding this list's modules, then ``other``'s (the same objects)."""
        combined = ModuleList()
        for module in self:
            combined.append(module)
        for module in other:
            combined.append(module)
        return combined

    def pop(self, key):
        """Remove the module (or, for a slice, the ModuleList of modules) at ``key`` and
        return it; the remaining children are numbered again from 0."""
        value = self[key]
        del self[key]
        return value

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            + type(modules).__name__)
        for module in modules:
            self.append(module)
        return self

    def insert(self, index, module):
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(modules):
            self.add_module(str(i), m)

    def __repr__(self):
        """Like Module's repr, but runs of identical layers print once: ``(0-2): 3 x ReLU()``."""
        if not self._modules:
            return self._get_name() + "()"
        runs = []       # [first index, last index, repr]
        for i, module in enumerate(self._modules.values()):
            text = repr(module)
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        lines = []
        for first, last, text in runs:
            label = f"({first}): {text}" if first == last else f"({first}-{last}): {last - first + 1} x {text}"
            lines.append(_addindent(label, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


def _pairs(values, container_name):
    """``(key, value)`` pairs from a mapping (in its order) or an iterable of pairs, with
    PyTorch's errors for anything else."""
    if not isinstance(values, Iterable):
        raise TypeError(f"{container_name}.update should be called with an iterable of key/value "
                        f"pairs, but got {type(values).__name__}")
    if isinstance(values, Mapping) or isinstance(values, (ModuleDict, ParameterDict)):
        return list(values.items())
    pairs = []
    for j, pair in enumerate(values):
        if not isinstance(pair, Iterable):
            raise TypeError(f"{container_name} update sequence element #{j} should be Iterable; "
                            f"is{type(pair).__name__}")
        if len(pair) != 2:
            raise ValueError(f"{container_name} update sequence element #{j} has length "
                             f"{len(pair)}; 2 is required")
        pairs.append((pair[0], pair[1]))
    return pairs


class ModuleDict(Module):
    """A dict of modules, registered as children under their keys (kept in insertion order).

    Like ``ModuleList`` it has no ``forward``: pick the modules in yours
    (``self.heads[task](x)``).
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        """Add modules from a mapping (in its order) or from ``(name, module)`` pairs."""
        for key, module in _pairs(modules, "ModuleDict"):
            self[key] = module


def _describe_entry(key, value, type_name):
    """One line of a parameter container's repr, as PyTorch writes it."""
    if not isinstance(value, Tensor):
        return f"  ({key}): Object of type: {type(value).__name__}"
    kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
    size = "x".join(str(s) for s in value.size())
    return f"  ({key}): {kind} containing: [{type_name(value)} of size {size}]"


def _as_parameter(value):
    """Plain tensors stored in a parameter container become Parameters."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


class ParameterList(Module):
    """A list of parameters, each registered under its position (``"0"``, ``"1"``...)."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _position(self, idx):
        return str(_index(idx, len(self)))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self)[idx])
        return getattr(self, self._position(idx))

    def __setitem__(self, idx, value):
        setattr(self, self._position(idx), _as_parameter(value))

    def __len__(self):
        return self._size

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __iadd__(self, values):
        return self.extend(values)

    def append(self, value):
        """Add ``value`` at the end (a tensor becomes a Parameter); returns the list."""
        position = len(self)
        self._size += 1
        self[position] = value
        return self

    def extend(self, values):
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(_describe_entry(i, value, lambda t: str(t.dtype))
                         for i, value in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """A dict of parameters, each registered under its (string) key.

    As in PyTorch, a plain ``dict`` given to the constructor or to
    ``update`` is added in sorted key order (an ``OrderedDict`` or pairs keep
    theirs).
    """

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _attribute(key):
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a "
                            f"string (type is '{type(key).__name__}'). Use string keys.")
        return key

    def __getitem__(self, key):
        return getattr(self, self._attribute(key))

    def __setitem__(self, key, value):
        attribute = self._attribute(key)
        self._keys[key] = None
        setattr(self, attribute, _as_parameter(value))

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, self._attribute(key))

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(list(self._keys))

    def __contains__(self, key):
        return key in self._keys

    def copy(self):
        return ParameterDict(OrderedDict((key, self[key]) for key in self._keys))

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        for key in list(self._keys):
            del self[key]

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def popitem(self):
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None):
        return ParameterDict((key, default) for key in keys)

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((key, self[key]) for key in self._keys)

    def values(self):
        return (self[key] for key in self._keys)

    def update(self, parameters):
        """Add parameters from a mapping or from ``(key, value)`` pairs."""
        pairs = _pairs(parameters, "ParameterDict")
        if isinstance(parameters, Mapping) and not isinstance(parameters, OrderedDict):
            pairs = sorted(pairs)
        for key, value in pairs:
            self[key] = value

    def extra_repr(self):
        return "\n".join(_describe_entry(key, value, _typename) for key, value in self.items())

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other):
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other):
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other):
        self.update(other)
        return self
