"""The layers, activations and losses PyTorch's tutorials use beyond the book's core
(LeakyReLU, GELU, ELU, Softplus, LayerNorm, BatchNorm2d, Embedding, Dropout2d, the binary
cross-entropies, L1, smooth L1, Huber, NLL, one_hot): values against numpy and against
PyTorch 2.13's numbers (tests/nn/pytorch_facts_chapter11.py), gradcheck and gradgradcheck in
float64, the nodes they record, and how the layers print."""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck
from tests.nn.pytorch_facts_chapter11 import FACTS
from tests.nn.test_layers_chapter11 import assert_matches, grads_with_and_without_graph, values
from tests.strategies import arrays, away_from, shapes

pytestmark = [pytest.mark.tutorials, pytest.mark.chapter10]


def name(t):
    return t.grad_fn.name() if t.grad_fn is not None else None


# ----- activations -----------------------------------------------------------------------------
ACTIVATIONS = {
    "gelu": lambda a: F.gelu(a),
    "gelu_tanh": lambda a: F.gelu(a, approximate="tanh"),
    "elu": lambda a: F.elu(a, 0.7),
    "leaky": lambda a: F.leaky_relu(a, 0.2),
    "softplus": lambda a: F.softplus(a, 2.0, 1.0),
    "softplus_default": lambda a: F.softplus(a),
}


@pytest.mark.parametrize("key", sorted(ACTIVATIONS))
def test_activations_match_pytorch(key):
    v = values((11,))
    assert_matches(v, FACTS["act_input"])
    assert_matches(ACTIVATIONS[key](v), FACTS["act_" + key]["y"], tol=1e-11)
    g, = grads_with_and_without_graph(ACTIVATIONS[key], (v,))
    assert_matches(g, FACTS["act_" + key]["g"], tol=1e-11)


def test_activations_against_numpy():
    x = np.linspace(-4, 4, 17)
    t = torch.tensor(x)
    erf = np.vectorize(math.erf)
    np.testing.assert_allclose(F.gelu(t).numpy(), x * 0.5 * (1 + erf(x / math.sqrt(2))))
    tanh_form = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    np.testing.assert_allclose(F.gelu(t, approximate="tanh").numpy(), tanh_form)
    np.testing.assert_allclose(F.elu(t, 0.5).numpy(), np.where(x > 0, x, 0.5 * np.expm1(x)))
    np.testing.assert_allclose(F.leaky_relu(t).numpy(), np.where(x > 0, x, 0.01 * x))
    np.testing.assert_allclose(F.softplus(t, beta=3).numpy(), np.log1p(np.exp(3 * x)) / 3)


def test_activation_values_pytorch_prints():
    gelu32 = F.gelu(torch.tensor([1.0, 2.0]))
    assert gelu32.dtype == torch.float32
    np.testing.assert_allclose(gelu32.tolist(), [0.8413447141647339, 1.9544997215270996],
                               rtol=1e-6)
    assert F.softplus(torch.tensor([30.0]))[0].item() == 30.0         # past the threshold: x
    np.testing.assert_allclose(F.softplus(torch.tensor([-30.0])).item(), 9.357622912219837e-14,
                               rtol=1e-5)
    assert F.elu(torch.tensor([-100.0])).tolist() == [-1.0]


@pytest.mark.parametrize("key", sorted(ACTIVATIONS))
@given(data=st.data())
def test_activations_gradcheck(key, data):
    shape = data.draw(shapes(min_dims=0, max_dims=3))
    x = data.draw(arrays(shape, low=-4.0, high=4.0))
    x = away_from(x, [0.0, 0.5])         # kinks: 0, and softplus(beta=2, threshold=1) at 0.5
    t = torch.tensor(x, requires_grad=True)
    assert gradcheck(ACTIVATIONS[key], (t,))
    assert gradgradcheck(ACTIVATIONS[key], (t,))


