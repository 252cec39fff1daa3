"""``nn.utils.prune``: the surgery (``weight_orig``, ``weight_mask``, the pre-hook), the
methods, masks that compose, ``remove``, ``global_unstructured`` and the errors.

Every expected value is what PyTorch 2.13 gives for the same program (run side by side);
random methods are checked by what does not depend on the generator (counts, shapes).
"""

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.utils.prune as prune

pytestmark = pytest.mark.chapter8b

W = [[0.5, -0.1, 0.3, -0.8], [0.05, 0.9, -0.25, 0.4], [-0.6, 0.15, 0.7, -0.02]]
X = [[1.0, 2.0, -1.0, 0.5]]


def linear():
    layer = nn.Linear(4, 3)
    with torch.no_grad():
        layer.weight.copy_(torch.tensor(W))
        layer.bias.copy_(torch.tensor([0.1, -0.2, 0.3]))
    return layer


def close(tensor, expected, atol=1e-6):
    return np.allclose(tensor.detach().numpy(), expected, atol=atol)


def names(pairs):
    return [name for name, _ in pairs]


def test_the_import_forms_work():
    import minitorch.nn.utils.prune as by_path
    from minitorch.nn.utils import prune as by_from
    assert by_path is by_from is torch.nn.utils.prune


@pytest.mark.task("8.4")
def test_pruning_moves_the_parameter_and_adds_a_mask_buffer():
    layer = linear()
    weight = layer.weight
    prune.l1_unstructured(layer, "weight", amount=0.25)
    assert names(layer.named_parameters()) == ["bias", "weight_orig"]
    assert names(layer.named_buffers()) == ["weight_mask"]
    assert list(layer.state_dict()) == ["bias", "weight_orig", "weight_mask"]
    assert layer.weight_orig is weight
    assert layer.weight_mask.tolist() == [[1, 0, 1, 1], [0, 1, 1, 1], [1, 1, 1, 0]]
    # weight is now a plain attribute, not a parameter, computed from the two
    assert "weight" not in layer._parameters and "weight" in layer.__dict__
    assert type(layer.weight) is torch.Tensor
    assert close(layer.weight,
        [[0.5, 0, 0.3, -0.8], [0, 0.9, -0.25, 0.4], [-0.6, 0.15, 0.7, 0]])
    assert repr(layer) == "Linear(in_features=4, out_features=3, bias=True)"


@pytest.mark.task("8.4")
def test_the_pre_hook_recomputes_the_weight_before_each_call():
    layer = linear()
    prune.l1_unstructured(layer, "weight", amount=0.25)
    hooks = list(layer._forward_pre_hooks.values())
    assert len(hooks) == 1 and type(hooks[0]) is prune.L1Unstructured
    with torch.no_grad():
        layer.weight_orig.fill_(2.0)           # as an optimizer step would
    assert layer.weight.tolist()[0] == pytest.approx([0.5, 0, 0.3, -0.8])   # stale
    out = layer(torch.tensor(X))
    assert layer.weight.tolist() == [[2, 0, 2, 2], [0, 2, 2, 2], [2, 2, 2, 0]]
    assert close(out, [[1.1, 2.8, 4.3]])


@pytest.mark.task("8.4")
def test_the_gradient_reaches_only_the_kept_entries():
    layer = linear()
    prune.l1_unstructured(layer, "weight", amount=0.25)
    out = layer(torch.tensor(X))
    assert close(out, [[-0.1, 2.05, -0.7]])
    out.sum().backward()
    assert layer.weight_orig.grad.tolist() == [[1, 0, -1, 0.5], [0, 2, -1, 0.5],
                                               [1, 2, -1, 0]]


@pytest.mark.task("8.4")
def test_the_hook_uses_the_mask_buffer_as_it_is_now():
    layer = linear()
    prune.identity(layer, "weight")
    with torch.no_grad():
        layer.weight_mask[0] = 0
    layer(torch.tensor(X))
    assert layer.weight.tolist()[0] == [0, 0, 0, 0]
    assert layer.weight.tolist()[1] == pytest.approx(W[1])


