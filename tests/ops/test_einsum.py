"""Part V: ``einsum``, ``multinomial`` and the in-place ``tril_``/``triu_``, as PyTorch 2.13
computes them (values: ``tests/nn/seq_cases.py`` run on both, PyTorch's stored in
``tests/nn/data/seq_pytorch.npz``; errors: expected values from PyTorch 2.13)."""

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck

from ..nn.seq_parity import check_case, names

pytestmark = pytest.mark.chapter15


@pytest.mark.parametrize("name", names(("einsum",)))
def test_einsum_values_and_gradients_match_pytorch(name):
    check_case(name)


def test_einsum_is_matmul_and_takes_a_list():
    a, b = torch.randn(2, 3), torch.randn(3, 4)
    assert torch.allclose(torch.einsum("ij,jk->ik", a, b), a @ b, atol=1e-6)
    assert torch.allclose(torch.einsum("ij,jk->ik", [a, b]), a @ b, atol=1e-6)
    assert torch.einsum("ij->i", torch.tensor([[1, 2], [3, 4]])).tolist() == [3, 7]


@pytest.mark.parametrize("equation, shapes", [
    ("ij,jj->i", [(2, 3), (3, 3)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
    ("...i,i->...", [(2, 2, 3), (3,)]), ("ijk->", [(2, 1, 2)]), ("ij,k->ijk", [(2, 1), (2,)])])
def test_einsum_gradcheck_and_gradgradcheck(equation, shapes):
    operands = [torch.randn(*s, dtype=torch.float64, requires_grad=True) for s in shapes]
    fn = lambda *xs: torch.einsum(equation, *xs)  # noqa: E731
    assert gradcheck(fn, operands) and gradgradcheck(fn, operands)


@pytest.mark.parametrize("equation, shapes, words", [
    ("ij,jk->ik", [(2, 3), (2, 3)], "subscript j has size 2 for operand 1 which does not "
                                    "broadcast with previously seen size 3"),
    ("ij->ik", [(2, 3)], "output subscript k does not appear in the equation for any input"),
    ("ijk->i", [(2, 3)], r"the number of subscripts in the equation \(3\) does not match the "
                         r"number of dimensions \(2\) for operand 0 and no ellipsis was given"),
    ("ij,jk->ik", [(2, 3)], "fewer operands were provided than specified in the equation"),
    ("ij->i", [(2, 3), (2, 3)], "more operands were provided than specified in the equation"),
    ("i1->i", [(2, 3)], "invalid subscript given at index 1 in the equation string"),
    ("ii", [(2, 3)], "subscript i is repeated for operand 0 but the sizes don't match, 3 != 2"),
    ("ij->jj", [(2, 3)], "output subscript j appears more than once in the output"),
])
def test_einsum_errors(equation, shapes, words):
    with pytest.raises(RuntimeError, match=words):
        torch.einsum(equation, *[torch.ones(*s) for s in shapes])


def test_einsum_dtypes_must_agree():
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        torch.einsum("ij,jk->ik", torch.ones(2, 3), torch.ones(3, 4, dtype=torch.float64))


# ----- multinomial ------------------------------------------------------------------------------
def test_multinomial_shapes_dtype_and_distribution():
    torch.manual_seed(0)
    p = torch.tensor([0.1, 0.2, 0.7])
    drawn = torch.multinomial(p, 3)
    assert drawn.dtype == torch.int64 and sorted(drawn.tolist()) == [0, 1, 2]
    assert torch.multinomial(p, 5, replacement=True).shape == (5,)
    assert torch.multinomial(p.expand(4, 3), 2).shape == (4, 2)
    counts = np.bincount(p.multinomial(20000, True).numpy(), minlength=3) / 20000
    assert np.allclose(counts, [0.1, 0.2, 0.7], atol=0.02)
    firsts = torch.multinomial(torch.tensor([[1.0, 3.0]]).expand(4000, 2), 1)
    assert abs(firsts.float().mean().item() - 0.75) < 0.03


def test_multinomial_without_replacement_draws_zero_weights_last():
    torch.manual_seed(0)
    assert torch.multinomial(torch.tensor([0.0, 1.0, 1.0]), 3).tolist()[-1] == 0
    assert sorted(torch.multinomial(torch.tensor([0.0, 1.0, 1.0]), 2).tolist()) == [1, 2]


def test_multinomial_generator_repeats():
    p = torch.ones(2, 5)
    first = torch.multinomial(p, 3, generator=torch.Generator().manual_seed(3))
    again = torch.multinomial(p, 3, generator=torch.Generator().manual_seed(3))
    assert torch.equal(first, again)


@pytest.mark.parametrize("call, words", [
    (lambda p: torch.multinomial(p, 4), "cannot sample n_sample > prob_dist.size\\(-1\\) "
                                        "samples without replacement"),
    (lambda p: torch.multinomial(torch.tensor([-1.0, 2.0]), 1),
     "probability tensor contains either `inf`, `nan` or element < 0"),
    (lambda p: torch.multinomial(torch.tensor([float("nan"), 1.0]), 1),
     "probability tensor contains either `inf`, `nan` or element < 0"),
    (lambda p: torch.multinomial(torch.tensor([0.0, 0.0]), 1),
     "invalid multinomial distribution \\(sum of probabilities <= 0\\)"),
    (lambda p: torch.multinomial(torch.tensor([[[1.0]]]), 1), "prob_dist must be 1 or 2 dim"),
    (lambda p: torch.multinomial(torch.tensor([1, 2]), 1),
     "multinomial only supports floating-point dtypes for input, got: Long"),
    (lambda p: torch.multinomial(p, 0), "cannot sample n_sample <= 0 samples"),
])
def test_multinomial_errors(call, words):
    with pytest.raises(RuntimeError, match=words):
        call(torch.tensor([0.1, 0.2, 0.7]))


# ----- tril_ / triu_ -----------------------------------------------------------------------------
def test_tril_triu_in_place_with_diagonal():
    x = torch.arange(12.0).reshape(3, 4).requires_grad_()
    y = x * 1
    assert y.tril_(1) is y
    y.triu_(-1)
    assert y.tolist() == [[0.0, 1.0, 0.0, 0.0], [4.0, 5.0, 6.0, 0.0], [0.0, 9.0, 10.0, 11.0]]
    assert y.grad_fn.name() == "TriuBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "TrilBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0], [0.0, 1.0, 1.0, 1.0]]
    assert torch.triu(torch.arange(12.0).reshape(3, 4), diagonal=2).tolist() == [
        [0.0, 0.0, 2.0, 3.0], [0.0, 0.0, 0.0, 7.0], [0.0, 0.0, 0.0, 0.0]]


def test_tril_in_place_errors_and_version():
    with pytest.raises(RuntimeError, match="tril: input tensor must have at least 2 dimensions"):
        torch.ones(3).tril_()
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used "
                                           "in an in-place operation"):
        torch.ones(2, 2, requires_grad=True).tril_()
    x = torch.ones(2, 2)
    before = x._version
    x.triu_()
    assert x._version == before + 1 and x.tolist() == [[1.0, 1.0], [0.0, 1.0]]
