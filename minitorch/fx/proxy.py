"""``Proxy``: a stand-in value that writes down what is done to it (chapter 18).

Symbolic tracing calls a program with proxies instead of tensors.  Every operation
Python performs on a proxy (``p + 1``, ``p.relu()``, ``p[0]``, ``p.shape``) reaches one
of its methods, which adds a node to the graph and returns a new proxy for the
result.  A proxy has no value, so Python code that needs one (``if p.sum() > 0:``,
``for row in p:``, ``len(p)``) cannot go on: a ``TraceError`` says so (for ``len(p)`` a
plain RuntimeError, as PyTorch raises), and that is the reason symbolic tracing captures
programs whose control flow does not depend on data.
"""

import dis
import operator

from .node import MAGIC_BINARY, MAGIC_UNARY

__all__ = ["Proxy", "Attribute", "TraceError"]


class TraceError(ValueError):
    """A traced value was used where Python needs a real one."""


class Proxy:
    """The value of ``node`` while ``tracer`` records a program.

    Each operator of ``MAGIC_BINARY`` is a method (``__add__``) made by ``_binary`` that
    records a call_function node of the operator with args ``(self, other)``, and, where
    Python may try the other operand first, a reflected method (``__radd__``) that
    records ``(other, self)``: ``2 - p`` is ``operator.sub(2, p)``.  Each operator of
    ``MAGIC_UNARY`` (and ``abs``) records a node with args ``(self,)`` (``_unary``)."""

    _fx_proxy = True        # minitorch.ops.aten's ops record a call when given one

    def __init__(self, node, tracer=None):
        if tracer is None:
            raise ValueError("A Proxy needs the tracer that records its graph")
        self.node = node
        self.tracer = tracer

    def __repr__(self):
        return f"Proxy({self.node.name})"

    def __getattr__(self, name):
        """``p.name`` (chapter 18, "How tracing works: proxies"): an ``Attribute`` of
        this proxy, which becomes a method call if it is called and a ``getattr``
        node if it is used. A dunder name (``__len__``, ``__array__``...) is not
        traced: AttributeError, so that Python and numpy's protocol checks see a
        plain object."""
        ### BEGIN SOLUTION 18.2
        # ``p.relu`` is an attribute read or the start of a method call: decided when
        # the result is called (a method) or used (an attribute).
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Attribute(self, name)
        ### END SOLUTION 18.2

    def __call__(self, *args, **kwargs):
        """``p(a)``: a call_method node with target ``"__call__"`` and args ``(p, a)``."""
        ### BEGIN SOLUTION 18.2
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)
        ### END SOLUTION 18.2

    def __getitem__(self, index):
        """``p[i]``: a call_function node of ``operator.getitem`` with args ``(p, i)``."""
        ### BEGIN SOLUTION 18.2
        return self.tracer.create_proxy("call_function", operator.getitem, (self, index), {})
        ### END SOLUTION 18.2

    def __setitem__(self, index, value):
        self.tracer.create_proxy("call_function", operator.setitem, (self, index, value), {})

    # ----- where Python needs a value --------------------------------------------------------
    def __bool__(self):
        """Python asks for True or False: the tracer decides (``Tracer.to_bool``)."""
        ### BEGIN SOLUTION 18.2
        return self.tracer.to_bool(self)
        ### END SOLUTION 18.2

    def __iter__(self):
        """``for x in p`` or ``a, b = p``: when the calling code unpacks into n names
        (``_unpacked_count``), an iterator over ``p[0]``, ..., ``p[n - 1]`` (n
        getitem nodes); otherwise the tracer decides (``Tracer.iter``). Call
        ``_unpacked_count()`` here, in ``__iter__`` itself, not from a helper: it
        reads the frame two calls up (``__iter__``'s caller), so from a helper it
        looks at ``__iter__`` and always finds no unpacking."""
        ### BEGIN SOLUTION 18.2
        count = _unpacked_count()
        if count is not None:        # ``a, b = p``: as many items as the left side names
            return iter([self[i] for i in range(count)])
        return self.tracer.iter(self)
        ### END SOLUTION 18.2

    def __len__(self):
        """``len(p)``: a RuntimeError whose message says "'len' is not supported in
        symbolic tracing by default" and that ``minitorch.fx.wrap('len')`` at module
        scope records the call instead."""
        ### BEGIN SOLUTION 18.2
        raise RuntimeError("'len' is not supported in symbolic tracing by default: the length "
                           "of a traced value is not known while tracing. If you want this "
                           "call to be recorded, please call minitorch.fx.wrap('len') at "
                           "module scope")
        ### END SOLUTION 18.2

    def keys(self):
        """``**p``: the tracer decides (``Tracer.keys``)."""
        ### BEGIN SOLUTION 18.2
        return self.tracer.keys(self)
        ### END SOLUTION 18.2


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
        """``root.attr``, not yet a node: keep ``root``, ``attr`` and root's tracer, and
        no node (``_node`` None). Set these four fields directly, without
        ``Proxy.__init__``: ``node`` is a read-only property here (made on first use),
        so ``Proxy.__init__``'s ``self.node = ...`` would fail."""
        ### BEGIN SOLUTION 18.2
        self.root, self.attr, self.tracer = root, attr, root.tracer
        self._node = None
        ### END SOLUTION 18.2

    @property
    def node(self):
        """The ``getattr`` node (call_function of the builtin ``getattr``, args ``(root,
        attr)``), made the first time it is asked for and the same node afterwards."""
        ### BEGIN SOLUTION 18.2
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr,
                                                  (self.root, self.attr), {}).node
        return self._node
        ### END SOLUTION 18.2

    def __call__(self, *args, **kwargs):
        """``root.attr(a)``: a call_method node with target ``attr`` and args ``(root,
        a)`` (no getattr node)."""
        ### BEGIN SOLUTION 18.2
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)
        ### END SOLUTION 18.2


def _binary(target):
    def method(self, other):
        ### BEGIN SOLUTION 18.2
        return self.tracer.create_proxy("call_function", target, (self, other), {})
        ### END SOLUTION 18.2

    def reflected(self, other):
        ### BEGIN SOLUTION 18.2
        return self.tracer.create_proxy("call_function", target, (other, self), {})
        ### END SOLUTION 18.2
    return method, reflected


def _unary(target):
    def method(self):
        """``<op> self``: a call_function node of ``target`` with args ``(self,)``."""
        ### BEGIN SOLUTION 18.2
        return self.tracer.create_proxy("call_function", target, (self,), {})
        ### END SOLUTION 18.2
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
