"""Differential cases for Part V's layers, written once for both libraries.

Each case is a function of ``lib`` (``torch`` or ``minitorch``) that builds a layer
or calls a function on fixed inputs (sines of ``arange``: no random numbers),
loads fixed weights, runs forward and backward, and returns named arrays: the
outputs and every gradient.  ``scripts/make_seq_fixtures.py`` runs them on
PyTorch 2.13 and stores the arrays in ``data/seq_pytorch.npz``; the tests run them
on minitorch and compare.
"""

import numpy as np

CASES = {}


def case(name):
    def register(fn):
        CASES[name] = fn
        return fn
    return register


def wave(shape, i, scale=1.0):
    """A fixed array of ``shape``: a sine of a ramp, different for each ``i``."""
    n = int(np.prod(shape))
    return (scale * np.sin(np.arange(n, dtype=np.float64) * (0.37 + 0.05 * i) + i)) \
        .astype(np.float32).reshape(shape)


def fixed_weights(lib, module):
    """Load a wave into every entry of ``module``'s state dict."""
    state = {k: lib.tensor(wave(tuple(v.shape), i, 0.5))
             for i, (k, v) in enumerate(module.state_dict().items())}
    module.load_state_dict(state)
    return module


def results(lib, module, outputs, inputs=()):
    """Outputs, then (after backward of the sum of their squares) the gradients of the
    inputs and parameters, as a dict of arrays."""
    floats = [o for o in outputs if o is not None and o.dtype == lib.float32]
    loss = sum((o * o).sum() for o in floats)
    loss.backward()
    out = {f"out{i}": o.detach().numpy() for i, o in enumerate(outputs) if o is not None}
    for i, t in enumerate(inputs):
        out[f"input_grad{i}"] = t.grad.numpy()
    parameters = module.named_parameters() if module is not None else ()
    for name, p in parameters:
        out[f"grad/{name}"] = p.grad.numpy()
    return out


# ----- scaled dot-product attention ----------------------------------------------------------
def _sdpa(shapes, **kwargs):
    def run(lib):
        q, k, v = (lib.tensor(wave(s, i), requires_grad=True) for i, s in enumerate(shapes))
        kw = dict(kwargs)
        if "mask" in kw:
            kw["attn_mask"] = lib.tensor(kw.pop("mask"))
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, **kw)
        return results(lib, None, [out], [q, k, v])
    return run


_QKV = ((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 6))
_BOOL_MASK = np.ones((3, 5), dtype=bool)
_BOOL_MASK[0] = False           # a query that may look nowhere: zeros
_BOOL_MASK[1, 2:] = False
CASES["sdpa"] = _sdpa(_QKV)
CASES["sdpa_causal"] = _sdpa(_QKV, is_causal=True)
CASES["sdpa_scale"] = _sdpa(_QKV, scale=0.3)
CASES["sdpa_bool_mask"] = _sdpa(_QKV, mask=_BOOL_MASK)
CASES["sdpa_float_mask"] = _sdpa(_QKV, mask=wave((3, 5), 7))
CASES["sdpa_3d"] = _sdpa(((2, 3, 4), (2, 5, 4), (2, 5, 6)))
CASES["sdpa_broadcast_batch"] = _sdpa(((2, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4)))
CASES["sdpa_gqa"] = _sdpa(((1, 4, 3, 2), (1, 2, 5, 2), (1, 2, 5, 2)), enable_gqa=True)


# ----- multi-head attention ------------------------------------------------------------------
_X = wave((4, 2, 8), 9)
_PADDING = np.array([[False, False, True, True], [False, False, False, True]])
_CAUSAL = np.triu(np.ones((4, 4), dtype=bool), 1)


def _mha(layer_kwargs=None, call_kwargs=None, x=_X, batch_first=False):
    def run(lib):
        m = fixed_weights(lib, lib.nn.MultiheadAttention(8, 2, batch_first=batch_first,
                                                         **(layer_kwargs or {})))
        data = np.ascontiguousarray(x.transpose(1, 0, 2)) if batch_first else x
        xt = lib.tensor(data, requires_grad=True)
        kw = {k: lib.tensor(v) if isinstance(v, np.ndarray) else v
              for k, v in (call_kwargs or {}).items()}
        out, weights = m(xt, xt, xt, **kw)
        return results(lib, m, [out, weights], [xt])
    return run


CASES["mha"] = _mha()
CASES["mha_batch_first"] = _mha(batch_first=True)
CASES["mha_per_head_weights"] = _mha(call_kwargs=dict(average_attn_weights=False))
CASES["mha_no_weights"] = _mha(call_kwargs=dict(need_weights=False))
CASES["mha_key_padding"] = _mha(call_kwargs=dict(key_padding_mask=_PADDING))
CASES["mha_key_padding_sdpa"] = _mha(call_kwargs=dict(key_padding_mask=_PADDING,
                                                      need_weights=False))
