"""Guards: what a captured call assumed about its inputs, checked before a replay
(chapter 19).

A graph was captured for inputs of certain shapes, dtypes and ``requires_grad``,
with grad mode on or off and the modules in training or evaluation mode.  Before a
cached graph is replayed, ``Guards.check`` compares the call's inputs with those;
the first difference is the *reason* for a recompile, in PyTorch's words.  Python
numbers among the inputs are guarded by value (PyTorch specializes on them too).
A size that ``dynamic`` shapes leave free is not checked.
"""

from .._tensor import Tensor
from .._dtype import get_default_dtype
from ..autograd import grad_mode

__all__ = ["Guards", "flatten_inputs"]


def flatten_inputs(args, kwargs, names):
    """The tensors and plain values of a call, in order, each with a name (chapter 19,
    "Guards: what a graph assumes"): ``(flat, flat_names)``. Positional
    arguments are named by ``names`` (the function's parameter names, a ``*rest``
    parameter with its star): from a ``*rest`` on, ``rest[0]``, ``rest[1]``... (as
    PyTorch names them), and ``args[i]`` past the end of ``names`` when there is no
    star; keyword arguments by their key; lists and tuples are walked item
    by item (``xs[0]``) and dicts value by value (``options['scale']``, the key by
    ``repr``); anything else (a tensor, a number, None) is one entry."""
    ### BEGIN SOLUTION 19.1
    flat, flat_names = [], []

    def walk(x, name):
        if isinstance(x, Tensor):
            flat.append(x)
            flat_names.append(name)
        elif isinstance(x, (list, tuple)):
            for i, item in enumerate(x):
                walk(item, f"{name}[{i}]")
        elif isinstance(x, dict):
            for k, v in x.items():
                walk(v, f"{name}[{k!r}]")
        else:
            flat.append(x)
            flat_names.append(name)
    star = next((k for k, name in enumerate(names) if name.startswith("*")), None)
    for i, a in enumerate(args):
        if star is not None and i >= star:
            walk(a, f"{names[star][1:]}[{i - star}]")
        else:
            walk(a, names[i] if i < len(names) else f"args[{i}]")
    for k, v in kwargs.items():
        walk(v, k)
    return flat, flat_names
    ### END SOLUTION 19.1


