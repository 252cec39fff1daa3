"""nn.functional: values against numpy references, gradients against finite differences, errors.

Reference values hard-coded below come from PyTorch 2.13 on the same inputs.
"""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import minitorch as torch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck

pytestmark = pytest.mark.chapter10


def t64(array, requires_grad=False):
    return torch.tensor(np.asarray(array, dtype=np.float64), requires_grad=requires_grad)


def np_log_softmax(x, axis=-1):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


LOGITS = [[0.5, -1.0, 2.0], [1.5, 0.2, -0.3], [0.0, 0.0, 0.0], [3.0, -2.0, 1.0]]
TARGET = [2, 0, 1, 1]


# ----- linear ----------------------------------------------------------------------------
def test_linear_values_and_node():
    x = torch.tensor([[1.0, 2.0]])
    w = torch.tensor([[1.0, 0.0], [0.5, -1.0], [2.0, 1.0]], requires_grad=True)
    b = torch.tensor([0.0, 1.0, -1.0], requires_grad=True)
    y = F.linear(x, w, b)
    assert y.tolist() == [[1.0, -0.5, 3.0]]
    assert y.grad_fn.name() == "AddmmBackward0"
    assert F.linear(x, w.detach()).tolist() == [[1.0, -1.5, 4.0]]


def test_linear_gradients():
    rng = np.random.default_rng(0)
    x = t64(rng.normal(size=(4, 3)), True)
    w = t64(rng.normal(size=(2, 3)), True)
    b = t64(rng.normal(size=(2,)), True)
    assert gradcheck(F.linear, (x, w, b))
    assert gradcheck(lambda x, w: F.linear(x, w), (x, w))
    x3 = t64(rng.normal(size=(2, 4, 3)), True)        # leading batch dims take the general path
    assert gradcheck(F.linear, (x3, w, b))


def test_linear_shape_error():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x4 and 3x2\)"):
        F.linear(torch.zeros(2, 4), torch.zeros(2, 3))


def test_linear_double_backward():
    x = t64([[1.0, 2.0]], True)
    w = t64([[3.0, 4.0]], True)
    (y,) = [F.linear(x, w).sum() ** 2]
    (gx,) = torch.autograd.grad(y, x, create_graph=True)
    gx.sum().backward()
    # y = (x.w)^2, dy/dx = 2 (x.w) w, d/dw of sum(dy/dx) = 2 * (x * sum(w) + (x.w))
    assert w.grad.tolist() == [[2 * (1 * 7 + 11), 2 * (2 * 7 + 11)]]


# ----- activations, softmax --------------------------------------------------------------
def test_relu_sigmoid_tanh():
    x = torch.tensor([-1.0, 0.0, 2.0])
    assert F.relu(x).tolist() == [0.0, 0.0, 2.0]
    assert np.allclose(F.sigmoid(x).tolist(), 1 / (1 + np.exp([1.0, 0.0, -2.0])))
    assert np.allclose(F.tanh(x).tolist(), np.tanh([-1.0, 0.0, 2.0]))


def test_softmax_and_log_softmax_values():
    x = np.array(LOGITS)
    assert np.allclose(F.softmax(torch.tensor(LOGITS), dim=1).numpy(), np.exp(np_log_softmax(x)), atol=1e-6)
    assert np.allclose(F.log_softmax(torch.tensor(LOGITS), dim=0).numpy(), np_log_softmax(x, 0), atol=1e-6)


def test_log_softmax_is_stable_for_large_logits():
    out = F.log_softmax(torch.tensor([[1000.0, 0.0, -1000.0]]), dim=1)
    assert out.tolist() == [[0.0, -1000.0, -2000.0]]                  # PyTorch's values
    assert F.softmax(torch.tensor([[1000.0, 1000.0]]), dim=1).tolist() == [[0.5, 0.5]]


def test_softmax_implicit_dim_warns():
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax has been deprecated"):
        out = F.softmax(torch.zeros(2, 3))
    assert np.allclose(out.numpy(), 1 / 3)


# ----- dropout -------------------------------------------------------------------------
def test_dropout_training_zeroes_and_scales():
    torch.manual_seed(0)
    x = torch.ones(2000)
    y = F.dropout(x, p=0.25)
    kept = y.numpy()[y.numpy() != 0]
    assert np.allclose(kept, 1 / 0.75)
    assert 0.2 < (y.numpy() == 0).mean() < 0.3


