"""Outputs of a custom Function that share an input's memory may not be changed in place
(chapters 6 and 8).

PyTorch 2.13 makes an input that ``forward`` returns as it is, or a view of an input made
in ``forward``, a view "created inside a custom Function"; changing it (or a view of it)
in place while grad mode is on raises, because autograd could not follow the change
through the Function's own backward.  A module's full backward hooks route its inputs and
outputs through such a Function (``BackwardHookFunction``), so changing a hooked module's
output in place raises too.  The expected messages below were printed by PyTorch 2.13.
"""

import pytest

import minitorch as torch
import minitorch.nn as nn
from minitorch.autograd import Function

pytestmark = pytest.mark.chapter6

TAIL = ("is a view and is being modified inplace. This view was created inside a custom "
        "Function (or because an input was returned as-is) and the autograd logic to handle "
        "view+inplace would override the custom backward associated with the custom "
        "Function, leading to incorrect gradients. This behavior is forbidden. You can fix "
        "this by cloning the output of the custom Function.")


class Id(Function):
    @staticmethod
    def forward(ctx, x, z):
        return x, z

    @staticmethod
    def backward(ctx, g, h):
        return g, h


class IdView(Function):
    @staticmethod
    def forward(ctx, x):
        return x.view(-1)

    @staticmethod
    def backward(ctx, g):
        return g


class Keep(nn.Module):
    def forward(self, x):
        return x


def hooked(module):
    module.register_full_backward_hook(lambda m, grad_input, grad_output: None)
    return module


def a():
    return torch.ones(2, requires_grad=True)


def raises(fn, message):
    with pytest.raises(RuntimeError) as info:
        fn()
    assert str(info.value) == message


@pytest.mark.task("6.8")
def test_an_input_returned_as_it_is():
    raises(lambda: Id.apply(a() * 1, a() * 1)[0].add_(1), "Output 0 of Id " + TAIL)
    raises(lambda: Id.apply(a() * 1, a() * 1)[1].mul_(2), "Output 1 of Id " + TAIL)
    raises(lambda: Id.apply(a(), a() * 1)[0].add_(1), "Output 0 of Id " + TAIL)


@pytest.mark.task("6.8")
def test_an_input_that_needs_no_grad_in_a_recorded_call():
    raises(lambda: Id.apply(torch.ones(2), a() * 1)[0].add_(1), "Output 0 of Id " + TAIL)


@pytest.mark.task("6.8")
def test_a_view_made_in_forward():
    raises(lambda: IdView.apply(a() * 1).add_(1), "Output 0 of IdView " + TAIL)


@pytest.mark.task("6.8")
def test_a_view_of_such_an_output_names_the_view():
    raises(lambda: Id.apply(a() * 1, a() * 1)[0].view(2).mul_(2), "Output 0 of View " + TAIL)


@pytest.mark.task("6.8")
def test_allowed_cases():
    y, _ = Id.apply(torch.ones(2), torch.ones(2))      # nothing recorded
    y.add_(1)
    y, _ = Id.apply(a() * 1, a() * 1)
    with torch.no_grad():
        y.add_(1)                                      # not recorded
    y.detach().add_(1)                                 # a detached alias is free
    z = y.clone()
    z.add_(1)
    z.sum().backward()


def test_a_hooked_module_output():
    raises(lambda: hooked(Keep())(a() * 1).mul_(2),
           "Output 0 of BackwardHookFunction " + TAIL)

    def add_in_place():
        y = hooked(nn.Linear(2, 2))(a())
        y += 1
    raises(add_in_place, "Output 0 of BackwardHookFunction " + TAIL)


def test_a_hooked_module_input_changed_in_forward():
    class AddOne(nn.Module):
        def forward(self, x):
            return x.add_(1)
    raises(lambda: hooked(AddOne())(a() * 1), "Output 0 of BackwardHookFunction " + TAIL)
    raises(lambda: hooked(nn.ReLU(inplace=True))(a() * 1),
           "Output 0 of BackwardHookFunction " + TAIL)


def test_forward_hooks_alone_allow_it():
    module = Keep()
    module.register_forward_hook(lambda m, args, output: None)
    module(a() * 1).mul_(2)
