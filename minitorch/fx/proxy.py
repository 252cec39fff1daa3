"""``Proxy``: a stand-in value that writes down what is done to it (chapter 18).

Symbolic tracing calls a program with proxies instead of tensors.  Every operation
Python performs on a proxy (``p + 1``, ``p.relu()``, ``p[0]``, ``p.shape``) reaches one
of its methods, which adds a node to the graph and returns a new proxy for the
result.  A proxy has no value, so Python code that needs one (``if p.sum() > 0:``,
``for row in p:``, ``len(p)``) cannot go on: that is a ``TraceError``, and the reason
symbolic tracing captures programs whose control flow does not depend on data.
"""

import dis
import operator

from .node import MAGIC_BINARY, MAGIC_UNARY

__all__ = ["Proxy", "Attribute", "TraceError"]


class TraceError(ValueError):
    """A traced value was used where Python needs a real one."""


class Proxy:
    """The value of ``node`` while ``tracer`` records a program."""

    _fx_proxy = True        # minitorch.ops.aten's ops record a call when given one

    def __init__(self, node, tracer=None):
        if tracer is None:
            raise ValueError("A Proxy needs the tracer that records its graph")
        self.node = node
        self.tracer = tracer

    def __repr__(self):
        return f"Proxy({self.node.name})"

    def __getattr__(self, name):
        # ``p.relu`` is an attribute read or the start of a method call: decided when
        # the result is called (a method) or used (an attribute).
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Attribute(self, name)

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __getitem__(self, index):
        return self.tracer.create_proxy("call_function", operator.getitem, (self, index), {})

    def __setitem__(self, index, value):
        self.tracer.create_proxy("call_function", operator.setitem, (self, index, value), {})

    # ----- where Python needs a value --------------------------------------------------------
    def __bool__(self):
        return self.tracer.to_bool(self)

    def __iter__(self):
        count = _unpacked_count()
        if count is not None:        # ``a, b = p``: as many items as the left side names
            return iter([self[i] for i in range(count)])
        return self.tracer.iter(self)

    def __len__(self):
        raise RuntimeError("'len' is not supported in symbolic tracing by default: the length "
                           "of a traced value is not known while tracing. If you want this "
                           "call to be recorded, please call minitorch.fx.wrap('len') at "
                           "module scope")

    def keys(self):
        return self.tracer.keys(self)


def _unpacked_count():
    """If the Python code that called ``__iter__`` is unpacking into n names
    (``a, b = p``), n; else None.  Read from the calling frame's bytecode."""
    import sys
    frame = sys._getframe(2)
    for inst in dis.get_instructions(frame.f_code):
        if inst.offset == frame.f_lasti:
            return inst.argval if inst.opname == "UNPACK_SEQUENCE" else None
        if inst.offset > frame.f_lasti:
            return None
    return None


class Attribute(Proxy):
    """``p.name``: a method call if it is called, else a ``getattr`` node made on first use."""

    def __init__(self, root, attr):
        self.root, self.attr, self.tracer = root, attr, root.tracer
        self._node = None

    @property
    def node(self):
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr,
                                                  (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


def _binary(target):
    def method(self, other):
        return self.tracer.create_proxy("call_function", target, (self, other), {})

    def reflected(self, other):
        return self.tracer.create_proxy("call_function", target, (other, self), {})
    return method, reflected


def _unary(target):
    def method(self):
        return self.tracer.create_proxy("call_function", target, (self,), {})
    return method


_REFLECTABLE = {operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
                operator.mod, operator.pow, operator.matmul, operator.and_, operator.or_,
                operator.xor, operator.lshift, operator.rshift}

for _target in MAGIC_BINARY:
    _name = _target.__name__.rstrip("_")
    _method, _reflected = _binary(_target)
    setattr(Proxy, f"__{_name}__", _method)
    if _target in _REFLECTABLE:
        setattr(Proxy, f"__r{_name}__", _reflected)
for _target in list(MAGIC_UNARY) + [operator.abs]:
    setattr(Proxy, f"__{_target.__name__}__", _unary(_target))
Proxy.__hash__ = object.__hash__         # == makes a node, so hash by identity
del _target, _name, _method, _reflected