@pytest.mark.parametrize("function, node, slope", [
    (lambda y: F.leaky_relu(y, inplace=True), "LeakyReluBackward1", 0.01),
    (lambda y: F.elu(y, inplace=True), "EluBackward1", math.exp(-1.0)),
    (lambda y: nn.LeakyReLU(0.1, inplace=True)(y), "LeakyReluBackward1", 0.1),
    (lambda y: nn.ELU(inplace=True)(y), "EluBackward1", math.exp(-1.0)),
])
def test_in_place_activations_change_their_input(function, node, slope):
    x = torch.tensor([-1.0, 0.5, 2.0], dtype=torch.float64, requires_grad=True)
    y = x * 1
    z = function(y)
    assert z is y and name(z) == node and y._version == 1
    z.sum().backward()          # the derivative read from the result
    np.testing.assert_allclose(x.grad.tolist(), [slope, 1.0, 1.0])


def test_in_place_leaky_relu_with_a_negative_slope_fails_in_backward():
    y = -torch.ones(3, requires_grad=True) * 1
    z = F.leaky_relu(y, -0.5, inplace=True)
    with pytest.raises(RuntimeError, match="In-place leakyReLu backward calculation is "
                                           "triggered with a negative slope"):
        z.sum().backward()


@pytest.mark.parametrize("layer, text", [
    (lambda: nn.Softmax(dim=1), "Softmax(dim=1)"),
    (lambda: nn.Softmax(), "Softmax(dim=None)"),
    (lambda: nn.LogSoftmax(dim=-1), "LogSoftmax(dim=-1)"),
    (lambda: nn.LeakyReLU(), "LeakyReLU(negative_slope=0.01)"),
    (lambda: nn.LeakyReLU(0.2, inplace=True), "LeakyReLU(negative_slope=0.2, inplace=True)"),
    (lambda: nn.GELU(), "GELU(approximate='none')"),
    (lambda: nn.GELU(approximate="tanh"), "GELU(approximate='tanh')"),
    (lambda: nn.ELU(), "ELU(alpha=1.0)"),
    (lambda: nn.ELU(alpha=0.5, inplace=True), "ELU(alpha=0.5, inplace=True)"),
    (lambda: nn.Softplus(), "Softplus(beta=1.0, threshold=20.0)"),
    (lambda: nn.Softplus(beta=2, threshold=10), "Softplus(beta=2, threshold=10)"),
    (lambda: nn.Embedding(10, 3), "Embedding(10, 3)"),
    (lambda: nn.Embedding(10, 3, padding_idx=0, max_norm=1.0),
     "Embedding(10, 3, padding_idx=0, max_norm=1.0)"),
    (lambda: nn.Embedding(10, 3, scale_grad_by_freq=True, sparse=True),
     "Embedding(10, 3, scale_grad_by_freq=True, sparse=True)"),
    (lambda: nn.LayerNorm(5), "LayerNorm((5,), eps=1e-05, elementwise_affine=True, bias=True)"),
    (lambda: nn.LayerNorm((2, 3), eps=1e-6, elementwise_affine=False),
     "LayerNorm((2, 3), eps=1e-06, elementwise_affine=False, bias=False)"),
    (lambda: nn.LayerNorm(4, bias=False),
     "LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=False)"),
    (lambda: nn.BatchNorm2d(3), "BatchNorm2d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, "
                                "track_running_stats=True)"),
    (lambda: nn.BatchNorm2d(3, affine=False, momentum=None),
     "BatchNorm2d(3, eps=1e-05, momentum=None, affine=False, bias=False, "
     "track_running_stats=True)"),
    (lambda: nn.Dropout2d(), "Dropout2d(p=0.5, inplace=False)"),
    (lambda: nn.Dropout2d(0.2, inplace=True), "Dropout2d(p=0.2, inplace=True)"),
    (lambda: nn.BCELoss(), "BCELoss()"),
    (lambda: nn.BCEWithLogitsLoss(pos_weight=torch.ones(2)), "BCEWithLogitsLoss()"),
    (lambda: nn.NLLLoss(ignore_index=1), "NLLLoss()"),
    (lambda: nn.L1Loss(), "L1Loss()"),
    (lambda: nn.SmoothL1Loss(beta=0.5), "SmoothL1Loss()"),
    (lambda: nn.HuberLoss(delta=2.0, reduction="sum"), "HuberLoss()"),
])
def test_layers_print_as_in_pytorch(layer, text):
    assert repr(layer()) == text


