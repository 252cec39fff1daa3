"""Anomaly mode: the node whose backward made nan (or failed) is named, with the forward
line that recorded it.  Expected texts are PyTorch 2.13's (chapter 5)."""

import warnings

import pytest

import minitorch

pytestmark = pytest.mark.chapter5


def _backward_catching_warnings(loss):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError) as error:
            loss.backward()
    return str(error.value), [str(w.message) for w in caught]


def test_nan_from_a_builtin_backward_is_caught_and_its_forward_line_shown():
    x = minitorch.tensor([0.0, 4.0], requires_grad=True)
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        mode = minitorch.autograd.detect_anomaly()
    with mode:
        y = x.sqrt()
        loss = (y * minitorch.tensor([0.0, 1.0])).sum()
        message, warned = _backward_catching_warnings(loss)
    assert message == "Function 'SqrtBackward0' returned nan values in its 0th output."
    (text,) = warned
    assert text.startswith("Error detected in SqrtBackward0. Traceback of forward call that "
                           "caused the error:\n")
    last_frame = text.rstrip("\n").splitlines()[-2:]
    assert __file__ in last_frame[0] and last_frame[1].strip() == "y = x.sqrt()"


def test_without_anomaly_mode_the_nan_goes_through():
    x = minitorch.tensor([0.0, 4.0], requires_grad=True)
    (x.sqrt() * minitorch.tensor([0.0, 1.0])).sum().backward()
    assert x.grad.isnan().tolist() == [True, False]


def test_forward_recorded_without_anomaly_mode_has_no_traceback():
    x = minitorch.tensor([0.0, 4.0], requires_grad=True)
    loss = (x.sqrt() * minitorch.tensor([0.0, 1.0])).sum()
    with minitorch.autograd.set_detect_anomaly(True):
        assert minitorch.is_anomaly_enabled()
        message, warned = _backward_catching_warnings(loss)
    assert not minitorch.is_anomaly_enabled()
    assert message == "Function 'SqrtBackward0' returned nan values in its 0th output."
    assert warned == ["Error detected in SqrtBackward0. No forward pass information "
                      "available. Enable detect anomaly during forward pass for more "
                      "information."]


def test_a_failing_backward_shows_where_its_forward_ran():
    # PyTorch's hint for the in-place error: set_detect_anomaly(True, check_nan=False)
    x = minitorch.tensor([0.0, 1.0], requires_grad=True)
    with minitorch.autograd.set_detect_anomaly(True, check_nan=False):
        assert not minitorch.is_anomaly_check_nan_enabled()
        y = x.exp()
        y.add_(1)
        message, warned = _backward_catching_warnings(y.sum())
    assert "which is output 0 of Exp, is at version 1; expected version 0" in message
    (text,) = warned
    assert text.startswith("Error detected in ExpBackward0. Traceback of forward call")
    assert text.rstrip("\n").splitlines()[-1].strip() == "y = x.exp()"


def test_nan_from_a_custom_function_is_caught():
    class Bad(minitorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            return grad * float("nan")

    x = minitorch.ones(2, requires_grad=True)
    with minitorch.autograd.set_detect_anomaly(True):
        y = Bad.apply(x)
        message, warned = _backward_catching_warnings(y.sum())
    assert message == "Function 'BadBackward' returned nan values in its 0th output."
    assert warned[0].startswith("Error detected in BadBackward. Traceback of forward call")
