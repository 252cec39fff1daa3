"""Part V, recurrent layers: ``nn.RNN``/``GRU``/``LSTM``, their cells and
``nn.utils.rnn.pad_sequence`` give PyTorch 2.13's values, gradients, parameter names,
initialisation, node names and errors.  Values: ``seq_cases.py`` run on both
(PyTorch's stored in ``data/seq_pytorch.npz``); facts below: expected values from
PyTorch 2.13."""

import math
import warnings

import pytest

import minitorch as torch
import minitorch.nn as nn
from minitorch.autograd import gradcheck
from minitorch.nn.utils.rnn import pad_sequence

from .seq_parity import check_case, names

pytestmark = pytest.mark.chapter16


def graded(name):
    """Every case but the RNN and GRU cells runs the layer's loop of task 16.1 (the cells
    need load_state_dict, task 8.2, and no code of 16.1)."""
    if name not in ("RNNCell", "GRUCell"):
        return pytest.param(name, marks=pytest.mark.task("16.1"))
    return name


@pytest.mark.parametrize("name", [graded(n) for n in names(("RNN", "GRU", "LSTM"))])
def test_values_and_gradients_match_pytorch(name):
    check_case(name)


def test_parameter_names_shapes_and_order():
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    assert [(n, tuple(p.shape)) for n, p in lstm.named_parameters()] == [
        ("weight_ih_l0", (16, 3)), ("weight_hh_l0", (16, 4)), ("bias_ih_l0", (16,)),
        ("bias_hh_l0", (16,)), ("weight_ih_l0_reverse", (16, 3)),
        ("weight_hh_l0_reverse", (16, 4)), ("bias_ih_l0_reverse", (16,)),
        ("bias_hh_l0_reverse", (16,)), ("weight_ih_l1", (16, 8)), ("weight_hh_l1", (16, 4)),
        ("bias_ih_l1", (16,)), ("bias_hh_l1", (16,)), ("weight_ih_l1_reverse", (16, 8)),
        ("weight_hh_l1_reverse", (16, 4)), ("bias_ih_l1_reverse", (16,)),
        ("bias_hh_l1_reverse", (16,))]
    assert [n for n, _ in nn.GRU(3, 4, bias=False).named_parameters()] == [
        "weight_ih_l0", "weight_hh_l0"]
    assert nn.GRU(3, 4).weight_ih_l0.shape == (12, 3)
    assert [(n, tuple(p.shape)) for n, p in nn.LSTMCell(3, 4).named_parameters()] == [
        ("weight_ih", (16, 3)), ("weight_hh", (16, 4)), ("bias_ih", (16,)), ("bias_hh", (16,))]


def test_init_is_uniform_within_one_over_sqrt_hidden():
    torch.manual_seed(0)
    for layer in (nn.RNN(3, 16), nn.GRU(3, 16, num_layers=2), nn.LSTMCell(3, 16)):
        for p in layer.parameters():
            assert p.abs().max().item() <= 1 / math.sqrt(16)
            assert p.abs().max().item() > 0.8 / math.sqrt(16)


def test_reprs():
    assert repr(nn.LSTM(3, 4, num_layers=2, bidirectional=True)) == \
        "LSTM(3, 4, num_layers=2, bidirectional=True)"
    assert repr(nn.GRU(3, 4, num_layers=2, batch_first=True, dropout=0.5)) == \
        "GRU(3, 4, num_layers=2, batch_first=True, dropout=0.5)"
    assert repr(nn.RNN(3, 4, nonlinearity="relu", bias=False)) == \
        "RNN(3, 4, bias=False, nonlinearity='relu')"
    assert repr(nn.GRUCell(3, 4)) == "GRUCell(3, 4)"


@pytest.mark.task("16.1")
def test_shapes_of_outputs_and_states():
    x = torch.randn(5, 2, 3)
    out, (h, c) = nn.LSTM(3, 4, num_layers=2, bidirectional=True)(x)
    assert out.shape == (5, 2, 8) and h.shape == (4, 2, 4) and c.shape == (4, 2, 4)
    out, h = nn.GRU(3, 4, batch_first=True)(x)
    assert out.shape == (5, 2, 4) and h.shape == (1, 5, 4)
    out, h = nn.RNN(3, 4)(torch.randn(5, 3))
    assert out.shape == (5, 4) and h.shape == (1, 4)


@pytest.mark.task("16.1")
def test_node_names():
    x = torch.randn(5, 2, 3, requires_grad=True)
    for layer in (nn.RNN(3, 4), nn.GRU(3, 4)):
        out, h = layer(x)
        assert out.grad_fn.name() == "StackBackward0" and h.grad_fn.name() == "StackBackward0"
    assert nn.LSTM(3, 4)(x)[1][0].grad_fn.name() == "StackBackward0"
    assert nn.RNNCell(3, 4)(x[0]).grad_fn.name() == "TanhBackward0"
    assert nn.GRUCell(3, 4)(x[0]).grad_fn.name() == "AddBackward0"
    assert nn.LSTMCell(3, 4)(x[0])[0].grad_fn.name() == "MulBackward0"


@pytest.mark.task("16.1")
def test_dropout_between_layers_only_in_training():
    torch.manual_seed(0)
    layer = nn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = torch.randn(5, 2, 3)
    layer.eval()
    assert torch.equal(layer(x)[0], layer(x)[0])
    layer.train()
    assert not torch.equal(layer(x)[0], layer(x)[0])



