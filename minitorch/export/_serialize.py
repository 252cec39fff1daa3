"""Saving an ExportedProgram in a file that cannot run code when loaded (chapter 19).

The program is written as plain data with ``minitorch.save`` (tensors as arrays,
the rest as JSON; written atomically): every node is its opcode, its name, its
target *by name*, and its arguments, nodes named by their names.  Loading reads the
data back with ``minitorch.load`` and rebuilds the graph, accepting only targets
from a fixed list (minitorch's ops in ``minitorch.ops.aten`` and a few of
``operator``'s), so a file can name nothing else to call.
"""

import math
import operator

import numpy as np

from .._tensor import Tensor
from .._dynamo.capture import _set_grad_enabled
from ..fx import Graph, GraphModule
from ..fx.graph import fake_value
from ..nn import Module
from ..ops import aten
from .dynamic_shapes import ValueRange
from .exported_program import ExportedProgram
from .graph_signature import (ExportGraphSignature, InputKind, InputSpec, OutputKind,
                              OutputSpec, TensorArgument)

__all__ = ["save", "load"]

FORMAT, VERSION = "minitorch.export", 1
_OPERATORS = {f.__name__: f for f in (operator.getitem, operator.add, operator.sub,
                                      operator.mul, operator.floordiv, operator.mod,
                                      operator.truediv, operator.neg)}


def save(ep, f):
    """Write ``ep`` to ``f`` (a path or a binary file)."""
    from .. import save as save_data
    if not isinstance(ep, ExportedProgram):
        raise TypeError(f"minitorch.export.save expects an ExportedProgram, got "
                        f"{type(ep).__name__}")
    save_data(_encode(ep), f)


def load(f):
    """Read an ExportedProgram that ``save`` wrote."""
    from .. import load as load_data
    data = load_data(f)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError("this file is not an exported program saved by "
                         "minitorch.export.save")
    if data.get("version") != VERSION:
        raise ValueError(f"exported program version {data.get('version')!r}: this "
                         f"minitorch reads version {VERSION}")
    return _decode(data)


# ----- writing ----------------------------------------------------------------------------
def _target_name(node):
    t = node.target
    if isinstance(t, str):
        return t
    if isinstance(t, aten.Op) and repr(t).startswith("minitorch.ops.aten."):
        return "aten:" + t.__name__
    if getattr(t, "__module__", None) == "_operator" and t.__name__ in _OPERATORS:
        return "operator:" + t.__name__
    if t is _set_grad_enabled:
        return "grad:set_grad_enabled"
    raise ValueError(f"minitorch.export.save can only save graphs of minitorch's ops; "
                     f"node {node.name} calls {t!r}")


def _encode_arg(a):
    if hasattr(a, "op"):
        return {"__node__": a.name}
    if isinstance(a, tuple):
        return tuple(_encode_arg(x) for x in a)
    if isinstance(a, list):
        return [_encode_arg(x) for x in a]
    if isinstance(a, dict):
        return {"__dict__": [[k, _encode_arg(v)] for k, v in a.items()]}
    if isinstance(a, slice):
        return {"__slice__": [_encode_arg(a.start), _encode_arg(a.stop), _encode_arg(a.step)]}
    if a is Ellipsis:
        return {"__ellipsis__": True}
    if isinstance(a, np.ndarray):
        return {"__array__": Tensor._wrap(a)}
    if isinstance(a, np.generic):
        return a.item()
    return a


def _encode(ep):
    nodes = []
    for n in ep.graph.nodes:
        val = n.meta.get("val")
        meta = {}
        if isinstance(val, Tensor):
            meta["val"] = {"dtype": val._data.dtype.name, "shape": list(val._data.shape)}
        if n.meta.get("shape_names"):
            meta["shape_names"] = [[d, s] for d, s in n.meta["shape_names"].items()]
        nodes.append([n.op, n.name, _target_name(n), _encode_arg(n.args),
                      _encode_arg(n.kwargs), meta])
    sig = ep.graph_signature
    return {"format": FORMAT, "version": VERSION, "nodes": nodes,
            "inputs": [[s.kind.name, s.arg.name, s.target, s.persistent]
                       for s in sig.input_specs],
            "outputs": [[s.kind.name, s.arg.name, s.target] for s in sig.output_specs],
            "state_dict": dict(ep.state_dict), "constants": dict(ep.constants),
            "ranges": {k: [v.lower, None if v.upper == math.inf else v.upper]
                       for k, v in ep.range_constraints.items()},
            "checks": [[name, None if shape is None else list(shape),
                        dtype.name if shape is not None else dtype]
                       for name, shape, dtype in ep._input_checks],
            "out_spec": _encode_spec(ep._out_spec)}


