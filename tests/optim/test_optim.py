"""optim: SGD and Adam against PyTorch's trajectories, param groups, state_dict, errors, training an MLP."""

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch import optim

pytestmark = pytest.mark.chapter9


def run(make_optimizer, steps=5):
    """Minimise sum(c * p**2) + sum(p) for a few steps; return the parameter values."""
    p = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
    c = torch.tensor([1.0, 3.0, -2.0])
    opt = make_optimizer([p])
    for _ in range(steps):
        opt.zero_grad()
        loss = (p ** 2 * c).sum() + p.sum()
        loss.backward()
        opt.step()
    return p.detach().tolist()


# Values printed by PyTorch 2.13 for the same code.
TRAJECTORIES = [
    (lambda ps: optim.SGD(ps, lr=0.1), [-0.008480026386678219, -0.18544000387191772, 1.5945600271224976]),
    (lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01),
     [-1.371993899345398, 0.24970446527004242, 3.502135753631592]),
    (lambda ps: optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=True),
     [-0.656872570514679, 0.4710623323917389, 2.294257640838623]),
    (lambda ps: optim.SGD(ps, lr=0.05, momentum=0.5, dampening=0.3, maximize=True),
     [2.111910581588745, -7.671175479888916, 0.2848920226097107]),
    (lambda ps: optim.Adam(ps, lr=0.1), [0.5043581128120422, -1.50331449508667, 0.9980931282043457]),
    (lambda ps: optim.Adam(ps, lr=0.1, betas=(0.8, 0.9), weight_decay=0.1, amsgrad=True),
     [0.5048453211784363, -1.5036009550094604, 0.9994302988052368]),
]


@pytest.mark.task("9.1")
@pytest.mark.parametrize("make, expected", TRAJECTORIES)
def test_matches_pytorch_trajectory(make, expected):
    assert np.allclose(run(make), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.task("9.1")
def test_step_is_in_place_and_skips_params_without_grad():
    a = nn.Parameter(torch.ones(2))
    b = nn.Parameter(torch.ones(2))
    opt = optim.SGD([a, b], lr=0.5)
    a.grad = torch.ones(2)
    version = a._version
    opt.step()
    assert a.tolist() == [0.5, 0.5] and b.tolist() == [1.0, 1.0]
    assert a._version == version + 1 and a.requires_grad and a.is_leaf


@pytest.mark.task("9.1")
def test_zero_grad_set_to_none_and_zeros():
    p = nn.Parameter(torch.ones(2))
    opt = optim.SGD([p], lr=0.1)
    p.grad = torch.ones(2)
    grad = p.grad
    opt.zero_grad(set_to_none=False)
    assert p.grad is grad and p.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert p.grad is None


@pytest.mark.task("9.1")
def test_zero_grad_to_zeros_stops_a_grad_requiring_grad():
    # PyTorch 2.13: the same tensor, zeros, requires_grad False (in every group)
    p, q = nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(1))
    opt = optim.SGD([{"params": [p]}, {"params": [q], "lr": 1.0}], lr=0.1)
    p.grad, q.grad = torch.ones(2, requires_grad=True), torch.ones(1)
    p_grad, q_grad = p.grad, q.grad
    opt.zero_grad(set_to_none=False)
    assert p.grad is p_grad and q.grad is q_grad and not p_grad.requires_grad
    assert p.grad.tolist() == [0.0, 0.0] and q.grad.tolist() == [0.0]


@pytest.mark.task("9.1")
def test_param_groups_with_their_own_options():
    lin = nn.Linear(2, 2)
    opt = optim.SGD([{"params": [lin.weight]}, {"params": lin.bias, "lr": 1.0}], lr=0.1, momentum=0.9)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 1.0]
    assert all(g["momentum"] == 0.9 for g in opt.param_groups)
    lin.weight.grad = torch.ones(2, 2)
    lin.bias.grad = torch.ones(2)
    w, b = lin.weight.detach().clone(), lin.bias.detach().clone()
    opt.step()
    assert np.allclose((w - lin.weight).detach().numpy(), 0.1)
    assert np.allclose((b - lin.bias).detach().numpy(), 1.0)


@pytest.mark.task("9.1")
def test_closure_is_called_and_returned():
    p = nn.Parameter(torch.ones(1))
    opt = optim.Adam([p])

    def closure():
        opt.zero_grad()
        loss = (p * 3).sum()
        loss.backward()
        return loss
    assert opt.step(closure).item() == 3.0


