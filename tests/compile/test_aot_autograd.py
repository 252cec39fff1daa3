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
    # float32 through 1 - tanh**2 and layer norm's mean subtraction: the compiled and the
    # eager order of operations differ by tens of ulps when the last bits move (another
    # CPU, or `make test PERTURB=ulp`), far below a wrong gradient's error.
    for g, t in zip(got, args):
        np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-5, atol=1e-6)


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


def scaled_in_place(x, w):
    y = F.layer_norm(x, (3,)) @ w
    y.mul_(2)                   # an in-place op whose backward is called with its context
    return minitorch.tanh(y).sum()


def test_an_in_place_op_called_with_its_context_becomes_functional_too():
    x = minitorch.ones(2, 3).cumsum(1)
    w = minitorch.full((3, 2), 0.5, requires_grad=True)
    joint = aot_autograd.trace_joint(lambda *a: (scaled_in_place(*a),), [x, w])
    names = [repr(n.target) for n in joint.graph.nodes if n.op == "call_function"]
    assert not any("inplace" in name for name in names)
    assert "minitorch.ops.aten.mul_scalar.with_ctx" in names
    assert "minitorch.ops.aten.mul_scalar.backward" in names


def test_the_joint_graph_records_each_backward_once_and_nothing_dead():
    x = minitorch.ones(2, 3).cumsum(1)
    w = minitorch.full((3, 2), 0.5, requires_grad=True)
    joint = aot_autograd.trace_joint(lambda *a: (scaled_in_place(*a),), [x, w])
    dead = [n.name for n in joint.graph.nodes if n.op == "call_function" and not n.users]
    assert dead == []
    backward = [repr(n.target) for n in joint.backward_nodes if n.op == "call_function"]
    assert backward.count("minitorch.ops.aten.mul_scalar.backward") == 1


def test_compiled_in_place_gradients_equal_eager():
    x = minitorch.ones(2, 3).cumsum(1)
    w = minitorch.full((3, 2), 0.5, requires_grad=True)
    compiled = minitorch.compile(scaled_in_place, backend="aot_eager")
    compiled(x, w)
    loss = compiled(x, w)
    assert loss.grad_fn.name() == "CompiledFunctionBackward"
    loss.backward()
    got, w.grad = w.grad.numpy().copy(), None
    scaled_in_place(x, w).backward()
    np.testing.assert_allclose(got, w.grad.numpy(), rtol=1e-6)


def test_aot_function_traces_the_function_itself_and_compiles_backward_when_needed():
    # Observed on PyTorch 2.13 (torch._functorch.aot_autograd.aot_function): the first
    # call already returns a CompiledFunctionBackward result; the forward graph returns
    # the result and the saved values only; the backward compiler runs at the first
    # backward, each compiler once.
    seen, shapes = [], []

    def compiler(name):
        def compile_graph(gm, example_inputs):
            outputs = next(n for n in gm.graph.nodes if n.op == "output").args[0]
            seen.append((name, [n.name for n in gm.graph.nodes if n.op == "placeholder"],
                         [getattr(o, "name", o) for o in outputs]))
            shapes.append([tuple(x.shape) for x in example_inputs])     # as PyTorch's
            return aot_autograd.make_boxed_func(gm.forward)
        return compile_graph

    def f(x, w):
        return (x @ w).tanh().sum()
    x, w = minitorch.ones(2, 3), minitorch.full((3, 2), 0.5, requires_grad=True)
    compiled = aot_autograd.aot_function(f, compiler("forward"), compiler("backward"))
    y = compiled(x, w)
    assert y.grad_fn.name() == "CompiledFunctionBackward"
    assert seen == [("forward", ["primals_1", "primals_2"], ["sum_1", "primals_1", "tanh"])]
    y.backward()
    assert seen[1] == ("backward", ["primals_1", "tanh", "tangents_1"], [None, "mm_1"])
    assert shapes == [[(2, 3), (3, 2)], [(2, 3), (2, 2), ()]]
    got, w.grad = w.grad.numpy().copy(), None
    compiled(x, w).backward()
    assert len(seen) == 2
    np.testing.assert_allclose(w.grad.numpy(), got)
    w.grad = None
    f(x, w).backward()
    np.testing.assert_allclose(w.grad.numpy(), got, rtol=1e-6)


@pytest.mark.parametrize("relu_", [minitorch.Tensor.relu_, minitorch.relu_,
                                   lambda y: F.relu(y, inplace=True)],
                         ids=["Tensor.relu_", "torch.relu_", "F.relu-inplace"])
def test_relu_in_place_becomes_relu(relu_):
    # PyTorch 2.13's aot_function: the forward graph has aten.relu, no relu_; the weight's
    # gradient of sum((x @ w).relu_() ** 2) at x = linspace(-1, 1, 6) (2 x 3), w = 0.5.
    graphs = []

    def compiler(gm, example_inputs):
        graphs.append(gm)
        return aot_autograd.make_boxed_func(gm.forward)

    def loss_of(x, w):
        y = x @ w
        relu_(y)
        return (y * y).sum()
    x = minitorch.linspace(-1, 1, 6).reshape(2, 3)
    w = minitorch.full((3, 2), 0.5, requires_grad=True)
    aot_autograd.aot_function(loss_of, compiler, compiler)(x, w).backward()
    names = [getattr(n.target, "__name__", "") for n in graphs[0].graph.nodes
             if n.op == "call_function"]
    assert "relu" in names and not any("inplace" in name for name in names), names
    np.testing.assert_allclose(w.grad.numpy(), [[0.36] * 2, [1.08] * 2, [1.8] * 2], rtol=1e-6)