def test_pruning_twice_composes_the_masks():
    layer = linear()
    prune.l1_unstructured(layer, "weight", amount=0.25)
    prune.l1_unstructured(layer, "weight", amount=2)
    assert layer.weight_mask.tolist() == [[1, 0, 1, 1], [0, 1, 0, 1], [1, 0, 1, 0]]
    hooks = list(layer._forward_pre_hooks.values())
    assert len(hooks) == 1 and type(hooks[0]) is prune.PruningContainer
    assert [type(m).__name__ for m in hooks[0]] == ["L1Unstructured"] * 2
    assert hooks[0]._tensor_name == "weight"
    prune.ln_structured(layer, "weight", amount=1, n=2, dim=0)
    assert layer.weight_mask.tolist() == [[1, 0, 1, 1], [0, 1, 0, 1], [0, 0, 0, 0]]
    assert len(list(layer._forward_pre_hooks.values())[0]) == 3


@pytest.mark.parametrize("amount, n, dim, expected", [
    (0.5, 1, 1, [[0, 0, 1, 1]] * 3),
    (1, float("inf"), -1, [[0, 1, 1, 1]] * 3),
    (1, 2, 0, [[1, 1, 1, 1], [1, 1, 1, 1], [0, 0, 0, 0]]),
])
def test_ln_structured_prunes_whole_channels_of_smallest_norm(amount, n, dim, expected):
    layer = linear()
    prune.ln_structured(layer, "weight", amount=amount, n=n, dim=dim)
    assert layer.weight_mask.tolist() == expected


def test_importance_scores_choose_instead_of_the_values():
    layer = linear()
    prune.l1_unstructured(layer, "weight", amount=3,
                          importance_scores=torch.arange(12.0).view(3, 4))
    assert layer.weight_mask.tolist() == [[0, 0, 0, 1], [1, 1, 1, 1], [1, 1, 1, 1]]


def test_remove_makes_the_pruning_permanent():
    layer = linear()
    orig = layer.weight
    prune.l1_unstructured(layer, "weight", amount=0.25)
    prune.l1_unstructured(layer, "weight", amount=2)
    prune.ln_structured(layer, "weight", amount=1, n=2, dim=0)
    prune.remove(layer, "weight")
    assert names(layer.named_parameters()) == ["bias", "weight"]
    assert names(layer.named_buffers()) == [] and len(layer._forward_pre_hooks) == 0
    assert layer.weight is orig and type(layer.weight) is nn.Parameter
    assert layer.weight.requires_grad
    assert close(layer.weight,
        [[0.5, 0, 0.3, -0.8], [0, 0.9, 0, 0.4], [0, 0, 0, 0]])
    assert not prune.is_pruned(layer)


def test_identity_and_custom_from_mask():
    layer = linear()
    prune.identity(layer, "bias")
    assert layer.bias_mask.tolist() == [1, 1, 1]
    assert list(layer.state_dict()) == ["weight", "bias_orig", "bias_mask"]
    prune.custom_from_mask(layer, "bias", mask=torch.tensor([1.0, 0.0, 1.0]))
    assert close(layer.bias, [0.1, 0, 0.3])
    assert layer.bias_mask.tolist() == [1, 0, 1]


def test_random_methods_prune_the_asked_amount():
    layer = linear()
    prune.random_unstructured(layer, "weight", amount=0.5)
    assert int(layer.weight_mask.sum()) == 6
    layer = linear()
    prune.random_structured(layer, "weight", amount=2, dim=1)
    assert int(layer.weight_mask.sum()) == 6
    assert sorted(set(layer.weight_mask.sum(0).tolist())) == [0, 3]    # whole columns
    prune.random_structured(layer, "weight", amount=1, dim=1)           # of those left
    assert int(layer.weight_mask.sum()) == 3


def test_global_unstructured_ranks_all_tensors_together():
    a, b = linear(), nn.Linear(2, 2)
    with torch.no_grad():
        b.weight.copy_(torch.tensor([[0.01, 2.0], [-0.03, 0.2]]))
    pairs = [(a, "weight"), (b, "weight")]
    prune.global_unstructured(pairs, pruning_method=prune.L1Unstructured, amount=5)
    assert a.weight_mask.tolist() == [[1, 0, 1, 1], [0, 1, 1, 1], [1, 1, 1, 0]]
    assert b.weight_mask.tolist() == [[0, 1], [0, 1]]
    assert type(list(a._forward_pre_hooks.values())[0]) is prune.CustomFromMask
    prune.global_unstructured(pairs, pruning_method=prune.L1Unstructured, amount=0.5)
    assert a.weight_mask.tolist() == [[0, 0, 0, 1], [0, 1, 0, 0], [1, 0, 1, 0]]
    assert b.weight_mask.tolist() == [[0, 1], [0, 0]]
    assert type(list(a._forward_pre_hooks.values())[0]) is prune.PruningContainer


