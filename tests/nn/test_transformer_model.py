"""``nn.Transformer``, the whole encoder-decoder (Part V), against PyTorch 2.13: the same
parameter names and state-dict keys (so a PyTorch state dict loads), the same printed
module, and the same outputs and gradients for the same weights, with causal and
padding masks, ``batch_first``, ``norm_first``, GELU, no bias and unbatched input.

The weights are not drawn: every tensor of the state dict is filled with a formula
(``_fill``), the same in the PyTorch script that produced the expected values, which
are written in below."""

import json
import warnings

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn as nn

pytestmark = pytest.mark.chapter15

d = torch.float64
S, T, N, E = 5, 3, 2, 4


def _fill(model):
    """Every state-dict entry ``i`` (PyTorch's order) as ``0.4 sin(0.37 k + i)``; the
    LayerNorm weights as ``1 + 0.04 sin(...)``."""
    new = {}
    for i, (key, value) in enumerate(model.state_dict().items()):
        values = np.sin(np.arange(value.numel()) * 0.37 + i) * 0.4
        if key.rsplit(".", 1)[0].split(".")[-1].startswith("norm") and key.endswith("weight"):
            values = 1 + 0.1 * values
        new[key] = torch.tensor(values.reshape(tuple(value.shape)), dtype=d)
    model.load_state_dict(new)
    return model


def _data(shape, k):
    return torch.tensor(np.cos(np.arange(int(np.prod(shape))) * 0.53 + k).reshape(shape),
                        dtype=d)


