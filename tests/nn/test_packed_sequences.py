"""``nn.utils.rnn``'s packed sequences and LSTM's ``proj_size`` as PyTorch 2.13 has them:
fields, order, lengths, nodes, printed forms and errors.  (The layers' values and
gradients on packed input are differential cases in ``seq_cases.py``.)"""

import pytest

import minitorch as torch
import minitorch.nn as nn
from minitorch.nn.utils.rnn import (PackedSequence, invert_permutation, pack_padded_sequence,
                                    pack_sequence, pad_packed_sequence, pad_sequence,
                                    unpack_sequence, unpad_sequence)

pytestmark = pytest.mark.chapter16

a = torch.arange(1.0, 4.0).reshape(3, 1)
b = torch.arange(4.0, 6.0).reshape(2, 1)
c = torch.tensor([[6.0]])
padded = pad_sequence([b, a, c])           # [[4, 1, 6], [5, 2, 0], [0, 3, 0]]


def flat(t):
    return t.flatten().tolist()


def test_pack_sequence_keeps_the_real_steps_time_step_by_time_step():
    packed = pack_sequence([a, b, c])
    assert type(packed).__mro__[1].__name__ == "PackedSequence_"
    assert packed._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
    assert flat(packed.data) == [1.0, 4.0, 6.0, 2.0, 5.0, 3.0]
    assert packed.batch_sizes.tolist() == [3, 2, 1] and packed.batch_sizes.dtype == torch.int64
    assert packed.sorted_indices is None and packed.unsorted_indices is None
    assert repr(packed) == (   # PyTorch 2.13
        "PackedSequence(data=tensor([[1.],\n        [4.],\n        [6.],\n        [2.],\n"
        "        [5.],\n        [3.]]), batch_sizes=tensor([3, 2, 1]), sorted_indices=None, "
        "unsorted_indices=None)")


def test_an_unsorted_batch_is_sorted_and_remembers_how():
    packed = pack_sequence([b, a, c], enforce_sorted=False)
    assert flat(packed.data) == [1.0, 4.0, 6.0, 2.0, 5.0, 3.0]
    assert packed.sorted_indices.tolist() == [1, 0, 2]
    assert packed.unsorted_indices.tolist() == [1, 0, 2]
    lengths = torch.tensor([2, 3, 1])
    assert pack_padded_sequence(padded, lengths, enforce_sorted=False).sorted_indices \
        .tolist() == [1, 0, 2]
    assert invert_permutation(torch.tensor([2, 0, 1])).tolist() == [1, 2, 0]
    assert invert_permutation(None) is None


def test_pad_packed_sequence_gives_back_the_batch_and_the_lengths():
    packed = pack_padded_sequence(padded, [2, 3, 1], enforce_sorted=False)
    again, lengths = pad_packed_sequence(packed)
    assert again.squeeze(-1).tolist() == [[4.0, 1.0, 6.0], [5.0, 2.0, 0.0], [0.0, 3.0, 0.0]]
    assert lengths.tolist() == [2, 3, 1] and lengths.dtype == torch.int64
    wide, lengths = pad_packed_sequence(pack_sequence([a, b, c]), batch_first=True,
                                        total_length=5, padding_value=-1)
    assert wide.squeeze(-1).tolist() == [[1.0, 2.0, 3.0, -1.0, -1.0],
                                         [4.0, 5.0, -1.0, -1.0, -1.0],
                                         [6.0, -1.0, -1.0, -1.0, -1.0]]
    assert lengths.tolist() == [3, 2, 1]


def test_lengths_may_be_a_list_a_tuple_or_any_integer_tensor():
    x = torch.arange(6.0).reshape(3, 2, 1)
    for lengths in ([3, 2], (3, 2), torch.tensor([3, 2], dtype=torch.int32),
                    torch.tensor([3.0, 2.0])):
        assert pack_padded_sequence(x, lengths).batch_sizes.tolist() == [2, 2, 1]
    rows = pack_padded_sequence(x.transpose(0, 1), [3, 2], batch_first=True).data
    assert flat(rows) == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_the_nodes_pytorch_records():
    x = torch.arange(6.0, dtype=torch.float64).reshape(3, 2, 1).requires_grad_()
    packed = pack_padded_sequence(x, [3, 2])
    assert type(packed.data.grad_fn).__name__ == "PackPaddedSequenceBackward0"
    again, _ = pad_packed_sequence(packed)
    assert type(again.grad_fn).__name__ == "CopySlices"
    again.sum().backward()
    assert x.grad.squeeze(-1).tolist() == [[1.0, 1.0], [1.0, 1.0], [1.0, 0.0]]
    unsorted = pack_padded_sequence(x, [2, 3], enforce_sorted=False)
    assert [type(unsorted.data.grad_fn).__name__,
            type(unsorted.data.grad_fn.next_functions[0][0]).__name__] == \
        ["PackPaddedSequenceBackward0", "IndexSelectBackward0"]
    again, _ = pad_packed_sequence(unsorted, batch_first=True)
    assert type(again.grad_fn).__name__ == "IndexSelectBackward0"
    assert type(again.grad_fn.next_functions[0][0]).__name__ == "TransposeBackward0"