@pytest.mark.task("9.1")
def test_constructor_errors():
    p = torch.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="^optimizer got an empty parameter list$"):
        optim.SGD([], lr=0.1)
    with pytest.raises(TypeError, match="^params argument given to the optimizer should be an iterable of "
                                        "Tensors or dicts, but got minitorch.FloatTensor$"):
        optim.SGD(p, lr=0.1)
    with pytest.raises(ValueError, match="^Invalid learning rate: -0.1$"):
        optim.SGD([p], lr=-0.1)
    with pytest.raises(ValueError, match="^Invalid momentum value: -1$"):
        optim.SGD([p], lr=0.1, momentum=-1)
    with pytest.raises(ValueError, match="^Invalid weight_decay value: -1$"):
        optim.SGD([p], lr=0.1, weight_decay=-1)
    with pytest.raises(ValueError, match="^Nesterov momentum requires a momentum and zero dampening$"):
        optim.SGD([p], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="^Invalid beta parameter at index 0: 1.0$"):
        optim.Adam([p], betas=(1.0, 0.9))
    with pytest.raises(ValueError, match="^Invalid epsilon value: -1$"):
        optim.Adam([p], eps=-1)
    with pytest.raises(ValueError, match="^some parameters appear in more than one parameter group$"):
        optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)
    with pytest.raises(ValueError, match="^can't optimize a non-leaf Tensor$"):
        optim.SGD([p * 2], lr=0.1)
    with pytest.raises(TypeError, match="^optimizer can only optimize Tensors, but one of the params is int$"):
        optim.SGD([3], lr=0.1)
    with pytest.warns(UserWarning, match="duplicate parameters"):
        optim.SGD([p, p], lr=0.1)


@pytest.mark.task("9.1")
def test_default_learning_rates_and_repr():
    p = torch.zeros(1, requires_grad=True)
    assert optim.SGD([p]).defaults["lr"] == 1e-3
    assert repr(optim.SGD([p], lr=0.1, momentum=0.9)) == (
        "SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: False\n    foreach: None\n"
        "    fused: None\n    lr: 0.1\n    maximize: False\n    momentum: 0.9\n    nesterov: False\n"
        "    weight_decay: 0\n)")


@pytest.mark.task("9.1")
def test_state_dict_layout_matches_pytorch():
    a = torch.zeros(2, requires_grad=True)
    sgd = optim.SGD([a], lr=0.1, momentum=0.9)
    a.grad = torch.ones(2)
    sgd.step()
    sd = sgd.state_dict()
    assert list(sd) == ["state", "param_groups"]
    assert sd["state"][0]["momentum_buffer"].tolist() == [1.0, 1.0]
    assert sd["param_groups"] == [{"lr": 0.1, "momentum": 0.9, "dampening": 0, "weight_decay": 0,
                                   "nesterov": False, "maximize": False, "foreach": None,
                                   "differentiable": False, "fused": None, "params": [0]}]
    assert list(sd["param_groups"][0])[-1] == "params"
    adam = optim.Adam([a])
    adam.step()
    state = adam.state_dict()["state"][0]
    assert list(state) == ["step", "exp_avg", "exp_avg_sq"]
    assert state["step"].item() == 1.0 and state["step"].dtype == torch.float32 and state["step"].shape == ()
    assert np.allclose(state["exp_avg"].numpy(), 0.1) and np.allclose(state["exp_avg_sq"].numpy(), 0.001)


@pytest.mark.task("9.1")
def test_load_state_dict_resumes_identically():
    def model_and_opt():
        torch.manual_seed(0)
        model = nn.Linear(3, 1)
        return model, optim.Adam(model.parameters(), lr=0.05)

    x, y = torch.randn(8, 3), torch.randn(8, 1)

    def train(model, opt, steps):
        for _ in range(steps):
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()

    ref_model, ref_opt = model_and_opt()
    train(ref_model, ref_opt, 6)
    model, opt = model_and_opt()
    train(model, opt, 3)
    model2, opt2 = model_and_opt()
    model2.load_state_dict(model.state_dict())
    opt2.load_state_dict(opt.state_dict())
    train(model2, opt2, 3)
    assert model2.weight.allclose(ref_model.weight, atol=1e-7) and model2.bias.allclose(ref_model.bias, atol=1e-7)


@pytest.mark.task("9.1")
def test_load_state_dict_shares_state_tensors_and_checks_groups():
    a = torch.zeros(2, requires_grad=True)
    opt = optim.SGD([a], lr=0.1, momentum=0.9)
    a.grad = torch.ones(2)
    opt.step()
    sd = opt.state_dict()
    other = optim.SGD([a], lr=0.5, momentum=0.9)
    other.load_state_dict(sd)
    assert other.param_groups[0]["lr"] == 0.1 and other.param_groups[0]["params"][0] is a
    # As in PyTorch, state tensors of the right dtype are shared, not copied.
    assert other.state[a]["momentum_buffer"] is sd["state"][0]["momentum_buffer"]
    assert sd["state"][0]["momentum_buffer"] is opt.state[a]["momentum_buffer"]
    b = torch.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        optim.SGD([{"params": [a]}, {"params": [b]}], lr=0.1).load_state_dict(sd)
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        optim.SGD([a, b], lr=0.1).load_state_dict(sd)


# ----- a small MLP on a fixed problem ----------------------------------------------------
def make_problem():
    torch.manual_seed(0)
    x = torch.randn(128, 2)
    y = ((x[:, 0] * x[:, 1]) > 0).long()              # XOR-like quadrants: needs the hidden layer
    return x, y


@pytest.mark.parametrize("make_opt, steps", [
    (lambda params: optim.SGD(params, lr=0.2, momentum=0.9), 300),
    (lambda params: optim.Adam(params, lr=0.02), 300),
])
def test_mlp_training_drives_loss_down(make_opt, steps):
    x, y = make_problem()
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
    opt = make_opt(model.parameters())
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.25 * losses[0]
    accuracy = (model(x).argmax(1) == y).numpy().mean()
    assert accuracy > 0.9
