"""Part V, attention: ``F.scaled_dot_product_attention``, ``nn.MultiheadAttention`` and the
transformer layers give PyTorch 2.13's values, gradients, parameter names, node names
and errors.  Values: ``seq_cases.py`` run on both (PyTorch's stored in
``data/seq_pytorch.npz``); facts below: expected values from PyTorch 2.13."""

import math
import warnings

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

from .seq_parity import check_case, names

pytestmark = pytest.mark.chapter15


# float32 rounding alone puts both libraries 1e-6 away from the float64 values here
LOOSER = {"mha_kdim_vdim": 3e-6}


def graded(name):
    """The cases that run the library's attention and no module code of later tasks
    grade task 15.2 (the others need load_state_dict, task 8.2, to set their weights)."""
    if name.startswith(("sdpa", "encoder", "decoder")):
        return pytest.param(name, marks=pytest.mark.task("15.2"))
    return name


@pytest.mark.parametrize("name", [graded(n) for n in
                                  names(("sdpa", "mha", "encoder", "decoder"))])
def test_values_and_gradients_match_pytorch(name):
    check_case(name, atol=LOOSER.get(name, 1e-6))


def qkv(*shapes, dtype=torch.float32):
    return [torch.tensor(np.sin(np.arange(np.prod(s)) * (0.3 + i)).reshape(s), dtype=dtype,
                         requires_grad=True) for i, s in enumerate(shapes)]


@pytest.mark.task("15.2")
def test_sdpa_is_softmax_of_scaled_scores_times_values():
    q, k, v = qkv((2, 3, 4), (2, 5, 4), (2, 5, 6))
    scores = q @ k.transpose(-2, -1) / math.sqrt(4)
    expected = scores.softmax(-1) @ v
    assert torch.allclose(F.scaled_dot_product_attention(q, k, v), expected, atol=1e-6)


@pytest.mark.task("15.2")
@pytest.mark.parametrize("shapes, kwargs, node", [
    # PyTorch's CPU dispatch: its flash kernel for 4-d inputs of one head width without
    # dropout, else the "math" path of several ops whose last node is matmul's view
    (((2, 2, 3, 4),) * 3, {}, "ScaledDotProductFlashAttentionForCpuBackward0"),
    (((2, 2, 3, 4),) * 3, {"is_causal": True}, "ScaledDotProductFlashAttentionForCpuBackward0"),
    (((2, 2, 3, 4),) * 3, {"scale": 0.5}, "ScaledDotProductFlashAttentionForCpuBackward0"),
    (((2, 2, 3, 4),) * 3, {"dropout_p": 0.1}, "UnsafeViewBackward0"),
    (((2, 3, 4),) * 3, {}, "UnsafeViewBackward0"),
    (((2, 2, 5, 4), (2, 2, 5, 4), (2, 2, 5, 6)), {}, "UnsafeViewBackward0"),
])
def test_sdpa_node_names(shapes, kwargs, node):
    assert F.scaled_dot_product_attention(*qkv(*shapes), **kwargs).grad_fn.name() == node


@pytest.mark.task("15.2")
def test_sdpa_masked_row_gives_zeros_and_no_nan_gradient():
    q, k, v = qkv((1, 3, 4), (1, 5, 4), (1, 5, 6))
    mask = torch.ones(3, 5, dtype=torch.bool)
    mask[0] = False
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert out[0, 0].tolist() == [0.0] * 6
    out.sum().backward()
    assert not q.grad.isnan().any() and not k.grad.isnan().any()


@pytest.mark.task("15.2")
def test_sdpa_causal_mask_is_top_left_aligned():
    """With more queries than keys, query i still sees keys 0..i (as PyTorch's tril)."""
    q, k, v = qkv((4, 2), (3, 2), (3, 1))
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert out[0, 0].item() == pytest.approx(v[0, 0].item())