def test_packing_and_padding_have_second_derivatives():
    x = torch.arange(6.0, dtype=torch.float64).reshape(3, 2, 1).requires_grad_()
    assert torch.autograd.gradgradcheck(
        lambda t: pad_packed_sequence(pack_padded_sequence(t * t, [3, 2]))[0], (x,))


def test_unpad_and_unpack_give_the_sequences_back_in_order():
    for pieces in (unpad_sequence(padded, torch.tensor([2, 3, 1])),
                   unpack_sequence(pack_sequence([b, a, c], enforce_sorted=False))):
        assert [flat(p) for p in pieces] == [[4.0, 5.0], [1.0, 2.0, 3.0], [6.0]]


def test_a_packed_sequence_by_hand_and_its_conversions():
    made = PackedSequence(torch.zeros(3), torch.tensor([2, 1]))
    assert repr(made) == ("PackedSequence(data=tensor([0., 0., 0.]), batch_sizes=tensor([2, 1]), "
                          "sorted_indices=None, unsorted_indices=None)")
    assert PackedSequence((torch.zeros(3), torch.tensor([2, 1]))).batch_sizes.tolist() == [2, 1]
    packed = pack_sequence([a, b, c])
    assert packed.to(torch.float32) is packed and packed.float() is packed
    assert packed.double().data.dtype == torch.float64 and not packed.is_cuda
    assert len(packed) == 4 and packed[0].shape == (6, 1)


@pytest.mark.parametrize("call, error, message", [   # PyTorch 2.13's
    (lambda: pack_padded_sequence(padded, [2, 3, 1]), RuntimeError,
     "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
     "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
     "sidestep this requirement if you do not need ONNX exportability."),
    (lambda: pack_padded_sequence(padded, [3, 2, 0]), RuntimeError,
     "Length of all samples has to be greater than 0, but found an element in 'lengths' that "
     "is <= 0"),
    (lambda: pack_padded_sequence(padded, [3, 2]), RuntimeError,
     "Expected `len(lengths)` to be equal to batch_size, but got 2 (batch_size=3)"),
    (lambda: pad_packed_sequence(pack_sequence([a, b, c]), total_length=2), ValueError,
     "Expected total_length to be at least the length of the longest sequence in input, but "
     "got total_length=2 and max sequence length being 3"),
    (lambda: pack_sequence([c, a]), RuntimeError, "`lengths` array must be sorted"),
    (lambda: pack_padded_sequence(torch.zeros(0, 2, 1), [1, 1]), RuntimeError,
     "Cannot pack empty tensors."),
    (lambda: pack_padded_sequence(padded, [[1, 1]]), RuntimeError,
     "'lengths' argument should be a 1D CPU int64 tensor, but got 2D cpu Long tensor"),
    (lambda: PackedSequence(torch.zeros(3)), AssertionError,
     "Expected data to be a list or tuple of length 2"),
    # PyTorch reads past the padded batch here; minitorch refuses
    (lambda: pack_padded_sequence(padded, [4, 2, 1]), RuntimeError,
     "pack_padded_sequence: a sequence is 4 steps long but the padded batch holds only 3"),
])
def test_errors(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value).startswith(message)


@pytest.mark.task("16.1")
@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_each_sequence_runs_as_long_as_it_is(kind):
    """The packed run equals running each sequence alone, at its own length."""
    torch.manual_seed(0)
    layer = getattr(nn, kind)(3, 4, bidirectional=True, dtype=torch.float64)
    x = torch.randn(4, 3, 3, dtype=torch.float64)
    lengths = [2, 4, 1]
    out, final = layer(pack_padded_sequence(x, lengths, enforce_sorted=False))
    padded_out, _ = pad_packed_sequence(out)
    h_n = final[0] if kind == "LSTM" else final
    for i, n in enumerate(lengths):
        alone, alone_final = layer(x[:n, i:i + 1])
        alone_h = alone_final[0] if kind == "LSTM" else alone_final
        assert torch.allclose(padded_out[:n, i], alone[:, 0])
        assert torch.allclose(h_n[:, i], alone_h[:, 0])
        assert (padded_out[n:, i] == 0).all()


