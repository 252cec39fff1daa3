"""cross_entropy's layouts and options, with values and gradients from PyTorch 2.13
(chapter 10).  Each row: logits, targets, options, the loss (flattened), and the sum of
squared gradients of ``(loss * loss).sum()`` with respect to the logits."""

import pytest

import minitorch as torch
import minitorch.nn.functional as F

pytestmark = pytest.mark.chapter10

W = "torch.tensor([1., 2., 0.5], dtype=torch.float64)"
IMAGE_TARGETS = "torch.tensor([[[0, 1], [2, 1]], [[1, 1], [0, 2]]])"
ROWS = [
    ("logits(2, 3, 2, 2)", IMAGE_TARGETS, f"weight={W}, ignore_index=1, label_smoothing=0.2",
     [1.1029301502], 0.3994207958),
    ("logits(4, 3)", "torch.tensor([[0.2, 0.3, 0.5]] * 4, dtype=torch.float64)",
     f"weight={W}, reduction='sum'", [4.7464008952], 41.4636372095),
    ("logits(3)", "torch.tensor([0.1, 0.6, 0.3], dtype=torch.float64)", "label_smoothing=0.1",
     [1.077135084], 0.4603101108),
    ("logits(2, 3, 4)", "torch.tensor([[0, 1, 2, 0], [2, 2, 1, 0]])", "reduction='none'",
     [1.2893832644, 1.1093832644, 0.9293832644, 0.9508255597, 0.9293832644, 0.9293832644,
      1.6605247831, 1.2893832644], 33.3298606422),
    ("logits(2, 3, 2, 2)", IMAGE_TARGETS, "reduction='mean', label_smoothing=0.3",
     [1.0222062412], 0.1434755015),
]


def logits(*shape):
    n = 1
    for size in shape:
        n *= size
    values = torch.arange(n, dtype=torch.float64).reshape(*shape) * 0.37 % 1.3 - 0.5
    return values.requires_grad_()


@pytest.mark.parametrize("x, target, options, loss, grad_square_sum", ROWS,
                         ids=[f"{r[0]} {r[2]}" for r in ROWS])
def test_cross_entropy_matches_pytorch(x, target, options, loss, grad_square_sum):
    scope = dict(torch=torch, F=F, logits=logits)
    x, target = eval(x, scope), eval(target, scope)
    out = eval(f"F.cross_entropy(x, target, {options})", dict(scope, x=x, target=target))
    (out * out).sum().backward()
    assert out.detach().reshape(-1).tolist() == pytest.approx(loss, abs=1e-9)
    assert float((x.grad * x.grad).sum()) == pytest.approx(grad_square_sum, abs=1e-8)


def test_class_weights_that_require_grad_are_refused():
    weight = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'weight'"):
        F.cross_entropy(torch.zeros(2, 3), torch.tensor([0, 1]), weight=weight)
    with torch.no_grad():
        assert F.nll_loss(torch.zeros(2, 3), torch.tensor([0, 1]), weight=weight).item() == 0