@pytest.mark.task("15.2")
def test_sdpa_dropout_keeps_expectation_and_zeroes_some_weights():
    torch.manual_seed(0)
    q, k, v = qkv((1, 1, 50, 4), (1, 1, 50, 4), (1, 1, 50, 4))
    ones = torch.ones(1, 1, 50, 4)
    out = F.scaled_dot_product_attention(q, k, ones, dropout_p=0.5)
    rows = out[0, 0, :, 0]
    assert (rows != 1).any()                        # some weights dropped, others doubled
    assert abs(rows.mean().item() - 1) < 0.2


@pytest.mark.task("15.2")
@pytest.mark.parametrize("dtype", [torch.float64])
def test_sdpa_gradcheck_and_gradgradcheck(dtype):
    q, k, v = qkv((1, 2, 3, 2), (1, 2, 4, 2), (1, 2, 4, 3), dtype=dtype)
    mask = torch.tensor(np.tril(np.ones((3, 4), dtype=bool)))
    fn = lambda a, b, c: F.scaled_dot_product_attention(a, b, c, attn_mask=mask)  # noqa
    assert gradcheck(fn, (q, k, v))
    assert gradgradcheck(fn, (q, k, v))
    q, k, v = qkv((1, 4, 3, 2), (1, 2, 4, 2), (1, 2, 4, 2), dtype=dtype)
    gqa = lambda a, b, c: F.scaled_dot_product_attention(a, b, c, enable_gqa=True)  # noqa
    assert gradcheck(gqa, (q, k, v)) and gradgradcheck(gqa, (q, k, v))


@pytest.mark.parametrize("call, kind, words", [
    (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                                    attn_mask=torch.ones(3, 5)),
     RuntimeError, "Explicit attn_mask should not be set when is_causal=True"),
    (lambda q, k, v: F.scaled_dot_product_attention(q.double(), k, v), RuntimeError,
     "Expected query, key, and value to have the same dtype"),
    (lambda q, k, v: F.scaled_dot_product_attention(q, k, v,
                                                    attn_mask=torch.ones(3, 5, dtype=torch.long)),
     RuntimeError, "Expected attn_mask dtype to be bool or float or to match query dtype"),
    (lambda q, k, v: F.scaled_dot_product_attention(q[0, 0], k[0], v[0]), RuntimeError,
     "at least 2 dimensional"),
    (lambda q, k, v: F.scaled_dot_product_attention(q, k, v[:, :4]), RuntimeError,
     "number of positions"),
    (lambda q, k, v: F.scaled_dot_product_attention(q, k[..., :3], v), RuntimeError,
     "same last dimension"),
    (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=torch.ones(3, 4)),
     RuntimeError, "does not broadcast"),
    (lambda q, k, v: F.scaled_dot_product_attention(q, k, [1.0]), TypeError, "must be Tensor"),
])
def test_sdpa_errors(call, kind, words):
    q, k, v = qkv((2, 3, 4), (2, 5, 4), (2, 5, 6))
    with pytest.raises(kind, match=words):
        call(q, k, v)


def test_sdpa_gqa_needs_heads_that_divide():
    q, k, v = qkv((1, 4, 3, 2), (1, 3, 3, 2), (1, 3, 3, 2))
    with pytest.raises(RuntimeError, match="Number of heads in key and value must divide"):
        F.scaled_dot_product_attention(q, k, v, enable_gqa=True)


# ----- MultiheadAttention ---------------------------------------------------------------------
def test_mha_parameters_names_shapes_and_init():
    torch.manual_seed(0)
    m = nn.MultiheadAttention(8, 2)
    assert [(n, tuple(p.shape)) for n, p in m.named_parameters()] == [
        ("in_proj_weight", (24, 8)), ("in_proj_bias", (24,)), ("out_proj.weight", (8, 8)),
        ("out_proj.bias", (8,))]
    assert m.in_proj_bias.tolist() == [0.0] * 24 and m.out_proj.bias.tolist() == [0.0] * 8
    bound = math.sqrt(6 / (8 + 24))                 # Xavier-uniform of a (24, 8) matrix
    assert m.in_proj_weight.abs().max().item() <= bound
    assert m.in_proj_weight.abs().max().item() > 0.8 * bound
    assert repr(m) == ("MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear("
                       "in_features=8, out_features=8, bias=True)\n)")


