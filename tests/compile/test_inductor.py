"""minitorch's numpy backend (chapter 21): decompositions, generated code with in-place
elementwise ops and fused kernels, minitorch's own ops called for the rest."""

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn
from minitorch._inductor import compile_graph, decompositions

pytestmark = pytest.mark.chapter21


def graph_of(fn, *args):
    graphs = []
    minitorch.compile(fn, backend=lambda gm, ex: graphs.append((gm, ex)) or gm.forward)(*args)
    return graphs[0]


def test_decompositions_rewrite_addmm_as_a_product_and_an_add():
    model = nn.Linear(3, 2)
    gm, examples = graph_of(model, minitorch.randn(4, 3))
    compiled = compile_graph(gm, examples)
    small = [n.target.__name__ for n in compiled.graph_module.graph.nodes
             if n.op == "call_function"]
    assert "addmm" not in small and "mm" in small and "add" in small and "transpose" in small
    assert "addmm" in decompositions.DECOMPOSITIONS


def chain_graph():
    """``tanh(exp((x @ w + b) * 0.5))`` as an fx graph of minitorch's ops, written by hand:
    every value but the last is internal, so the code may overwrite it."""
    from minitorch.ops import aten
    g = minitorch.fx.Graph()
    x, w, b = (g.placeholder(n) for n in "xwb")
    mm = g.call_function(aten.mm, (x, w))
    add = g.call_function(aten.add, (mm, b))
    half = g.call_function(aten.mul_scalar, (add, 0.5))
    g.output((g.call_function(aten.tanh, (g.call_function(aten.exp, (half,)),)),))
    return minitorch.fx.GraphModule(nn.Module(), g)


def test_the_generated_code_is_numpy_writing_into_free_buffers():
    x, w, b = minitorch.randn(4, 3), minitorch.randn(3, 2), minitorch.randn(2)
    compiled = compile_graph(chain_graph(), [x, w, b])
    assert "def call(args):\n    x, w, b, = args\n    args.clear()\n" in compiled.source
    assert "mm = np.matmul(x, w);  del x, w" in compiled.source
    assert "np.add(in0, in1, out=buf)" in compiled.source     # into mm's buffer
    np.testing.assert_allclose(compiled(x, w, b)[0].numpy(),
                               ((x @ w + b) * 0.5).exp().tanh().numpy(), rtol=1e-6)


def test_an_elementwise_chain_becomes_one_kernel_in_blocks():
    x, w, b = minitorch.randn(1024, 64), minitorch.randn(64, 512), minitorch.randn(512)
    compiled = compile_graph(chain_graph(), [x, w, b])
    assert "def kernel0(buf, in0, in1):\n    # add, mul_scalar, exp, tanh, in one buffer in " \
           "blocks of rows\n    for start in range(0, 1024, 64):" in compiled.source
    assert "kernel0(mm, mm, b)" in compiled.source
    np.testing.assert_allclose(compiled(x, w, b)[0].numpy(),
                               ((x @ w + b) * 0.5).exp().tanh().numpy(), rtol=1e-5)


def test_a_served_value_is_never_overwritten():
    # In a captured graph, Python asks for every op's value: each one is kept.
    gm, examples = graph_of(lambda x, y: ((x * y + 1.0) * 0.5).exp(),
                            minitorch.randn(8, 8), minitorch.randn(8, 8))
    source = compile_graph(gm, examples).source
    assert "out=" not in source and "kernel" not in source


def test_minitorchs_own_kernels_are_called_for_the_rest():
    gm, examples = graph_of(lambda x: minitorch.nn.functional.gelu(x) * 2, minitorch.randn(8))
    source = compile_graph(gm, examples).source
    assert "_call(aten_gelu, (T(x), 'none'))  # minitorch.ops.aten.gelu" in source


def test_output_code_shows_the_forward_and_the_backward():
    model = nn.Sequential(nn.Linear(4, 4), nn.Tanh())
    compiled = minitorch.compile(model)
    compiled(minitorch.randn(2, 4)).sum().backward()
    forward, backward = minitorch._inductor.output_code(2)
    assert "np.matmul" in forward and "np.tanh" in forward
    assert "tangents_1" in backward and "args.clear()" in backward


def test_each_fused_node_records_its_kernel_for_pictures():
    x, w, b = minitorch.randn(4, 3), minitorch.randn(3, 2), minitorch.randn(2)
    compiled = compile_graph(chain_graph(), [x, w, b])
    kernels = {n.name: n.meta.get("kernel") for n in compiled.graph_module.graph.nodes}
    assert kernels == {"x": None, "w": None, "b": None, "mm": None, "add": "kernel0",
                       "mul_scalar": "kernel0", "exp": "kernel0", "tanh": "kernel0",
                       "output": None}


def test_a_chain_stops_before_an_input_computed_after_its_start():
    # (y * y).sum() with y returned too: the backward adds y's tangent and two products,
    # and the second product is computed after the first add, so the kernel that starts
    # at the first product cannot take in the second.
    minitorch.manual_seed(0)
    x, w = minitorch.randn(4, 3), minitorch.randn(3, 5, requires_grad=True)

    def f(x, w):
        y = x @ w
        return (y * y).sum(), y
    grads = []
    for run in (f, minitorch.compile(f)):
        w.grad = None
        loss, y = run(x, w)
        (loss + y.sum()).backward()
        grads.append(w.grad.numpy().copy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-5, atol=1e-6)