def _encode_spec(spec):
    if spec[0] in ("leaf", "const"):
        return [spec[0], spec[1]]
    return [spec[0], [_encode_spec(s) for s in spec[1]]] + \
        ([list(spec[2])] if spec[0] == "dict" else [])


# ----- reading ----------------------------------------------------------------------------
def _resolve(name):
    kind, _, rest = name.partition(":")
    if kind == "aten":
        try:
            return aten.lookup(rest)
        except AttributeError:
            raise ValueError(f"the file names an op minitorch does not have: {rest!r}") \
                from None
    if kind == "operator" and rest in _OPERATORS:
        return _OPERATORS[rest]
    if name == "grad:set_grad_enabled":
        return _set_grad_enabled
    raise ValueError(f"the file names a target that loading does not allow: {name!r}")


def _decode_arg(a, nodes):
    if isinstance(a, dict):
        if "__node__" in a:
            if a["__node__"] not in nodes:
                raise ValueError(f"the file uses node {a['__node__']!r} before defining it")
            return nodes[a["__node__"]]
        if "__dict__" in a:
            return {k: _decode_arg(v, nodes) for k, v in a["__dict__"]}
        if "__slice__" in a:
            return slice(*[_decode_arg(x, nodes) for x in a["__slice__"]])
        if "__ellipsis__" in a:
            return Ellipsis
        if "__array__" in a:
            return a["__array__"]._data
        raise ValueError(f"unexpected data in a node's arguments: {a!r}")
    if isinstance(a, tuple):
        return tuple(_decode_arg(x, nodes) for x in a)
    if isinstance(a, list):
        return [_decode_arg(x, nodes) for x in a]
    return a


def _decode(data):
    graph, nodes = Graph(), {}
    for op, name, target, args, kwargs, meta in data["nodes"]:
        if op == "call_function":
            target = _resolve(target)
        elif op not in ("placeholder", "get_attr", "output"):
            raise ValueError(f"unexpected node kind {op!r} in an exported program")
        node = graph.create_node(op, target, _decode_arg(args, nodes),
                                 _decode_arg(kwargs, nodes), name)
        if "val" in meta:
            node.meta["val"] = fake_value(Tensor._wrap(
                np.zeros(meta["val"]["shape"], dtype=meta["val"]["dtype"])))
        if "shape_names" in meta:
            node.meta["shape_names"] = {d: s for d, s in meta["shape_names"]}
        nodes[name] = node
    graph.lint()
    inputs = [InputSpec(InputKind[k], TensorArgument(n), t, p) for k, n, t, p in data["inputs"]]
    outputs = [OutputSpec(OutputKind[k], TensorArgument(n), t) for k, n, t in data["outputs"]]
    ranges = {k: ValueRange(lo, math.inf if hi is None else hi)
              for k, (lo, hi) in data["ranges"].items()}
    checks = []
    for name, shape, dtype in data["checks"]:
        if shape is None:
            checks.append((name, None, dtype))
            continue
        shape = tuple(tuple(s) if isinstance(s, (list, tuple)) else s for s in shape)
        checks.append((name, shape, _dtype(dtype)))
    gm = GraphModule(Module(), graph, "GraphModule")
    return ExportedProgram(gm, ExportGraphSignature(inputs, outputs), data["state_dict"],
                           data["constants"], ranges, checks, _decode_spec(data["out_spec"]))


def _dtype(name):
    import minitorch
    value = getattr(minitorch, name, None)
    if not isinstance(value, minitorch.dtype):
        raise ValueError(f"unknown dtype {name!r} in the file")
    return value


def _decode_spec(spec):
    if spec[0] in ("leaf", "const"):
        return (spec[0], spec[1])
    if spec[0] not in ("tuple", "list", "dict"):
        raise ValueError(f"unexpected output structure {spec[0]!r} in the file")
    items = [_decode_spec(s) for s in spec[1]]
    return (spec[0], items, list(spec[2])) if spec[0] == "dict" else (spec[0], items)