def test_mha_separate_projections_with_kdim_vdim_bias_kv():
    m = nn.MultiheadAttention(8, 2, kdim=6, vdim=4, add_bias_kv=True, bias=False)
    assert [(n, tuple(p.shape)) for n, p in m.named_parameters()] == [
        ("q_proj_weight", (8, 8)), ("k_proj_weight", (8, 6)), ("v_proj_weight", (8, 4)),
        ("bias_k", (1, 1, 8)), ("bias_v", (1, 1, 8)), ("out_proj.weight", (8, 8))]
    assert m.in_proj_weight is None and m.in_proj_bias is None


@pytest.mark.task("15.2")
def test_mha_shapes_and_node_names():
    m = nn.MultiheadAttention(8, 2)
    x = torch.randn(3, 2, 8, requires_grad=True)
    out, weights = m(x, x, x)
    assert out.shape == (3, 2, 8) and weights.shape == (2, 3, 3)
    assert out.grad_fn.name() == "ViewBackward0"
    assert weights.grad_fn.name() == "MeanBackward1"
    assert m(x, x, x, average_attn_weights=False)[1].shape == (2, 2, 3, 3)
    out, weights = m(x, x, x, need_weights=False)
    assert weights is None and out.grad_fn.name() == "ViewBackward0"


def test_mha_errors():
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(8, 3)
    m = nn.MultiheadAttention(8, 2)
    x = torch.randn(3, 2, 8)
    with pytest.raises(RuntimeError, match="The shape of the 2D attn_mask is"):
        m(x, x, x, attn_mask=torch.ones(2, 2, dtype=torch.bool))
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        m(x, x, x, is_causal=True)
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 8"):
        m(torch.randn(3, 2, 6), x, x)


