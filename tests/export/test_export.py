"""``minitorch.export`` (chapter 19): one graph with lifted state, its signature, free
sizes, the module that runs it, errors of PyTorch's types, and a file format that
cannot run code.  Forms and messages observed on PyTorch 2.13 for the same modules."""

import io

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn
from minitorch._dynamo.exc import UserError
from minitorch.export import Dim, export
from minitorch.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode

pytestmark = pytest.mark.chapter19


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(3, 2)
        self.register_buffer("c", minitorch.ones(2), persistent=False)

    def forward(self, x):
        return {"a": self.l(x) + self.c, "b": [x * 2]}


def test_the_signature_lifts_parameters_buffers_and_inputs():
    ep = export(M(), (minitorch.randn(4, 3),))
    assert str(ep.graph_signature) == """
# inputs
p_l_weight: PARAMETER target='l.weight'
p_l_bias: PARAMETER target='l.bias'
b_c: BUFFER target='c' persistent=False
x: USER_INPUT

# outputs
add: USER_OUTPUT
mul_scalar: USER_OUTPUT
"""     # PyTorch names the second output mul (its op is aten.mul.Tensor)
    sig = ep.graph_signature
    assert sig.parameters == ("l.weight", "l.bias") and sig.buffers == ("c",)
    assert sig.user_inputs == ("x",) and sig.inputs_to_parameters == {
        "p_l_weight": "l.weight", "p_l_bias": "l.bias"}
    assert list(ep.state_dict) == ["l.weight", "l.bias"] and list(ep.constants) == ["c"]


def test_the_program_prints_its_graph_with_shapes():
    text = str(export(M(), (minitorch.randn(4, 3),)))
    assert text.startswith('ExportedProgram:\n    class GraphModule(minitorch.nn.Module):\n'
                           '        def forward(self, p_l_weight: "f32[2, 3]", p_l_bias: '
                           '"f32[2]", b_c: "f32[2]", x: "f32[4, 3]"):\n')
    assert 'addmm: "f32[4, 2]" = minitorch.ops.aten.addmm(p_l_bias, x, t)' in text
    assert "\nGraph signature: \n    # inputs\n" in text and text.endswith(
        "\n    \n    # outputs\n    add: USER_OUTPUT\n    mul_scalar: USER_OUTPUT\n    \n"
        "Range constraints: {}\n")          # PyTorch indents the empty lines too


def test_module_runs_it_and_checks_its_inputs():
    model = M()
    ep = export(model, (minitorch.randn(4, 3),))
    module = ep.module()
    assert type(module).__name__ == "GraphModule"
    assert list(module.state_dict()) == ["l.weight", "l.bias"]          # as in PyTorch
    x = minitorch.randn(4, 3)
    out, want = module(x), model(x)
    np.testing.assert_array_equal(out["a"].detach().numpy(), want["a"].detach().numpy())
    assert isinstance(out["b"], list)
    with pytest.raises(AssertionError, match=r"^Guard failed: x.size\(\)\[0\] == 4$"):
        module(minitorch.randn(7, 3))
    with pytest.raises(RuntimeError, match="Unable to call ExportedProgram directly. You should "
                                           "use `exported_program.module\\(\\)` instead."):
        ep(x)


def test_a_dim_leaves_a_size_free_within_its_range():
    batch = Dim("batch", min=2, max=64)
    assert repr(batch) == "Dim('batch', max=64)" and (batch.min, batch.max) == (2, 64)
    ep = export(M(), (minitorch.randn(4, 3),), dynamic_shapes={"x": {0: batch}})
    assert repr(ep.range_constraints) == "{'batch': VR[2, 64]}"   # PyTorch: {s77: VR[2, 64]}
    assert ep.module()(minitorch.randn(7, 3))["a"].shape == (7, 2)
    with pytest.raises(AssertionError, match=r"Guard failed: x.size\(\)\[0\] <= 64"):
        ep.module()(minitorch.randn(100, 3))
    with pytest.raises(UserError, match="its top-level keys must be the arg names \\['x'\\]"):
        export(M(), (minitorch.randn(4, 3),), dynamic_shapes={"x": {0: batch}, "y": None})


def test_data_dependent_control_flow_is_refused():
    class Branch(nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x + 1
            return x - 1
    with pytest.raises(GuardOnDataDependentSymNode, match="data-dependent"):
        export(Branch(), (minitorch.randn(4, 3),))
    assert issubclass(GuardOnDataDependentSymNode, RuntimeError)


def test_bad_arguments():
    with pytest.raises(UserError, match="Expecting `args` to be a tuple of example positional "
                                        "inputs, got <class 'list'>"):
        export(M(), [minitorch.randn(4, 3)])


@pytest.mark.parametrize("to_file", [False, True], ids=["stream", "path"])
def test_save_and_load(tmp_path, to_file):
    model = M()
    batch = Dim("batch", min=2, max=64)
    ep = export(model, (minitorch.randn(4, 3),), dynamic_shapes={"x": {0: batch}})
    target = tmp_path / "model.pt2" if to_file else io.BytesIO()
    minitorch.export.save(ep, target)
    if not to_file:
        target.seek(0)
    loaded = minitorch.export.load(target)
    assert str(loaded) == str(ep)
    x = minitorch.randn(9, 3)
    np.testing.assert_array_equal(loaded.module()(x)["a"].detach().numpy(),
                                  model(x)["a"].detach().numpy())
    if to_file:
        assert [p.name for p in tmp_path.iterdir()] == ["model.pt2"]     # no temporary left


def test_loading_refuses_a_target_that_is_not_an_op(tmp_path):
    ep = export(M(), (minitorch.randn(4, 3),))
    buffer = io.BytesIO()
    minitorch.export.save(ep, buffer)
    buffer.seek(0)
    data = minitorch.load(buffer)
    for node in data["nodes"]:
        if node[2] == "aten:addmm":
            node[2] = "os:system"
    path = tmp_path / "evil.pt2"
    minitorch.save(data, path)
    with pytest.raises(ValueError, match="names a target that loading does not allow: "
                                         "'os:system'"):
        minitorch.export.load(path)
    minitorch.save({"weights": minitorch.ones(2)}, path)
    with pytest.raises(ValueError, match="not an exported program"):
        minitorch.export.load(path)


def test_a_user_input_keeps_its_argument_name_even_a_builtins():
    # PyTorch 2.13: export(nn.Linear(3, 2), ...) names its input ``input`` (fx's
    # symbolic_trace says ``input_1``), and ``sum``/``max`` stay ``sum``/``max``.
    ep = export(nn.Linear(3, 2), (minitorch.randn(4, 3),))
    assert ep.graph_signature.user_inputs == ("input",)
    assert [n.name for n in ep.graph.nodes if n.op == "placeholder"] == [
        "p_weight", "p_bias", "input"]
    assert "addmm = minitorch.ops.aten.addmm(p_bias, input, t)" in ep.graph_module.code

    class TwoBuiltins(nn.Module):
        def forward(self, sum, max):
            return sum + max
    ep = export(TwoBuiltins(), (minitorch.ones(2), minitorch.ones(2)))
    assert ep.graph_signature.user_inputs == ("sum", "max")
    assert ep.module()(minitorch.ones(2), minitorch.full((2,), 2.0)).tolist() == [3.0, 3.0]
    x = minitorch.randn(4, 3)
    linear = nn.Linear(3, 2)
    assert minitorch.equal(export(linear, (x,)).module()(x), linear(x))
