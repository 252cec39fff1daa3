"""Hooks on every module (chapter 8, task 8.1): ``register_module_*`` in
``nn.modules.module``.  The order and arguments were checked with PyTorch 2.13."""

import pytest

import minitorch as torch
import minitorch.nn as nn
from minitorch.nn.modules.module import (register_module_full_backward_hook,
                                         register_module_full_backward_pre_hook)

pytestmark = pytest.mark.chapter8


def shapes(grads):
    return [None if g is None else tuple(g.shape) for g in grads]


@pytest.mark.task("8.1")
def test_global_backward_hooks_see_every_module_until_removed():
    torch.manual_seed(0)
    seen = []
    hook = register_module_full_backward_hook(
        lambda m, gi, go: seen.append(("hook", type(m).__name__, shapes(gi), shapes(go))))
    pre = register_module_full_backward_pre_hook(
        lambda m, go: seen.append(("pre", type(m).__name__)))
    try:
        net = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
        x = torch.ones(1, 2, requires_grad=True)
        net(x).sum().backward()
    finally:
        hook.remove()
        pre.remove()
    assert seen == [("pre", "Sequential"), ("pre", "ReLU"),
                    ("hook", "ReLU", [(1, 3)], [(1, 3)]), ("pre", "Linear"),
                    ("hook", "Linear", [(1, 2)], [(1, 3)]),
                    ("hook", "Sequential", [(1, 2)], [(1, 3)])]
    seen.clear()
    net(x).sum().backward()
    assert seen == []