_BATCHED, _ONE = torch.ones(5, 2, 8), torch.ones(5, 8)
_MASK_ERRORS = {     # PyTorch 2.13's (torch.Size printed as minitorch.Size)
    "key not 3-D": ((_BATCHED, _ONE, _ONE), {}, AssertionError,
                    "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                    "2-D and 2-D tensors respectively"),
    "key not 2-D": ((_ONE, _BATCHED, _BATCHED), {}, AssertionError,
                    "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but "
                    "found 3-D and 3-D tensors respectively"),
    "4-D query": ((torch.ones(1, 5, 2, 8),) * 3, {}, AssertionError,
                  "query should be unbatched 2D or batched 3D tensor but received 4-D query "
                  "tensor"),
    "1-D padding mask": ((_BATCHED,) * 3, dict(key_padding_mask=torch.zeros(5).bool()),
                         AssertionError, "For batched (3-D) `query`, expected "
                         "`key_padding_mask` to be `None` or 2-D but found 1-D tensor instead"),
    "3-D padding mask": ((_BATCHED,) * 3, dict(key_padding_mask=torch.zeros(2, 5, 1).bool()),
                         AssertionError, "For batched (3-D) `query`, expected "
                         "`key_padding_mask` to be `None` or 2-D but found 3-D tensor instead"),
    "unbatched 2-D padding mask": ((_ONE,) * 3, dict(key_padding_mask=torch.zeros(1, 5).bool()),
                                   AssertionError, "For unbatched (2-D) `query`, expected "
                                   "`key_padding_mask` to be `None` or 1-D but found 2-D tensor "
                                   "instead"),
    "padding mask's batch": ((_BATCHED,) * 3, dict(key_padding_mask=torch.zeros(3, 5).bool()),
                             AssertionError, "Expected key_padded_mask.shape[0] to be 2, but "
                             "got 3"),
    "padding mask's length": ((_BATCHED,) * 3, dict(key_padding_mask=torch.zeros(2, 4).bool()),
                              AssertionError, "Expected key_padded_mask.shape[1] to be 5, but "
                              "got 4"),
    "unbatched padding mask's length": ((_ONE,) * 3, dict(key_padding_mask=torch.zeros(4).bool()),
                                        AssertionError, "Expected key_padded_mask.shape[1] to be "
                                        "5, but got 4"),
    "4-D attn_mask": ((_BATCHED,) * 3, dict(attn_mask=torch.zeros(1, 4, 5, 5)), AssertionError,
                      "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                      "but found 4-D tensor instead"),
    "2-D attn_mask's shape": ((_BATCHED,) * 3, dict(attn_mask=torch.zeros(4, 4)), RuntimeError,
                              "The shape of the 2D attn_mask is minitorch.Size([4, 4]), but "
                              "should be (5, 5)."),
    "3-D attn_mask's shape": ((_BATCHED,) * 3, dict(attn_mask=torch.zeros(3, 5, 5)),
                              RuntimeError, "The shape of the 3D attn_mask is "
                              "minitorch.Size([3, 5, 5]), but should be (4, 5, 5)."),
    "unbatched 3-D attn_mask": ((_ONE,) * 3, dict(attn_mask=torch.zeros(3, 5, 5)),
                                AssertionError, "Expected `attn_mask` shape to be (2, 5, 5) but "
                                "got minitorch.Size([3, 5, 5])"),
}


@pytest.mark.parametrize("case", list(_MASK_ERRORS))
def test_mha_rank_and_mask_errors_are_pytorchs(case):
    args, kwargs, error, message = _MASK_ERRORS[case]
    with pytest.raises(error) as caught:
        nn.MultiheadAttention(8, 2)(*args, **kwargs)
    assert str(caught.value) == message


def test_mha_dropout_only_in_training():
    torch.manual_seed(0)
    m = nn.MultiheadAttention(8, 2, dropout=0.5)
    x = torch.randn(3, 2, 8)
    m.eval()
    first, second = m(x, x, x)[1], m(x, x, x)[1]
    assert torch.equal(first, second)
    assert torch.allclose(first.sum(-1), torch.ones(2, 3))
    m.train()
    assert not torch.allclose(m(x, x, x)[1].sum(-1), torch.ones(2, 3))


# ----- transformer layers --------------------------------------------------------------------
def test_encoder_layer_modules_and_activation():
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    assert [n for n, _ in layer.named_children()] == [
        "self_attn", "linear1", "dropout", "linear2", "norm1", "norm2", "dropout1", "dropout2"]
    assert layer.activation is F.relu
    assert nn.TransformerEncoderLayer(8, 2, 16, activation="gelu").activation is F.gelu
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(8, 2, 16, activation="tanh")
    decoder = nn.TransformerDecoderLayer(8, 2, 16)
    assert [n for n, _ in decoder.named_children()] == [
        "self_attn", "multihead_attn", "linear1", "dropout", "linear2", "norm1", "norm2",
        "norm3", "dropout1", "dropout2", "dropout3"]


def test_encoder_copies_layers_and_warns_as_pytorch():
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    with pytest.warns(UserWarning, match="encoder_layer.self_attn.batch_first was not True"):
        encoder = nn.TransformerEncoder(layer, 2)
    assert len(encoder.layers) == 2
    assert encoder.layers[0].linear1.weight is not encoder.layers[1].linear1.weight
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2)
    with pytest.warns(UserWarning, match="encoder_layer.norm_first was True"):
        nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True,
                                                         norm_first=True), 1)


@pytest.mark.task("15.2")
def test_encoder_layer_output_node_is_layer_norm():
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
    assert layer(torch.randn(3, 2, 8, requires_grad=True)).grad_fn.name() == \
        "NativeLayerNormBackward0"