def _model(**changes):
    args = dict(d_model=4, nhead=2, num_encoder_layers=2, num_decoder_layers=1,
                dim_feedforward=6, dropout=0.0, dtype=d)
    args.update(changes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _fill(nn.Transformer(**args)).eval()


src, tgt = _data((S, N, E), 0), _data((T, N, E), 1)
causal = nn.Transformer.generate_square_subsequent_mask(T, dtype=d)
src_padding = torch.tensor([[False] * S, [False, False, False, True, True]])
tgt_padding = torch.tensor([[False, False, True], [False] * T])
memory_mask = torch.zeros(T, S, dtype=d)
memory_mask[0, 2:] = float("-inf")

CASES = {
    "plain": lambda: _model()(src, tgt),
    "causal": lambda: _model()(src, tgt, tgt_mask=causal),
    "causal_hint": lambda: _model()(src, tgt, tgt_mask=causal, tgt_is_causal=True),
    "padding": lambda: _model()(src, tgt, tgt_mask=causal, src_key_padding_mask=src_padding,
                                tgt_key_padding_mask=tgt_padding,
                                memory_key_padding_mask=src_padding),
    "memory_mask": lambda: _model()(
        src, tgt, memory_mask=memory_mask,
        src_mask=nn.Transformer.generate_square_subsequent_mask(S, dtype=d)),
    "unbatched": lambda: _model()(src[:, 0], tgt[:, 0], tgt_mask=causal),
    "batch_first": lambda: _model(batch_first=True)(src.transpose(0, 1), tgt.transpose(0, 1),
                                                     tgt_mask=causal),
    "norm_first": lambda: _model(norm_first=True)(src, tgt, tgt_mask=causal),
    "gelu": lambda: _model(activation="gelu", norm_first=True, batch_first=True)(
        src.transpose(0, 1), tgt.transpose(0, 1), tgt_mask=causal),
    "no_bias": lambda: _model(bias=False)(src, tgt, tgt_mask=causal),
}

# PyTorch 2.13's outputs for the same weights and inputs (rounded to 12 places)
EXPECTED = {
    'plain': json.loads(
        "[[[1.25345934994, 1.396390031294, -0.13265790525, -1.099593402226], "
        "[-1.346917515367, 0.587323824373, 1.120641638882, 1.154815617987]], "
        "[[0.53398240966, 1.941834816895, -0.201142609491, -0.8423193967], "
        "[1.250573985547, 1.389048412092, -0.10535966164, -1.116640257949]], "
        "[[-1.340277809928, 0.576750234234, 1.051300333334, 1.228658178902], "
        "[0.732017476456, 1.844636672942, -0.266306096396, -0.882443522167]]]"
    ),
    'causal': json.loads(
        "[[[0.999497136942, 1.529351625591, 0.101921282851, -1.208907340787], "
        "[-1.31388270329, 1.019518754963, 1.355156816093, 0.44298039881]], "
        "[[0.805817236928, 1.825420719032, -0.437076900336, -0.767034384748], "
        "[0.870893925383, 1.563661631856, 0.245147487318, -1.255202881686]], "
        "[[-1.340277809928, 0.576750234234, 1.051300333334, 1.228658178902], "
        "[0.732017476456, 1.844636672942, -0.266306096396, -0.882443522167]]]"
    ),
    'causal_hint': json.loads(
        "[[[0.999497136942, 1.529351625591, 0.101921282851, -1.208907340787], "
        "[-1.31388270329, 1.019518754963, 1.355156816093, 0.44298039881]], "
        "[[0.805817236928, 1.825420719032, -0.437076900336, -0.767034384748], "
        "[0.870893925383, 1.563661631856, 0.245147487318, -1.255202881686]], "
        "[[-1.340277809928, 0.576750234234, 1.051300333334, 1.228658178902], "
        "[0.732017476456, 1.844636672942, -0.266306096396, -0.882443522167]]]"
    ),
    'padding': json.loads(
        "[[[0.999497136942, 1.529351625591, 0.101921282851, -1.208907340787], "
        "[-1.309621082749, 1.036698869074, 1.353160614725, 0.423045130131]], "
        "[[0.805817236928, 1.825420719032, -0.437076900336, -0.767034384748], "
        "[0.866216720426, 1.566742840808, 0.246240529244, -1.25460732032]], "
        "[[-1.08141501059, 0.293395464862, 0.516521861438, 1.789130245669], "
        "[0.728301908198, 1.84600744489, -0.261929442064, -0.884409043672]]]"
    ),
    'memory_mask': json.loads(
        "[[[1.244381447744, 1.403732003498, -0.128434333695, -1.101947184185], "
        "[-1.336291237838, 0.546199964079, 1.113501151142, 1.19298889763]], "
        "[[0.533851518166, 1.941790873189, -0.200613283112, -0.842672798714], "
        "[1.244986221, 1.393628583529, -0.102981370432, -1.117927958434]], "
        "[[-1.339517845617, 0.57409985615, 1.050585324469, 1.231297580114], "
        "[0.729062858141, 1.845724531551, -0.2628094088, -0.884020791982]]]"
    ),
    'unbatched': json.loads(
        "[[0.999497136942, 1.529351625591, 0.101921282851, -1.208907340787], "
        "[0.805817236928, 1.825420719032, -0.437076900336, -0.767034384748], "
        "[-1.340277809928, 0.576750234234, 1.051300333334, 1.228658178902]]"
    ),
    'batch_first': json.loads(
        "[[[0.999497136942, 1.529351625591, 0.101921282851, -1.208907340787], "
        "[0.805817236928, 1.825420719032, -0.437076900336, -0.767034384748], "
        "[-1.340277809928, 0.576750234234, 1.051300333334, 1.228658178902]], "
        "[[-1.31388270329, 1.019518754963, 1.355156816093, 0.44298039881], "
        "[0.870893925383, 1.563661631856, 0.245147487318, -1.255202881686], "
        "[0.732017476456, 1.844636672942, -0.266306096396, -0.882443522167]]]"
    ),
    'norm_first': json.loads(
        "[[[1.404017984704, 1.252851175571, -0.170757346188, -1.070552006305], "
        "[-0.232817474277, 2.014037612296, -0.69456957062, 0.375510266045]], "
        "[[0.093359761393, 1.963656413357, 0.333189228373, -0.947198855834], "
        "[1.394179637283, 1.273952023776, -0.199678845093, -1.052738119178]], "
        "[[-0.65833162669, 1.523197064561, -0.629088202946, 1.251058644005], "
        "[0.306558884797, 1.905833511363, 0.260666324411, -1.035792928574]]]"
    ),
    'gelu': json.loads(
        "[[[1.605482954416, 0.993131196983, -0.14151227495, -1.043544235867], "
        "[0.51776110859, 1.713211386404, 0.425110011216, -1.223690438867], "
        "[-0.146365246487, 0.084380144206, -0.531426544825, 2.091085796888]], "
        "[[0.427225158042, 0.98731870017, -1.29560394663, 1.346165585914], "
        "[1.593721690769, 1.025117024827, -0.181404585322, -1.023786531771], "
        "[0.696077715515, 1.657115680835, 0.312643366227, -1.237650071361]]]"
    ),
    'no_bias': json.loads(
        "[[[1.54230305023, 0.224459932727, -0.858354159894, -0.856332199003], "
        "[-1.105998741931, -0.532603825291, 0.070742872908, 1.5176203062]], "
        "[[-0.436820772142, 1.582329406062, -0.060338971534, -1.067249156611], "
        "[1.572854448657, 0.151117912028, -0.771469778147, -0.900132766334]], "
        "[[-1.096018024836, -0.466516235885, -0.033041751002, 1.546180018054], "
        "[-0.441630129685, 1.540452929988, 0.042386182716, -1.12343635012]]]"
    ),
    'grad_in_proj': json.loads(
        "[[0.00047915464, 0.000939818179, 0.0011426089, 0.001031883896], [0.001637746587,"
        " 0.003357922342, 0.00415673169, 0.003814992643], [-0.000111140351, "
        "0.000125167605, 0.00032713134, 0.000439334861], [-0.001453792382, "
        "-0.000474219611, 0.000635472315, 0.001570799624], [0.000845798068, "
        "0.001546895582, 0.001823546822, 0.001599842602], [0.001188617473, "
        "0.002228678917, 0.002657222382, 0.002356661601], [-0.000473124906, "
        "-0.000409905059, -0.000234213061, 5.74369e-06], [-0.000929046986, "
        "-0.000961492872, -0.00073011871, -0.000298410299], [0.002461936388, "
        "0.00452734952, 0.005350521965, 0.004705586845], [0.002449422018, 0.004207164696,"
        " 0.004810520875, 0.004093938151], [0.002189286034, 0.003257250228, "
        "0.00343147102, 0.002664144689], [0.000437954288, 0.00027668823, 3.9502835e-05, "
        "-0.00020852158]]"
    ),
    'grad_dec_norm': json.loads(
        "[12.408452682297, 18.919909121173, 4.804616061025, 13.394085211337]"
    ),
}

# PyTorch 2.13: (key, shape) of the state dict, in order
STATE_DICT = [
    ('encoder.layers.0.self_attn.in_proj_weight', (12, 4)),
    ('encoder.layers.0.self_attn.in_proj_bias', (12,)),
    ('encoder.layers.0.self_attn.out_proj.weight', (4, 4)),
    ('encoder.layers.0.self_attn.out_proj.bias', (4,)),
    ('encoder.layers.0.linear1.weight', (6, 4)),
    ('encoder.layers.0.linear1.bias', (6,)),
    ('encoder.layers.0.linear2.weight', (4, 6)),
    ('encoder.layers.0.linear2.bias', (4,)),
    ('encoder.layers.0.norm1.weight', (4,)),
    ('encoder.layers.0.norm1.bias', (4,)),
    ('encoder.layers.0.norm2.weight', (4,)),
    ('encoder.layers.0.norm2.bias', (4,)),
    ('encoder.layers.1.self_attn.in_proj_weight', (12, 4)),
    ('encoder.layers.1.self_attn.in_proj_bias', (12,)),
    ('encoder.layers.1.self_attn.out_proj.weight', (4, 4)),
    ('encoder.layers.1.self_attn.out_proj.bias', (4,)),
    ('encoder.layers.1.linear1.weight', (6, 4)),
    ('encoder.layers.1.linear1.bias', (6,)),
    ('encoder.layers.1.linear2.weight', (4, 6)),
    ('encoder.layers.1.linear2.bias', (4,)),
    ('encoder.layers.1.norm1.weight', (4,)),
    ('encoder.layers.1.norm1.bias', (4,)),
    ('encoder.layers.1.norm2.weight', (4,)),
    ('encoder.layers.1.norm2.bias', (4,)),
    ('encoder.norm.weight', (4,)),
    ('encoder.norm.bias', (4,)),
    ('decoder.layers.0.self_attn.in_proj_weight', (12, 4)),
    ('decoder.layers.0.self_attn.in_proj_bias', (12,)),
    ('decoder.layers.0.self_attn.out_proj.weight', (4, 4)),
    ('decoder.layers.0.self_attn.out_proj.bias', (4,)),
    ('decoder.layers.0.multihead_attn.in_proj_weight', (12, 4)),
    ('decoder.layers.0.multihead_attn.in_proj_bias', (12,)),
    ('decoder.layers.0.multihead_attn.out_proj.weight', (4, 4)),
    ('decoder.layers.0.multihead_attn.out_proj.bias', (4,)),
    ('decoder.layers.0.linear1.weight', (6, 4)),
    ('decoder.layers.0.linear1.bias', (6,)),
    ('decoder.layers.0.linear2.weight', (4, 6)),
    ('decoder.layers.0.linear2.bias', (4,)),
    ('decoder.layers.0.norm1.weight', (4,)),
    ('decoder.layers.0.norm1.bias', (4,)),
    ('decoder.layers.0.norm2.weight', (4,)),
    ('decoder.layers.0.norm2.bias', (4,)),
    ('decoder.layers.0.norm3.weight', (4,)),
    ('decoder.layers.0.norm3.bias', (4,)),
    ('decoder.norm.weight', (4,)),
    ('decoder.norm.bias', (4,)),
]
REPR = (   # print(nn.Transformer(d_model=4, nhead=2, num_encoder_layers=1,
          #                     num_decoder_layers=1, dim_feedforward=6)) in PyTorch 2.13
    "Transformer(\n"
    "  (encoder): TransformerEncoder(\n"
    "    (layers): ModuleList(\n"
    "      (0): TransformerEncoderLayer(\n"
    "        (self_attn): MultiheadAttention(\n"
    "          (out_proj): NonDynamicallyQuantizableLinear(in_features=4, out_features=4, bias=True)\n"
    "        )\n"
    "        (linear1): Linear(in_features=4, out_features=6, bias=True)\n"
    "        (dropout): Dropout(p=0.1, inplace=False)\n"
    "        (linear2): Linear(in_features=6, out_features=4, bias=True)\n"
    "        (norm1): LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)\n"
    "        (norm2): LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)\n"
    "        (dropout1): Dropout(p=0.1, inplace=False)\n"
    "        (dropout2): Dropout(p=0.1, inplace=False)\n"
    "      )\n"
    "    )\n"
    "    (norm): LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)\n"
    "  )\n"
    "  (decoder): TransformerDecoder(\n"
    "    (layers): ModuleList(\n"
    "      (0): TransformerDecoderLayer(\n"
    "        (self_attn): MultiheadAttention(\n"
    "          (out_proj): NonDynamicallyQuantizableLinear(in_features=4, out_features=4, bias=True)\n"
    "        )\n"
    "        (multihead_attn): MultiheadAttention(\n"
    "          (out_proj): NonDynamicallyQuantizableLinear(in_features=4, out_features=4, bias=True)\n"
    "        )\n"
    "        (linear1): Linear(in_features=4, out_features=6, bias=True)\n"
    "        (dropout): Dropout(p=0.1, inplace=False)\n"
    "        (linear2): Linear(in_features=6, out_features=4, bias=True)\n"
    "        (norm1): LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)\n"
    "        (norm2): LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)\n"
    "        (norm3): LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)\n"
    "        (dropout1): Dropout(p=0.1, inplace=False)\n"
    "        (dropout2): Dropout(p=0.1, inplace=False)\n"
    "        (dropout3): Dropout(p=0.1, inplace=False)\n"
    "      )\n"
    "    )\n"
    "    (norm): LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)\n"
    "  )\n"
    ")"
)


@pytest.mark.parametrize("name", list(CASES))
def test_outputs_match_pytorch(name):
    np.testing.assert_allclose(CASES[name]().detach().numpy(), EXPECTED[name], rtol=1e-9,
                               atol=1e-11)


def test_gradients_match_pytorch():
    model = _model()
    (model(src, tgt, tgt_mask=causal) ** 2).sum().backward()
    np.testing.assert_allclose(model.encoder.layers[0].self_attn.in_proj_weight.grad.numpy(),
                               EXPECTED["grad_in_proj"], rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(model.decoder.norm.weight.grad.numpy(),
                               EXPECTED["grad_dec_norm"], rtol=1e-9, atol=1e-11)


def test_state_dict_keys_and_shapes_are_pytorchs():
    assert [(k, tuple(v.shape)) for k, v in _model().state_dict().items()] == STATE_DICT
    without_bias = [k for k, _ in STATE_DICT if not k.endswith("bias")]
    assert list(_model(bias=False).state_dict()) == without_bias


def test_it_prints_as_pytorch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = nn.Transformer(d_model=4, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                               dim_feedforward=6)
    assert repr(model) == REPR


def test_defaults_and_attributes():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = nn.Transformer(d_model=4, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                               dim_feedforward=6)
        nn.Transformer(d_model=4, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                       dim_feedforward=6, batch_first=True)
    # PyTorch 2.13 warns once, for the batch_first=False encoder
    assert [str(w.message) for w in caught] == [
        "enable_nested_tensor is True, but self.use_nested_tensor is False because "
        "encoder_layer.self_attn.batch_first was not True(use batch_first for better "
        "inference performance)"]
    assert (model.d_model, model.nhead, model.batch_first) == (4, 2, False)
    assert model.encoder.num_layers == 1 and type(model.encoder.norm).__name__ == "LayerNorm"
    layer = model.encoder.layers[0]
    assert layer.activation is torch.nn.functional.relu
    assert layer.dropout.p == 0.1 and layer.norm1.eps == 1e-5
    # Xavier-uniform matrices; vectors (biases, LayerNorm) keep their own start
    assert layer.norm1.weight.sum().item() == 4.0
    assert layer.self_attn.in_proj_bias.abs().sum().item() == 0.0
    bound = (6 / (4 + 12)) ** 0.5
    assert layer.self_attn.in_proj_weight.abs().max().item() <= bound


def test_generate_square_subsequent_mask():
    assert causal.tolist() == [[0.0, float("-inf"), float("-inf")],
                               [0.0, 0.0, float("-inf")], [0.0, 0.0, 0.0]]
    assert nn.Transformer.generate_square_subsequent_mask(2).dtype == torch.float32
    torch.set_default_dtype(torch.float64)
    try:            # PyTorch 2.13: the default dtype
        assert nn.Transformer.generate_square_subsequent_mask(2).dtype == torch.float64
    finally:
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("call", [   # PyTorch 2.13's errors
    lambda m, mb: m(torch.zeros(5, 2, 4, dtype=d), torch.zeros(3, 3, 4, dtype=d)),
    lambda m, mb: mb(torch.zeros(2, 5, 4, dtype=d), torch.zeros(3, 3, 4, dtype=d)),
], ids=["seq-first", "batch-first"])
def test_the_batch_sizes_must_agree(call):
    model, model_bf = _model(), _model(batch_first=True)
    with pytest.raises(RuntimeError, match="^the batch number of src and tgt must be equal$"):
        call(model, model_bf)


@pytest.mark.parametrize("src_shape, tgt_shape", [((5, 2, 4), (3, 2, 5)), ((5, 4), (3, 5))])
def test_the_features_must_be_d_model(src_shape, tgt_shape):
    with pytest.raises(RuntimeError,
                       match="^the feature number of src and tgt must be equal to d_model$"):
        _model()(torch.zeros(*src_shape, dtype=d), torch.zeros(*tgt_shape, dtype=d))


def test_custom_encoder_and_decoder_are_used_as_given():
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 6, 0.0, dtype=d,
                                                               batch_first=True), 1,
                                    enable_nested_tensor=False)
    model = nn.Transformer(d_model=4, nhead=2, num_decoder_layers=1, dim_feedforward=6,
                           custom_encoder=encoder, dtype=d)
    assert model.encoder is encoder
    assert [k for k in model.state_dict() if k.startswith("encoder.norm")] == []
