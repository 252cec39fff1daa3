"""``minitorch.ops.aten``: minitorch's ops by name, as the targets of op-level graphs
(chapters 19-21).

A graph that ``minitorch.compile`` captures is written in minitorch's ops, one node
per ``Function.apply`` call.  Its targets are the objects of this namespace:
``minitorch.ops.aten.addmm`` is the op ``Addmm`` (calling it calls
``Addmm.apply``), named after its class in snake case.  PyTorch's captured graphs
name its C++ ops the same way (``torch.ops.aten.addmm.default``); the names here
are minitorch's own, so they differ from PyTorch's where minitorch's ops differ.

A few tensor methods compute without a Function (comparisons, ``detach``...).
They are here too, as *method ops*, so that a graph can hold them.

The namespace is built on first use from the Function subclasses that exist
(``import minitorch`` has imported all of minitorch's), so it costs nothing until
a compiler needs it.
"""

import sys

__all__ = ["Op", "op_for", "method_op", "all_ops", "lookup"]

_by_class = {}          # Function subclass -> Op
_by_name = {}           # name -> Op (minitorch's own ops and the method ops)


class Op:
    """One op of minitorch as a callable with a name: ``op(*args)`` is
    ``function.apply(*args)``."""

    def __init__(self, function, name, public=True):
        self.function = function
        self.__name__ = self.__qualname__ = name
        self.__module__ = __name__
        self.is_view = bool(getattr(function, "_is_view", False))
        self.is_method = False
        self._fx_name = f"{__name__}.{name}" if public else \
            f"{function.__module__}.{function.__qualname__}.apply"

    def __call__(self, *args):
        if _has_proxy(args):        # tracing with fx proxies: record a call of this op
            return _record(self, args)
        return self.function.apply(*args)

    def __repr__(self):
        return self._fx_name

    @property
    def with_ctx(self):
        """This op, returning its result and its context (what its backward reads)."""
        return WithCtx(self)

    @property
    def backward(self):
        """This op's backward, given a context from ``with_ctx`` and the gradients."""
        return OpBackward(self)

    def __reduce__(self):
        if self._fx_name.startswith(__name__ + "."):
            return lookup, (self.__name__,)
        return op_for, (self.function,)


class WithCtx:
    """``op.with_ctx(*args, needs=...)``: run the op as autograd would (so that its node,
    its context, saves what its backward needs) and return ``(result, context)``.
    ``needs`` says which inputs need a gradient, as the traced call did."""

    def __init__(self, op):
        self.op = op
        self.__name__ = self.__qualname__ = op.__name__
        self.__module__ = __name__
        self._fx_name = op._fx_name + ".with_ctx"

    def __call__(self, *args, needs=()):
        from .._tensor import Tensor
        from ..autograd import function, grad_mode
        leaves = list(args)
        for i, need in enumerate(needs):
            if need and isinstance(args[i], Tensor):
                leaf = Tensor._wrap(args[i]._data)
                leaf._requires_grad = True
                leaves[i] = leaf
        saved, function.transform_apply[0] = function.transform_apply[0], None
        try:
            with grad_mode.enable_grad():
                result = self.op.function.apply(*leaves)
        finally:
            function.transform_apply[0] = saved
        first = result[0] if isinstance(result, (tuple, list)) else result
        context = first._grad_fn
        if isinstance(result, (tuple, list)):
            return tuple(Tensor._wrap(r._data) for r in result), context
        return Tensor._wrap(result._data), context

    def __eq__(self, other):
        return type(other) is WithCtx and other.op is self.op

    def __hash__(self):
        return hash((WithCtx, self.op))

    def __repr__(self):
        return self._fx_name

    def __reduce__(self):
        return _with_ctx, (self.op,)


class OpBackward:
    """``op.backward(context, *grads)``: the op's backward, as the engine would run it
    with grad mode off (``backward_on_arrays`` when the op has one)."""

    def __init__(self, op):
        self.op = op
        self.__name__ = self.__qualname__ = op.__name__ + "_backward"
        self.__module__ = __name__
        self._fx_name = op._fx_name + ".backward"

    def __call__(self, context, *grads):
        from ..autograd import function, grad_mode
        saved, function.transform_apply[0] = function.transform_apply[0], None
        try:
            with grad_mode.no_grad():
                results, _ = context._run_backward(list(grads), [False] * len(grads))
        finally:
            function.transform_apply[0] = saved
        return tuple(results)

    def __eq__(self, other):
        return type(other) is OpBackward and other.op is self.op

    def __hash__(self):
        return hash((OpBackward, self.op))

    def __repr__(self):
        return self._fx_name

    def __reduce__(self):
        return _backward_of, (self.op,)


def _has_proxy(args):
    for a in args:
        if getattr(type(a), "_fx_proxy", False):
            return True
        if type(a) in (list, tuple) and _has_proxy(a):
            return True
    return False


def _record(op, args):
    tracer = next(a.tracer for a in _flat(args) if getattr(type(a), "_fx_proxy", False))
    return tracer.create_proxy("call_function", op, args, {})


def _flat(args):
    for a in args:
        if type(a) in (list, tuple):
            yield from _flat(a)
        else:
            yield a


def _with_ctx(op):
    return op.with_ctx


def _backward_of(op):
    return op.backward