def test_transformer_layers_register_submodules_and_parameters_in_pytorchs_order():
    # Expected values from PyTorch 2.13: the order decides state-dict keys and the
    # order parameters reach an optimizer.
    decoder = torch.nn.TransformerDecoderLayer(8, 2)
    assert [name for name, _ in decoder.named_modules()] == [
        "", "self_attn", "self_attn.out_proj", "multihead_attn", "multihead_attn.out_proj",
        "linear1", "dropout", "linear2", "norm1", "norm2", "norm3", "dropout1", "dropout2",
        "dropout3"]
    encoder = torch.nn.TransformerEncoderLayer(8, 2)
    assert list(encoder.state_dict()) == [
        "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
        "self_attn.out_proj.bias", "linear1.weight", "linear1.bias", "linear2.weight",
        "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias"]


def _both_paths(out, inputs, seed):
    """The gradients from the array path (no graph of their own) and from the tensor
    path (``create_graph=True``, the one a double backward runs)."""
    arrays = torch.autograd.grad(out, inputs, seed, retain_graph=True)
    tensors = torch.autograd.grad(out, inputs, seed, create_graph=True)
    return arrays, tensors


@pytest.mark.task("15.2")
def test_sdpa_dropout_mask_reaches_both_backwards():
    """With identity values the output is the dropped weights themselves, so the mask
    can be read off it; the gradients must be those of ``(weights * mask) @ v``."""
    torch.manual_seed(3)
    q, k = qkv((1, 2, 4, 3), (1, 2, 5, 3), dtype=torch.float64)
    v = torch.eye(5, dtype=torch.float64).expand(1, 2, 5, 5).clone().requires_grad_()
    out = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    keep = (out != 0).double().detach() * 2
    assert 0 < (keep == 0).sum().item() < keep.numel()       # some weights dropped
    weights = (q @ k.transpose(-2, -1) / math.sqrt(3)).softmax(-1)
    reference = torch.autograd.grad((weights * keep) @ v, (q, k, v), SEED_5)
    for path in _both_paths(out, (q, k, v), SEED_5):
        for mine, expected in zip(path, reference):
            np.testing.assert_allclose(mine.detach().numpy(), expected.numpy(),
                                       rtol=1e-12, atol=1e-14)


SEED_5 = torch.tensor(np.cos(np.arange(40.0)).reshape(1, 2, 4, 5))


@pytest.mark.task("15.2")
def test_sdpa_double_backward_of_a_row_with_every_key_masked():
    """PyTorch 2.13 gives zeros for that row and passes gradgradcheck: the tensor
    backward must keep the row's weights 0 too, not softmax's nan."""
    q, k, v = qkv((1, 3, 2), (1, 4, 2), (1, 4, 3), dtype=torch.float64)
    mask = torch.ones(3, 4, dtype=torch.bool)
    mask[1] = False
    fn = lambda a, b, c: F.scaled_dot_product_attention(a, b, c, attn_mask=mask)  # noqa
    grads = torch.autograd.grad(fn(q, k, v).sum(), (q, k, v), create_graph=True)
    assert not any(g.isnan().any() for g in grads)
    assert grads[0][0, 1].tolist() == [0.0, 0.0]
    assert gradgradcheck(fn, (q, k, v))


@pytest.mark.task("15.2")
def test_sdpa_broadcast_query_gets_a_gradient_of_its_own_shape():
    """A query (1, 2, 3, 2) against keys (3, 2, 4, 2): PyTorch 2.13's output is
    (3, 2, 3, 2) and the query's gradient (1, 2, 3, 2), on both backward paths."""
    q, k, v = qkv((1, 2, 3, 2), (3, 2, 4, 2), (3, 2, 4, 2), dtype=torch.float64)
    out = F.scaled_dot_product_attention(q, k, v)
    assert out.shape == (3, 2, 3, 2)
    seed = torch.ones(3, 2, 3, 2, dtype=torch.float64)
    arrays, tensors = _both_paths(out, (q, k, v), seed)
    assert [tuple(g.shape) for g in tensors] == [(1, 2, 3, 2), (3, 2, 4, 2), (3, 2, 4, 2)]
    for a, b in zip(arrays, tensors):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)