@pytest.mark.task("16.1")
def test_what_the_layers_return_for_a_packed_sequence():
    layer = nn.GRU(3, 4, num_layers=2, bidirectional=True, dtype=torch.float64)
    packed = pack_padded_sequence(torch.zeros(4, 3, 3, dtype=torch.float64), [4, 2, 3],
                                  enforce_sorted=False)
    out, h = layer(packed)
    assert type(out) is PackedSequence and out.data.shape == (9, 8)
    assert out.batch_sizes is packed.batch_sizes and out.sorted_indices is packed.sorted_indices
    assert h.shape == (4, 3, 4)
    # PyTorch 2.13's nodes, in float64
    assert type(out.data.grad_fn).__name__ == "CatBackward0"
    assert type(h.grad_fn).__name__ == "IndexSelectBackward0"
    # three sequences, states for two: PyTorch fails inside its permutation of hx ("INDICES
    # element is out of DATA bounds"); minitorch checks the size first
    with pytest.raises(RuntimeError, match=r"^Expected hidden size \(4, 3, 4\), got \[4, 2, 4\]"):
        layer(packed, torch.zeros(4, 2, 4, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="^input must have 2 dimensions, got 3$"):
        layer(PackedSequence(torch.zeros(5, 2, 3, dtype=torch.float64), torch.tensor([3, 2])))


def test_lstm_with_projections_names_its_parameters_as_pytorch():
    lstm = nn.LSTM(3, 5, num_layers=2, proj_size=2, bidirectional=True)
    assert repr(lstm) == "LSTM(3, 5, proj_size=2, num_layers=2, bidirectional=True)"
    assert [(k, tuple(v.shape)) for k, v in lstm.state_dict().items()][:5] == [
        ("weight_ih_l0", (20, 3)), ("weight_hh_l0", (20, 2)), ("bias_ih_l0", (20,)),
        ("bias_hh_l0", (20,)), ("weight_hr_l0", (2, 5))]
    assert [k for k in lstm.state_dict()][10:15] == [
        "weight_ih_l1", "weight_hh_l1", "bias_ih_l1", "bias_hh_l1", "weight_hr_l1"]
    assert lstm.weight_ih_l1.shape == (20, 4)
    assert [[tuple(w.shape) for w in g] for g in lstm.all_weights][2] == \
        [(20, 4), (20, 2), (20,), (20,), (2, 5)]
    assert [tuple(w.shape) for w in nn.LSTM(3, 5, proj_size=2, bias=False).all_weights[0]] \
        == [(20, 3), (20, 2), (2, 5)]
    out, (h, c) = lstm(torch.zeros(4, 2, 3))
    assert (out.shape, h.shape, c.shape) == ((4, 2, 4), (4, 2, 2), (4, 2, 5))


@pytest.mark.parametrize("kwargs, message", [   # PyTorch 2.13's
    (dict(proj_size=-1), "proj_size should be a positive integer or zero to disable "
                         "projections"),
    (dict(proj_size=5), "proj_size has to be smaller than hidden_size"),
])
def test_lstm_projection_errors(kwargs, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        nn.LSTM(3, 5, **kwargs)
    lstm = nn.LSTM(3, 5, num_layers=2, proj_size=2, bidirectional=True)
    with pytest.raises(RuntimeError, match=r"^Expected hidden\[0\] size \(4, 2, 2\), got "
                                           r"\[4, 2, 5\]$"):
        lstm(torch.zeros(4, 2, 3), (torch.zeros(4, 2, 5), torch.zeros(4, 2, 5)))


@pytest.mark.parametrize("cls", [nn.RNN, nn.GRU])
@pytest.mark.parametrize("proj_size", [0, 2])
def test_only_the_lstm_has_a_projection(cls, proj_size):
    # PyTorch 2.13 refuses the keyword itself, even proj_size=0
    with pytest.raises(ValueError, match="^proj_size argument is only supported for LSTM, "
                                         "not RNN or GRU$"):
        cls(3, 5, proj_size=proj_size)
    with pytest.raises(TypeError, match=r"^RNNBase\.__init__\(\) got an unexpected keyword "
                                        "argument 'projection'$"):
        cls(3, 5, projection=2)


def test_permute_hidden_and_flatten_parameters():
    lstm = nn.LSTM(2, 3)
    h, c = torch.arange(6.0).reshape(1, 2, 3), torch.zeros(1, 2, 3)
    swapped = lstm.permute_hidden((h, c), torch.tensor([1, 0]))
    assert swapped[0][0].tolist() == [[3.0, 4.0, 5.0], [0.0, 1.0, 2.0]]
    assert lstm.permute_hidden((h, c), None)[0] is h
    assert nn.GRU(2, 3).permute_hidden(h, torch.tensor([1, 0]))[0, 0].tolist() == \
        [3.0, 4.0, 5.0]
    assert lstm.flatten_parameters() is None       # PyTorch 2.13 on the CPU: nothing
