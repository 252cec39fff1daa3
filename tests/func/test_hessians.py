"""Hessians four ways (chapter 13): ``jacrev(jacrev(f))``, ``jacfwd(jacfwd(f))`` and
``jacrev(jacfwd(f))`` agree with ``hessian(f)`` (forward over reverse).

Two bugs lived here.  Under ``jacrev(jacrev(f))`` the inner ``vmap`` gives ``tanh``'s
backward (``TanhBackwardBackward0``) a gradient with a batch dim that the saved output
lacks, so that op broadcasts, and its own backward must sum the gradient back to each
input's shape, as every broadcasting op does.  Under ``jacfwd(jacfwd(f))`` an op
without a jvp rule gets its tangent through its backward inside ``vmap``, and the
outer tangent has to survive the batched ``detach`` there.  Expected values from
PyTorch 2.13."""

import warnings

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch.func import hessian, jacfwd, jacrev

pytestmark = pytest.mark.chapter13

d = torch.float64
W = torch.tensor([[0.5, -1.0, 0.25], [1.5, 0.5, -0.75], [0.0, 2.0, 1.0]], dtype=d)
x = torch.tensor([0.3, -0.2, 0.7], dtype=d)

# jacrev(jacrev(f))(x) in PyTorch 2.13
EXPECTED = {
    "tanh": [[0.5712217833656412, 0.6219375623198199, -0.4705524493390804],
             [0.6219375623198199, -2.7884755944284225, -1.0074494222502988],
             [-0.4705524493390804, -1.007449422250299, -0.39037643236004393]],
    "sigmoid": [[0.03373640339711538, 0.04620616905788097, -0.031851359380918765],
                [0.04620616905788097, -0.20010408198736307, -0.06592913707537086],
                [-0.031851359380918765, -0.06592913707537086, -0.027962083106297417]],
}

FUNCTIONS = {
    "tanh": lambda v: (W @ v).tanh().sum(),
    "sigmoid": lambda v: (W @ v).sigmoid().sum(),
    "relu": lambda v: (W @ v).relu().pow(2).sum(),
    "softmax": lambda v: (W @ v).softmax(0)[0],
    "gelu": lambda v: F.gelu(W @ v).sum(),
    "softplus": lambda v: F.softplus(W @ v).sum(),
    "quadratic form": lambda v: v @ W @ v,
    "norm": lambda v: (W @ v).norm(),
    "prod of sin": lambda v: (W @ v).sin().prod(),
    "logsumexp": lambda v: (W @ v).logsumexp(0),
    "cross_entropy": lambda v: F.cross_entropy((W @ v).unsqueeze(0), torch.tensor([2])),
    "layer_norm": lambda v: F.layer_norm(W @ v, (3,)).pow(3).sum(),
    "mse_loss": lambda v: F.mse_loss(W @ v, torch.ones(3, dtype=d)),
    "outer product": lambda v: (v.unsqueeze(1) @ v.unsqueeze(0)).tanh().sum(),
}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_jacrev_of_jacrev_is_pytorchs_hessian(name):
    np.testing.assert_allclose(jacrev(jacrev(FUNCTIONS[name]))(x).numpy(), EXPECTED[name],
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("compose", [
    lambda f: jacrev(jacrev(f)), lambda f: jacfwd(jacfwd(f)), lambda f: jacrev(jacfwd(f))],
    ids=["jacrev(jacrev)", "jacfwd(jacfwd)", "jacrev(jacfwd)"])
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_every_composition_agrees_with_hessian(name, compose):
    f = FUNCTIONS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # and no op falls back to a loop
        result = compose(f)(x)
    np.testing.assert_allclose(result.numpy(), hessian(f)(x).numpy(), rtol=1e-9,
                               atol=1e-12)


# The first row of jacrev(jacrev(jacrev(f)))(x), third derivatives, in PyTorch 2.13:
# the derivative ops of tanh and sigmoid (TanhBackwardBackward0...) must themselves be
# differentiable in the saved output, as PyTorch's are.
THIRD = {
    "tanh": [[-6.016395918045289, -1.8691062551544428, 2.94975836579665],
             [-1.8691062551544426, -0.8957535201061205, 1.0514323140292097],
             [2.94975836579665, 1.05143231402921, -1.5040989795113222]],
    "sigmoid": [[-0.42080623726533184, -0.11294060058633221, 0.1986910564174752],
                [-0.11294060058633218, -0.09230315719966754, 0.07989442472354759],
                [0.1986910564174752, 0.0798944247235476, -0.10520155931633296]],
}


@pytest.mark.parametrize("compose", [
    lambda f: jacrev(jacrev(jacrev(f))), lambda f: jacfwd(jacrev(jacrev(f)))],
    ids=["jacrev(jacrev(jacrev))", "jacfwd(jacrev(jacrev))"])
@pytest.mark.parametrize("name", list(THIRD))
def test_third_derivatives_are_pytorchs(name, compose):
    np.testing.assert_allclose(compose(FUNCTIONS[name])(x)[0].numpy(), THIRD[name],
                               rtol=1e-10, atol=1e-12)


def test_forward_over_reverse_over_forward_is_pytorchs():
    # jacfwd(jacrev(jacfwd(f)))(x)[0] in PyTorch 2.13: a tangent that is not laid out as
    # its primal goes through view (it raised "view size is not compatible" here).
    def f(v):
        return (W @ v).exp().sum()
    expected = [[3.0444748011434615, 0.5217744362705856, -1.3109300445243444],
                [0.5217744362705856, 1.1600258069779983, -0.6835019302300656],
                [-1.3109300445243444, -0.6835019302300656, 0.7611187002858654]]
    np.testing.assert_allclose(jacfwd(jacrev(jacfwd(f)))(x)[0].numpy(), expected,
                               rtol=1e-10, atol=1e-12)
