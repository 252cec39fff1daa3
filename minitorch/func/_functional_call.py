"""``functional_call`` and ``stack_module_state``: a Module as a function of its
parameters (chapter 13, tied to the Module chapters).

A Module keeps its parameters and buffers in the dicts ``_parameters`` and
``_buffers`` of each submodule, and ``__getattr__`` reads them from there.
``functional_call`` puts the given tensors into those dicts for one call and
puts the module's own back afterwards, even if the call raises: the module runs
its usual ``forward`` on tensors it does not own, which is what ``grad`` needs
to differentiate with respect to them, and what ``vmap`` needs to run a stack of
models (``stack_module_state``) as one.
"""

__all__ = ["functional_call", "stack_module_state"]


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Call ``module(*args, **kwargs)`` with the parameters and buffers named in
    ``parameter_and_buffer_dicts`` (a dict, or a tuple of dicts) in place of its own."""
    values = _merged(parameter_and_buffer_dicts)
    if tie_weights:
        values = _with_tied_names(module, values)
    if strict:
        _check_strict(module, values)
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    kwargs = {} if kwargs is None else kwargs
    swapped = []
    try:
        for name, value in values.items():
            swapped.append(_swap(module, name, value))
        return module(*args, **kwargs)
    finally:
        for owner, where, key, old in reversed(swapped):
            _restore(owner, where, key, old)


def _merged(dicts):
    if isinstance(dicts, dict):
        return dict(dicts)
    merged = {}
    for d in dicts:
        repeated = [k for k in d if k in merged]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
        merged.update(d)
    return merged


def _all_names(module):
    """Every name of every parameter and buffer, tied ones included, by tensor."""
    names = {}
    for name, t in module._named_members(lambda m: m._parameters.items(),
                                         remove_duplicate=False):
        if t is not None:
            names.setdefault(id(t), []).append(name)
    for name, t in module._named_members(lambda m: m._buffers.items(),
                                         remove_duplicate=False):
        if t is not None:
            names.setdefault(id(t), []).append(name)
    return names


def _with_tied_names(module, values):
    """A tensor given for one name of a tied parameter is used for all its names."""
    result = dict(values)
    for names in _all_names(module).values():
        if len(names) < 2:
            continue
        given = [n for n in names if n in values]
        if not given:
            continue
        if any(values[n] is not values[given[0]] for n in given):
            raise ValueError(f"functional_call got multiple values for keys {given}, which "
                             "are tied. Consider using tie_weights=False")
        for n in names:
            result.setdefault(n, values[given[0]])
    return result


def _check_strict(module, values):
    expected = [n for names in _all_names(module).values() for n in names]
    missing = [n for n in expected if n not in values]
    unexpected = [n for n in values if n not in expected]
    if missing or unexpected:
        lines = []
        if unexpected:
            lines.append("Unexpected key(s): " + ", ".join(f"'{n}'" for n in unexpected) + ".")
        if missing:
            lines.append("Missing key(s): " + ", ".join(f"'{n}'" for n in missing) + ".")
        raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t" +
                           "\n\t".join(lines))


def _swap(module, name, value):
    """Put ``value`` where ``name`` lives; return what to put back."""
    *path, key = name.split(".")
    owner = module
    for part in path:
        owner = getattr(owner, part)
    for where in ("_parameters", "_buffers"):
        table = owner.__dict__[where]
        if key in table:
            old = table[key]
            table[key] = value
            return owner, where, key, old
    old = owner.__dict__.get(key, _MISSING)
    owner.__dict__[key] = value
    return owner, "__dict__", key, old


_MISSING = object()


def _restore(owner, where, key, old):
    table = owner.__dict__ if where == "__dict__" else owner.__dict__[where]
    if old is _MISSING:
        del table[key]
    else:
        table[key] = old


def stack_module_state(models):
    """``(params, buffers)``: for each name, the models' tensors stacked along a new
    first dim (parameters as new leaves that require grad), ready for
    ``vmap(functional_call ...)`` over an ensemble."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if any(type(m) is not type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    if any(m.training != models[0].training for m in models):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/"
                           "eval mode.")
    from .. import stack
    params = {name: stack([dict(m.named_parameters())[name].detach() for m in models])
              .requires_grad_(p.requires_grad)
              for name, p in models[0].named_parameters()}
    buffers = {name: stack([dict(m.named_buffers())[name] for m in models])
               for name, b in models[0].named_buffers()}
    return params, buffers