# ----- losses ------------------------------------------------------------------------------------
def bce_inputs():
    p = torch.tensor([0.1, 0.5, 0.9, 0.3, 0.999, 1e-4], dtype=torch.float64, requires_grad=True)
    t = torch.tensor([0.0, 1.0, 1.0, 0.25, 0.0, 1.0], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([1.0, 2.0, 0.5, 1.5, 1.0, 3.0], dtype=torch.float64)
    return p, t, w


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_cross_entropy_matches_pytorch(reduction):
    p, t, w = bce_inputs()
    f = lambda p, t: F.binary_cross_entropy(p, t, weight=w, reduction=reduction)
    loss = f(p, t)
    assert name(loss) == "BinaryCrossEntropyBackward0"
    assert_matches(loss, FACTS["bce_" + reduction]["l"])
    loss.sum().backward()
    assert_matches(p.grad, FACTS["bce_" + reduction]["gp"])
    assert_matches(t.grad, FACTS["bce_" + reduction]["gt"])
    grads_with_and_without_graph(f, (p, t))


def test_binary_cross_entropy_clamps_its_logs_at_minus_100():
    assert F.binary_cross_entropy(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.0])).item() \
        == 100.0


@pytest.mark.parametrize("key, options", [("bcel_mean", "mean"), ("bcel_sum", "sum"),
                                          ("bcel_plain", None)])
def test_binary_cross_entropy_with_logits_matches_pytorch(key, options):
    _, t, w = bce_inputs()
    z = torch.tensor([-3.0, -0.5, 0.0, 0.5, 2.0, 40.0], dtype=torch.float64, requires_grad=True)
    pw = torch.tensor([2.0, 1.0, 0.5, 3.0, 1.0, 1.0], dtype=torch.float64)
    if options is None:
        f = lambda z, t: F.binary_cross_entropy_with_logits(z, t)
    else:
        f = lambda z, t: F.binary_cross_entropy_with_logits(z, t, weight=w, pos_weight=pw,
                                                            reduction=options)
    loss = f(z, t)
    assert name(loss) == "BinaryCrossEntropyWithLogitsBackward0"
    assert_matches(loss, FACTS[key]["l"])
    loss.backward()
    assert_matches(z.grad, FACTS[key]["gz"]), assert_matches(t.grad, FACTS[key]["gt"])
    grads_with_and_without_graph(f, (z, t))
    assert F.binary_cross_entropy_with_logits(torch.tensor([100.0, -100.0]),
                                              torch.tensor([0.0, 1.0])).item() == 100.0


REGRESSION = {
    "l1": lambda a, c: F.l1_loss(a, c),
    "sl1": lambda a, c: F.smooth_l1_loss(a, c, beta=0.5),
    "sl1_sum": lambda a, c: F.smooth_l1_loss(a, c, reduction="sum"),
    "huber": lambda a, c: F.huber_loss(a, c, delta=2.0),
    "huber_none": lambda a, c: F.huber_loss(a, c, reduction="none", delta=0.5),
    "mse_w": lambda a, c: F.mse_loss(a, c, weight=torch.tensor([1.0, 2, 3, 4, 5],
                                                               dtype=torch.float64)),
    "l1_w": lambda a, c: F.l1_loss(a, c, weight=torch.tensor([1.0, 2, 3, 4, 5],
                                                             dtype=torch.float64)),
    "huber_w": lambda a, c: F.huber_loss(a, c, weight=torch.tensor([1.0, 2, 3, 4, 5],
                                                                   dtype=torch.float64)),
}


@pytest.mark.parametrize("key", sorted(REGRESSION))
def test_regression_losses_match_pytorch(key):
    a = torch.tensor([0.2, -1.5, 3.0, 0.4, -0.1], dtype=torch.float64, requires_grad=True)
    c = torch.tensor([0.0, 0.0, 1.0, 0.5, 0.3], dtype=torch.float64, requires_grad=True)
    loss = REGRESSION[key](a, c)
    assert_matches(loss, FACTS["loss_" + key]["l"])
    loss.sum().backward()
    assert_matches(a.grad, FACTS["loss_" + key]["ga"])
    assert_matches(c.grad, FACTS["loss_" + key]["gc"])


