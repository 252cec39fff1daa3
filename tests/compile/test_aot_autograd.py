"""AOT autograd (chapter 20): the joint forward and backward graph traced through the
engine, functionalized and split; compiled training gives eager's gradients."""

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch._functorch import aot_autograd

pytestmark = pytest.mark.chapter20


def layer(x, w, b):
    h = F.layer_norm(x, (3,))
    y = minitorch.tanh((h @ w + b) * 0.5 + 1.0)
    return y.sum() * 2, y


def inputs():
    minitorch.manual_seed(0)
    return (minitorch.randn(4, 3, requires_grad=True), minitorch.randn(3, 2, requires_grad=True),
            minitorch.randn(2, requires_grad=True))


def captured_graph(fn, *args):
    graphs = []
    minitorch.compile(fn, backend=lambda gm, ex: graphs.append((gm, ex)) or gm.forward)(*args)
    return graphs[0]


def test_the_joint_graph_has_the_forward_then_the_engines_backward():
    gm, examples = captured_graph(layer, *inputs())
    joint = aot_autograd.trace_joint(gm, examples, tangent_outputs=[len(examples) - 1])
    code = minitorch.fx.GraphModule(minitorch.nn.Module(), joint.graph).code \
        if not joint.constants else ""
    targets = [repr(n.target) for n in joint.graph.nodes if n.op == "call_function"]
    assert "minitorch.ops.aten.native_layer_norm.with_ctx" in targets     # its context is saved
    assert "minitorch.ops.aten.native_layer_norm.backward" in targets     # and read back
    assert "minitorch.ops.aten.mm" in targets and "minitorch.ops.aten.t" in targets
    backward = [repr(n.target) for n in joint.backward_nodes]
    assert backward.count("minitorch.ops.aten.mm") == 2         # a product's two gradients
    assert "tangents_1" in code or joint.constants


def test_partition_saves_what_the_backward_reads():
    gm, examples = captured_graph(layer, *inputs())
    joint = aot_autograd.trace_joint(gm, examples)
    forward, backward, n_saved = aot_autograd.partition(joint)
    forward_outputs = next(n for n in forward.nodes if n.op == "output").args[0]
    backward_inputs = [n.name for n in backward.nodes if n.op == "placeholder"]
    assert len(forward_outputs) == joint.n_outputs + n_saved
    assert backward_inputs[-joint.n_tangents:] == [f"tangents_{i + 1}"
                                                  for i in range(joint.n_tangents)]
    assert all(n.op != "placeholder" or n.name.startswith("primals")
               for n in forward.nodes)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compiled_gradients_equal_eager(backend):
    args = inputs()
    compiled = minitorch.compile(layer, backend=backend)
    for _ in range(2):
        for t in args:
            t.grad = None
        loss, _ = compiled(*args)
        loss.backward()
    got = [t.grad.numpy().copy() for t in args]
    for t in args:
        t.grad = None
    layer(*args)[0].backward()
    for g, t in zip(got, args):
        np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-6, atol=1e-7)


def test_an_in_place_op_becomes_its_out_of_place_twin():
    class Counter(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("n", minitorch.zeros(()))

        def forward(self, x):
            self.n.add_(1)
            return x * self.n
    model = Counter()
    gm, examples = captured_graph(model, minitorch.ones(2))
    assert "add_inplace" in gm.code
    joint = aot_autograd.trace_joint(gm, examples)
    names = [n.target.__name__ for n in joint.graph.nodes if n.op == "call_function"
             and hasattr(n.target, "__name__")]
    assert "add_scalar" in names and "add_inplace" not in names
    assert examples[-1].item() == 1.0           # tracing did not change the buffer


def test_a_gradient_the_graph_was_not_traced_for_is_still_right():
    def f(x):
        h = x * 3
        return h.exp().sum(), h
    x = minitorch.randn(3, requires_grad=True)
    compiled = minitorch.compile(f, backend="aot_eager")
    compiled(x)
    total, h = compiled(x)
    (total + (h * h).sum()).backward()          # a gradient through h too
    got = x.grad.numpy().copy()
    x.grad = None
    total, h = f(x)
    (total + (h * h).sum()).backward()
    np.testing.assert_allclose(got, x.grad.numpy(), rtol=1e-6)


def test_the_compiled_backward_is_one_node():
    x = minitorch.randn(3, requires_grad=True)
    compiled = minitorch.compile(lambda x: (x.exp() * 2).sum(), backend="aot_eager")
    compiled(x)
    out = compiled(x)
    assert out.grad_fn.name() == "CompiledFunctionBackward"
