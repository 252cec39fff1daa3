"""Which results are views (chapter 3): they share memory and the version counter
with their base, so writing through them changes the base.  In PyTorch basic
indexing always gives a view, also when it selects a single element (a 0-d
tensor); advanced indexing (lists, tensors, masks) gives a copy."""

import pytest

import minitorch as torch

pytestmark = pytest.mark.chapter3

WRITES_THROUGH = [
    # (id, statements acting on x, expected x afterwards)
    ("x[0].add_", lambda x: x[0].add_(5), [[6.0, 6.0, 6.0], [1.0, 1.0, 1.0]]),
    ("x[0, 0].add_", lambda x: x[0, 0].add_(5), [[6.0, 1.0, 1.0], [1.0, 1.0, 1.0]]),
    ("x[0][1].add_", lambda x: x[0][1].add_(1), [[1.0, 2.0, 1.0], [1.0, 1.0, 1.0]]),
    ("x[-1, -1].mul_", lambda x: x[-1, -1].mul_(3), [[1.0, 1.0, 1.0], [1.0, 1.0, 3.0]]),
    ("x[0, 1].fill_", lambda x: x[0, 1].fill_(7), [[1.0, 7.0, 1.0], [1.0, 1.0, 1.0]]),
    ("x[1, 2].zero_", lambda x: x[1, 2].zero_(), [[1.0, 1.0, 1.0], [1.0, 1.0, 0.0]]),
    ("x[0, 0].copy_", lambda x: x[0, 0].copy_(torch.tensor(4.0)),
     [[4.0, 1.0, 1.0], [1.0, 1.0, 1.0]]),
    ("x[:, 1].add_", lambda x: x[:, 1].add_(1), [[1.0, 2.0, 1.0], [1.0, 2.0, 1.0]]),
    ("x[..., 1].add_", lambda x: x[..., 1].add_(1), [[1.0, 2.0, 1.0], [1.0, 2.0, 1.0]]),
    ("x[None].add_", lambda x: x[None].add_(1), [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]),
    ("select(1, 0).add_", lambda x: x.select(1, 0).add_(1), [[2.0, 1.0, 1.0], [2.0, 1.0, 1.0]]),
    ("narrow(1, 1, 1).add_", lambda x: x.narrow(1, 1, 1).add_(1),
     [[1.0, 2.0, 1.0], [1.0, 2.0, 1.0]]),
    ("t().add_", lambda x: x.t().add_(1), [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]),
    ("view(6)[4].add_", lambda x: x.view(6)[4].add_(1), [[1.0, 1.0, 1.0], [1.0, 2.0, 1.0]]),
    ("x[[0, 1]].add_ (a copy)", lambda x: x[[0, 1]].add_(1), [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]),
    ("x[x > 0].add_ (a copy)", lambda x: x[x > 0].add_(1), [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]),
]


@pytest.mark.parametrize("act, expected",
                         [r[1:] for r in WRITES_THROUGH], ids=[r[0] for r in WRITES_THROUGH])
def test_in_place_change_through_an_index_reaches_the_base(act, expected):
    x = torch.ones(2, 3)
    act(x)
    assert x.tolist() == expected


def test_an_element_is_a_view_that_sees_later_changes():
    x = torch.ones(2)
    v = x[1]
    x.add_(1)
    assert v.item() == 2.0 and v._version == 1


def test_augmented_assignment_on_an_element_changes_the_base():
    x = torch.ones(2)
    v = x[0]
    v += 1
    assert x.tolist() == [2.0, 1.0]
    x[1] += 5
    assert x.tolist() == [2.0, 6.0]


@pytest.mark.parametrize("make, is_view", [
    (lambda x: x[1], True), (lambda x: x[0, 1], True), (lambda x: x[1:], True), (lambda x: x.t(),
                                                                                 True),
    (lambda x: x.view(6), True), (lambda x: x.reshape(6), True), (lambda x: x.unsqueeze(0), True),
    (lambda x: x.expand(2, 2, 3), True), (lambda x: x[[0, 1]], False), (lambda x: x.t().reshape(6),
                                                                        False),
    (lambda x: x.detach(), False), (lambda x: x.clone(), False),
], ids=["x[1]", "x[0, 1]", "x[1:]", "t()", "view", "reshape (contiguous)", "unsqueeze", "expand", "x[[0, 1]]",
        "t().reshape (copy)", "detach", "clone"])
def test_which_results_have_a_base(make, is_view):
    x = torch.ones(2, 3)
    y = make(x)
    assert (y._base is x) is is_view


@pytest.mark.task("4.1")
def test_an_element_of_a_leaf_in_the_graph_records_select():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x[0, 1]
    assert y.grad_fn.name() == "SelectBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "SelectBackward0"