@pytest.mark.parametrize("loss, node", [
    (lambda a, c: F.l1_loss(a, c), "MeanBackward0"),
    (lambda a, c: nn.L1Loss(reduction="sum")(a, c), "SumBackward0"),
    (lambda a, c: nn.L1Loss(reduction="none")(a, c), "AbsBackward0"),
    (lambda a, c: nn.SmoothL1Loss()(a, c), "SmoothL1LossBackward0"),
    (lambda a, c: nn.SmoothL1Loss(reduction="none")(a, c), "SmoothL1LossBackward0"),
    (lambda a, c: nn.SmoothL1Loss(beta=0)(a, c), "MeanBackward0"),         # beta 0: L1
    (lambda a, c: nn.HuberLoss()(a, c), "HuberLossBackward0"),
    (lambda a, c: F.mse_loss(a, c, weight=torch.ones(2)), "DivBackward0"),
    (lambda a, c: nn.BCELoss()(a.sigmoid(), c.clamp(0, 1)), "BinaryCrossEntropyBackward0"),
    (lambda a, c: nn.BCEWithLogitsLoss()(a, c), "BinaryCrossEntropyWithLogitsBackward0"),
])
def test_loss_nodes(loss, node):
    a = torch.tensor([1.0, -2.0], requires_grad=True)
    assert name(loss(a, torch.tensor([0.0, 1.0]))) == node


@pytest.mark.parametrize("loss", ["sl1", "huber", "huber_none", "bce", "bcel", "bcel_pw"])
@given(data=st.data())
def test_losses_gradcheck(loss, data):
    shape = data.draw(shapes(min_dims=1, max_dims=2))
    x = data.draw(arrays(shape, low=-2.0, high=2.0))
    t = data.draw(arrays(shape, low=0.05, high=0.95))
    if loss in ("bce",):
        x = 1 / (1 + np.exp(-x))               # probabilities
    if loss.startswith(("sl1", "huber")):
        x = t + away_from(x - t, [-1, 1, -0.5, 0.5])     # off the kinks of |d| = beta, delta
    xt, tt = torch.tensor(x, requires_grad=True), torch.tensor(t, requires_grad=True)
    pw = torch.tensor(data.draw(arrays(shape[-1:], low=0.5, high=2.0)))
    f = {"sl1": lambda x, t: F.smooth_l1_loss(x, t),
         "huber": lambda x, t: F.huber_loss(x, t, delta=0.5, reduction="sum"),
         "huber_none": lambda x, t: F.huber_loss(x, t, reduction="none"),
         "bce": lambda x, t: F.binary_cross_entropy(x, t),
         "bcel": lambda x, t: F.binary_cross_entropy_with_logits(x, t, reduction="sum"),
         "bcel_pw": lambda x, t: F.binary_cross_entropy_with_logits(x, t, pos_weight=pw)}[loss]
    assert gradcheck(f, (xt, tt)) and gradgradcheck(f, (xt, tt))


def test_loss_modules_pass_their_options():
    a, c = values((4,)), values((4,), requires_grad=False) * 0.5
    assert nn.SmoothL1Loss(beta=0.5)(a, c).item() == F.smooth_l1_loss(a, c, beta=0.5).item()
    assert nn.HuberLoss(delta=2.0, reduction="sum")(a, c).item() == \
        F.huber_loss(a, c, "sum", 2.0).item()
    logits = values((3, 4))
    logp = F.log_softmax(logits, dim=1)
    target = torch.tensor([0, 3, 1])
    weight = torch.tensor([1.0, 2.0, 0.5, 1.0], dtype=torch.float64)
    assert nn.NLLLoss(weight=weight, ignore_index=3)(logp, target).item() == \
        F.nll_loss(logp, target, weight=weight, ignore_index=3).item()
    assert list(nn.NLLLoss(weight=weight).state_dict()) == ["weight"]
    assert list(nn.BCELoss(weight=torch.ones(2)).state_dict()) == ["weight"]
    assert list(nn.BCEWithLogitsLoss(pos_weight=torch.ones(2)).state_dict()) == ["pos_weight"]
    with pytest.warns(UserWarning, match="please use reduction='sum' instead"):
        assert nn.L1Loss(size_average=False)(a, c).item() == F.l1_loss(a, c, reduction="sum"
                                                                        ).item()


