"""``optim.Optimizer``: the base class of every optimizer (chapter 9, "Optimizers").

An optimizer holds

* ``param_groups``: a list of dicts, each with a ``"params"`` list and its
  own hyper-parameters (``lr``, ``momentum``...), so that parts of a model
  can be trained at different rates (or, as in the freezing example, only
  the last layer is handed over at all);
* ``state``: a dict from each parameter to what the algorithm remembers about
  it between steps (a momentum buffer, Adam's running averages).

``zero_grad()`` clears the gradients; ``step()`` changes each parameter in
place using its ``.grad``.  Updates must not be recorded by autograd, so
every ``step`` runs under ``minitorch.no_grad()`` and uses in-place tensor
ops (``p.add_(g, alpha=-lr)``): the parameters stay leaves, and each change
bumps their version counter like any in-place op (chapter 5).
``state_dict()`` describes all of this with parameters replaced by their
position, so it can be saved with ``minitorch.save`` and loaded into a new
optimizer over a new model.
"""

import copy
import warnings
from collections import defaultdict

from .. import Tensor, enable_grad
from ..autograd.graph import clear_grad

__all__ = ["Optimizer", "required"]


class _Required:
    """Marks a hyper-parameter without a default value."""

    def __repr__(self):
        return "<required parameter>"


required = _Required()

_TENSOR_TYPE_NAMES = {"float32": "FloatTensor", "float64": "DoubleTensor",
                      "int64": "LongTensor", "bool": "BoolTensor"}


def _typename(obj):
    """How PyTorch's messages name a type: ``minitorch.FloatTensor``, ``int``..."""
    if isinstance(obj, Tensor):
        return "minitorch." + _TENSOR_TYPE_NAMES.get(obj.dtype.name, "Tensor")
    return type(obj).__name__


def _check_non_negative(label, value):
    """PyTorch's check on a hyper-parameter: ``ValueError("Invalid <label>: <value>")``."""
    if not 0.0 <= value:
        raise ValueError(f"Invalid {label}: {value}")


def _check_implementation_flags(foreach=None, fused=None, differentiable=False):
    """Accept PyTorch's implementation switches.

    ``foreach``, ``fused`` and ``capturable`` choose how PyTorch runs the same
    arithmetic (batched kernels, one fused kernel, CUDA graphs); minitorch has
    one implementation, so they are recorded and change nothing.
    ``differentiable=True`` asks for the update itself to be recorded by
    autograd, which minitorch's no_grad updates cannot do.
    """
    if fused and foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    if differentiable:
        raise NotImplementedError(
            "differentiable=True is not supported: minitorch's optimizers update parameters under "
            "no_grad, so the update cannot be differentiated. Leave differentiable=False.")


def _evaluate(closure):
    """``closure()`` with grad mode on (``step`` itself runs under no_grad), or None."""
    if closure is None:
        return None
    with enable_grad():
        return closure()


