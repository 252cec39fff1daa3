"""Decompositions: ops rewritten as smaller ones before code is generated (chapter 21).

``addmm(bias, a, b)`` is a matrix product and a broadcast add; written as the two,
the add becomes an elementwise op that fuses with what follows it.  Each entry of
``DECOMPOSITIONS`` is a function of the node (for its shapes) and the node's
arguments, written with ``minitorch.ops.aten`` calls; ``decompose`` runs the graph
through an fx ``Transformer`` (chapter 18) whose ``call_function`` applies them, so
the calls record the new, smaller ops.
"""

from ..fx import Transformer
from ..ops import aten

__all__ = ["DECOMPOSITIONS", "decompose"]

DECOMPOSITIONS = {}


def register(name):
    def add(fn):
        DECOMPOSITIONS[name] = fn
        return fn
    return add


@register("addmm")
def addmm(node, bias, a, b):
    return aten.add(aten.mm(a, b), bias)


@register("t")
def t(node, a):
    return aten.transpose(a, 0, 1) if node.meta["val"].ndim == 2 else a


@register("unsafe_view")
def unsafe_view(node, a, shape):
    return aten.view(a, shape)


@register("sub_scalar")
def sub_scalar(node, a, number):
    return aten.add_scalar(a, -number)


@register("r_sub")
def r_sub(node, a, number):
    return aten.add_scalar(aten.neg(a), number)


@register("sum_to_size")
def sum_to_size(node, a, shape):
    source = node.args[0].meta["val"].shape
    lead = len(source) - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape)
                                      if n == 1 and source[lead + i] != 1)
    if not dims:
        return a
    return aten.view(aten.sum_dim(a, dims, True), tuple(shape))


class _Decompose(Transformer):
    def run_node(self, n):
        self._node = n
        return super().run_node(n)

    def call_function(self, target, args, kwargs):
        rule = DECOMPOSITIONS.get(getattr(target, "__name__", None)) \
            if type(target) is aten.Op else None
        if rule is not None and "val" in self._node.meta:
            return rule(self._node, *args, **kwargs)
        return super().call_function(target, args, kwargs)


def decompose(gm):
    """A new graph module with every op of ``DECOMPOSITIONS`` rewritten."""
    result = _Decompose(gm).transform()
    for name, value in gm.named_buffers():
        if not hasattr(result, name):
            result.register_buffer(name, value)
    return result
