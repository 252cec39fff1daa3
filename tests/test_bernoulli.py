"""``torch.bernoulli`` and ``Tensor.bernoulli``/``bernoulli_`` with a tensor of
probabilities: dtypes, the nodes they record, and PyTorch 2.13's errors (chapter 13
draws them per example under vmap; tests/func/test_vmap_randomness.py)."""

import pytest

import minitorch as torch

pytestmark = pytest.mark.chapter13


def test_bernoulli_draws_ones_with_the_given_probabilities():
    torch.manual_seed(0)
    p = torch.tensor([0.0, 1.0, 0.3], dtype=torch.float64).expand(4000, 3)
    drawn = torch.bernoulli(p)
    assert drawn.dtype == torch.float64 and drawn.shape == (4000, 3)
    assert set(drawn.flatten().tolist()) == {0.0, 1.0}
    means = drawn.mean(0).tolist()
    assert means[0] == 0.0 and means[1] == 1.0 and abs(means[2] - 0.3) < 0.03
    assert torch.full((2, 3), 0.5).bernoulli(0.2).shape == (2, 3)


def test_the_nodes_pytorch_records():
    # PyTorch 2.13: BernoulliBackward0 (gradient zero); with p, a NotImplemented node
    x = torch.full((2, 3), 0.5, requires_grad=True)
    drawn = torch.bernoulli(x)
    assert drawn.requires_grad and type(drawn.grad_fn).__name__ == "BernoulliBackward0"
    drawn.sum().backward()
    assert x.grad.tolist() == [[0.0] * 3] * 2
    with_p = torch.bernoulli(x, 0.3)
    assert type(with_p.grad_fn).__name__ == "NotImplemented"
    assert with_p.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::bernoulli is not implemented"):
        with_p.sum().backward()


def test_bernoulli_in_place_with_a_tensor_of_probabilities():
    y = torch.zeros(3)
    assert y.bernoulli_(torch.tensor([0.0, 1.0, 1.0])) is y and y.tolist() == [0.0, 1.0, 1.0]
    assert torch.zeros(2, 3).bernoulli_(torch.tensor([0.0, 1.0, 1.0])).tolist() == \
        [[0.0, 1.0, 1.0]] * 2


@pytest.mark.parametrize("call, error, message", [   # PyTorch 2.13's
    (lambda: torch.bernoulli(torch.tensor([1.5])), RuntimeError,
     "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
     "be improved?  If so, please report an enhancement request to PyTorch.)"),
    (lambda: torch.bernoulli(torch.tensor([1, 0])), NotImplementedError,
     "\"bernoulli_tensor_cpu_p_\" not implemented for 'Long'"),
    (lambda: torch.bernoulli(torch.tensor([0.5]), 1.5), RuntimeError,
     "bernoulli_ expects p to be in [0, 1], but got p=1.5"),
    (lambda: torch.zeros(3).bernoulli_(torch.tensor([0.0, 2.0, 1.0])), RuntimeError,
     "Expected p_in >= 0 && p_in <= 1 to be true, but got false."),
    (lambda: torch.zeros(3).bernoulli_(torch.tensor([0.0, 1.0])), RuntimeError,
     "The expanded size of the tensor (3) must match the existing size (2) at non-singleton "
     "dimension 0.  Target sizes: [3].  Tensor sizes: [2]"),
])
def test_errors(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value).startswith(message)


def test_forward_mode():
    # PyTorch 2.13: a zero tangent; bernoulli(input, p) refuses
    import minitorch.autograd.forward_ad as fwAD
    with fwAD.dual_level():
        x = fwAD.make_dual(torch.full((3,), 0.5), torch.ones(3))
        assert fwAD.unpack_dual(torch.bernoulli(x)).tangent.tolist() == [0.0, 0.0, 0.0]
        with pytest.raises(NotImplementedError, match="^Trying to use forward AD with "
                           "aten::bernoulli that does not support it.$"):
            torch.bernoulli(x, 0.3)