class Optimizer:
    """Base class: subclasses pass their ``defaults`` and implement ``step()``."""

    def __init__(self, params, defaults):
        """Keep ``defaults`` (every option of the optimizer and its default value) and make
        ``state`` (a ``defaultdict(dict)``: per-parameter state, keyed by the tensor) and
        ``param_groups``.  ``params`` is an iterable of tensors (one group) or of dicts (one
        group each), each added with ``add_param_group``.  Refused: a single Tensor (TypeError
        "params argument given to the optimizer should be an iterable of Tensors or dicts, but
        got <type>") and an empty list (ValueError "optimizer got an empty parameter list")."""
        ### BEGIN SOLUTION 9.1
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {_typename(params)}")
        param_groups = list(params)
        if not param_groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)
        ### END SOLUTION 9.1

    # ----- parameter groups ---------------------------------------------------------------
    def add_param_group(self, param_group):
        """Add a group of parameters with its own options (missing ones take the defaults).

        ``params`` may be a tensor, a list of tensors, or a list of
        ``(name, tensor)`` pairs as ``model.named_parameters()`` gives; names
        are then kept under ``"param_names"``.

        Refused, with PyTorch's messages: a ``param_group`` that is no dict (TypeError
        "param_group must be a dict, but got <class 'list'>", its type); a group without a
        value for an option whose default is ``required`` (ValueError "parameter group
        didn't specify a value of required optimization parameter <name>"); a parameter
        already in an earlier group (ValueError "some parameters appear in more than one
        parameter group"). A parameter twice in the same group is kept, with a UserWarning
        "optimizer contains a parameter group with duplicate parameters; in future, this
        will cause an error; see github.com/pytorch/pytorch/issues/40967 for more
        information".
        """
        ### BEGIN SOLUTION 9.1
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params, names = _split_names(_as_param_list(param_group["params"]))
        for each in params:
            _check_param(each)
        group = dict(param_group, params=params)
        if names is not None:
            group["param_names"] = names
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(f"parameter group didn't specify a value of required optimization "
                                 f"parameter {name}")
            group.setdefault(name, default)
        if len({id(p) for p in params}) != len(params):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          UserWarning, stacklevel=3)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self._check_names_consistent(group)
        self.param_groups.append(group)
        ### END SOLUTION 9.1

    def _check_names_consistent(self, group):
        """Either every group names its parameters or none does: else a ValueError "all
        optimizer param groups should be with/without names. cannot add param group with
        names to the optimizer" (``without names`` when the new group has none)."""
        ### BEGIN SOLUTION 9.1
        if not self.param_groups:
            return
        named = "param_names" in group
        if named != ("param_names" in self.param_groups[0]):
            raise ValueError("all optimizer param groups should be with/without names. cannot add "
                             f"param group {'with' if named else 'without'} names to the optimizer")
        ### END SOLUTION 9.1

    def zero_grad(self, set_to_none=True):
        """Clear the gradients of every parameter: to None (default) or to zeros."""
        ### BEGIN SOLUTION 9.1
        for group in self.param_groups:
            for param in group["params"]:
                clear_grad(param, set_to_none)
        ### END SOLUTION 9.1

    def step(self, closure=None):
        """Update the parameters; each optimizer defines it."""
        raise NotImplementedError

    # ----- saving and loading ----------------------------------------------------------
    def state_dict(self):
        """``{"state": {index: {...}}, "param_groups": [{..., "params": [index, ...]}]}``.

        Parameters are numbered in the order the groups list them, so the
        dict holds no reference to the model and fits another copy of it.
        A parameter's entry in ``self.state`` goes under its number; an entry
        whose key is not a tensor (``opt.state["extra"] = 5``) is kept under
        its own key, as PyTorch keeps it.  As in PyTorch, the state tensors
        are the optimizer's own (not copies): save the dict, or deep-copy it,
        to keep a snapshot.  An entry keyed by a tensor that is not one of the
        optimizer's parameters has no number: a KeyError, as in PyTorch
        (``_check_state_keys``, given).
        """
        _check_state_keys(self)
        ### BEGIN SOLUTION 9.1
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = [index.setdefault(id(p), len(index)) for p in group["params"]]
            groups.append(packed)
        state = {(index[id(key)] if isinstance(key, Tensor) else key): value
                 for key, value in self.state.items()
                 if not isinstance(key, Tensor) or id(key) in index}
        return {"state": state, "param_groups": groups}
        ### END SOLUTION 9.1

    def load_state_dict(self, state_dict):
        """Restore hyper-parameters and per-parameter state saved by ``state_dict()``.

        Floating state tensors take their parameter's dtype; the ``step``
        count is kept as it is.  Group options missing from an older
        checkpoint take this optimizer's defaults.
        """
        ### BEGIN SOLUTION 9.1
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        _check_groups_match(self.param_groups, saved_groups)
        by_index = {}
        for group, saved in zip(self.param_groups, saved_groups):
            by_index.update(zip(saved["params"], group["params"]))
        state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in by_index:
                param = by_index[key]
                state[param] = _cast_like(param, None, value)
            else:
                state[key] = value
        for group, saved in zip(self.param_groups, saved_groups):
            saved["params"] = group["params"]
            for name, default in self.defaults.items():
                saved.setdefault(name, default)
        self.param_groups = saved_groups
        self.state = state
        ### END SOLUTION 9.1

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            if i:
                lines.append("")
            lines.append(f"Parameter Group {i}")
            lines += [f"    {key}: {group[key]}" for key in sorted(group) if key != "params"]
        lines.append(")")
        return "\n".join(lines)

    # ----- helpers for subclasses ----------------------------------------------------
    @staticmethod
    def _params_with_grad(group):
        return [p for p in group["params"] if p.grad is not None]