class MethodOp(Op):
    """A tensor method that computes without a Function (``Tensor.__eq__``...).  While
    a compiled call is captured or replayed, the method goes through the interposition
    point as if it were a Function (``patch_methods``), with the op as its class."""

    def __init__(self, name, method, is_view=False, attribute=None):
        super().__init__(method, name)
        self.is_view = is_view
        self.is_method = True
        self.attribute = attribute

    def __call__(self, *args):
        from ..autograd.function import transform_apply
        hook = transform_apply[0]
        if hook is None or self.attribute is None:
            return self.function(*args)
        return hook(self, args, None)       # seen by a capture, as a Function would be

    def apply(self, *args):
        return self.function(*args)


class patch_methods:
    """For the length of a ``with``: the tensor methods of the method ops call
    ``function.transform_apply`` when it is set."""

    def __enter__(self):
        from .._tensor import Tensor
        from ..autograd import function
        _build()
        self.saved = []
        for op in _by_name.values():
            if op.is_method and op.attribute is not None:
                self.saved.append((op.attribute, Tensor.__dict__[op.attribute]))
                setattr(Tensor, op.attribute, _dispatching(op, function.transform_apply))
        return self

    def __exit__(self, *exc):
        from .._tensor import Tensor
        for name, method in self.saved:
            setattr(Tensor, name, method)


def _dispatching(op, transform_apply):
    def method(*args):
        hook = transform_apply[0]
        if hook is None:
            return op.function(*args)
        return hook(op, args, None)
    method.__name__ = op.function.__name__
    return method


def _snake(name):
    out = []
    for i, c in enumerate(name):
        if c.isupper() and i > 0 and (not name[i - 1].isupper() or
                                      (i + 1 < len(name) and name[i + 1].islower())):
            out.append("_")
        out.append(c.lower())
    return "".join(out)


def op_for(function):
    """The Op of a Function subclass (made on first use); an Op is its own."""
    if isinstance(function, Op):
        return function
    op = _by_class.get(function)
    if op is None:
        _build()
        op = _by_class.get(function)
    if op is None:                  # a Function of the user's: named after its class
        op = Op(function, _snake(function.__name__), public=False)
        _by_class[function] = op
    return op


def method_op(name):
    _build()
    return _by_name[name]


def lookup(name):
    """The op called ``name`` (for loading a saved program: only ops of this namespace
    can be named, so loading can call nothing else)."""
    _build()
    op = _by_name.get(name)
    if op is None:
        raise AttributeError(f"minitorch.ops.aten has no op named {name!r}")
    return op


def all_ops():
    _build()
    return dict(_by_name)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return lookup(name)


def _function_classes():
    from ..autograd.function import Function
    stack, seen = [Function], []
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            if sub not in seen:
                seen.append(sub)
                stack.append(sub)
    return [c for c in seen if c.__module__.startswith("minitorch.") and _is_op(c)]


def _is_op(cls):
    """Whether a Function subclass of minitorch's is an op: it has a forward, its own or
    inherited (``Sin`` inherits ``_SavesInput``'s).  A base class named with ``_`` is an
    op only if it defines forward itself."""
    from ..autograd.function import Function
    if cls.forward is Function.forward:
        return False
    return not cls.__name__.startswith("_") or "forward" in vars(cls)


def _build():
    if _by_name:
        return
    # minitorch.ops's classes first: where two ops share a class name (Log1p, Erf), the
    # plain name is the tensor method's op, the other gets its module's name after it
    in_ops = "minitorch.ops."
    for cls in sorted(_function_classes(), key=lambda c: (not c.__module__.startswith(in_ops),
                                                          c.__module__, c.__name__)):
        name = _snake(cls.__name__.lstrip("_"))
        if name in _by_name:
            name = f"{name}_{_snake(cls.__module__.rsplit('.', 1)[-1])}"
        op = Op(cls, name)
        _by_class[cls] = op
        _by_name[name] = op
    for name, method, is_view, attribute in _method_ops():
        _by_name[name] = MethodOp(name, method, is_view, attribute)


def _method_ops():
    """Tensor methods that compute without a Function, by the name their op takes."""
    from .._tensor import Tensor
    names = [("eq", "__eq__"), ("ne", "__ne__"), ("lt", "__lt__"), ("le", "__le__"),
             ("gt", "__gt__"), ("ge", "__ge__"), ("bitwise_and", "__and__"),
             ("bitwise_or", "__or__"), ("bitwise_xor", "__xor__"),
             ("bitwise_not", "__invert__"), ("logical_not", "logical_not"),
             ("logical_and", "logical_and"), ("logical_or", "logical_or"),
             ("logical_xor", "logical_xor"), ("isnan", "isnan"), ("isinf", "isinf"),
             ("isfinite", "isfinite"), ("isclose", "isclose"), ("any", "any"),
             ("all", "all")]
    ops = [(name, getattr(Tensor, attr), False, attr) for name, attr in names]
    ops.append(("detach", Tensor.detach, True, "detach"))
    ops.append(("sym_size", _sym_size, False, None))
    ops.append(("array_of", _array_of, True, None))
    return ops


def _array_of(t):
    """A tensor's numpy array: some ops take one (``nll_loss``'s target)."""
    return t._data


def _sym_size(t, dim):
    """A size of a tensor as a Python int: how a graph captured with dynamic sizes
    computes a size from the values it is given."""
    return t._data.shape[dim]