def test_dropout_eval_returns_input_and_extremes():
    x = torch.ones(3)
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 1.0).tolist() == [0.0, 0.0, 0.0]
    assert F.dropout(x, 0.0).tolist() == [1.0, 1.0, 1.0]


def test_dropout_gradient_uses_the_same_mask():
    x = torch.ones(100, requires_grad=True)
    y = F.dropout(x, 0.5)
    y.sum().backward()
    assert x.grad.tolist() == y.detach().tolist()
    assert y.grad_fn.name() == "MulBackward0"      # PyTorch 2.13: input * mask


def test_dropout_is_reproducible_with_manual_seed():
    torch.manual_seed(3)
    a = F.dropout(torch.ones(50))
    torch.manual_seed(3)
    b = F.dropout(torch.ones(50))
    assert a.equal(b)


@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_dropout_probability_error(p):
    with pytest.raises(ValueError, match=f"^dropout probability has to be between 0 and 1, but got {p}$"):
        F.dropout(torch.ones(1), p)


# ----- losses ----------------------------------------------------------------------------
def test_mse_loss_reductions():
    a = torch.tensor([1.0, 2.0, 3.0])
    b = torch.tensor([1.0, 0.0, 0.0])
    assert F.mse_loss(a, b).item() == pytest.approx(13 / 3)
    assert F.mse_loss(a, b, reduction="sum").item() == 13.0
    assert F.mse_loss(a, b, reduction="none").tolist() == [0.0, 4.0, 9.0]
    with pytest.raises(ValueError, match="^bad is not a valid value for reduction$"):
        F.mse_loss(a, b, reduction="bad")


def test_mse_loss_gradient_and_broadcast_warning():
    a = t64([[1.0], [2.0]], True)
    b = t64([[0.5], [0.0]])
    assert gradcheck(lambda a: F.mse_loss(a, b), (a,))
    with pytest.warns(UserWarning, match=r"Using a target size \(minitorch.Size\(\[3\]\)\) that is different "
                                         r"to the input size \(minitorch.Size\(\[3, 1\]\)\)"):
        F.mse_loss(torch.zeros(3, 1), torch.zeros(3))


def np_cross_entropy(x, t, w=None, ignore=-100, reduction="mean"):
    x = np.asarray(x, dtype=np.float64)
    t = np.asarray(t)
    logp = np_log_softmax(x)
    counted = t != ignore
    safe = np.where(counted, t, 0)
    weights = (np.ones(x.shape[1]) if w is None else np.asarray(w))[safe] * counted
    losses = -weights * logp[np.arange(len(t)), safe]
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.sum() / weights.sum()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_values(reduction):
    out = F.cross_entropy(torch.tensor(LOGITS), torch.tensor(TARGET), reduction=reduction)
    assert out.dtype == torch.float32
    assert np.allclose(out.numpy(), np_cross_entropy(LOGITS, TARGET, reduction=reduction), atol=1e-6)


def test_cross_entropy_matches_pytorch_numbers():
    # PyTorch 2.13: F.cross_entropy(torch.tensor(LOGITS), torch.tensor(TARGET)).item()
    assert F.cross_entropy(torch.tensor(LOGITS), torch.tensor(TARGET)).item() == pytest.approx(1.708976149559021, abs=1e-6)
    # ... and with weight=torch.tensor([1., 2., 3.]), ignore_index=2
    weighted = F.cross_entropy(torch.tensor(LOGITS), torch.tensor(TARGET),
                               weight=torch.tensor([1.0, 2.0, 3.0]), ignore_index=2)
    assert weighted.item() == pytest.approx(2.5652101039886475, abs=1e-6)


def test_cross_entropy_large_logits_are_finite():
    assert F.cross_entropy(torch.tensor([[1000.0, 0.0]]), torch.tensor([1])).item() == 1000.0
    assert F.cross_entropy(torch.tensor([[1000.0, 0.0]]), torch.tensor([0])).item() == 0.0


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_gradient(reduction):
    x = t64(LOGITS, True)
    t = torch.tensor(TARGET)
    w = t64([0.5, 2.0, 1.0])
    assert gradcheck(lambda x: F.cross_entropy(x, t, reduction=reduction), (x,))
    assert gradcheck(lambda x: F.cross_entropy(x, t, weight=w, ignore_index=0, reduction=reduction), (x,))