def _as_param_list(params):
    """The ``params`` of a group as a list (a single tensor becomes a list of one).  A set
    is refused, since its order changes between runs: a TypeError "optimizer parameters need
    to be organized in ordered collections, but the ordering of tensors in sets will change
    between runs. Please use a list instead."
    """
    ### BEGIN SOLUTION 9.1
    if isinstance(params, Tensor):
        return [params]
    if isinstance(params, set):
        raise TypeError("optimizer parameters need to be organized in ordered collections, but the "
                        "ordering of tensors in sets will change between runs. Please use a list "
                        "instead.")
    return list(params)
    ### END SOLUTION 9.1


def _split_names(params):
    """``(tensors, names)`` for ``(name, tensor)`` pairs, ``(params, None)`` for bare
    tensors; a mix of the two is a ValueError "all optimizer params should be with/without
    names. Some param names are missing"."""
    ### BEGIN SOLUTION 9.1
    named = [isinstance(p, tuple) for p in params]
    if not any(named):
        return params, None
    if not all(named):
        raise ValueError("all optimizer params should be with/without names. Some param names are "
                         "missing")
    return [p for _, p in params], [name for name, _ in params]
    ### END SOLUTION 9.1


def _check_param(p):
    """A TypeError unless ``p`` is a Tensor ("optimizer can only optimize Tensors, but one
    of the params is <type>"); a ValueError for a non-leaf that does not retain its grad
    ("can't optimize a non-leaf Tensor")."""
    ### BEGIN SOLUTION 9.1
    if not isinstance(p, Tensor):
        raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                        + _typename(p))
    if not (p.is_leaf or p.retains_grad):
        raise ValueError("can't optimize a non-leaf Tensor")
    ### END SOLUTION 9.1


def _check_state_keys(optimizer):
    """Refuse a tensor key of ``optimizer.state`` that is none of its parameters, as PyTorch's
    ``state_dict`` does (a KeyError naming the tensor's ``id``).  Reading ``state[t]`` makes
    such an entry: ``state`` is a ``defaultdict``."""
    params = {id(p) for group in optimizer.param_groups for p in group["params"]}
    for key in optimizer.state:
        if isinstance(key, Tensor) and id(key) not in params:
            raise KeyError(f"{id(key)}: optimizer.state has an entry for a tensor of shape "
                           f"{list(key.shape)} that is none of the optimizer's parameters, and "
                           "state_dict() names entries by their parameter's number. Delete it "
                           "(del optimizer.state[tensor]; reading optimizer.state[tensor] "
                           "makes one) or hand the tensor over with add_param_group")


def _check_groups_match(groups, saved_groups):
    """``load_state_dict``'s checks: as many groups (ValueError "loaded state dict has a
    different number of parameter groups"), each with as many parameters (ValueError "loaded
    state dict contains a parameter group that doesn't match the size of optimizer's
    group")."""
    ### BEGIN SOLUTION 9.1
    if len(groups) != len(saved_groups):
        raise ValueError("loaded state dict has a different number of parameter groups")
    for group, saved in zip(groups, saved_groups):
        if len(group["params"]) != len(saved["params"]):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
    ### END SOLUTION 9.1


def _cast_like(param, key, value):
    """A loaded state entry, converted as PyTorch does: tensors (except the ``step``
    count) take a floating parameter's dtype, inside dicts and lists too; a tensor
    that already has it is used as it is, not copied."""
    ### BEGIN SOLUTION 9.1
    if isinstance(value, Tensor):
        keep = key == "step" or not param.is_floating_point()
        return value if keep else value.to(param.dtype)
    if isinstance(value, dict):
        return dict((k, _cast_like(param, k, v)) for k, v in value.items())
    if isinstance(value, (tuple, list)):
        return type(value)([_cast_like(param, key, item) for item in value])
    return value
    ### END SOLUTION 9.1