@pytest.mark.task("16.1")
def test_dropout_leaves_the_last_layers_output_alone():
    """``dropout=1.0`` zeroes what goes from layer 0 to layer 1 and nothing else, in
    training: layer 1 then runs on zeros, and its output is not dropped.  PyTorch 2.13's
    sums, padded and packed."""
    from minitorch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
    lstm = nn.LSTM(2, 3, num_layers=2, dropout=1.0, dtype=torch.float64)
    with torch.no_grad():
        for i, p in enumerate(lstm.parameters()):
            p.copy_(torch.linspace(-0.5, 0.5, p.numel(), dtype=torch.float64)
                    .reshape(p.shape) * (1 + i % 3) / 3)
    x = torch.linspace(-1, 1, 16, dtype=torch.float64).reshape(4, 2, 2)
    out, (h, c) = lstm(x)
    assert [out.sum().item(), h.sum().item(), c.sum().item()] == pytest.approx(
        [1.3231036434717498, 1.0028000626204394, 1.5012178230199082], rel=1e-12)
    out, (h, c) = lstm(pack_padded_sequence(x, [4, 2]))
    assert [pad_packed_sequence(out)[0].sum().item(), h.sum().item(), c.sum().item()] == \
        pytest.approx([0.9213343115459139, 0.8255715172512221, 1.2720184890168589], rel=1e-12)
    lstm.eval()
    assert lstm(x)[0].sum().item() == pytest.approx(1.4678126709368688, rel=1e-12)

def test_one_layer_with_dropout_warns():
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1, "
                                         "but got dropout=0.5 and num_layers=1"):
        nn.GRU(3, 4, dropout=0.5)


def forward_case(make, kind, words):
    """An error the module's forward raises (task 16.1's regions run first)."""
    return pytest.param(make, kind, words, marks=pytest.mark.task("16.1"))


@pytest.mark.parametrize("make, kind, words", [
    (lambda: nn.RNN(3, 4, nonlinearity="sig"), ValueError,
     "Unknown nonlinearity 'sig'. Select from 'tanh' or 'relu'."),
    (lambda: nn.LSTM(3, 4, dropout=1.5), ValueError, "dropout should be a number in range"),
    (lambda: nn.LSTM(3, 0), ValueError, "hidden_size must be greater than zero"),
    (lambda: nn.LSTM(3, 4, num_layers=0), ValueError, "num_layers must be greater than zero"),
    forward_case(lambda: nn.LSTM(3, 4)(torch.randn(5, 2, 6)), RuntimeError,
                 r"input.size\(-1\) must be equal to input_size. Expected 3, got 6"),
    forward_case(lambda: nn.LSTM(3, 4)(torch.randn(5, 2, 3),
                                       (torch.zeros(1, 3, 4), torch.zeros(1, 2, 4))),
                 RuntimeError, r"Expected hidden\[0\] size \(1, 2, 4\), got \[1, 3, 4\]"),
    forward_case(lambda: nn.GRU(3, 4)(torch.randn(5, 2, 3), torch.zeros(2, 2, 4)),
                 RuntimeError, r"Expected hidden size \(1, 2, 4\), got \[2, 2, 4\]"),
    forward_case(lambda: nn.GRU(3, 4)(torch.randn(5, 2, 3, 1)), ValueError,
                 "^GRU: Expected input to be 2D or 3D, got 4D instead$"),
    forward_case(lambda: nn.LSTM(3, 4)(torch.randn(5)), ValueError,
                 "^LSTM: Expected input to be 2D or 3D, got 1D instead$"),
    forward_case(lambda: nn.RNN(3, 4)(torch.randn(5, 2, 3, 1)), ValueError,
                 "^RNN: Expected input to be 2D or 3D, got 4D tensor instead$"),
    forward_case(lambda: nn.LSTM(3, 4)(torch.randn(5, 2, 3).double()), ValueError,
                 "RNN input dtype .* does not match weight dtype"),
    (lambda: nn.RNNCell(3, 4)(torch.randn(2, 5)), RuntimeError,
     "input has inconsistent input_size: got 5 expected 3"),
    (lambda: nn.RNNCell(3, 4)(torch.randn(2, 3), torch.randn(3, 4)), RuntimeError,
     "Input batch size 2 doesn't match hidden0 batch size 3"),
])
def test_errors(make, kind, words):
    with pytest.raises(kind, match=words):
        make()


@pytest.mark.task("16.1")
def test_gradcheck_through_time():
    layer = nn.LSTM(2, 3, num_layers=2, bidirectional=True).double()
    x = torch.randn(4, 1, 2, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda t: layer(t)[0], (x,))


def test_pad_sequence():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0, 5.0])
    out = pad_sequence([a, b], padding_value=-1.0)
    assert out.tolist() == [[1.0, 3.0], [2.0, 4.0], [-1.0, 5.0]]
    assert out.grad_fn.name() == "torch::autograd::CopySlices"
    left = pad_sequence([a, b], batch_first=True, padding_side="left")
    assert left.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    left.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0]
    assert pad_sequence([torch.ones(2, 3), torch.ones(1, 3)]).shape == (2, 2, 3)
    with pytest.raises(RuntimeError, match="Expected padding_side to be one of left or right, "
                                           "but got middle."):
        pad_sequence([a, b], padding_side="middle")
    with pytest.raises(RuntimeError, match="received an empty list of sequences"):
        pad_sequence([])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pad_sequence([b])
