"""Tangents through views (chapter 12): a view's tangent is the matching part of its
base's tangent.  An in-place change of a view by a dual tensor gives a base without a
tangent a zero one, with the view's part filled in; every view of that base, made
before or after, then sees it.  ``detach()`` and ``unpack_dual``'s primal are views
that never carry one.  Expected values from PyTorch 2.13 on the same calls."""

import pytest

import minitorch as torch
import minitorch.autograd.forward_ad as fwAD

pytestmark = pytest.mark.chapter12

d = torch.float64
p = torch.tensor([1.0, 2.0, 3.0], dtype=d)
t = torch.tensor([10.0, 20.0, 30.0], dtype=d)


def tangent(x):
    tan = fwAD.unpack_dual(x).tangent
    return None if tan is None else tan.tolist()


def fresh(fill=0.0, dtype=d):
    return torch.full((2, 3), fill, dtype=dtype)


ROWS = [[10.0, 20.0, 30.0], [0.0, 0.0, 0.0]]

CHANGES = [   # (name, change of buf through a view, buf's tangent afterwards)
    ("copy_ row 0", lambda buf, dual: buf[0].copy_(dual), 0.0, ROWS),
    ("copy_ row 1", lambda buf, dual: buf[1].copy_(dual), 0.0, ROWS[::-1]),
    ("copy_ column", lambda buf, dual: buf[:, 1].copy_(dual[:2]), 0.0,
     [[0.0, 10.0, 0.0], [0.0, 20.0, 0.0]]),
    ("setitem", lambda buf, dual: buf.__setitem__(0, dual), 0.0, ROWS),
    ("mul_", lambda buf, dual: buf[0].mul_(dual), 1.0, ROWS),
    ("add_ alpha", lambda buf, dual: buf[0].add_(dual, alpha=2), 1.0,
     [[20.0, 40.0, 60.0], [0.0, 0.0, 0.0]]),
    ("add_ through t()", lambda buf, dual: buf.t()[:, 0].add_(dual), 1.0, ROWS),
    ("add_ through view(6)", lambda buf, dual: buf.view(6)[1:4].add_(dual), 1.0,
     [[0.0, 10.0, 20.0], [30.0, 0.0, 0.0]]),
    ("div_", lambda buf, dual: buf[0].div_(dual), 1.0,
     [[-10.0, -5.0, -3.3333333333333335], [0.0, 0.0, 0.0]]),
    ("copy_ through unsqueeze", lambda buf, dual: buf.unsqueeze(0)[0, 1].copy_(dual), 0.0,
     ROWS[::-1]),
]


@pytest.mark.parametrize("name, change, fill, expected", CHANGES,
                         ids=[c[0] for c in CHANGES])
def test_an_in_place_change_of_a_view_gives_the_base_its_tangent(name, change, fill,
                                                                  expected):
    with fwAD.dual_level():
        buf = fresh(fill)
        change(buf, fwAD.make_dual(p, t))
        assert tangent(buf) == expected


def test_views_made_before_and_after_see_the_base_tangent():
    with fwAD.dual_level():
        dual = fwAD.make_dual(p, t)
        buf = fresh()
        row1, column0, flat, alias = buf[1], buf[:, 0], buf.view(6), buf.detach()
        row0 = buf[0]
        row0.copy_(dual)
        assert tangent(row0) == [10.0, 20.0, 30.0]
        assert tangent(row1) == [0.0, 0.0, 0.0]
        assert tangent(column0) == [10.0, 0.0]
        assert tangent(flat) == [10.0, 20.0, 30.0, 0.0, 0.0, 0.0]
        assert tangent(alias) is None                         # detach(): none
        assert tangent(fwAD.unpack_dual(buf).primal) is None  # the primal: none
        assert tangent(buf[0]) == [10.0, 20.0, 30.0]
        assert tangent(buf * 2) == [[20.0, 40.0, 60.0], [0.0, 0.0, 0.0]]
        # the base's tangent is a new tensor, the view's a view of it
        base_tangent = fwAD.unpack_dual(buf).tangent
        assert base_tangent._base is None
        assert fwAD.unpack_dual(buf[0]).tangent._base is base_tangent


