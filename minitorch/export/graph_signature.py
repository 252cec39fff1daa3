"""What each input and output of an exported graph is (chapter 19)."""

import enum
from dataclasses import dataclass

__all__ = ["InputKind", "OutputKind", "InputSpec", "OutputSpec", "TensorArgument",
           "ExportGraphSignature"]


class InputKind(enum.Enum):
    USER_INPUT = 1
    PARAMETER = 2
    BUFFER = 3
    CONSTANT_TENSOR = 4


class OutputKind(enum.Enum):
    USER_OUTPUT = 1
    BUFFER_MUTATION = 2


@dataclass
class TensorArgument:
    name: str


@dataclass
class InputSpec:
    kind: InputKind
    arg: TensorArgument
    target: str = None
    persistent: bool = None


@dataclass
class OutputSpec:
    kind: OutputKind
    arg: TensorArgument
    target: str = None


class ExportGraphSignature:
    """The graph's inputs (parameters, buffers, constants, then the user's inputs) and
    outputs, in order, with the module attribute each state input stands for."""

    def __init__(self, input_specs, output_specs):
        self.input_specs, self.output_specs = list(input_specs), list(output_specs)

    def _targets(self, kind):
        return tuple(s.target for s in self.input_specs if s.kind is kind)

    @property
    def parameters(self):
        return self._targets(InputKind.PARAMETER)

    @property
    def buffers(self):
        return self._targets(InputKind.BUFFER)

    @property
    def non_persistent_buffers(self):
        return tuple(s.target for s in self.input_specs
                     if s.kind is InputKind.BUFFER and s.persistent is False)

    @property
    def lifted_tensor_constants(self):
        return self._targets(InputKind.CONSTANT_TENSOR)

    @property
    def user_inputs(self):
        return tuple(s.arg.name for s in self.input_specs if s.kind is InputKind.USER_INPUT)

    @property
    def user_outputs(self):
        return tuple(s.arg.name for s in self.output_specs
                     if s.kind is OutputKind.USER_OUTPUT)

    @property
    def inputs_to_parameters(self):
        return {s.arg.name: s.target for s in self.input_specs
                if s.kind is InputKind.PARAMETER}

    @property
    def inputs_to_buffers(self):
        return {s.arg.name: s.target for s in self.input_specs if s.kind is InputKind.BUFFER}

    @property
    def buffers_to_mutate(self):
        return {s.arg.name: s.target for s in self.output_specs
                if s.kind is OutputKind.BUFFER_MUTATION}

    def __str__(self):
        lines = ["", "# inputs"]     # PyTorch's starts with an empty line too
        for s in self.input_specs:
            extra = "" if s.target is None else f" target={s.target!r}"
            if s.persistent is not None:
                extra += f" persistent={s.persistent}"
            lines.append(f"{s.arg.name}: {s.kind.name}{extra}")
        lines += ["", "# outputs"]
        for s in self.output_specs:
            extra = "" if s.target is None else f" target={s.target!r}"
            lines.append(f"{s.arg.name}: {s.kind.name}{extra}")
        return "\n".join(lines) + "\n"

    __repr__ = __str__
