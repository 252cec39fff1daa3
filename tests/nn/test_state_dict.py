"""state_dict / load_state_dict: keys and their order, sharing, errors, hooks, all-or-nothing loading.

Error texts are PyTorch 2.13's (with ``minitorch`` for ``torch`` in type names).
"""

from collections import OrderedDict

import pytest

import minitorch as torch
import minitorch.nn as nn
from minitorch.nn import Parameter

pytestmark = pytest.mark.chapter8


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 3)
        self.register_buffer("steps", torch.zeros(1))
        self.register_buffer("tmp", torch.zeros(1), persistent=False)
        self.bn = nn.BatchNorm1d(3)
        self.a = Parameter(torch.ones(2))


KEYS = ["a", "steps", "fc.weight", "fc.bias", "bn.weight", "bn.bias", "bn.running_mean",
        "bn.running_var", "bn.num_batches_tracked"]


def snapshot(module):
    return {k: v.clone() for k, v in module.state_dict().items()}


@pytest.mark.task("8.2")
def test_keys_in_pytorch_order_own_entries_first():
    sd = Net().state_dict()
    assert isinstance(sd, OrderedDict)
    assert list(sd) == KEYS          # own parameters, own persistent buffers, then children


@pytest.mark.task("8.2")
def test_metadata_holds_versions():
    sd = Net().state_dict()
    assert sd._metadata == OrderedDict([("", {"version": 1}), ("fc", {"version": 1}), ("bn", {"version": 2})])


@pytest.mark.task("8.2")
def test_values_are_detached_and_share_memory():
    n = Net()
    sd = n.state_dict()
    assert type(sd["a"]) is torch.Tensor and not sd["a"].requires_grad
    with torch.no_grad():
        n.a.add_(1)
    assert sd["a"].tolist() == [2.0, 2.0]
    kept = n.state_dict(keep_vars=True)
    assert kept["a"] is n.a and isinstance(kept["a"], Parameter)


@pytest.mark.task("8.2")
def test_prefix_and_destination():
    n = Net()
    assert list(n.state_dict(prefix="model.")) == ["model." + k for k in KEYS]
    assert list(n.fc.state_dict(prefix="x")) == ["xweight", "xbias"]
    dest = OrderedDict()
    assert n.state_dict(destination=dest, prefix="p.") is dest
    assert list(dest) == ["p." + k for k in KEYS]
    dest = OrderedDict()
    with pytest.warns(FutureWarning, match=r"^Positional args are being deprecated, use "
                                           r"kwargs instead\."):
        assert n.state_dict(dest, "q.") is dest
    assert list(dest) == ["q." + k for k in KEYS]


@pytest.mark.task("8.2")
def test_none_parameters_are_left_out():
    n = Net()
    n.fc.bias = None
    assert "fc.bias" not in n.state_dict()


