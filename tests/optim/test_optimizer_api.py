"""The Optimizer API as PyTorch 2.13 has it: defaults, state_dict layouts, param groups, errors (chapter 9).

Every expected dict, key order, message and exception type below was
printed by PyTorch 2.13 for the same code.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch import optim
from tests.strategies import arrays, shapes

pytestmark = pytest.mark.chapter9

ALL = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"]

# optimizer.defaults, in PyTorch's key order.
DEFAULTS = {
    "SGD": {"lr": 0.001, "momentum": 0, "dampening": 0, "weight_decay": 0, "nesterov": False,
            "maximize": False, "foreach": None, "differentiable": False, "fused": None},
    "Adam": {"lr": 0.001, "betas": (0.9, 0.999), "eps": 1e-08, "weight_decay": 0, "amsgrad": False,
             "maximize": False, "foreach": None, "capturable": False, "differentiable": False,
             "fused": None, "decoupled_weight_decay": False},
    "AdamW": {"lr": 0.001, "betas": (0.9, 0.999), "eps": 1e-08, "weight_decay": 0.01, "amsgrad": False,
              "maximize": False, "foreach": None, "capturable": False, "differentiable": False,
              "fused": None, "decoupled_weight_decay": True},
    "RMSprop": {"lr": 0.01, "momentum": 0, "alpha": 0.99, "eps": 1e-08, "centered": False,
                "weight_decay": 0, "capturable": False, "foreach": None, "maximize": False,
                "differentiable": False},
    "Adagrad": {"lr": 0.01, "lr_decay": 0, "eps": 1e-10, "weight_decay": 0, "initial_accumulator_value": 0,
                "foreach": None, "maximize": False, "differentiable": False, "fused": None},
}


def one_step(opt, *params):
    for p in params:
        p.grad = torch.ones_like(p)
    opt.step()
    return opt


@pytest.mark.task("9.1")
@pytest.mark.parametrize("name", ALL)
def test_defaults_and_group_keys_match_pytorch(name):
    p = nn.Parameter(torch.ones(2))
    opt = getattr(optim, name)([p])
    assert opt.defaults == DEFAULTS[name] and list(opt.defaults) == list(DEFAULTS[name])
    group = opt.state_dict()["param_groups"][0]
    assert list(group) == list(DEFAULTS[name]) + ["params"] and group["params"] == [0]


@pytest.mark.task("9.1")
@pytest.mark.parametrize("name, options, keys", [
    ("SGD", {"lr": 0.1}, None),                                   # no momentum: no state at all
    ("SGD", {"lr": 0.1, "momentum": 0.9}, ["momentum_buffer"]),
    ("Adam", {}, ["step", "exp_avg", "exp_avg_sq"]),
    ("Adam", {"amsgrad": True}, ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]),
    ("AdamW", {"amsgrad": True}, ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]),
    ("RMSprop", {}, ["step", "square_avg"]),
    ("RMSprop", {"momentum": 0.9, "centered": True}, ["step", "square_avg", "momentum_buffer", "grad_avg"]),
    ("Adagrad", {}, ["step", "sum"]),
])
def test_state_layout_after_a_step(name, options, keys):
    p = nn.Parameter(torch.ones(2))
    state = one_step(getattr(optim, name)([p], **options), p).state_dict()["state"]
    if keys is None:
        assert state == {}
        return
    assert list(state) == [0] and list(state[0]) == keys
    for key, value in state[0].items():
        expected_shape = () if key == "step" else (2,)
        assert isinstance(value, torch.Tensor) and value.shape == expected_shape
        assert value.dtype == torch.float32 and not value.requires_grad
    if "step" in keys:
        assert state[0]["step"].item() == 1.0


@pytest.mark.task("9.1")
def test_state_values_after_one_step_match_pytorch():
    p = nn.Parameter(torch.ones(2))
    rms = one_step(optim.RMSprop([p], lr=0.1, momentum=0.9, centered=True), p).state[p]
    assert np.allclose(rms["square_avg"].numpy(), 0.01) and np.allclose(rms["grad_avg"].numpy(), 0.01)
    assert np.allclose(rms["momentum_buffer"].numpy(), 10.050378, rtol=1e-6)
    q = nn.Parameter(torch.ones(2))
    adam = one_step(optim.Adam([q], lr=0.1, amsgrad=True), q).state[q]
    assert np.allclose(adam["exp_avg"].numpy(), 0.1) and np.allclose(adam["max_exp_avg_sq"].numpy(), 0.001)


@pytest.mark.task("9.1")
def test_adagrad_makes_its_state_when_built():
    p = nn.Parameter(torch.ones(2))
    opt = optim.Adagrad([p], initial_accumulator_value=0.5)
    state = opt.state_dict()["state"]
    assert list(state[0]) == ["step", "sum"]
    assert state[0]["step"].item() == 0.0 and state[0]["sum"].tolist() == [0.5, 0.5]
    # A parameter added later gets its state (from its group's options) on its first step.
    q = nn.Parameter(torch.ones(3))
    opt.add_param_group({"params": [q], "lr": 0.1})
    assert q not in opt.state
    one_step(opt, p, q)
    assert opt.state[q]["sum"].tolist() == [1.5, 1.5, 1.5] and opt.state[q]["step"].item() == 1.0


@pytest.mark.task("9.1")
def test_state_dict_holds_the_state_itself_and_other_keys_as_they_are():
    p = nn.Parameter(torch.ones(2))
    opt = one_step(optim.Adam([p]), p)
    opt.state["extra"] = {"a": 1}
    sd = opt.state_dict()
    assert sd["state"][0] is opt.state[p] and list(sd["state"]) == [0, "extra"]


@pytest.mark.task("9.1")
def test_adam_has_no_state_before_its_first_step():
    assert optim.Adam([nn.Parameter(torch.ones(2))]).state_dict()["state"] == {}


@pytest.mark.task("9.1")
@pytest.mark.parametrize("name", ALL)
def test_step_runs_under_no_grad_in_place(name):
    p = nn.Parameter(torch.ones(3))
    opt = getattr(optim, name)([p], lr=0.1)
    (p * p).sum().backward()
    version = p._version
    before = p.detach().clone()
    opt.step()
    assert p.is_leaf and p.grad_fn is None and p.requires_grad
    assert p._version > version and not torch.equal(p.detach(), before)
    assert all(not v.requires_grad for v in opt.state[p].values())


@pytest.mark.task("9.1")
def test_closure_runs_with_grad_enabled():
    p = nn.Parameter(torch.ones(2))
    opt = optim.Adam([p], lr=0.1)
    modes = []

    def closure():
        modes.append(torch.is_grad_enabled())
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss
    with torch.no_grad():
        assert opt.step(closure).item() == 2.0
    assert modes == [True] and torch.is_grad_enabled()


@pytest.mark.task("9.1")
def test_params_without_grad_are_left_alone():
    a, b = nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(2))
    opt = optim.AdamW([a, b], lr=0.1)
    one_step(opt, a)
    b_before = b.detach().clone()
    opt.step()           # b has no grad: not decayed either
    assert torch.equal(b.detach(), b_before) and b not in opt.state


@pytest.mark.task("9.1")
def test_param_groups_with_their_own_options():
    lin = nn.Linear(3, 2)
    opt = optim.RMSprop([{"params": lin.weight}, {"params": [lin.bias], "lr": 0.5, "centered": True}],
                        lr=0.01, alpha=0.9)
    assert [g["lr"] for g in opt.param_groups] == [0.01, 0.5]
    assert [g["centered"] for g in opt.param_groups] == [False, True]
    assert all(g["alpha"] == 0.9 for g in opt.param_groups)
    one_step(opt, lin.weight, lin.bias)
    assert "grad_avg" in opt.state[lin.bias] and "grad_avg" not in opt.state[lin.weight]


@pytest.mark.task("9.1")
def test_repr_lists_groups_separated_by_a_blank_line():
    a, b = nn.Parameter(torch.ones(1)), nn.Parameter(torch.ones(1))
    opt = optim.Adagrad([{"params": [a]}, {"params": [b], "lr": 1}], lr=0.1)
    group = ("    differentiable: False\n    eps: 1e-10\n    foreach: None\n    fused: None\n"
             "    initial_accumulator_value: 0\n    lr: {}\n    lr_decay: 0\n    maximize: False\n"
             "    weight_decay: 0\n")
    assert repr(opt) == ("Adagrad (\nParameter Group 0\n" + group.format(0.1) + "\nParameter Group 1\n"
                         + group.format(1) + ")")


@pytest.mark.task("9.1")
def test_named_parameters_keep_their_names():
    model = nn.Linear(2, 1)
    opt = optim.SGD(model.named_parameters(), lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
    assert opt.param_groups[0]["params"] == [model.weight, model.bias]
    group = opt.state_dict()["param_groups"][0]
    assert list(group)[0] == "param_names" and group["params"] == [0, 1]
    with pytest.raises(ValueError, match="^all optimizer params should be with/without names. Some param "
                                         "names are missing$"):
        optim.SGD([("weight", model.weight), model.bias], lr=0.1)


@pytest.mark.task("9.1")
def test_add_param_group():
    a, b = nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(3))
    opt = optim.Adam([a], lr=0.1)
    assert opt.add_param_group({"params": b, "betas": (0.5, 0.6)}) is None
    assert opt.param_groups[1]["params"] == [b] and opt.param_groups[1]["betas"] == (0.5, 0.6)
    assert opt.param_groups[1]["lr"] == 0.1
    assert list(opt.param_groups[1])[:2] == ["params", "betas"]
    with pytest.raises(ValueError, match="^some parameters appear in more than one parameter group$"):
        opt.add_param_group({"params": [b]})
    with pytest.raises(TypeError, match="^param_group must be a dict, but got <class 'list'>$"):
        opt.add_param_group([b])
    with pytest.raises(TypeError, match="^optimizer parameters need to be organized in ordered collections"):
        opt.add_param_group({"params": {nn.Parameter(torch.ones(1))}})


@pytest.mark.task("9.1")
def test_which_tensors_can_be_optimized():
    p = nn.Parameter(torch.ones(2))
    optim.SGD({p}, lr=0.1)                                   # a set is fine for the first argument
    optim.SGD([torch.ones(2)], lr=0.1).step()                # no grad needed, nothing happens
    kept = torch.ones(2, requires_grad=True) * 2
    kept.retain_grad()
    optim.SGD([kept], lr=0.1)                                # a non-leaf that retains its grad
    with pytest.raises(ValueError, match="^can't optimize a non-leaf Tensor$"):
        optim.SGD([p, torch.ones(2, requires_grad=True) * 2], lr=0.1)
    with pytest.raises(TypeError, match="but got minitorch.DoubleTensor$"):
        optim.Adam(nn.Parameter(torch.ones(2, dtype=torch.float64)))


@pytest.mark.parametrize("make, message", [
    (lambda p: optim.Adam(p, lr=-1), "Invalid learning rate: -1"),
    (lambda p: optim.Adam(p, weight_decay=-1), "Invalid weight_decay value: -1"),
    (lambda p: optim.Adam(p, betas=(-0.1, 0.9)), "Invalid beta parameter at index 0: -0.1"),
    (lambda p: optim.Adam(p, betas=(0.9, 1.0)), "Invalid beta parameter at index 1: 1.0"),
    (lambda p: optim.AdamW(p, lr=-1), "Invalid learning rate: -1"),
    (lambda p: optim.AdamW(p, eps=-1), "Invalid epsilon value: -1"),
    (lambda p: optim.AdamW(p, betas=(0.9, 1.5)), "Invalid beta parameter at index 1: 1.5"),
    (lambda p: optim.AdamW(p, weight_decay=-1), "Invalid weight_decay value: -1"),
    (lambda p: optim.RMSprop(p, lr=-1), "Invalid learning rate: -1"),
    (lambda p: optim.RMSprop(p, eps=-1), "Invalid epsilon value: -1"),
    (lambda p: optim.RMSprop(p, momentum=-1), "Invalid momentum value: -1"),
    (lambda p: optim.RMSprop(p, weight_decay=-1), "Invalid weight_decay value: -1"),
    (lambda p: optim.RMSprop(p, alpha=-1), "Invalid alpha value: -1"),
    (lambda p: optim.Adagrad(p, lr=-1), "Invalid learning rate: -1"),
    (lambda p: optim.Adagrad(p, lr_decay=-1), "Invalid lr_decay value: -1"),
    (lambda p: optim.Adagrad(p, weight_decay=-1), "Invalid weight_decay value: -1"),
    (lambda p: optim.Adagrad(p, initial_accumulator_value=-1), "Invalid initial_accumulator_value value: -1"),
    (lambda p: optim.Adagrad(p, eps=-1), "Invalid epsilon value: -1"),
    (lambda p: optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1, nesterov=True),
     "Nesterov momentum requires a momentum and zero dampening"),
])
def test_invalid_hyper_parameters_raise_value_error(make, message):
    with pytest.raises(ValueError) as info:
        make([nn.Parameter(torch.ones(1))])
    assert str(info.value) == message


def test_adamw_has_no_decoupled_weight_decay_argument():
    with pytest.raises(TypeError, match="decoupled_weight_decay"):
        optim.AdamW([nn.Parameter(torch.ones(1))], decoupled_weight_decay=False)


@pytest.mark.task("9.1")
@pytest.mark.parametrize("name", ALL)
def test_implementation_flags_are_accepted_or_refused_clearly(name):
    p = [nn.Parameter(torch.ones(1))]
    cls = getattr(optim, name)
    cls(p, foreach=True)
    cls(p, foreach=False)
    if "fused" in DEFAULTS[name]:
        cls(p, fused=True)
        with pytest.raises(RuntimeError, match="^`fused` and `foreach` cannot be `True` together.$"):
            cls(p, fused=True, foreach=True)
    if "capturable" in DEFAULTS[name]:
        cls(p, capturable=True)
    with pytest.raises(NotImplementedError, match="differentiable=True is not supported"):
        cls(p, differentiable=True)


# ----- saving and loading -------------------------------------------------------------------
def _model_and(name, seed=0):
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    options = {"RMSprop": {"momentum": 0.5, "centered": True}, "Adam": {"amsgrad": True},
               "SGD": {"momentum": 0.9}, "Adagrad": {"lr_decay": 0.1}}.get(name, {})
    return model, getattr(optim, name)(model.parameters(), lr=0.05, **options)


def _train(model, opt, x, y, steps):
    for _ in range(steps):
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()


@pytest.mark.task("9.1")
@pytest.mark.parametrize("name", ALL)
def test_load_state_dict_resumes_identically(name):
    torch.manual_seed(1)
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    reference, ref_opt = _model_and(name)
    _train(reference, ref_opt, x, y, 6)
    model, opt = _model_and(name)
    _train(model, opt, x, y, 3)
    checkpoint = {"model": model.state_dict(), "optimizer": opt.state_dict()}
    model2, opt2 = _model_and(name, seed=5)
    model2.load_state_dict(checkpoint["model"])
    opt2.load_state_dict(checkpoint["optimizer"])
    _train(model2, opt2, x, y, 3)
    for p, q in zip(model2.parameters(), reference.parameters()):
        assert torch.equal(p.detach(), q.detach())


@pytest.mark.task("9.1")
def test_load_state_dict_casts_to_the_parameter_dtype_but_not_the_step():
    a = nn.Parameter(torch.zeros(2))
    sd = one_step(optim.Adam([a], lr=0.1), a).state_dict()
    d = nn.Parameter(torch.zeros(2, dtype=torch.float64))
    opt = optim.Adam([d])
    opt.load_state_dict(sd)
    assert {k: v.dtype for k, v in opt.state[d].items()} == {
        "step": torch.float32, "exp_avg": torch.float64, "exp_avg_sq": torch.float64}
    assert opt.param_groups[0]["lr"] == 0.1 and opt.param_groups[0]["params"] == [d]


@pytest.mark.task("9.1")
def test_load_state_dict_fills_options_missing_from_an_older_checkpoint():
    a = nn.Parameter(torch.zeros(2))
    sd = optim.SGD([a], lr=0.1).state_dict()
    del sd["param_groups"][0]["foreach"], sd["param_groups"][0]["fused"]
    opt = optim.SGD([a], lr=0.3)
    opt.load_state_dict(sd)
    assert opt.param_groups[0]["lr"] == 0.1 and opt.param_groups[0]["foreach"] is None
    assert "fused" in opt.param_groups[0]        # PyTorch's SGD fills in False here, minitorch None
    assert "foreach" not in sd["param_groups"][0]          # the checkpoint itself is not changed


@pytest.mark.task("9.1")
def test_load_state_dict_errors():
    a, b = nn.Parameter(torch.zeros(2)), nn.Parameter(torch.zeros(2))
    sd = one_step(optim.Adam([a]), a).state_dict()
    with pytest.raises(ValueError, match="^loaded state dict has a different number of parameter groups$"):
        optim.Adam([{"params": [a]}, {"params": [b]}]).load_state_dict(sd)
    with pytest.raises(ValueError, match="^loaded state dict contains a parameter group that doesn't match "
                                         "the size of optimizer's group$"):
        optim.Adam([a, b]).load_state_dict(sd)
    with pytest.raises(KeyError):
        optim.Adam([a]).load_state_dict({"state": {}})


@pytest.mark.task("9.1")
def test_state_dict_survives_save_and_load(tmp_path):
    model, opt = _model_and("Adam")
    x = torch.randn(4, 3)
    _train(model, opt, x, torch.zeros(4, 1), 2)
    torch.save(opt.state_dict(), tmp_path / "opt.pt")
    loaded = torch.load(tmp_path / "opt.pt")
    assert list(loaded["state"]) == [0, 1, 2, 3]
    assert torch.equal(loaded["state"][0]["exp_avg"], opt.state_dict()["state"][0]["exp_avg"])


@pytest.mark.task("9.1")
@given(shape=shapes(min_dims=1, max_dims=2), data=st.data())
def test_sgd_step_is_the_formula_for_any_shape(shape, data):
    values = data.draw(arrays(shape))
    grads = data.draw(arrays(shape))
    p = nn.Parameter(torch.from_numpy(values.copy()))
    p.grad = torch.from_numpy(grads.copy())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        optim.SGD([p], lr=0.25, weight_decay=0.5).step()
    assert np.allclose(p.detach().numpy(), values - 0.25 * (grads + 0.5 * values), rtol=1e-12, atol=1e-12)


@pytest.mark.task("9.1")
def test_groups_are_all_named_or_all_unnamed():
    model = nn.Linear(2, 1)
    with pytest.raises(ValueError, match="^all optimizer param groups should be with/without names. cannot "
                                         "add param group with names to the optimizer$"):
        optim.SGD([model.weight], lr=0.1).add_param_group({"params": [("bias", model.bias)]})
    with pytest.raises(ValueError, match="cannot add param group without names to the optimizer$"):
        optim.SGD([("weight", model.weight)], lr=0.1).add_param_group({"params": [model.bias]})
