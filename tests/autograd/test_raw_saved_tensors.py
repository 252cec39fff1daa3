"""``grad_fn._raw_saved_<name>.register_hooks(pack, unpack)`` (``saved.py``): hooks for one
saved tensor after the fact, with PyTorch 2.13's order of calls and its errors."""

import pytest

import minitorch as torch
from minitorch.autograd.saved import RawSavedTensor

pytestmark = pytest.mark.chapter5


def test_pack_runs_at_once_unpack_on_each_use():
    x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x.pow(2)
    raw = y.grad_fn._raw_saved_self
    assert isinstance(raw, RawSavedTensor)
    calls = []

    def pack(t):
        calls.append("pack")
        return t.detach().clone()

    def unpack(p):
        calls.append("unpack")
        return p

    raw.register_hooks(pack, unpack)
    assert calls == ["pack"]
    assert y.grad_fn._saved_self.equal(x) and calls == ["pack", "unpack"]
    y.sum().backward()
    assert calls == ["pack", "unpack", "unpack"] and x.grad.tolist() == [2.0, -4.0, 6.0]


def test_a_saved_result_can_be_replaced_by_its_hooks():
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    z = x.exp()
    z.grad_fn._raw_saved_result.register_hooks(lambda t: "token",
                                               lambda p: torch.tensor([5.0, 7.0]))
    z.sum().backward()
    assert x.grad.tolist() == [5.0, 7.0]        # exp's backward used what unpack gave


def test_hooks_set_after_an_in_place_change_skip_the_version_check():
    x = torch.ones(2, requires_grad=True)
    y = x.pow(2)
    with torch.no_grad():
        x.add_(1)
    y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
    y.sum().backward()                           # PyTorch 2.13 does not raise either
    assert x.grad.tolist() == [4.0, 4.0]


def test_refusals():
    x = torch.ones(2, requires_grad=True)
    y = x.pow(2)
    raw = y.grad_fn._raw_saved_self
    with pytest.raises(TypeError, match="register_hooks"):
        raw.register_hooks(lambda t: t, 3)
    raw.register_hooks(lambda t: t, lambda t: t)
    with pytest.raises(RuntimeError, match="Calling register_hooks on a saved tensor whose "
                                           "hooks have already been set"):
        raw.register_hooks(lambda t: t, lambda t: t)
    w = x.pow(2)
    w.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: 3)
    with pytest.raises(TypeError, match="Output of saved tensor unpack_hook expected to be a "
                                        "Tensor but got result of type int"):
        w.grad_fn._saved_self
    v = x.pow(2)
    v.sum().backward()
    with pytest.raises(RuntimeError, match="Calling register_hooks on a saved tensor after it "
                                           "has been freed"):
        v.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
