"""Convolutions and padding of tensors with an empty dimension, as in PyTorch 2.13.

A convolution of an input with no channels returns no channels either (PyTorch's "empty"
convolution: the weight's output channels and the bias are not used), with zero gradients;
reflect and replicate padding refuse any empty dimension but the batch's.  Values, shapes
and messages checked against PyTorch 2.13."""

import pytest

import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.functional as F

pytestmark = pytest.mark.chapter11


@pytest.mark.parametrize("x_shape, w_shape, kwargs, out_shape", [
    ((1, 0, 5, 5), (4, 0, 3, 3), {}, (1, 0, 3, 3)),
    ((2, 0, 5, 5), (4, 0, 3, 3), {"stride": 2}, (2, 0, 2, 2)),
    ((2, 0, 7, 7), (4, 0, 3, 3), {"stride": 2, "dilation": 2}, (2, 0, 2, 2)),
    ((1, 0, 5, 5), (4, 0, 3, 3), {"padding": 1}, (1, 0, 5, 5)),
    ((1, 0, 5, 5), (4, 0, 3, 3), {"padding": "same"}, (1, 0, 5, 5)),
    ((1, 0, 5, 5), (4, 0, 3, 3), {"groups": 4}, (1, 0, 3, 3)),
    ((0, 5, 5), (4, 0, 3, 3), {}, (0, 3, 3)),
])
def test_conv2d_of_no_channels_has_no_channels(x_shape, w_shape, kwargs, out_shape):
    out = F.conv2d(torch.ones(x_shape), torch.ones(w_shape), torch.ones(w_shape[0]), **kwargs)
    assert tuple(out.shape) == out_shape and out.dtype == torch.float32


def test_conv1d_of_no_channels_has_no_channels():
    assert tuple(F.conv1d(torch.ones(1, 0, 5), torch.ones(4, 0, 3)).shape) == (1, 0, 3)


def test_the_gradients_are_zeros_of_each_shape():
    # PyTorch: x.grad (1, 0, 5, 5), w.grad (4, 0, 3, 3), b.grad tensor([0., 0., 0., 0.])
    x = torch.ones(1, 0, 5, 5, requires_grad=True)
    w = torch.ones(4, 0, 3, 3, requires_grad=True)
    b = torch.ones(4, requires_grad=True)
    y = F.conv2d(x, w, b)
    assert type(y.grad_fn).__name__ == "ConvolutionBackward0"
    y.sum().backward()
    assert tuple(x.grad.shape) == (1, 0, 5, 5) and tuple(w.grad.shape) == (4, 0, 3, 3)
    assert b.grad.tolist() == [0., 0., 0., 0.]


def test_a_conv2d_layer_of_no_input_channels():
    conv = nn.Conv2d(0, 4, 3)
    out = conv(torch.ones(1, 0, 5, 5))
    assert tuple(out.shape) == (1, 0, 3, 3)
    assert type(out.grad_fn).__name__ == "ConvolutionBackward0"
    out.sum().backward()
    assert conv.bias.grad.tolist() == [0., 0., 0., 0.]


def test_vmap_and_forward_mode_give_no_channels_too():
    import minitorch.autograd.forward_ad as fwAD
    from minitorch import func
    w = torch.ones(4, 0, 3, 3)
    # PyTorch: (2, 1, 0, 3, 3); forward mode: primal and tangent (1, 0, 3, 3)
    assert tuple(func.vmap(lambda x: F.conv2d(x, w))(torch.ones(2, 1, 0, 5, 5)).shape) == \
        (2, 1, 0, 3, 3)
    with fwAD.dual_level():
        x = fwAD.make_dual(torch.ones(1, 0, 5, 5), torch.ones(1, 0, 5, 5))
        y = F.conv2d(x, w, torch.ones(4))
        assert tuple(fwAD.unpack_dual(y).tangent.shape) == (1, 0, 3, 3)


def padding_error(n, shape):
    return (rf"^Expected {n + 1}D or {n + 2}D \(batch mode\) tensor with possibly 0 batch size "
            rf"and other non-zero dimensions for input, but got: \[{', '.join(map(str, shape))}\]")


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("shape, pad", [
    ((1, 0, 5, 5), (1, 1, 1, 1)), ((1, 0, 5, 5), (0, 0, 0, 0)), ((0, 5, 5), (1, 1, 1, 1)),
    ((1, 0, 5), (1, 1)), ((0, 5), (1, 1)), ((1, 2, 0, 5), (1, 1, 1, 1)),
    ((0, 0, 5, 5), (1, 1, 1, 1)), ((1, 0, 3, 3, 3), (1,) * 6), ((1, 0, 5, 5), (1,) * 6),
])
def test_edge_padding_refuses_empty_dims_but_the_batch(mode, shape, pad):
    with pytest.raises(RuntimeError, match=padding_error(len(pad) // 2, shape)):
        F.pad(torch.ones(shape), pad, mode=mode)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_an_empty_batch_is_padded(mode):
    assert tuple(F.pad(torch.ones(0, 2, 5, 5), (1, 1, 1, 1), mode=mode).shape) == (0, 2, 7, 7)


def test_circular_padding_takes_empty_channels():
    assert tuple(F.pad(torch.ones(1, 0, 5, 5), (1, 1, 1, 1), mode="circular").shape) == \
        (1, 0, 7, 7)


def test_a_reflect_padded_layer_of_no_channels_is_refused():
    conv = nn.Conv1d(0, 4, 3, padding=1, padding_mode="reflect")
    with pytest.raises(RuntimeError, match=padding_error(1, (1, 0, 5))):
        conv(torch.ones(1, 0, 5))
