"""``ShapeProp``: run a graph once and write each value's shape into its node (chapter 18).

An Interpreter whose ``run_node`` also records, in ``node.meta["tensor_meta"]``, what
the value was: shape, dtype, whether it requires grad, strides.  Passes that need
shapes (a fusion pass deciding what fits together) read them from there.
"""

from collections import namedtuple

from ..interpreter import Interpreter
from ..node import map_aggregate

__all__ = ["ShapeProp", "TensorMetadata"]

TensorMetadata = namedtuple("TensorMetadata", ["shape", "dtype", "requires_grad", "stride",
                                               "memory_format", "is_quantized", "qparams"])


def _extract_tensor_metadata(t):
    """minitorch has one memory format; ``memory_format`` says "contiguous" or None."""
    return TensorMetadata(t.shape, t.dtype, t.requires_grad, t.stride(),
                          "contiguous_format" if t.is_contiguous() else None, False, {})


class ShapeProp(Interpreter):
    """``ShapeProp(gm).propagate(*example_inputs)`` fills ``node.meta`` for every node."""

    def __init__(self, gm, fake_mode=None):
        super().__init__(gm)

    def run_node(self, n):
        from ..._tensor import Tensor
        result = super().run_node(n)
        found = []

        def extract(obj):
            if isinstance(obj, Tensor):
                found.append(obj)
                return _extract_tensor_metadata(obj)
            return obj
        meta = map_aggregate(result, extract)
        if found:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        return super().run(*args)