@pytest.mark.task("8.2")
def test_load_copies_in_place_and_converts_dtype():
    src, dst = Net(), Net()
    weight = dst.fc.weight
    with torch.no_grad():
        src.a.copy_(torch.tensor([5.0, 6.0]))
    result = dst.load_state_dict(src.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert dst.fc.weight is weight and dst.fc.weight.equal(src.fc.weight)
    assert dst.a.tolist() == [5.0, 6.0] and dst.a.requires_grad
    sd = snapshot(src)
    sd["a"] = torch.tensor([1.5, 2.5], dtype=torch.float64)
    dst.load_state_dict(sd)
    assert dst.a.dtype == torch.float32 and dst.a.tolist() == [1.5, 2.5]


@pytest.mark.task("8.2")
def test_missing_and_unexpected_errors_strict():
    n = Net()
    sd = snapshot(n)
    del sd["fc.bias"]
    del sd["a"]
    sd["extra"] = torch.zeros(1)
    sd["zz.q"] = torch.zeros(1)
    with pytest.raises(RuntimeError) as info:
        n.load_state_dict(sd)
    assert str(info.value) == (
        "Error(s) in loading state_dict for Net:\n"
        '\tMissing key(s) in state_dict: "a", "fc.bias". \n'
        '\tUnexpected key(s) in state_dict: "extra", "zz.q". ')


@pytest.mark.task("8.2")
def test_non_strict_returns_the_keys():
    n = Net()
    sd = snapshot(n)
    del sd["fc.bias"]
    sd["extra"] = torch.zeros(1)
    result = n.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["fc.bias"] and result.unexpected_keys == ["extra"]
    assert repr(result) == "_IncompatibleKeys(missing_keys=['fc.bias'], unexpected_keys=['extra'])"


@pytest.mark.task("8.2")
def test_size_mismatch_error_even_when_not_strict():
    n = Net()
    sd = snapshot(n)
    sd["fc.weight"] = torch.zeros(5, 5)
    message = ("Error(s) in loading state_dict for Net:\n\tsize mismatch for fc.weight: copying a param "
               "with shape minitorch.Size([5, 5]) from checkpoint, the shape in current model is "
               "minitorch.Size([3, 2]).")
    for strict in (True, False):
        with pytest.raises(RuntimeError) as info:
            n.load_state_dict(sd, strict=strict)
        assert str(info.value) == message


@pytest.mark.task("8.2")
def test_all_error_kinds_in_pytorch_order():
    n = Net()
    sd = snapshot(n)
    del sd["fc.bias"]
    sd["extra"] = torch.zeros(1)
    sd["fc.weight"] = torch.zeros(5, 5)
    with pytest.raises(RuntimeError) as info:
        n.load_state_dict(sd)
    lines = str(info.value).split("\n\t")
    assert lines[1].startswith("Missing key(s)") and lines[2].startswith("Unexpected key(s)")
    assert lines[3].startswith("size mismatch for fc.weight")


@pytest.mark.task("8.2")
def test_non_tensor_value_error():
    n = Net()
    sd = snapshot(n)
    sd["a"] = 3
    with pytest.raises(RuntimeError, match=r'While copying the parameter named "a", expected minitorch.Tensor '
                                           r"or Tensor-like object from checkpoint but received <class 'int'>"):
        n.load_state_dict(sd)


@pytest.mark.task("8.2")
def test_same_size_in_another_shape_is_a_size_mismatch():
    # PyTorch 2.13 compares shapes: a transposed weight is refused before any copy
    n = Net()
    before = snapshot(n)
    sd = snapshot(n)
    sd["fc.weight"] = torch.ones(2, 3)          # the model's is (3, 2)
    with pytest.raises(RuntimeError) as info:
        n.load_state_dict(sd, strict=False)
    assert str(info.value) == (
        "Error(s) in loading state_dict for Net:\n\tsize mismatch for fc.weight: copying a "
        "param with shape minitorch.Size([2, 3]) from checkpoint, the shape in current model "
        "is minitorch.Size([3, 2]).")
    assert n.fc.weight.equal(before["fc.weight"])


@pytest.mark.task("8.2")
def test_not_a_mapping():
    with pytest.raises(TypeError, match=r"^Expected state_dict to be dict-like, got <class 'list'>.$"):
        Net().load_state_dict([1])


@pytest.mark.task("8.2")
def test_failed_strict_load_changes_nothing():
    # minitorch's promise (PyTorch keeps the entries it copied before raising)
    n = Net()
    before = snapshot(n)
    sd = snapshot(n)
    sd["fc.bias"] = torch.full((3,), 7.0)
    sd["a"] = torch.full((2,), 7.0)
    sd["fc.weight"] = torch.zeros(5, 5)          # one bad entry among good ones
    with pytest.raises(RuntimeError):
        n.load_state_dict(sd)
    assert all(n.state_dict()[k].equal(before[k]) for k in before)
    del sd["fc.weight"]                          # strict failure: missing key
    with pytest.raises(RuntimeError):
        n.load_state_dict(sd)
    assert all(n.state_dict()[k].equal(before[k]) for k in before)


@pytest.mark.task("8.2")
def test_failed_strict_load_with_assign_puts_the_old_parameters_back():
    n = Net()
    weight, steps = n.fc.weight, n.steps
    sd = snapshot(n)
    del sd["fc.bias"]
    with pytest.raises(RuntimeError, match="Missing key"):
        n.load_state_dict(sd, assign=True)
    assert n.fc.weight is weight and n.steps is steps


@pytest.mark.task("8.2")
def test_failed_non_strict_load_keeps_what_it_copied():
    # as PyTorch 2.13: the good entries are copied, then the error is raised
    n = Net()
    sd = snapshot(n)
    sd["fc.bias"] = torch.full((3,), 7.0)
    sd["fc.weight"] = torch.zeros(5, 5)
    with pytest.raises(RuntimeError, match="size mismatch for fc.weight"):
        n.load_state_dict(sd, strict=False)
    assert n.fc.bias.tolist() == [7.0, 7.0, 7.0]


@pytest.mark.task("8.2")
def test_non_persistent_buffer_not_saved_or_expected():
    n = Net()
    assert "tmp" not in n.state_dict()
    n.load_state_dict(snapshot(n))               # does not report tmp as missing


@pytest.mark.task("8.2")
def test_unexpected_key_for_none_parameter():
    n = Net()
    sd = snapshot(n)
    n.fc.bias = None
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "fc.bias". '):
        n.load_state_dict(sd)


@pytest.mark.task("8.2")
def test_batchnorm_without_num_batches_tracked_in_old_checkpoint():
    n = Net()
    sd = dict(snapshot(n))                       # no _metadata: treated as an old checkpoint
    del sd["bn.num_batches_tracked"]
    assert repr(n.load_state_dict(sd)) == "<All keys matched successfully>"


@pytest.mark.task("8.2")
def test_round_trip_between_models():
    torch.manual_seed(1)
    a = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    b = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    x = torch.randn(5, 3)
    assert not a(x).allclose(b(x))
    b.load_state_dict(a.state_dict())
    assert a(x).equal(b(x))


# ----- hooks ---------------------------------------------------------------------------
@pytest.mark.task("8.2")
def test_state_dict_hooks_arguments_and_order():
    lin = nn.Linear(1, 1)
    log = []
    lin.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: log.append(("pre", prefix, keep_vars)))
    lin._register_state_dict_hook(lambda mod, sd, prefix, meta: log.append(("post", list(sd), prefix, meta)))
    lin.state_dict(prefix="p.")
    assert log == [("pre", "p.", False), ("post", ["p.weight", "p.bias"], "p.", {"version": 1})]