class Guards:
    """The conditions under which a capture can be replayed."""

    def __init__(self, flat, names, module=None, dynamic_dims=None):
        """What a capture assumed (chapter 19, "Guards: what a graph assumes"):
        for each input of ``flat`` (named by ``names``), a tensor's shape, dtype and
        requires_grad, or a plain value's type and value; grad mode and the default
        dtype now; and the training flags of ``module`` and its submodules
        (``_training``). ``dynamic_dims`` maps an input's position to the dims whose
        size is left free. ``describe`` (``explain``'s guards) reads ``names``,
        ``grad_enabled``, ``training`` and ``checks``: one tuple per input,
        ``(position, True, shape, dtype, requires_grad)`` for a tensor, ``(position,
        False, type, value, None)`` for a plain value."""
        ### BEGIN SOLUTION 19.1
        self.names = names
        self.dynamic = dynamic_dims or {}       # input position -> set of free dims
        self.checks = []
        for i, x in enumerate(flat):
            if isinstance(x, Tensor):
                self.checks.append((i, True, tuple(x.shape), x.dtype, x.requires_grad))
            else:
                self.checks.append((i, False, type(x), x, None))
        self.grad_enabled = grad_mode.is_grad_enabled()
        self.default_dtype = get_default_dtype()
        self.training = _training(module)
        ### END SOLUTION 19.1

    def check(self, flat, module=None):
        """None if a cached capture may be replayed for these inputs, else the first
        reason it may not, checked in this order and written exactly so (PyTorch 2.13's
        words where it has a sentence; ``<name>`` is the input's name, ``<n>`` a count):

        - a different number of inputs:
          ``"the call has <n> inputs, the capture had <n>"``;
        - then input by input, in order: a tensor input that is not a tensor any more,
          ``"expected type of '<name>' to be a tensor type, but found <type(x)>"``
          (``<class 'float'>``); the first failed check of ``_tensor``; a plain value
          of another type or that is not equal, ``"<name> == <captured value's repr>"``;
        - grad mode: ``"GLOBAL_STATE changed: grad_mode "`` (with the trailing space);
        - the default dtype: ``"GLOBAL_STATE changed: default_dtype "`` (the same);
        - a training flag of ``module`` or of any module under it:
          ``"a module's training flag changed (train() or eval())"``."""
        ### BEGIN SOLUTION 19.1
        if len(flat) != len(self.checks):
            return f"the call has {len(flat)} inputs, the capture had {len(self.checks)}"
        for i, is_tensor, a, b, c in self.checks:
            x = flat[i]
            name = self.names[i]
            if is_tensor:
                if not isinstance(x, Tensor):
                    return f"expected type of '{name}' to be a tensor type, but found {type(x)}"
                reason = self._tensor(name, x, a, b, c, self.dynamic.get(i, ()))
                if reason:
                    return reason
            elif type(x) is not a or not (x == b):
                return f"{name} == {b!r}"
        if grad_mode.is_grad_enabled() != self.grad_enabled:
            return "GLOBAL_STATE changed: grad_mode "
        if get_default_dtype() is not self.default_dtype:
            return "GLOBAL_STATE changed: default_dtype "
        if module is not None and _training(module) != self.training:
            return "a module's training flag changed (train() or eval())"
        return None
        ### END SOLUTION 19.1

    @staticmethod
    def _tensor(name, x, shape, dtype, requires_grad, free):
        """The first check that fails, in the order PyTorch's tensor guard makes them:
        dtype, requires_grad, rank, then each size, with PyTorch's words (``"tensor 'x'
        size mismatch at index 0. expected 4, actual 5"``). A size in ``free`` may
        change, but not from 2 or more to 0 or 1 (a symbolic size stands for sizes of
        at least 2, as in PyTorch): ``"2 <= x.size()[0]"``."""
        ### BEGIN SOLUTION 19.1
        if x.dtype is not dtype:
            return (f"tensor '{name}' dtype mismatch. expected {dtype.type_name}, "
                    f"actual {x.dtype.type_name}")
        if x.requires_grad != requires_grad:
            return (f"tensor '{name}' requires_grad mismatch. expected "
                    f"requires_grad={int(requires_grad)}")
        actual = x._data.shape
        if len(actual) != len(shape):
            return (f"tensor '{name}' rank mismatch. expected {len(shape)}, "
                    f"actual {len(actual)}")
        for d, (e, a) in enumerate(zip(shape, actual)):
            if d in free and a < 2 <= e:
                return f"2 <= {name}.size()[{d}]"
            if e != a and d not in free:
                return f"tensor '{name}' size mismatch at index {d}. expected {e}, actual {a}"
        return None
        ### END SOLUTION 19.1

    def size_changes(self, flat):
        """The (input position, dim) pairs whose size differs: what automatic dynamic
        shapes make free in the next capture."""
        ### BEGIN SOLUTION 19.1
        changed = set()
        for i, is_tensor, shape, _, _ in self.checks:
            x = flat[i] if i < len(flat) else None
            if is_tensor and isinstance(x, Tensor) and len(x.shape) == len(shape):
                changed |= {(i, d) for d, (e, a) in enumerate(zip(shape, x.shape)) if e != a}
        return changed
        ### END SOLUTION 19.1


def _training(module):
    """None without a module, else the ``training`` flag of each of its modules, in
    ``modules()`` order."""
    ### BEGIN SOLUTION 19.1
    return None if module is None else tuple(m.training for m in module.modules())
    ### END SOLUTION 19.1


def _on(flag):
    return "on" if flag else "off"


def _describe(guards):
    lines = []
    for i, is_tensor, a, b, c in guards.checks:
        name = guards.names[i]
        if is_tensor:
            lines.append(f"tensor {name}: size={list(a)}, dtype={b}, requires_grad={c}")
        else:
            lines.append(f"{name} == {b!r}")
    lines.append(f"grad mode is {_on(guards.grad_enabled)}")
    if guards.training is not None:
        lines.append("every module's training flag is as captured")
    return lines


Guards.describe = _describe
