"""Misuse of optimizers: constructor arguments, param groups, step, zero_grad and
state dicts (chapter 9).  PyTorch 2.13's exception types and wording; see tests/misuse.py."""

import pytest

import minitorch as torch
from tests.misuse import Row, check, namespace, params

pytestmark = pytest.mark.chapter9

P = "w = torch.tensor([1., -2.], requires_grad=True)\nb = torch.tensor([0.5], requires_grad=True)\n"

ROWS = [
    Row(P + "torch.optim.SGD([w, b], lr=-0.1)", ValueError, "Invalid learning rate: -0.1"),
    Row(P + "torch.optim.SGD([w, b], lr=0.1, momentum=-1)", ValueError,
        "Invalid momentum value: -1"),
    Row(P + "torch.optim.SGD([w, b], lr=0.1, weight_decay=-1)", ValueError,
        "Invalid weight_decay value: -1"),
    Row(P + "torch.optim.SGD([w, b], lr=0.1, nesterov=True)", ValueError,
        "Nesterov momentum requires a momentum and zero dampening"),
    Row(P + "torch.optim.SGD([w, b], lr=0.1, momentum=0.9, dampening=0.5, nesterov=True)", ValueError,
        "Nesterov momentum requires a momentum and zero dampening"),
    Row(P + "torch.optim.SGD([], lr=0.1)", ValueError, "optimizer got an empty parameter list"),
    Row(P + "torch.optim.SGD(w, lr=0.1)", TypeError,
        "params argument given to the optimizer should be an iterable of Tensors or dicts, but got (mini)?torch.FloatTensor"),
    Row(P + "torch.optim.SGD([{'params': [w]}, {'params': [w]}], lr=0.1)", ValueError,
        "some parameters appear in more than one parameter group"),
    Row(P + "torch.optim.SGD([w * 2], lr=0.1)", ValueError, "can't optimize a non-leaf Tensor"),
    Row(P + "torch.optim.SGD([1.0], lr=0.1)", TypeError,
        "optimizer can only optimize Tensors, but one of the params is float"),
    Row(P + "torch.optim.SGD([w, {'params': [b]}], lr=0.1)", TypeError,
        "optimizer can only optimize Tensors, but one of the params is dict"),
    Row(P + "torch.optim.SGD([w], lr=0.1, bogus=1)", TypeError,
        "unexpected keyword argument 'bogus'"),
    Row(P + "torch.optim.SGD([{'lr': 0.1}], lr=0.1)", KeyError, "params", plain=False),
    Row(P + "torch.optim.Adam([w], lr=-1)", ValueError, "Invalid learning rate: -1"),
    Row(P + "torch.optim.Adam([w], betas=(1.5, 0.9))", ValueError,
        "Invalid beta parameter at index 0: 1.5"),
    Row(P + "torch.optim.Adam([w], betas=(0.9, 1.0))", ValueError,
        "Invalid beta parameter at index 1: 1.0"),
    Row(P + "torch.optim.Adam([w], betas=(-0.1, 0.9))", ValueError,
        "Invalid beta parameter at index 0: -0.1"),
    Row(P + "torch.optim.Adam([w], eps=-1)", ValueError, "Invalid epsilon value: -1"),
    Row(P + "torch.optim.Adam([w], weight_decay=-0.1)", ValueError,
        "Invalid weight_decay value: -0.1"),
    Row(P + "torch.optim.Adam([])", ValueError, "optimizer got an empty parameter list"),
    Row(P + "torch.optim.Adam(w)", TypeError,
        "params argument given to the optimizer should be an iterable of Tensors or dicts"),
    Row(P + "torch.optim.Adam([w], bogus=3)", TypeError, "unexpected keyword argument 'bogus'"),
    Row(P + "opt = torch.optim.SGD([w], lr=0.1)\nopt.add_param_group({'params': [w]})", ValueError,
        "some parameters appear in more than one parameter group"),
    Row(P + "opt = torch.optim.SGD([w], lr=0.1)\nopt.add_param_group([b])", TypeError,
        "param_group must be a dict, but got <class 'list'>"),
    Row(P + "opt = torch.optim.SGD([w], lr=0.1)\nopt.add_param_group({'lr': 0.1})", KeyError,
        "params", plain=False),
    Row(P + "opt = torch.optim.SGD([w, b], lr=0.1)\nopt.load_state_dict({'state': {}, 'param_groups': []})", ValueError,
        "loaded state dict has a different number of parameter groups"),
    Row(P + "opt = torch.optim.SGD([w, b], lr=0.1)\nopt.load_state_dict({})", KeyError,
        "param_groups", plain=False),
    Row(P + "opt = torch.optim.SGD([w, b], lr=0.1)\nsd = opt.state_dict()\nsd['param_groups'][0]['params'] = [0]\n"
        "opt.load_state_dict(sd)", ValueError,
        "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"),
    Row(P + "opt = torch.optim.SGD([w, b], lr=0.1)\nopt.step(5)", TypeError,
        "'int' object is not callable", plain=False),
    Row(P + "opt = torch.optim.SGD([w, b], lr=0.1)\nw.grad = torch.ones(3)", RuntimeError,
        r"assign a gradient of size '\[3\]' to a tensor of size '\[2\]'"),
    Row(P + "torch.optim.Optimizer([w], {}).step()", NotImplementedError, plain=False),
]
NAMES = namespace()


@pytest.mark.parametrize("row", params(ROWS))
def test_misuse(row):
    check(row, NAMES)