def test_weighted_losses_must_match_the_input_shape():
    with pytest.raises(ValueError, match="Weights and input must have the same size."):
        F.mse_loss(torch.ones(2), torch.ones(2), weight=torch.ones(3))


# ----- one_hot, dropout2d -----------------------------------------------------------------------
def test_one_hot():
    out = F.one_hot(torch.tensor([[0, 2], [1, 1]]))
    assert out.dtype == torch.int64 and out.tolist() == [[[1, 0, 0], [0, 0, 1]],
                                                         [[0, 1, 0], [0, 1, 0]]]
    assert F.one_hot(torch.tensor([3]), 5).tolist() == [[0, 0, 0, 1, 0]]
    assert F.one_hot(torch.tensor(2), 3).tolist() == [0, 0, 1]
    assert F.one_hot(torch.tensor([], dtype=torch.int64), 3).shape == (0, 3)


def test_dropout2d_zeroes_whole_channels():
    torch.manual_seed(0)
    x = torch.ones(4, 8, 3, 3, requires_grad=True)
    y = F.dropout2d(x, 0.5)
    assert name(y) == "MulBackward0" and set(y.detach().reshape(-1).tolist()) <= {0.0, 2.0}
    per_channel = y.detach().numpy().reshape(4, 8, 9)
    assert (per_channel == per_channel[:, :, :1]).all()        # one value per channel
    assert F.dropout2d(x, training=False) is x and F.dropout2d(x, 0.0) is x
    assert nn.Dropout2d(0.3).eval()(x) is x
    assert F.dropout2d(x, 1.0).detach().sum().item() == 0.0
    with pytest.warns(UserWarning, match="Received a 3D input to dropout2d"):
        assert F.dropout2d(torch.ones(2, 3, 4)).shape == (2, 3, 4)
    with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d"):
        F.dropout2d(torch.ones(3, 4))


# ----- normalisation ---------------------------------------------------------------------------
def test_layer_norm_matches_pytorch():
    x, w, b = values((2, 3, 4)), values((3, 4)), values((3, 4))
    f = lambda x, w, b: F.layer_norm(x, (3, 4), w * 0.5 + 1, b, eps=1e-5)
    y = f(x, w, b)
    assert name(y) == "NativeLayerNormBackward0"
    assert_matches(y, FACTS["layer_norm"]["y"])
    (y * y * y).sum().backward()
    facts = FACTS["layer_norm"]
    assert_matches(x.grad, facts["gx"]), assert_matches(w.grad, facts["gw"])
    assert_matches(b.grad, facts["gb"])
    x = values((2, 5))
    y = F.layer_norm(x, (5,))
    assert_matches(y, FACTS["layer_norm_plain"]["y"])
    (y * torch.arange(10.0, dtype=torch.float64).reshape(2, 5)).sum().backward()
    assert_matches(x.grad, FACTS["layer_norm_plain"]["gx"])
    assert F.layer_norm(torch.ones(2, 3), (3,)).tolist() == [[0.0] * 3] * 2


@given(data=st.data(), affine=st.booleans())
def test_layer_norm_gradcheck(data, affine):
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=2))
    n = data.draw(st.integers(1, len(shape)))
    x = torch.tensor(data.draw(arrays(shape)), requires_grad=True)
    w = torch.tensor(data.draw(arrays(shape[-n:])), requires_grad=True)
    b = torch.tensor(data.draw(arrays(shape[-n:])), requires_grad=True)
    if affine:
        f = lambda x, w, b: F.layer_norm(x, shape[-n:], w, b)
        inputs = (x, w, b)
    else:
        f = lambda x: F.layer_norm(x, shape[-n:])
        inputs = (x,)
    assert gradcheck(f, inputs) and gradgradcheck(f, inputs)
    grads_with_and_without_graph(f, inputs)


def test_layer_norm_module():
    ln = nn.LayerNorm((3, 4))
    assert list(ln.state_dict()) == ["weight", "bias"] and ln.weight.shape == (3, 4)
    assert ln.weight.tolist() == [[1.0] * 4] * 3 and ln.bias.tolist() == [[0.0] * 4] * 3
    x = values((2, 3, 4), requires_grad=False).float()
    np.testing.assert_allclose(ln(x).detach().numpy(), F.layer_norm(x, (3, 4)).numpy())
    assert nn.LayerNorm(4, elementwise_affine=False).weight is None


