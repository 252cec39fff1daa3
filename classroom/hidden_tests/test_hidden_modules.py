"""Hidden tests of assignment a3-modules (chapters 7-8)."""

import pytest

import minitorch as torch
import minitorch.nn as nn

pytestmark = pytest.mark.chapter8


class Pair(nn.Module):
    def __init__(self):
        super().__init__()
        self.shared = nn.Linear(2, 2)
        self.other = self.shared
        self.register_buffer("count", torch.zeros(1))


@pytest.mark.task("7.2")
def test_replacing_a_module_by_a_parameter_moves_the_name():
    m = nn.Module()
    m.w = nn.Linear(1, 1)
    m.w = nn.Parameter(torch.ones(2))
    assert "w" not in m._modules and "w" in m._parameters
    assert [name for name, _ in m.named_parameters()] == ["w"]


@pytest.mark.task("7.2")
def test_named_modules_without_removing_duplicates():
    m = Pair()
    names = [name for name, _ in m.named_modules(remove_duplicate=False)]
    assert names == ["", "shared", "other"]
    assert [name for name, _ in m.named_parameters()] == ["shared.weight", "shared.bias"]


@pytest.mark.task("8.1")
def test_forward_hooks_see_what_the_pre_hook_gave_forward():
    m = nn.Identity()
    seen = []
    m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
    m.register_forward_hook(lambda mod, args, out: seen.append((args[0].item(), out.item())))
    assert m(torch.tensor(3.0)).item() == 6.0 and seen == [(6.0, 6.0)]


@pytest.mark.task("8.3")
def test_shared_module_state_dict_round_trip():
    a, b = Pair(), Pair()
    state = a.state_dict()
    assert list(state) == ["count", "shared.weight", "shared.bias", "other.weight", "other.bias"]
    assert b.load_state_dict(state).missing_keys == []
    assert b.shared.weight.tolist() == a.shared.weight.tolist()


@pytest.mark.task("8.3")
def test_non_strict_load_under_a_prefix_reports_the_missing_with_the_prefix():
    outer = nn.Sequential(nn.Linear(2, 2))
    result = outer.load_state_dict({"0.weight": torch.zeros(2, 2)}, strict=False)
    assert result.missing_keys == ["0.bias"] and result.unexpected_keys == []
    assert outer[0].weight.tolist() == [[0.0, 0.0], [0.0, 0.0]]
