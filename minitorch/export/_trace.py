"""``export``: capture a module's forward as one graph that runs without Python
(chapter 19).

Export is a capture (``_dynamo.capture``) with no graph breaks allowed: Python may
not read a value it depends on (that raises ``GuardOnDataDependentSymNode``, as in
PyTorch), and the whole call, views and in-place changes included, becomes one graph
whose inputs are the module's parameters, buffers and constants (*lifted* out of
the module) followed by the user's inputs.  A size given as a ``Dim`` is captured as
a SymInt, so the graph computes with whatever size comes.
"""

import inspect


from .._tensor import Tensor
from .._dynamo import capture as _capture
from .._dynamo.exc import UserError
from .._dynamo.guards import flatten_inputs
from ..fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode
from ..nn import Module
from .dynamic_shapes import Dim, ValueRange
from .exported_program import ExportedProgram
from .graph_signature import (ExportGraphSignature, InputKind, InputSpec, OutputKind,
                              OutputSpec, TensorArgument)

__all__ = ["export"]


def export(mod, args, kwargs=None, *, dynamic_shapes=None, strict=False,
           preserve_module_call_signature=()):
    """Export ``mod``'s forward, called on ``args`` (a tuple) and ``kwargs``."""
    if not isinstance(mod, Module):
        raise ValueError(f"Expected `mod` to be an instance of `minitorch.nn.Module`, got "
                         f"{type(mod)}.")
    if not isinstance(args, tuple):
        raise UserError(f"Expecting `args` to be a tuple of example positional inputs, got "
                        f"{type(args)}")
    kwargs = kwargs or {}
    bound = inspect.signature(mod.forward).bind(*args, **kwargs)
    names = list(bound.arguments)
    flat, flat_names = flatten_inputs(tuple(bound.arguments.values()), {}, names)
    dims = _dims(dynamic_shapes, bound, flat, flat_names)
    capture = _capture.Capture(True, {i: set(d) for i, d in dims.items()},
                               break_error=_data_dependent)
    capture.inputs(flat, flat_names)
    capture.module_state(mod)
    with capture:
        result = mod(*args, **kwargs)
        leaves, spec = _flatten_output(result)
        values = [capture._spec(t) for t in leaves]
    segment = _capture.whole_graph(capture, values)
    return _program(capture, segment, mod, flat, flat_names, dims, spec)


def _data_dependent(what):
    return GuardOnDataDependentSymNode(
        f"Could not guard on data-dependent expression: {what}. An exported program is "
        "one graph of minitorch's ops that runs without Python, so it cannot take a "
        "branch that depends on the values it computes, nor keep a value or a change "
        "made outside its ops. Write the branch with tensor operations "
        "(minitorch.where), or move it out of the exported module.")


def _dims(dynamic_shapes, bound, flat, flat_names):
    """``dynamic_shapes`` (by argument name, or in argument order) as {input position:
    {dim: Dim}}."""
    if dynamic_shapes is None:
        return {}
    names = list(bound.arguments)
    if isinstance(dynamic_shapes, dict):
        if set(dynamic_shapes) - set(names):
            raise UserError(f"When `dynamic_shapes` is specified as a dict, its top-level "
                            f"keys must be the arg names {names} of `inputs`, but here they "
                            f"are {list(dynamic_shapes)}. Alternatively, you could also "
                            "ignore arg names entirely and specify `dynamic_shapes` as a "
                            "list/tuple matching `inputs`.")
        by_name = dynamic_shapes
    else:
        by_name = dict(zip(names, dynamic_shapes))
    dims = {}
    for i, (x, name) in enumerate(zip(flat, flat_names)):
        spec = by_name.get(name)
        if spec is None or not isinstance(x, Tensor):
            continue
        if isinstance(spec, (list, tuple)):
            spec = {d: s for d, s in enumerate(spec) if s is not None}
        for d, dim in spec.items():
            if not isinstance(dim, Dim):
                raise UserError(f"dynamic_shapes[{name!r}][{d}] must be a Dim, got "
                                f"{type(dim).__name__}")
            size = x.shape[d]
            if not dim.min <= size <= dim.max:
                raise UserError(f"{name}.size()[{d}] is {size}, outside the range "
                                f"[{dim.min}, {dim.max}] of {dim!r}")
        dims[i] = spec
    return dims


def _flatten_output(result):
    """The tensors of a returned structure, and the structure with numbered leaves."""
    leaves = []

    def spec(x):
        if isinstance(x, Tensor):
            leaves.append(x)
            return ("leaf", len(leaves) - 1)
        if isinstance(x, (tuple, list)):
            return ("tuple" if isinstance(x, tuple) else "list", [spec(v) for v in x])
        if isinstance(x, dict):
            return ("dict", [spec(v) for v in x.values()], list(x))
        return ("const", x)
    return leaves, spec(result)


def _program(capture, segment, mod, flat, flat_names, dims, out_spec):
    gm = segment.graph_module
    paths = capture.paths
    input_specs, state_dict, constants = [], {}, {}
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    lifted = 0
    for value, node in zip(segment.inputs, placeholders):
        arg = TensorArgument(node.name)
        if value.kind == "param":
            target = paths[value.index]
            input_specs.append(InputSpec(InputKind.PARAMETER, arg, target))
            state_dict[target] = value.tensor
        elif value.kind == "buffer":
            target, persistent = paths[value.index]
            input_specs.append(InputSpec(InputKind.BUFFER, arg, target, persistent))
            (state_dict if persistent else constants)[target] = value.tensor
        elif value.kind == "external":
            target = f"lifted_tensor_{lifted}"
            lifted += 1
            node.name = node.target = "c_" + target
            input_specs.append(InputSpec(InputKind.CONSTANT_TENSOR, arg, target))
            constants[target] = value.tensor
        else:
            input_specs.append(InputSpec(InputKind.USER_INPUT, arg))
            node.name = node.target     # ``input``, not fx's ``input_1``: as PyTorch's export
            names = {d: dim.__name__ for d, dim in dims.get(value.position, {}).items()}
            if names:
                node.meta["shape_names"] = names
    for spec, node in zip(input_specs, placeholders):
        spec.arg.name = node.name
    gm.recompile()
    output = next(n for n in gm.graph.nodes if n.op == "output")
    output_specs = [OutputSpec(OutputKind.USER_OUTPUT,
                               TensorArgument(n.name if hasattr(n, "op") else str(n)))
                    for n in output.args[0]]
    signature = ExportGraphSignature(input_specs, output_specs)
    checks = []
    for i, (x, name) in enumerate(zip(flat, flat_names)):
        if isinstance(x, Tensor):
            free = dims.get(i, {})
            shape = tuple((dim.__name__, dim.min, dim.max) if d in free else n
                          for d, n in enumerate(x.shape) for dim in [free.get(d)])
            checks.append((name, shape, x.dtype))
        else:
            checks.append((name, None, x))
    ranges = {dim.__name__: ValueRange(dim.min, dim.max) for spec in dims.values()
              for dim in spec.values()}
    return ExportedProgram(gm, signature, state_dict, constants, ranges, checks, out_spec)

