"""``ExportedProgram``: a module's forward as one graph with its state (chapter 19)."""

import copy

from .._tensor import Tensor
from ..fx import Graph, GraphModule
from ..nn import Module, Parameter
from .graph_signature import InputKind

__all__ = ["ExportedProgram"]


class ExportedProgram:
    """What ``export`` returns: ``graph_module`` (its inputs: the state, then the
    user's inputs), ``graph_signature`` (what each input and output is),
    ``state_dict``, ``constants``, ``range_constraints`` (the free sizes), and
    ``module()``, a module that runs it."""

    def __init__(self, graph_module, graph_signature, state_dict, constants,
                 range_constraints, input_checks, out_spec):
        self.graph_module = graph_module
        self.graph_signature = graph_signature
        self.state_dict = state_dict
        self.constants = constants
        self.range_constraints = range_constraints
        self._input_checks = input_checks       # (name, shape spec, dtype) per user input
        self._out_spec = out_spec               # the output's structure, leaves numbered

    @property
    def graph(self):
        return self.graph_module.graph

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Unable to call ExportedProgram directly. You should use "
                           "`exported_program.module()` instead.")

    def module(self):
        """A GraphModule that runs the program: the state as attributes at their old
        paths (the same tensors), the inputs checked against what was exported."""
        root = Module()
        for spec in self.graph_signature.input_specs:
            if spec.kind is InputKind.USER_INPUT:
                continue
            value = self.state_dict.get(spec.target, self.constants.get(spec.target))
            _install(root, spec.target, value, spec.kind, spec.persistent)
        graph = _unlifted(self.graph_module.graph, self.graph_signature, self._out_spec)
        gm = GraphModule(root, graph, "GraphModule")
        checks = self._input_checks
        gm.register_forward_pre_hook(lambda module, args: _check_inputs(checks, args))
        return gm

    def run_decompositions(self, decomp_table=None):
        """minitorch's exported graphs are already in minitorch's ops: a copy."""
        return copy.copy(self)

    def __str__(self):
        code = _indent(self.graph_module.print_readable(print_output=False), 4)
        signature = str(self.graph_signature).replace("\n", "\n    ")  # as PyTorch's
        return (f"ExportedProgram:\n{code}\nGraph signature: {signature}\n"
                f"Range constraints: {self.range_constraints}\n")

    __repr__ = __str__


def _indent(text, n):
    return "\n".join((" " * n + line) if line else line for line in text.splitlines()) + "\n"


def _install(root, target, value, kind, persistent):
    *path, field = target.split(".")
    module = root
    for atom in path:
        if not hasattr(module, atom):
            module.add_module(atom, Module())
        module = getattr(module, atom)
    if kind is InputKind.PARAMETER:
        module.register_parameter(field, value if isinstance(value, Parameter)
                                  else Parameter(value))
    elif kind is InputKind.BUFFER:
        module.register_buffer(field, value, persistent=bool(persistent))
    else:
        setattr(module, field, value)


def _unlifted(graph, signature, out_spec):
    """The graph with its state read from the module (``get_attr``) instead of passed
    in, and the output in the structure the exported function returned."""
    new, env = Graph(), {}
    for spec, node in zip(signature.input_specs,
                          [n for n in graph.nodes if n.op == "placeholder"]):
        if spec.kind is InputKind.USER_INPUT:
            env[node] = new.placeholder(node.name)
        else:
            env[node] = new.get_attr(spec.target)
        env[node].meta = dict(node.meta)
    for node in graph.nodes:
        if node.op == "placeholder":
            continue
        if node.op == "output":
            flat = [env[n] if hasattr(n, "op") else n for n in node.args[0]]
            new.output(_rebuild(out_spec, flat))
            break
        env[node] = new.node_copy(node, lambda n: env[n])
    return new


def _rebuild(spec, flat):
    """The output structure ``spec`` (leaves: ("leaf", i) or ("const", value))."""
    kind = spec[0]
    if kind == "leaf":
        return flat[spec[1]]
    if kind == "const":
        return spec[1]
    items = [_rebuild(s, flat) for s in spec[1]]
    if kind == "tuple":
        return tuple(items)
    if kind == "list":
        return items
    return dict(zip(spec[2], items))


def _check_inputs(checks, args):
    """An input of another shape or dtype than the program allows: AssertionError, in
    PyTorch's words (``Guard failed: x.size()[0] == 4``)."""
    if len(args) != len(checks):
        raise TypeError(f"the exported program takes {len(checks)} inputs, got {len(args)}")
    for (name, shape, dtype), x in zip(checks, args):
        if shape is None:
            if x != dtype:
                raise AssertionError(f"Guard failed: {name} == {dtype!r}")
            continue
        if not isinstance(x, Tensor):
            raise AssertionError(f"Guard failed: {name} is a Tensor")
        if x.dim() != len(shape):
            raise AssertionError(f"Guard failed: {name}.dim() == {len(shape)}")
        for d, expected in enumerate(shape):
            size = x.shape[d]
            if isinstance(expected, int):
                if size != expected:
                    raise AssertionError(f"Guard failed: {name}.size()[{d}] == {expected}")
            else:
                low, high = expected[1], expected[2]
                if size < low:
                    raise AssertionError(f"Guard failed: {name}.size()[{d}] >= {low}")
                if size > high:
                    raise AssertionError(f"Guard failed: {name}.size()[{d}] <= {high}")
        if x.dtype is not dtype:
            raise AssertionError(f"Guard failed: {name}.dtype == {dtype}")
    return None