CASES["mha_attn_mask"] = _mha(call_kwargs=dict(attn_mask=_CAUSAL))
CASES["mha_causal_hint"] = _mha(call_kwargs=dict(attn_mask=_CAUSAL, is_causal=True,
                                                 need_weights=False))
CASES["mha_float_mask"] = _mha(call_kwargs=dict(
    attn_mask=np.triu(np.full((4, 4), -np.inf, dtype=np.float32), 1)))
CASES["mha_no_bias"] = _mha(dict(bias=False))
CASES["mha_bias_kv"] = _mha(dict(add_bias_kv=True), dict(attn_mask=_CAUSAL))
CASES["mha_zero_attn"] = _mha(dict(add_zero_attn=True), dict(key_padding_mask=_PADDING))
CASES["mha_unbatched"] = _mha(x=_X[:, 0])


@case("mha_kdim_vdim")
def _mha_kdim(lib):
    m = fixed_weights(lib, lib.nn.MultiheadAttention(8, 2, kdim=6, vdim=4))
    q = lib.tensor(_X, requires_grad=True)
    k, v = lib.tensor(wave((5, 2, 6), 3)), lib.tensor(wave((5, 2, 4), 4))
    out, weights = m(q, k, v)
    return results(lib, m, [out, weights], [q])


# ----- transformer layers --------------------------------------------------------------------
def _encoder_layer(batch_first=False, call_kwargs=None, **layer_kwargs):
    def run(lib):
        m = fixed_weights(lib, lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0,
                                                              batch_first=batch_first,
                                                              **layer_kwargs))
        data = np.ascontiguousarray(_X.transpose(1, 0, 2)) if batch_first else _X
        xt = lib.tensor(data, requires_grad=True)
        kw = {k: lib.tensor(v) for k, v in (call_kwargs or {}).items()}
        return results(lib, m, [m(xt, **kw)], [xt])
    return run


CASES["encoder_layer"] = _encoder_layer()
CASES["encoder_layer_norm_first_gelu"] = _encoder_layer(norm_first=True, activation="gelu")
CASES["encoder_layer_masks"] = _encoder_layer(
    batch_first=True, call_kwargs=dict(src_mask=_CAUSAL, src_key_padding_mask=_PADDING))


@case("encoder_stack")
def _encoder_stack(lib):
    nn = lib.nn
    m = fixed_weights(lib, nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, 0.0), 2,
                                                 norm=nn.LayerNorm(8)))
    xt = lib.tensor(_X, requires_grad=True)
    mask = nn.Transformer.generate_square_subsequent_mask(4) if hasattr(nn, "Transformer") \
        else lib.tensor(np.triu(np.full((4, 4), -np.inf, dtype=np.float32), 1))
    return results(lib, m, [m(xt, mask=mask, is_causal=True)], [xt])


@case("decoder_stack")
def _decoder_stack(lib):
    nn = lib.nn
    layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, norm_first=True,
                                       activation=nn.functional.silu)
    m = fixed_weights(lib, nn.TransformerDecoder(layer, 2))
    tgt = lib.tensor(wave((3, 2, 8), 11), requires_grad=True)
    memory = lib.tensor(_X, requires_grad=True)
    out = m(tgt, memory, tgt_mask=lib.tensor(np.triu(np.ones((3, 3), dtype=bool), 1)),
            memory_key_padding_mask=lib.tensor(_PADDING))
    return results(lib, m, [out], [tgt, memory])


# ----- recurrent layers ----------------------------------------------------------------------
def _recurrent(kind, x=wave((5, 2, 3), 7), hx=None, **kwargs):
    def run(lib):
        m = fixed_weights(lib, getattr(lib.nn, kind)(3, 4, **kwargs))
        xt = lib.tensor(x, requires_grad=True)
        h = None
        if hx is not None:
            h = tuple(lib.tensor(a) for a in hx) if isinstance(hx, tuple) else lib.tensor(hx)
        out, final = m(xt, h)
        finals = list(final) if isinstance(final, tuple) else [final]
        return results(lib, m, [out] + finals, [xt])
    return run


for _kind in ("RNN", "GRU", "LSTM"):
    CASES[_kind] = _recurrent(_kind)
    CASES[_kind + "_2layers_bidirectional"] = _recurrent(_kind, num_layers=2, bidirectional=True)
    CASES[_kind + "_batch_first_no_bias"] = _recurrent(_kind, batch_first=True, bias=False)
    _h = wave((2, 2, 4), 5)
    CASES[_kind + "_initial_state"] = _recurrent(
        _kind, hx=(_h, wave((2, 2, 4), 6)) if _kind == "LSTM" else _h, num_layers=2)
    CASES[_kind + "_unbatched"] = _recurrent(_kind, x=wave((5, 3), 7))