def test_cross_entropy_gradient_is_softmax_minus_one_hot():
    x = torch.tensor(LOGITS, requires_grad=True)
    F.cross_entropy(x, torch.tensor(TARGET), reduction="sum").backward()
    expected = np.exp(np_log_softmax(np.array(LOGITS)))
    expected[np.arange(4), TARGET] -= 1
    assert np.allclose(x.grad.numpy(), expected, atol=1e-6)
    assert x.grad.dtype == torch.float32


@given(st.integers(1, 6), st.integers(2, 5), st.data())
def test_cross_entropy_property(n, c, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 1000)))
    x = rng.normal(scale=5, size=(n, c))
    t = rng.integers(0, c, size=n)
    out = F.cross_entropy(t64(x), torch.tensor(t))
    assert out.item() == pytest.approx(np_cross_entropy(x, t), rel=1e-9, abs=1e-12)


def test_cross_entropy_single_sample_and_soft_targets():
    x = torch.tensor([0.5, -1.0, 2.0])
    single = F.cross_entropy(x, torch.tensor(2))
    assert single.shape == () and single.item() == pytest.approx(np_cross_entropy([LOGITS[0]], [2]), abs=1e-6)
    probs = torch.tensor([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    soft = F.cross_entropy(torch.tensor(LOGITS[:2]), probs)
    assert soft.item() == pytest.approx(np_cross_entropy(LOGITS[:2], [2, 0]), abs=1e-6)


def test_cross_entropy_errors():
    x = torch.randn(4, 3)
    with pytest.raises(IndexError, match="^Target 3 is out of bounds.$"):
        F.cross_entropy(x, torch.tensor([0, 1, 2, 3]))
    with pytest.raises(IndexError, match="^Target -1 is out of bounds.$"):
        F.cross_entropy(x, torch.tensor([0, 1, 2, -1]))
    with pytest.raises(RuntimeError, match="^expected target dtype to be Long or Byte, but got Float$"):
        F.cross_entropy(x, torch.tensor([0.0, 1.0, 2.0, 1.0]))
    with pytest.raises(ValueError, match=r"^Expected input batch_size \(4\) to match target batch_size \(3\).$"):
        F.cross_entropy(x, torch.tensor([0, 1, 2]))
    with pytest.raises(ValueError, match="^bad is not a valid value for reduction$"):
        F.cross_entropy(x, torch.tensor([0, 1, 2, 1]), reduction="bad")


def test_nll_loss_matches_cross_entropy():
    x = torch.tensor(LOGITS)
    t = torch.tensor(TARGET)
    assert F.nll_loss(F.log_softmax(x, dim=1), t).item() == pytest.approx(F.cross_entropy(x, t).item(), abs=1e-6)


# ----- relu_ (PyTorch 2.13: F.relu_ is torch.relu_) -----------------------------------
def test_functional_relu_underscore_changes_its_input_and_returns_it():
    assert F.relu_ is torch.relu_
    a = torch.tensor([-1.0, 2.0, 3.0], requires_grad=True)
    b = a * 1
    c = F.relu_(b)
    assert c is b and c.grad_fn.name() == "ReluBackward0"
    c.sum().backward()
    assert a.grad.tolist() == [0.0, 1.0, 1.0]
    i = torch.tensor([-1, 2])
    assert F.relu_(i) is i and i.tolist() == [0, 2] and i.dtype == torch.int64


def test_functional_relu_underscore_errors():
    with pytest.raises(TypeError, match=r"^relu_\(\): argument 'input' \(position 1\) must "
                                        r"be Tensor, not list$"):
        F.relu_([1.0])
    with pytest.raises(RuntimeError, match="^Boolean inputs not supported for relu"):
        F.relu_(torch.tensor([True]))
    leaf = torch.tensor([-1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being "
                                           "used in an in-place operation."):
        F.relu_(leaf)
    assert leaf.tolist() == [-1.0, 2.0]


def test_every_in_place_relu_is_one_op():
    """``F.relu(x, inplace=True)``, ``F.relu_(x)`` and ``x.relu_()`` run one op (one class,
    one name in graphs: ``aten.relu_inplace``), recorded as ``ReluBackward0``."""
    from minitorch.ops import aten

    def interior():
        return torch.tensor([-1.0, 2.0], requires_grad=True) * 1
    nodes = [F.relu(interior(), inplace=True).grad_fn, F.relu_(interior()).grad_fn,
             interior().relu_().grad_fn]
    assert len({type(n) for n in nodes}) == 1
    assert [n.name() for n in nodes] == ["ReluBackward0"] * 3
    assert aten.relu_inplace.function is torch.ops.inplace.ReluInplace
    assert not hasattr(aten, "relu_inplace_inplace")