def test_batch_norm_2d_matches_pytorch():
    bn = nn.BatchNorm2d(2).double()
    x = values((3, 2, 2, 2))
    y = bn(x)
    assert name(y) == "NativeBatchNormBackward0"
    assert_matches(y, FACTS["bn2d"]["y"], tol=1e-7)
    (y * y * y).sum().backward()
    facts = FACTS["bn2d"]
    assert_matches(x.grad, facts["gx"], tol=1e-6)
    assert_matches(bn.running_mean, facts["rm"]), assert_matches(bn.running_var, facts["rv"])
    assert_matches(bn.weight.grad, facts["gw"], tol=1e-7)
    assert_matches(bn.bias.grad, facts["gb"], tol=1e-7)
    assert list(bn.state_dict()) == ["weight", "bias", "running_mean", "running_var",
                                     "num_batches_tracked"]
    out = nn.BatchNorm2d(2).eval()(torch.ones(1, 2, 1, 1))
    np.testing.assert_allclose(out.detach().numpy().ravel(), [0.9999949932098389] * 2, rtol=1e-6)


# ----- embedding ------------------------------------------------------------------------------
def test_embedding_matches_pytorch():
    table = values((5, 3))
    idx = torch.tensor([[0, 2, 2], [4, 1, 2]])
    f = lambda table: F.embedding(idx, table, padding_idx=2, scale_grad_by_freq=True)
    y = f(table)
    assert name(y) == "EmbeddingBackward0" and y.shape == (2, 3, 3)
    assert_matches(y, FACTS["embedding"]["y"])
    g, = grads_with_and_without_graph(f, (table,))
    assert_matches(g, FACTS["embedding"]["gE"])


def test_embedding_max_norm_renormalises_the_rows_used_in_place():
    table = values((5, 3), requires_grad=False).clone().requires_grad_()
    version = table._version
    y = F.embedding(torch.tensor([1, 3, 3]), table, max_norm=1.5)
    assert table._version > version
    assert_matches(y, FACTS["embedding_max_norm"]["y"])
    assert_matches(table, FACTS["embedding_max_norm"]["E"])
    y.sum().backward()
    assert_matches(table.grad, FACTS["embedding_max_norm"]["gE"])


@given(data=st.data())
def test_embedding_gradcheck(data):
    n_rows = data.draw(st.integers(1, 5))
    idx = torch.tensor(data.draw(st.lists(st.integers(0, n_rows - 1), min_size=1, max_size=6)))
    padding = data.draw(st.one_of(st.none(), st.integers(0, n_rows - 1)))
    by_freq = data.draw(st.booleans())
    table = torch.tensor(data.draw(arrays((n_rows, 2))), requires_grad=True)
    f = lambda table: F.embedding(idx, table, padding_idx=padding, scale_grad_by_freq=by_freq)
    # padding_idx and scale_grad_by_freq change the gradient on purpose (as in PyTorch):
    # it is then no longer the derivative, and only its own derivative can be checked
    assert by_freq or padding is not None or gradcheck(f, (table,))
    assert gradgradcheck(f, (table,))


def test_embedding_module():
    torch.manual_seed(0)
    emb = nn.Embedding(5, 3, padding_idx=1)
    assert emb.weight[1].tolist() == [0.0, 0.0, 0.0] and list(emb.state_dict()) == ["weight"]
    assert emb(torch.tensor([[1], [2]])).shape == (2, 1, 3) and emb(torch.tensor(1)).shape == (3,)
    assert nn.Embedding(3, 2, padding_idx=-1).padding_idx == 2
    frozen = nn.Embedding.from_pretrained(torch.ones(4, 2))
    assert not frozen.weight.requires_grad and repr(frozen) == "Embedding(4, 2)"
    assert nn.Embedding.from_pretrained(torch.ones(4, 2), freeze=False).weight.requires_grad
    assert emb(torch.tensor([0, 1], dtype=torch.int32)).shape == (2, 3)
