"""``Optimizer.state_dict`` with an entry of ``state`` keyed by a tensor that is not one of
the optimizer's parameters: PyTorch 2.13 raises a KeyError (naming the tensor's ``id``),
since the state dict names entries by their parameter's number.  Reading ``state[t]``
makes such an entry (``state`` is a defaultdict), as in PyTorch.  Checked against PyTorch
2.13."""

import pytest

import minitorch as torch
from minitorch import optim

pytestmark = pytest.mark.chapter9


def sgd():
    p = torch.nn.Parameter(torch.ones(2))
    return p, optim.SGD([p], lr=0.1, momentum=0.9)


@pytest.mark.parametrize("make", [lambda p: optim.SGD([p], lr=0.1, momentum=0.9),
                                  lambda p: optim.Adam([p])])
def test_state_dict_refuses_a_tensor_that_is_no_parameter(make):
    p = torch.nn.Parameter(torch.ones(2))
    opt = make(p)
    other = torch.ones(2)
    opt.state[other]["step"] = 3
    with pytest.raises(KeyError, match=f"^['\"]{id(other)}: optimizer.state has an entry for a "
                                       "tensor of shape \\[2\\] that is none of the optimizer"):
        opt.state_dict()
    del opt.state[other]
    assert opt.state_dict()["state"] == {}


def test_a_parameter_of_a_model_not_handed_over_is_such_a_tensor():
    model = torch.nn.Linear(2, 2)
    opt = optim.SGD([model.weight], lr=0.1)
    for p in model.parameters():
        opt.state[p]                                   # bias: an entry, and no number
    with pytest.raises(KeyError):
        opt.state_dict()

