"""The "fundamentals of autograd" video page: the recorded graph seen through ``grad_fn``
and ``next_functions``, the refusal of ``torch.sin_`` on a leaf, and a profiled loop."""

import pytest

import minitorch as torch

pytestmark = [pytest.mark.tutorials, pytest.mark.chapter4]


def kind(node):
    return repr(node).split(" object")[0].lstrip("<")


def test_graph_walk_and_in_place_refusal():
    a = torch.linspace(0., 1., steps=5, requires_grad=True)
    c = 2 * torch.sin(a)
    d = c + 1
    assert kind(d.grad_fn) == "AddBackward0"
    assert [kind(n) if n is not None else None for n, _ in d.grad_fn.next_functions] == \
        ["MulBackward0", None]
    assert kind(c.grad_fn.next_functions[0][0].next_functions[0][0]) == "AccumulateGrad"
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used "
                                           "in an in-place operation"):
        torch.sin_(a)


def test_profiled_loop_runs_as_usual():
    x = torch.ones(2, 2, requires_grad=True)
    w = torch.full((2, 2), 0.5, requires_grad=True)
    with torch.autograd.profiler.profile(use_cuda=False) as prof:
        for _ in range(3):
            x = x * w
    x.sum().backward()
    assert w.grad.tolist() == [[0.75, 0.75], [0.75, 0.75]]
    with pytest.raises(NotImplementedError, match="records no events"):
        prof.key_averages()


def test_in_place_cos_of_a_non_leaf():
    e = torch.tensor([0.5, 1.5], requires_grad=True)
    f = e.sin()
    f.cos_()
    f.sum().backward()
    assert e.grad.tolist() == pytest.approx([-0.404802, -0.059427], abs=1e-6)   # PyTorch
