"""Hidden tests of assignment a3-modules (chapters 7-8 and Module surgery)."""

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


@pytest.mark.task("8.2")
def test_shared_module_state_dict_round_trip():
    a, b = Pair(), Pair()
    state = a.state_dict()
    assert list(state) == ["count", "shared.weight", "shared.bias", "other.weight", "other.bias"]
    assert b.load_state_dict(state).missing_keys == []
    assert b.shared.weight.tolist() == a.shared.weight.tolist()


@pytest.mark.task("8.2")
def test_non_strict_load_under_a_prefix_reports_the_missing_with_the_prefix():
    outer = nn.Sequential(nn.Linear(2, 2))
    result = outer.load_state_dict({"0.weight": torch.zeros(2, 2)}, strict=False)
    assert result.missing_keys == ["0.bias"] and result.unexpected_keys == []
    assert outer[0].weight.tolist() == [[0.0, 0.0], [0.0, 0.0]]


@pytest.mark.task("8.4")
def test_a_pruned_bias_and_weight_follow_training():
    """Two tensors of one layer pruned (so the hook must use its own name), trained
    for two steps: before each call the pruned tensors are the current originals times
    their masks, and the pruned entries of the originals receive no gradient."""
    import minitorch.nn.utils.prune as prune

    layer = nn.Linear(3, 2).double()
    with torch.no_grad():
        layer.weight.copy_(torch.tensor([[0.5, -0.05, 0.3], [0.02, 0.9, -0.4]],
                                        dtype=torch.float64))
        layer.bias.copy_(torch.tensor([0.01, -0.7], dtype=torch.float64))
    prune.l1_unstructured(layer, "weight", amount=2)
    prune.l1_unstructured(layer, "bias", amount=1)
    x = torch.tensor([[1.0, 2.0, 3.0]], dtype=torch.float64)
    for _ in range(2):
        layer.zero_grad()
        out = layer(x)
        expected = x @ (layer.weight_orig * layer.weight_mask).T + \
            layer.bias_orig * layer.bias_mask
        assert torch.allclose(out, expected)
        out.sum().backward()
        with torch.no_grad():                 # a plain gradient step (no optimizer task)
            for param in layer.parameters():
                param -= 0.5 * param.grad
    assert layer.weight_mask.tolist() == [[1, 0, 1], [0, 1, 1]]
    assert layer.bias_mask.tolist() == [0, 1]
    assert layer.weight_orig.tolist()[0][1] == -0.05 and layer.bias_orig.tolist()[0] == 0.01
    assert layer.weight_orig.tolist()[0][0] != 0.5