@pytest.mark.task("8.2")
def test_state_dict_hook_can_replace_result():
    # PyTorch 2.13: only hooks registered with the older _register_state_dict_hook may
    # replace the state dict; a public post-hook that returns a value is refused.
    lin = nn.Linear(1, 1)
    lin._register_state_dict_hook(lambda mod, sd, prefix, meta: {"replaced": True})
    assert lin.state_dict() == {"replaced": True}
    lin = nn.Linear(1, 1)
    lin.register_state_dict_post_hook(lambda mod, sd, prefix, meta: {"replaced": True})
    with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
        lin.state_dict()


@pytest.mark.task("8.2")
def test_load_state_dict_pre_and_post_hooks():
    lin = nn.Linear(1, 1)
    log = []

    def pre(state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
        log.append(("pre", prefix, local_metadata, strict))
        state_dict[prefix + "bias"] = torch.tensor([9.0])    # hooks may rewrite the incoming dict

    lin._register_load_state_dict_pre_hook(pre)
    lin.register_load_state_dict_pre_hook(lambda mod, *args: log.append(("with module", mod is lin)))
    lin.register_load_state_dict_post_hook(lambda mod, keys: log.append(("post", repr(keys))))
    sd = lin.state_dict()
    lin.load_state_dict({"weight": sd["weight"]})
    assert log == [("pre", "", {}, True), ("with module", True), ("post", "<All keys matched successfully>")]
    assert lin.bias.tolist() == [9.0]


@pytest.mark.task("8.2")
def test_hooks_removed_by_handles():
    lin = nn.Linear(1, 1)
    log = []
    h = lin._register_state_dict_hook(lambda *a: log.append(1))
    h.remove()
    lin.state_dict()
    assert log == [] and not lin._state_dict_hooks
