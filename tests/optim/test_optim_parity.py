"""Optimizers as PyTorch 2.13 builds them (chapter 9): the keys of a param group and
of the defaults, state shared with a loaded state dict, Adam's decoupled weight
decay, parameters given by name."""

import pytest

import minitorch as torch
import minitorch.nn as nn
import minitorch.optim as optim

pytestmark = pytest.mark.chapter9

SGD_KEYS = ["params", "lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize", "foreach", "differentiable",
            "fused"]
ADAM_KEYS = ["params", "lr", "betas", "eps", "weight_decay", "amsgrad", "maximize", "foreach", "capturable",
             "differentiable", "fused", "decoupled_weight_decay"]


@pytest.mark.task("9.1")
def test_param_group_keys_and_defaults():
    w = torch.ones(2, requires_grad=True)
    assert list(optim.SGD([w], lr=0.1).param_groups[0]) == SGD_KEYS
    assert list(optim.Adam([w]).param_groups[0]) == ADAM_KEYS
    assert optim.SGD([w], lr=0.1).defaults == {
        "lr": 0.1, "momentum": 0, "dampening": 0, "weight_decay": 0, "nesterov": False, "maximize": False,
        "foreach": None, "differentiable": False, "fused": None}
    assert optim.Adam([w]).defaults == {
        "lr": 0.001, "betas": (0.9,
                               0.999), "eps": 1e-08, "weight_decay": 0, "amsgrad": False, "maximize": False,
        "foreach": None, "capturable": False, "differentiable": False, "fused": None, "decoupled_weight_decay": False}


@pytest.mark.task("9.1")
def test_repr_lists_every_option():
    text = repr(optim.SGD([torch.ones(2, requires_grad=True)], lr=0.1))
    assert text == ("SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: False\n    foreach: None\n"
                    "    fused: None\n    lr: 0.1\n    maximize: False\n    momentum: 0\n    nesterov: False\n"
                    "    weight_decay: 0\n)")


def problem():
    w = torch.tensor([1.0, -2.0], requires_grad=True)
    b = torch.tensor([0.5], requires_grad=True)

    def loss():
        return ((w * torch.tensor([1.0, 3.0])).sum() + b.sum() * 2) ** 2
    return w, b, loss


def steps(opt, loss, n=3):
    for _ in range(n):
        opt.zero_grad()
        loss().backward()
        opt.step()


@pytest.mark.task("9.1")
def test_loaded_state_is_shared_with_the_state_dict():
    w, b, loss = problem()
    opt = optim.SGD([w, b], lr=0.1, momentum=0.9)
    steps(opt, loss)
    other = optim.SGD([w, b], lr=0.3, momentum=0.9)
    other.load_state_dict(opt.state_dict())
    assert other.state[w]["momentum_buffer"] is opt.state[w]["momentum_buffer"]
    assert other.param_groups[0]["lr"] == 0.1


@pytest.mark.task("9.1")
def test_adam_decoupled_weight_decay():
    w, b, loss = problem()
    steps(optim.Adam([w, b], lr=0.1, decoupled_weight_decay=True, weight_decay=0.1), loss)
    assert [round(v, 5) for v in w.tolist()] == [1.26403, -1.64687] and round(b.item(), 5) == 0.77888


@pytest.mark.task("9.1")
def test_parameters_given_by_name():
    m = nn.Linear(2, 1)
    opt = optim.SGD(m.named_parameters(), lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
    assert opt.param_groups[0]["params"][0] is m.weight
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["weight", "bias"]
