"""Convolution, pooling and padding (chapter 11): values against direct numpy loops and
against PyTorch 2.13's numbers (tests/nn/pytorch_facts_chapter11.py), gradients against
finite differences (gradcheck and gradgradcheck in float64 over drawn geometries), the
nodes they record, the layers' parameters and printing, and a LeNet on 28x28 images."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck
from tests.nn.pytorch_facts_chapter11 import FACTS
from tests.strategies import conv_geometries, pool_geometries

pytestmark = [pytest.mark.chapter11, pytest.mark.tutorials]


def values(shape, requires_grad=True):
    """The fixed float64 inputs the PyTorch numbers were computed on."""
    k = np.arange(math.prod(shape))
    data = ((k * 37 % 101) / 16.0 - 3.0).reshape(shape)
    return torch.tensor(data, dtype=torch.float64, requires_grad=requires_grad)


def flat(t):
    return np.asarray(t.detach().numpy(), dtype=np.float64).reshape(-1)


def assert_matches(t, expected, tol=1e-8):
    got = flat(t)
    assert got.shape == (len(expected),)
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


def random_tensor(rng, shape, requires_grad=True):
    return torch.tensor(rng.normal(size=shape), dtype=torch.float64, requires_grad=requires_grad)


def grads_with_and_without_graph(f, inputs):
    """The gradients of ``(f(*inputs) ** 2).sum()`` computed on arrays (the fast path) and
    with ``create_graph=True`` (the tensor-op backward): they must agree."""
    out = f(*inputs)
    loss = (out * out).sum()
    fast = torch.autograd.grad(loss, inputs, retain_graph=True)
    graph = torch.autograd.grad(loss, inputs, create_graph=True)
    for a, b in zip(fast, graph):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    return fast


# ----- direct loops: what the layers compute, written the slow way ---------------------------
def conv_loop(x, w, b, stride, padding, dilation, groups):
    n = w.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    out_sizes = [(xp.shape[2 + i] - dilation[i] * (w.shape[2 + i] - 1) - 1) // stride[i] + 1
                 for i in range(n)]
    cin, cout = x.shape[1] // groups, w.shape[0] // groups
    y = np.zeros((x.shape[0], w.shape[0], *out_sizes))
    for bi, o in itertools.product(range(x.shape[0]), range(w.shape[0])):
        g = o // cout
        for pos in itertools.product(*(range(s) for s in out_sizes)):
            total = 0.0
            for c in range(cin):
                for k in itertools.product(*(range(s) for s in w.shape[2:])):
                    at = tuple(p * s + kk * d for p, s, kk, d in zip(pos, stride, k, dilation))
                    total += xp[(bi, g * cin + c) + at] * w[(o, c) + k]
            y[(bi, o) + pos] = total + (b[o] if b is not None else 0)
    return y


def pool_windows_loop(x, kernel, stride, padding, dilation, ceil_mode):
    """For each output position: the list of (input position or None for padding) read."""
    sizes = x.shape[-2:]
    outs = []
    for size, k, s, p, d in zip(sizes, kernel, stride, padding, dilation):
        span = size + 2 * p - d * (k - 1) - 1
        o = -(-span // s) + 1 if ceil_mode else span // s + 1
        if ceil_mode and (o - 1) * s >= size + p:
            o -= 1
        outs.append(o)
    windows = {}
    for pos in itertools.product(*(range(o) for o in outs)):
        cells = []
        for k in itertools.product(*(range(kk) for kk in kernel)):
            at = tuple(o * s + kk * d - p for o, s, kk, d, p in zip(pos, stride, k, dilation,
                                                                       padding))
            inside = all(0 <= a < n for a, n in zip(at, sizes))
            cells.append(at if inside else None)
        windows[pos] = cells
    return outs, windows


def max_pool_loop(x, kernel, stride, padding, dilation, ceil_mode):
    """PyTorch's loop: the largest value inside the input (-inf, reported at the first
    position the window reaches, if the window lies in the padding only)."""
    outs, windows = pool_windows_loop(x, kernel, stride, padding, dilation, ceil_mode)
    y = np.zeros(x.shape[:2] + tuple(outs))
    idx = np.zeros(x.shape[:2] + tuple(outs), dtype=np.int64)
    for b, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for pos, cells in windows.items():
            best, value = None, -np.inf
            for at in cells:
                if at is not None and x[(b, c) + at] > value:
                    best, value = at, x[(b, c) + at]
            if best is None:
                start = [o * s - p for o, s, p in zip(pos, stride, padding)]
                best = [st + (-st + d - 1) // d * d if st < 0 else st
                        for st, d in zip(start, dilation)]
            y[(b, c) + pos] = value
            idx[(b, c) + pos] = best[0] * x.shape[-1] + best[1]
    return y, idx


def avg_pool_loop(x, kernel, stride, padding, ceil_mode, count_include_pad):
    outs, windows = pool_windows_loop(x, kernel, stride, padding, (1, 1), ceil_mode)
    sizes = x.shape[-2:]
    y = np.zeros(x.shape[:2] + tuple(outs))
    for pos, cells in windows.items():
        inside = [at for at in cells if at is not None]
        if count_include_pad:       # the window clipped to the padded input
            ends = [min(o * s - p + k, n + p) - (o * s - p) for o, s, p, k, n in
                    zip(pos, stride, padding, kernel, sizes)]
            divisor = ends[0] * ends[1]
        else:
            divisor = len(inside)
        for b, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
            y[(b, c) + pos] = sum(x[(b, c) + at] for at in inside) / divisor
    return y


# ----- convolution -----------------------------------------------------------------------------
@pytest.mark.task("11.3")
def test_conv2d_matches_pytorch():
    x, w, b = values((2, 4, 5, 6)), values((6, 2, 3, 2)), values((6,))
    f = lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=(1, 2), dilation=(1, 2),
                                 groups=2)
    y = f(x, w, b)
    facts = FACTS["conv2d"]
    assert list(y.shape) == facts["shape"] and y.grad_fn.name() == "ConvolutionBackward0"
    assert_matches(y, facts["y"])
    gx, gw, gb = grads_with_and_without_graph(f, (x, w, b))
    assert_matches(gx, facts["gx"]), assert_matches(gw, facts["gw"])
    assert_matches(gb, facts["gb"])


@pytest.mark.task("11.3")
def test_conv2d_of_an_empty_batch_and_its_contiguous_output():
    # PyTorch 2.13: a batch of 0 gives a (0, C_out, *out) result, and backward gives zero
    # gradients for the weight and the bias; the output of a convolution is contiguous.
    x = torch.ones(0, 4, 5, 5, requires_grad=True)
    w = torch.ones(6, 2, 3, 3, requires_grad=True)
    b = torch.ones(6, requires_grad=True)
    y = F.conv2d(x, w, b, stride=2, padding=1, groups=2)
    assert tuple(y.shape) == (0, 6, 3, 3) and y.is_contiguous()
    y.sum().backward()
    assert tuple(x.grad.shape) == (0, 4, 5, 5)
    assert w.grad.abs().sum().item() == 0 and b.grad.tolist() == [0.0] * 6
    strided = values((2, 3, 6, 6)).transpose(2, 3)
    assert F.conv2d(strided, values((4, 3, 3, 3)), stride=2, dilation=2).is_contiguous()


@pytest.mark.task("11.3")
def test_conv2d_same_padding_with_an_even_kernel_matches_pytorch():
    # the extra padding of an even kernel goes at the end, as in PyTorch
    x, w = values((1, 2, 4, 5)), values((3, 2, 2, 3))
    y = F.conv2d(x, w, padding="same")
    assert list(y.shape) == FACTS["conv2d_same"]["shape"] == [1, 3, 4, 5]
    assert_matches(y, FACTS["conv2d_same"]["y"])
    gx, gw = grads_with_and_without_graph(lambda x, w: F.conv2d(x, w, padding="same"), (x, w))
    assert_matches(gx, FACTS["conv2d_same"]["gx"]), assert_matches(gw, FACTS["conv2d_same"]["gw"])
    assert F.conv2d(x, w, padding="valid").shape == (1, 3, 3, 3)


@pytest.mark.task("11.3")
def test_conv1d_matches_pytorch():
    x, w, b = values((2, 3, 7)), values((4, 3, 3)), values((4,))
    f = lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1, dilation=2)
    y = f(x, w, b)
    assert list(y.shape) == FACTS["conv1d"]["shape"]
    assert_matches(y, FACTS["conv1d"]["y"])
    gx, gw, gb = grads_with_and_without_graph(f, (x, w, b))
    facts = FACTS["conv1d"]
    assert_matches(gx, facts["gx"]), assert_matches(gw, facts["gw"])
    assert_matches(gb, facts["gb"])


@pytest.mark.task("11.3")
@pytest.mark.parametrize("dims", [1, 2])
@given(geometry=st.data())
def test_conv_matches_a_direct_loop(dims, geometry):
    g = geometry.draw(conv_geometries(dims=dims))
    rng = np.random.default_rng(0)
    x = rng.normal(size=(g["batch"], g["in_channels"], *g["spatial"]))
    w = rng.normal(size=(g["out_channels"], g["in_channels"] // g["groups"], *g["kernel"]))
    b = rng.normal(size=g["out_channels"])
    conv = F.conv1d if dims == 1 else F.conv2d
    y = conv(torch.tensor(x), torch.tensor(w), torch.tensor(b), g["stride"], g["padding"],
             g["dilation"], g["groups"])
    expected = conv_loop(x, w, b, g["stride"], g["padding"], g["dilation"], g["groups"])
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-10, atol=1e-10)


@pytest.mark.task("11.3")
@pytest.mark.parametrize("dims", [1, 2])
@settings(max_examples=12)          # second derivatives by finite differences are slow
@given(geometry=st.data())
def test_conv_gradcheck_and_gradgradcheck(dims, geometry):
    g = geometry.draw(conv_geometries(dims=dims, max_side=4))
    rng = np.random.default_rng(1)
    x = random_tensor(rng, (g["batch"], g["in_channels"], *g["spatial"]))
    w = random_tensor(rng, (g["out_channels"], g["in_channels"] // g["groups"], *g["kernel"]))
    b = random_tensor(rng, (g["out_channels"],))
    conv = F.conv1d if dims == 1 else F.conv2d
    f = lambda x, w, b: conv(x, w, b, g["stride"], g["padding"], g["dilation"], g["groups"])
    assert gradcheck(f, (x, w, b))
    assert gradgradcheck(f, (x, w, b))
    grads_with_and_without_graph(f, (x, w, b))


@pytest.mark.task("11.3")
def test_convolution_gradients_of_gradients_are_convolutions():
    x, w = values((1, 2, 4, 4)), values((3, 2, 2, 2))
    y = F.conv2d(x, w)
    gx, gw = torch.autograd.grad((y * y).sum(), (x, w), create_graph=True)
    assert gx.grad_fn.name() == "ConvolutionBackwardBackward0"
    assert gw.grad_fn is not None
    (gx.sum() + gw.sum()).backward()       # third-order terms: still convolutions
    assert x.grad.shape == x.shape and w.grad.shape == w.shape


@pytest.mark.task("11.3")
def test_unbatched_inputs_and_integer_tensors():
    w = values((4, 3, 3, 3), requires_grad=False)
    x = values((3, 6, 6), requires_grad=False)
    assert F.conv2d(x, w).shape == (4, 4, 4)
    assert F.conv2d(x, w).tolist() == F.conv2d(x.unsqueeze(0), w)[0].tolist()
    assert F.conv1d(values((3, 5)), values((4, 3, 2))).shape == (4, 4)
    ints = F.conv2d(torch.ones(1, 1, 3, 3, dtype=torch.int64),
                    torch.ones(1, 1, 2, 2, dtype=torch.int64))
    assert ints.dtype == torch.int64 and ints.tolist() == [[[[4, 4], [4, 4]]]]


# ----- pooling -------------------------------------------------------------------------------
def test_max_pool2d_matches_pytorch():
    x = values((1, 2, 5, 6))
    y, idx = F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, return_indices=True)
    facts = FACTS["maxpool"]
    assert list(y.shape) == facts["shape"] and idx.tolist() == np.reshape(
        facts["idx"], facts["shape"]).tolist()
    assert idx.dtype == torch.int64 and not idx.requires_grad and idx.grad_fn is None
    assert y.grad_fn.name() == "MaxPool2DWithIndicesBackward0"
    assert_matches(y, facts["y"])
    f = lambda x: F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True)
    assert_matches(grads_with_and_without_graph(f, (x,))[0], facts["gx"])
    x = values((1, 2, 5, 6))
    y, idx = F.max_pool2d(x, (2, 3), stride=(1, 2), dilation=(2, 1), return_indices=True)
    assert flat(idx).tolist() == FACTS["maxpool_dil"]["idx"]
    assert_matches(y, FACTS["maxpool_dil"]["y"])


@pytest.mark.parametrize("name, options", [
    ("avg", dict(kernel_size=3, stride=2, padding=1)),
    ("avg_ceil_excl", dict(kernel_size=3, stride=2, padding=1, ceil_mode=True,
                           count_include_pad=False)),
    ("avg_div", dict(kernel_size=2, stride=(1, 2), divisor_override=3)),
    ("avg_ceil_incl", dict(kernel_size=2, stride=2, ceil_mode=True)),
])
def test_avg_pool2d_matches_pytorch(name, options):
    x = values((1, 2, 5, 5))
    y = F.avg_pool2d(x, **options)
    assert list(y.shape) == FACTS[name]["shape"] and y.grad_fn.name() == "AvgPool2DBackward0"
    assert_matches(y, FACTS[name]["y"])
    gx, = grads_with_and_without_graph(lambda x: F.avg_pool2d(x, **options), (x,))
    assert_matches(gx, FACTS[name]["gx"])


def test_adaptive_avg_pool2d_matches_pytorch():
    x = values((1, 2, 5, 7))
    y = F.adaptive_avg_pool2d(x, (3, 4))
    assert list(y.shape) == FACTS["adaptive"]["shape"]
    assert y.grad_fn.name() == "AdaptiveAvgPool2DBackward0"
    assert_matches(y, FACTS["adaptive"]["y"])
    gx, = grads_with_and_without_graph(lambda x: F.adaptive_avg_pool2d(x, (3, 4)), (x,))
    assert_matches(gx, FACTS["adaptive"]["gx"])
    # to 1x1 PyTorch takes the mean (MeanBackward1); None keeps that input size
    assert F.adaptive_avg_pool2d(x, 1).grad_fn.name() == "MeanBackward1"
    assert F.adaptive_avg_pool2d(x, (None, 2)).shape == (1, 2, 5, 2)
    assert nn.AdaptiveAvgPool2d((None, 2))(x).shape == (1, 2, 5, 2)
    np.testing.assert_allclose(F.adaptive_avg_pool2d(x, (5, 7)).detach().numpy(),
                               x.detach().numpy())


def test_integer_pooling_truncates_like_pytorch():
    x = torch.tensor([[[[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]]]])
    assert F.avg_pool2d(x, 2).tolist() == [[[[4, 6]]]]
    assert F.avg_pool2d(-x, 2).tolist() == [[[[-4, -6]]]]
    assert F.avg_pool2d(x, 2, ceil_mode=True).tolist() == [[[[4, 6, 7]]]]
    assert F.max_pool2d(x, 2).dtype == torch.int64 and F.max_pool2d(x, 2).tolist() == [[[[7, 9]]]]


def test_max_pool_picks_the_first_maximum_and_propagates_nan():
    x = torch.tensor([[[[1.0, 3.0], [3.0, 0.0]]]], requires_grad=True)
    y, idx = F.max_pool2d(x, 2, return_indices=True)
    assert idx.tolist() == [[[[1]]]]
    y.sum().backward()
    assert x.grad.tolist() == [[[[0.0, 1.0], [0.0, 0.0]]]]
    nan = F.max_pool2d(torch.tensor([[[[1.0, float("nan")], [5.0, 0.0]]]]), 2)
    assert math.isnan(nan.item())


@given(geometry=pool_geometries())
def test_max_pool_matches_a_direct_loop_and_gradchecks(geometry):
    g = geometry
    rng = np.random.default_rng(2)
    data = rng.permutation(g["batch"] * g["channels"] * math.prod(g["spatial"])).astype(float)
    data = data.reshape(g["batch"], g["channels"], *g["spatial"])   # distinct: no ties
    x = torch.tensor(data, requires_grad=True)
    f = lambda x: F.max_pool2d(x, g["kernel"], g["stride"], g["padding"], g["dilation"],
                               g["ceil_mode"])
    y, idx = F.max_pool2d(x, g["kernel"], g["stride"], g["padding"], g["dilation"],
                          g["ceil_mode"], return_indices=True)
    expected, expected_idx = max_pool_loop(data, g["kernel"], g["stride"], g["padding"],
                                           g["dilation"], g["ceil_mode"])
    np.testing.assert_array_equal(y.detach().numpy(), expected)
    np.testing.assert_array_equal(idx.numpy(), expected_idx)
    if np.isfinite(expected).all():        # (a window of padding only gives -inf)
        assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))
        grads_with_and_without_graph(f, (x,))


def test_a_max_pool_window_of_padding_only_is_minus_infinity_as_in_pytorch():
    x = torch.tensor([[[[5.0]]]], requires_grad=True)
    y, idx = F.max_pool2d(x, (1, 2), stride=1, padding=(0, 1), dilation=(1, 2),
                          return_indices=True)
    assert y.tolist() == [[[[-math.inf]]]] and idx.tolist() == [[[[1]]]]
    y.sum().backward()
    assert x.grad.tolist() == [[[[0.0]]]]
    _, idx = F.max_pool2d(torch.tensor([[[[5.0, 6.0]]]]), (1, 2), stride=1, padding=(0, 1),
                          dilation=(1, 3), return_indices=True)
    assert idx.tolist() == [[[[2]]]]


@given(geometry=pool_geometries(dilation=False), include=st.booleans())
def test_avg_pool_matches_a_direct_loop_and_gradchecks(geometry, include):
    g = geometry
    rng = np.random.default_rng(3)
    data = rng.normal(size=(g["batch"], g["channels"], *g["spatial"]))
    x = torch.tensor(data, requires_grad=True)
    f = lambda x: F.avg_pool2d(x, g["kernel"], g["stride"], g["padding"], g["ceil_mode"],
                               include)
    expected = avg_pool_loop(data, g["kernel"], g["stride"], g["padding"], g["ceil_mode"],
                             include)
    np.testing.assert_allclose(f(x).detach().numpy(), expected, rtol=1e-12, atol=1e-12)
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))
    grads_with_and_without_graph(f, (x,))


@given(sizes=st.tuples(st.integers(1, 6), st.integers(1, 6)),
       out=st.tuples(st.integers(1, 4), st.integers(1, 4)))
def test_adaptive_avg_pool_windows_and_gradchecks(sizes, out):
    rng = np.random.default_rng(4)
    data = rng.normal(size=(1, 2, *sizes))
    x = torch.tensor(data, requires_grad=True)
    y = F.adaptive_avg_pool2d(x, out)
    for i, j in itertools.product(range(out[0]), range(out[1])):
        rows = slice(i * sizes[0] // out[0], -(-(i + 1) * sizes[0] // out[0]))
        cols = slice(j * sizes[1] // out[1], -(-(j + 1) * sizes[1] // out[1]))
        np.testing.assert_allclose(y.detach().numpy()[:, :, i, j],
                                   data[:, :, rows, cols].mean(axis=(2, 3)), rtol=1e-12,
                                   atol=1e-14)
    f = lambda x: F.adaptive_avg_pool2d(x, out)
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))


# ----- padding -------------------------------------------------------------------------------
@pytest.mark.parametrize("mode, node", [("reflect", "ReflectionPad2DBackward0"),
                                        ("replicate", "ReplicationPad2DBackward0"),
                                        ("circular", "CircularPadBackward0")])
def test_pad_modes_match_pytorch(mode, node):
    x = values((1, 2, 3, 4))
    y = F.pad(x, (2, 1, 1, 2), mode=mode)
    facts = FACTS["pad_" + mode]
    assert list(y.shape) == facts["shape"] and y.grad_fn.name() == node
    assert_matches(y, facts["y"])
    gx, = grads_with_and_without_graph(lambda x: F.pad(x, (2, 1, 1, 2), mode=mode), (x,))
    assert_matches(gx, facts["gx"])


def test_constant_pad_crops_with_negative_amounts_like_pytorch():
    x = values((1, 2, 3, 4))
    y = F.pad(x, (1, -1, 2, 0), value=0.5)
    assert list(y.shape) == FACTS["pad_constant"]["shape"] and y.grad_fn.name() == \
        "ConstantPadNdBackward0"
    assert_matches(y, FACTS["pad_constant"]["y"])
    gx, = grads_with_and_without_graph(lambda x: F.pad(x, (1, -1, 2, 0), value=0.5), (x,))
    assert_matches(gx, FACTS["pad_constant"]["gx"])


def test_pad_values_in_one_dimension():
    row = torch.arange(4.0).reshape(1, 4)
    assert F.pad(row, (2, 1), mode="reflect").tolist() == [[2.0, 1.0, 0.0, 1.0, 2.0, 3.0, 2.0]]
    assert F.pad(row, (2, 1), mode="replicate").tolist() == [[0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 3.0]]
    assert F.pad(row, (2, 1), mode="circular").tolist() == [[2.0, 3.0, 0.0, 1.0, 2.0, 3.0, 0.0]]
    assert F.pad(torch.ones(2, 3), (1, 1), value=2).tolist() == [[2.0, 1.0, 1.0, 1.0, 2.0]] * 2
    assert F.pad(torch.tensor([[1, 2]]), (1, 1), value=0.5).tolist() == [[0, 1, 2, 0]]
    assert F.pad(row, (0, 0)) is not row


@given(pads=st.tuples(*[st.integers(0, 2)] * 4), mode=st.sampled_from(
    ["constant", "reflect", "replicate", "circular"]))
def test_pad_gradcheck(pads, mode):
    x = random_tensor(np.random.default_rng(5), (1, 2, 3, 4))
    f = lambda x: F.pad(x, pads, mode=mode)
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))


# ----- the layers ------------------------------------------------------------------------------
def test_conv_layers_parameters_and_initialisation():
    torch.manual_seed(0)
    conv = nn.Conv2d(3, 6, (3, 5), stride=2, groups=3)
    assert conv.weight.shape == (6, 1, 3, 5) and conv.bias.shape == (6,)
    assert list(conv.state_dict()) == ["weight", "bias"]
    assert (conv.kernel_size, conv.stride, conv.padding, conv.dilation) == ((3, 5), (2, 2),
                                                                            (0, 0), (1, 1))
    bound = 1 / math.sqrt(1 * 3 * 5)          # fan_in = in_channels / groups * kernel area
    assert float(conv.weight.abs().max()) <= bound and float(conv.bias.abs().max()) <= bound
    assert nn.Conv1d(2, 4, 3, bias=False).bias is None
    assert nn.Conv1d(2, 4, 3).weight.shape == (4, 2, 3)
    assert nn.Conv2d(3, 6, 4, padding="same").weight.shape == (6, 3, 4, 4)


@pytest.mark.parametrize("layer, text", [
    (lambda: nn.Conv1d(1, 2, 3), "Conv1d(1, 2, kernel_size=(3,), stride=(1,))"),
    (lambda: nn.Conv1d(2, 4, 3, stride=2, padding=1, dilation=2, groups=2, bias=False),
     "Conv1d(2, 4, kernel_size=(3,), stride=(2,), padding=(1,), dilation=(2,), groups=2, "
     "bias=False)"),
    (lambda: nn.Conv2d(1, 6, 5), "Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1))"),
    (lambda: nn.Conv2d(3, 6, (3, 5), stride=(2, 1), padding=(1, 2)),
     "Conv2d(3, 6, kernel_size=(3, 5), stride=(2, 1), padding=(1, 2))"),
    (lambda: nn.Conv2d(3, 6, 3, padding="same"),
     "Conv2d(3, 6, kernel_size=(3, 3), stride=(1, 1), padding=same)"),
    (lambda: nn.Conv2d(3, 6, 3, padding="valid"),
     "Conv2d(3, 6, kernel_size=(3, 3), stride=(1, 1), padding=valid)"),
    (lambda: nn.Conv2d(4, 4, 3, groups=2, dilation=2),
     "Conv2d(4, 4, kernel_size=(3, 3), stride=(1, 1), dilation=(2, 2), groups=2)"),
    (lambda: nn.Conv2d(3, 6, 3, padding_mode="reflect"),
     "Conv2d(3, 6, kernel_size=(3, 3), stride=(1, 1), padding_mode=reflect)"),
    (lambda: nn.Conv2d(3, 6, 3, padding=1, padding_mode="circular"),
     "Conv2d(3, 6, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), padding_mode=circular)"),
    (lambda: nn.MaxPool2d(2), "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, "
                              "ceil_mode=False)"),
    (lambda: nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True),
     "MaxPool2d(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=True)"),
    (lambda: nn.MaxPool2d((2, 3), return_indices=True),
     "MaxPool2d(kernel_size=(2, 3), stride=(2, 3), padding=0, dilation=1, ceil_mode=False)"),
    (lambda: nn.AvgPool2d(2), "AvgPool2d(kernel_size=2, stride=2, padding=0)"),
    (lambda: nn.AvgPool2d(3, stride=1, padding=1, ceil_mode=True, count_include_pad=False,
                          divisor_override=2), "AvgPool2d(kernel_size=3, stride=1, padding=1)"),
    (lambda: nn.AdaptiveAvgPool2d((5, 7)), "AdaptiveAvgPool2d(output_size=(5, 7))"),
    (lambda: nn.AdaptiveAvgPool2d(1), "AdaptiveAvgPool2d(output_size=1)"),
    (lambda: nn.AdaptiveAvgPool2d((None, 2)), "AdaptiveAvgPool2d(output_size=(None, 2))"),
])
def test_layers_print_as_in_pytorch(layer, text):
    assert repr(layer()) == text


@pytest.mark.task("11.3")
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_conv_padding_modes_pad_first(mode):
    torch.manual_seed(0)
    conv = nn.Conv2d(2, 3, 3, padding=1, padding_mode=mode).double()
    x = values((1, 2, 4, 5))
    expected = F.conv2d(F.pad(x, (1, 1, 1, 1), mode=mode), conv.weight, conv.bias)
    np.testing.assert_allclose(conv(x).detach().numpy(), expected.detach().numpy())
    same = nn.Conv2d(2, 3, (2, 3), padding="same", padding_mode=mode).double()
    assert same(x).shape == (1, 3, 4, 5)


def test_maxpool_layer_returns_indices_when_asked():
    out, idx = nn.MaxPool2d(2, return_indices=True)(values((1, 1, 4, 4)))
    assert out.shape == idx.shape == (1, 1, 2, 2) and idx.dtype == torch.int64


def lenet():
    return nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                         nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                         nn.Linear(84, 10))


@pytest.mark.task("11.3")
def test_lenet_forward_and_backward_on_a_batch_of_images():
    torch.manual_seed(0)
    net = lenet()
    assert sum(p.numel() for p in net.parameters()) == 61706        # as PyTorch counts them
    x = torch.randn(64, 1, 28, 28)
    labels = torch.randint(0, 10, (64,))
    loss = F.cross_entropy(net(x), labels)
    loss.backward()
    assert all(p.grad is not None and p.grad.shape == p.shape for p in net.parameters())
    optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
    small, small_labels = x[:8], labels[:8]
    first = F.cross_entropy(net(small), small_labels).item()
    for _ in range(5):                  # it learns: the loss on this batch goes down
        optimizer.zero_grad()
        step_loss = F.cross_entropy(net(small), small_labels)
        step_loss.backward()
        optimizer.step()
    assert step_loss.item() < first