def test_prune_method_and_is_pruned():
    assert prune.L1Unstructured(amount=2).prune(
        torch.tensor([3.0, -1.0, 0.5, 2.0])).tolist() == [3, 0, 0, 2]
    model = nn.Sequential(linear(), nn.ReLU())
    assert not prune.is_pruned(model)
    prune.identity(model[0], "weight")
    assert prune.is_pruned(model)


def test_a_pruned_state_dict_loads_into_a_pruned_model():
    source = linear()
    prune.l1_unstructured(source, "weight", 0.5)
    target = linear()
    prune.identity(target, "weight")
    assert repr(target.load_state_dict(source.state_dict())) == "<All keys matched successfully>"
    assert target(torch.tensor(X)).tolist() == source(torch.tensor(X)).tolist()


@pytest.mark.parametrize("call, error, message", [
    (lambda m: prune.l1_unstructured(m, "weight", amount=1.5), ValueError,
     "amount=1.5 should either be a float in the range [0, 1] or a non-negative integer"),
    (lambda m: prune.l1_unstructured(m, "weight", amount=-1), ValueError,
     "amount=-1 should either be a float in the range [0, 1] or a non-negative integer"),
    (lambda m: prune.l1_unstructured(m, "weight", amount="a"), TypeError,
     "Invalid type for amount: a. Must be int or float."),
    (lambda m: prune.l1_unstructured(m, "weight", amount=13), ValueError,
     "amount=13 should be smaller than the number of parameters to prune=12"),
    (lambda m: prune.ln_structured(m, "bias", amount=1, n=2, dim=0), ValueError,
     "Structured pruning can only be applied to multidimensional tensors. Found tensor of "
     "shape minitorch.Size([3]) with 1 dims"),
    (lambda m: prune.ln_structured(m, "weight", amount=1, n=2, dim=2), IndexError,
     "Invalid index 2 for tensor of size minitorch.Size([3, 4])"),
    (lambda m: prune.remove(m, "weight"), ValueError,
     "Parameter 'weight' of module Linear(in_features=4, out_features=3, bias=True) has to "
     "be pruned before pruning can be removed"),
    (lambda m: prune.l1_unstructured(m, "weight", 1, importance_scores=torch.ones(2)),
     AssertionError, "importance_scores should have the same shape as parameter weight of "
     "Linear(in_features=4, out_features=3, bias=True), got minitorch.Size([2]) vs "
     "minitorch.Size([3, 4])"),
    (lambda m: prune.global_unstructured([(m, "weight")], pruning_method=prune.LnStructured,
                                         amount=1, n=2, dim=0), TypeError,
     'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
     "<class 'minitorch.nn.utils.prune.LnStructured'> of type structured"),
    (lambda m: prune.global_unstructured(5, pruning_method=prune.L1Unstructured, amount=1),
     TypeError, "global_unstructured(): parameters is not an Iterable"),
    (lambda m: prune.l1_unstructured(m, "nothere", amount=1), AttributeError,
     "'Linear' object has no attribute 'nothere'"),
])
def test_errors_match_pytorch(call, error, message):
    with pytest.raises(error) as info:
        call(linear())
    assert str(info.value) == message or info.value.args[0] == message


def test_a_failed_pruning_puts_the_parameter_back():
    layer = linear()
    with pytest.raises(ValueError):
        prune.l1_unstructured(layer, "weight", amount=13)
    assert names(layer.named_parameters()) == ["bias", "weight"]    # as PyTorch: re-added last
    assert len(layer._forward_pre_hooks) == 0 and "weight_mask" not in layer._buffers


def test_a_container_takes_only_methods_for_its_tensor():
    container = prune.PruningContainer()
    container._tensor_name = "w"
    with pytest.raises(TypeError, match=r"<class 'int'> is not a BasePruningMethod subclass"):
        container.add_pruning_method(3)
    other = prune.L1Unstructured(1)
    other._tensor_name = "v"
    with pytest.raises(ValueError, match=r"Can only add pruning methods acting on the "
                                         r"parameter named 'w' .* Found 'v'"):
        container.add_pruning_method(other)


def test_kthvalue_and_topk_used_by_the_methods():
    result = torch.tensor([3.0, 1.0, 2.0]).kthvalue(2)
    assert result.values.item() == 2 and result.indices.item() == 2
    with pytest.raises(RuntimeError, match="kthvalue\\(\\): selected number k out of range "
                                           "for dimension 0"):
        torch.kthvalue(torch.tensor([3.0, 1.0, 2.0]), 4)