CASES["RNN_relu"] = _recurrent("RNN", nonlinearity="relu")
CASES["LSTM_proj"] = _recurrent("LSTM", proj_size=2)
CASES["LSTM_proj_2layers_bidirectional_initial_state"] = _recurrent(
    "LSTM", hx=(wave((4, 2, 3), 5), wave((4, 2, 4), 6)), proj_size=3, num_layers=2,
    bidirectional=True)


def _packed(kind, lengths=(3, 5, 1), enforce_sorted=False, batch_first=False, hx=None,
            **kwargs):
    """The layer on a PackedSequence of three sequences of ``lengths`` (padded to 5),
    then padded again: outputs, final states, lengths, and the gradients."""
    def run(lib):
        rnn = lib.nn.utils.rnn
        m = fixed_weights(lib, getattr(lib.nn, kind)(3, 4, **kwargs))
        x = wave((5, 3, 3), 8)
        xt = lib.tensor(x.transpose(1, 0, 2).copy() if batch_first else x,
                        requires_grad=True)
        packed = rnn.pack_padded_sequence(xt, list(lengths), batch_first=batch_first,
                                          enforce_sorted=enforce_sorted)
        h = None
        if hx is not None:
            h = tuple(lib.tensor(a) for a in hx) if isinstance(hx, tuple) else lib.tensor(hx)
        out, final = m(packed, h)
        padded, found = rnn.pad_packed_sequence(out, batch_first=batch_first)
        finals = list(final) if isinstance(final, tuple) else [final]
        return results(lib, m, [padded, found, out.data] + finals, [xt])
    return run


for _kind in ("RNN", "GRU", "LSTM"):
    CASES[_kind + "_packed"] = _packed(_kind)
    CASES[_kind + "_packed_2layers_bidirectional"] = _packed(_kind, num_layers=2,
                                                             bidirectional=True)
    CASES[_kind + "_packed_sorted_batch_first"] = _packed(_kind, lengths=(5, 3, 1),
                                                          enforce_sorted=True, batch_first=True)
    _h = wave((2, 3, 4), 5)
    CASES[_kind + "_packed_initial_state"] = _packed(
        _kind, hx=(_h, wave((2, 3, 4), 6)) if _kind == "LSTM" else _h, bidirectional=True)
CASES["LSTM_packed_proj_2layers_bidirectional"] = _packed("LSTM", proj_size=2, num_layers=2,
                                                          bidirectional=True)


def _cell(kind):
    def run(lib):
        m = fixed_weights(lib, getattr(lib.nn, kind)(3, 4))
        xt = lib.tensor(wave((2, 3), 1), requires_grad=True)
        first = m(xt)
        state = (lib.tensor(wave((2, 4), 2)), lib.tensor(wave((2, 4), 3))) \
            if kind == "LSTMCell" else lib.tensor(wave((2, 4), 2))
        second = m(xt, state)
        flat = lambda o: list(o) if isinstance(o, tuple) else [o]  # noqa: E731
        return results(lib, m, flat(first) + flat(second), [xt])
    return run


for _kind in ("RNNCell", "GRUCell", "LSTMCell"):
    CASES[_kind] = _cell(_kind)


# ----- einsum ---------------------------------------------------------------------------------
EINSUM = [("ij,jk->ik", [(2, 3), (3, 4)]), ("ij->ji", [(2, 3)]), ("ij->", [(2, 3)]),
          ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("ij,ij->ij", [(2, 3), (2, 3)]),
          ("...j,jk", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
          ("i,j->ij", [(3,), (4,)]), ("ji", [(2, 3)]),
          ("...ij,...jk->...ik", [(5, 1, 2, 3), (4, 3, 2)]), ("ij,jk->ik", [(2, 3), (1, 4)]),
          ("bhld,bhmd->bhlm", [(2, 2, 3, 4), (2, 2, 5, 4)]), ("ijk,k->i", [(2, 3, 4), (4,)]),
          ("iij->j", [(3, 3, 2)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
          ("i,i", [(3,), (3,)]), (" i j -> i ", [(2, 3)])]


def _einsum(equation, shapes):
    def run(lib):
        operands = [lib.tensor(wave(s, i), requires_grad=True) for i, s in enumerate(shapes)]
        out = lib.einsum(equation, *operands)
        return results(lib, None, [out], operands)
    return run


for _i, (_eq, _shapes) in enumerate(EINSUM):
    CASES[f"einsum{_i}"] = _einsum(_eq, _shapes)
