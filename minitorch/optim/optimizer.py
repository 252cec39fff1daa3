"""``optim.Optimizer``: the base class of SGD and Adam (chapter 6, "Putting it together").

An optimizer holds

* ``param_groups``: a list of dicts, each with a ``"params"`` list and its
  own hyper-parameters (``lr``, ``momentum``...), so that parts of a model
  can be trained at different rates (or, as in the freezing example, only
  the last layer is handed over at all);
* ``state``: a dict from each parameter to what the algorithm remembers about
  it between steps (a momentum buffer, Adam's running averages).

``zero_grad()`` clears the gradients; ``step()`` changes each parameter in
place using its ``.grad``.  Updates are not part of any graph, so they are
done on the tensors' memory directly (what PyTorch does under ``no_grad``);
each bumps the parameter's version counter like any in-place change.
``state_dict()`` describes all of this with parameters replaced by their
position, so it can be saved with ``minitorch.save`` and loaded into a new
optimizer over a new model.
"""

import copy
import warnings
from collections import defaultdict


from .._tensor import Tensor

__all__ = ["Optimizer", "required"]


class _Required:
    """Marks a hyper-parameter without a default value."""

    def __repr__(self):
        return "<required parameter>"


required = _Required()


def _typename(obj):
    if isinstance(obj, Tensor):
        return {"float32": "minitorch.FloatTensor", "float64": "minitorch.DoubleTensor"}.get(
            obj.dtype.name, "minitorch.Tensor")
    return type(obj).__name__


class Optimizer:
    """Base class: subclasses set ``defaults`` and implement ``step()``."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors "
                            f"or dicts, but got {_typename(params)}")
        param_groups = list(params)
        if not param_groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Add a group of parameters with its own options (missing ones take the defaults)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the "
                            "ordering of tensors in sets will change between runs. Please use a list "
                            "instead.")
        else:
            params = list(params)
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is "
                                f"{_typename(p)}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        if len({id(p) for p in params}) != len(params):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, "
                          "this will cause an error", UserWarning, stacklevel=3)
        group = dict(param_group, params=params)
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(f"parameter group didn't specify a value of required optimization "
                                 f"parameter {name}")
            group.setdefault(name, default)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        """Clear the gradients of every parameter: to None (default) or to zeros."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def step(self, closure=None):
        raise NotImplementedError

    # ----- saving and loading ----------------------------------------------------------
    def state_dict(self):
        """``{"state": {index: {...}}, "param_groups": [{..., "params": [index, ...]}]}``.

        Parameters are numbered in the order the groups list them, so the
        dict holds no reference to the model and fits another copy of it.
        """
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = [index.setdefault(id(p), len(index)) for p in group["params"]]
            groups.append(packed)
        params = {id(p): p for g in self.param_groups for p in g["params"]}
        state = {index[id(p)]: dict(s) for p, s in self.state.items() if id(p) in params}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Restore hyper-parameters and per-parameter state saved by ``state_dict()``."""
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for group, saved in zip(self.param_groups, saved_groups):
            if len(group["params"]) != len(saved["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't match "
                                 "the size of optimizer's group")
        by_index = {}
        for group, saved in zip(self.param_groups, saved_groups):
            by_index.update(zip(saved["params"], group["params"]))
        state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            param = by_index.get(int(key))
            if param is None:
                continue
            state[param] = {name: _state_value_for(param, name, v) for name, v in value.items()}
        for group, saved in zip(self.param_groups, saved_groups):
            group.update({k: copy.deepcopy(v) for k, v in saved.items() if k != "params"})
        self.state = state

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(group):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)

    # ----- helpers for subclasses ----------------------------------------------------
    @staticmethod
    def _params_with_grad(group):
        return [p for p in group["params"] if p.grad is not None]


def _state_value_for(param, name, value):
    """A copy of a saved state entry; tensors (except the step count) take the parameter's dtype."""
    if not isinstance(value, Tensor):
        return copy.deepcopy(value)
    data = value._data.copy()
    if name != "step" and data.dtype.kind == "f":
        data = data.astype(param._data.dtype, copy=False)
    return Tensor._wrap(data)