def test_later_changes_write_into_the_same_tangent():
    with fwAD.dual_level():
        buf = fresh()
        buf[0].copy_(fwAD.make_dual(p, t))
        buf[1].copy_(fwAD.make_dual(p * 0, t * 0 + 1))
        assert tangent(buf) == [[10.0, 20.0, 30.0], [1.0, 1.0, 1.0]]
        buf[0].copy_(p)                                     # a value without tangent
        assert tangent(buf) == [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]


def test_a_change_without_tangents_leaves_the_base_without_one():
    with fwAD.dual_level():
        buf = fresh()
        buf[0].relu_()
        assert tangent(buf) is None


def test_a_view_of_a_dual_base_changed_in_place():
    with fwAD.dual_level():
        dual = fwAD.make_dual(p, t)
        base = fwAD.make_dual(fresh(1.0), torch.full((2, 3), 0.5, dtype=d))
        row = base[0]
        assert tangent(row) == [0.5, 0.5, 0.5]
        row.mul_(dual)
        assert tangent(base) == [[10.5, 21.0, 31.5], [0.5, 0.5, 0.5]]
        base = fwAD.make_dual(fresh(1.0), torch.full((2, 3), 0.5, dtype=d))
        row = base[1]
        base.mul_(2)
        assert tangent(row) == [1.0, 1.0, 1.0]
        base = fwAD.make_dual(fresh(1.0), torch.full((2, 3), 0.5, dtype=d))
        base[1].zero_()
        assert tangent(base) == [[0.5, 0.5, 0.5], [0.0, 0.0, 0.0]]
        base = fwAD.make_dual(fresh(1.0), torch.zeros(2, 3, dtype=d))
        base[0][1:].mul_(dual[:2])
        assert tangent(base) == [[0.0, 10.0, 20.0], [0.0, 0.0, 0.0]]


def test_a_change_through_a_detached_alias_leaves_the_tangent_alone():
    with fwAD.dual_level():
        base = fwAD.make_dual(fresh(), torch.ones(2, 3, dtype=d))
        base.detach()[0].copy_(fwAD.make_dual(p, t))
        assert tangent(base) == [[1.0] * 3] * 2
        assert base.tolist() == [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]


def test_make_dual_of_a_view_gives_the_base_nothing():
    with fwAD.dual_level():
        buf = fresh()
        fwAD.make_dual(buf[0], t)
        assert tangent(buf) is None


def test_strided_and_transposed_bases():
    with fwAD.dual_level():
        dual = fwAD.make_dual(p, t)
        buf = torch.zeros(4, dtype=d)
        buf[::2].copy_(dual[:2])
        assert tangent(buf) == [10.0, 0.0, 20.0, 0.0]
        buf = torch.zeros(3, 2, dtype=d).t()
        buf[0].copy_(dual)
        assert tangent(buf) == ROWS
        assert fwAD.unpack_dual(buf).tangent.stride() == (1, 2)
        buf = torch.zeros(2, 3, dtype=torch.float32)
        buf[0].copy_(dual)
        assert tangent(buf) == ROWS
        assert fwAD.unpack_dual(buf).tangent.dtype == torch.float32


def test_a_view_of_a_dual_tensor_whose_tangent_is_laid_out_otherwise():
    # PyTorch 2.13 gives this tangent (it copies a tangent to its primal's layout first);
    # minitorch keeps the transposed tangent, and its view becomes a reshaped copy.
    with fwAD.dual_level():
        tangent = torch.arange(6.0).reshape(3, 2).t()
        dual = fwAD.make_dual(torch.arange(6.0).reshape(2, 3), tangent)
        assert fwAD.unpack_dual(dual.view(6)).tangent.tolist() == [0.0, 2.0, 4.0, 1.0, 3.0,
                                                                   5.0]
