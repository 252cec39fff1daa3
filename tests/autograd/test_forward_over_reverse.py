"""Forward over reverse (chapter 12): inside ``forward_ad.dual_level()``, the gradient of
a function of a dual tensor carries a tangent, the Hessian-vector product ``H @ v``.
Every backward runs with forward mode watching, also the ops whose backward has a
faster path on numpy arrays (which would carry no tangent).  Expected values from
PyTorch 2.13 on the same calls."""

import numpy as np
import pytest

import minitorch as torch
import minitorch.autograd.forward_ad as fwAD
import minitorch.nn.functional as F
from minitorch.func import hessian

pytestmark = pytest.mark.chapter12

d = torch.float64
x0 = torch.tensor([1.0, 2.0, 3.0], dtype=d)
v = torch.tensor([1.0, 0.5, -1.0], dtype=d)
W = torch.tensor([[1.0, 2, 0], [0, 1, -1], [2, 0, 1]], dtype=d) / 3

FUNCTIONS = {
    "tanh": lambda z: (W @ z).tanh().sum(),
    "prod": lambda z: z.prod(),
    "gelu": lambda z: F.gelu(W @ z).sum(),
    "ce": lambda z: F.cross_entropy(z.unsqueeze(0), torch.tensor([1])),
    "layer_norm": lambda z: F.layer_norm(W @ z, (3,)).pow(3).sum(),
    "softmax": lambda z: z.softmax(0)[0],
    "relu": lambda z: (W @ z - 1).relu().pow(2).sum(),
    "cumsum": lambda z: z.cumsum(0).exp().sum(),
}

# (name, gradient, its tangent) from PyTorch 2.13
EXPECTED = [
    ("tanh", [0.13303489664691043, 0.3875664509662451, -0.2545315543193346],
     [-0.11010672938314345, -0.014014121296356851, -0.12361929043257247]),
    ("prod", [6.0, 3.0, 2.0], [-0.5, 2.0, 2.5]),
    ("gelu", [1.1180048790484332, 0.8265522296825439, 0.2914526493658891],
     [-0.03438715908885139, 0.08441867185153533, -0.12740262071259958]),
    ("ce", [0.09003057317038043, -0.7552715289452023, 0.6652409557748218],
     [0.13080057134972498, 0.23318858072461948, -0.3639891520743444]),
    ("layer_norm", [-1.7898137009061174e-05, 6.280330457548372e-16, -1.7898137009689205e-05],
     [-0.39773936101025203, 0.7954787220205042, -0.3977393610102522]),
    ("softmax", [0.08192506906499322, -0.02203304452017429, -0.059892024544818914],
     [0.10724847053046703, -0.05300472541893718, -0.05424374511152982]),
    ("relu", [1.333333333333333, 0.8888888888888886, 0.4444444444444443],
     [0.8888888888888888, 0.8888888888888888, 0.2222222222222222]),
    ("cumsum", [426.2326122443818, 423.51433041592276, 403.4287934927351],
     [234.5609839596081, 231.84270213114905, 201.71439674636756]),
]


def _gradient_of_dual(f, **grad_kwargs):
    x = x0.clone().requires_grad_()
    with fwAD.dual_level():
        xd = fwAD.make_dual(x, v)
        g, = torch.autograd.grad(f(xd), xd, **grad_kwargs)
        return fwAD.unpack_dual(g)


@pytest.mark.parametrize("name, gradient, tangent", EXPECTED, ids=[e[0] for e in EXPECTED])
def test_the_gradient_of_a_dual_tensor_carries_the_hessian_vector_product(
        name, gradient, tangent):
    primal, t = _gradient_of_dual(FUNCTIONS[name])
    np.testing.assert_allclose(primal.detach().numpy(), gradient, rtol=1e-10, atol=1e-12)
    assert t is not None
    np.testing.assert_allclose(t.numpy(), tangent, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_the_tangent_is_hessian_times_v(name):
    f = FUNCTIONS[name]
    _, t = _gradient_of_dual(f, create_graph=True)
    np.testing.assert_allclose(t.detach().numpy(), (hessian(f)(x0) @ v).numpy(),
                               rtol=1e-9, atol=1e-12)


def test_a_plain_gradient_needs_no_graph_and_the_tangent_needs_none_either():
    # PyTorch 2.13: g.requires_grad False, g.grad_fn None, the tangent has no graph
    primal, t = _gradient_of_dual(FUNCTIONS["tanh"])
    assert not primal.requires_grad and primal.grad_fn is None
    assert not t.requires_grad


def test_backward_into_the_leaf_keeps_the_tangents_pytorch_keeps():
    # PyTorch 2.13: the engine's own first gradient becomes x.grad detached (no tangent);
    # the next backward adds in place, which gives x.grad the new gradient's tangent; under
    # create_graph=True the first gradient is copied, and the copy keeps its tangent.
    square = lambda z: (z * z).sum()          # noqa: E731
    x = x0.clone().requires_grad_()
    with fwAD.dual_level():
        xd = fwAD.make_dual(x, v)
        square(xd).backward(retain_graph=True)
        assert fwAD.unpack_dual(x.grad).tangent is None
        square(xd).backward()
        assert fwAD.unpack_dual(x.grad).tangent.tolist() == [2.0, 1.0, -2.0]
        x.grad = None
        square(xd).backward(create_graph=True)
        assert fwAD.unpack_dual(x.grad).tangent.tolist() == [2.0, 1.0, -2.0]
    assert x.grad.tolist() == [2.0, 4.0, 6.0]


def test_a_gradient_a_hook_holds_is_copied_with_its_tangent():
    # PyTorch 2.13: x.grad is then a copy, and it keeps the tangent
    x = x0.clone().requires_grad_()
    kept = []
    x.register_hook(kept.append)
    with fwAD.dual_level():
        (fwAD.make_dual(x, v) ** 2).sum().backward()
        assert x.grad is not kept[0]
        assert fwAD.unpack_dual(x.grad).tangent.tolist() == [2.0, 1.0, -2.0]


def test_a_dual_tensor_prints_its_tangent():
    # PyTorch 2.13's reprs of the same tensors
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, torch.ones(2))
        assert repr(dual) == "tensor([1., 2.], grad_fn=<ViewBackward0>, tangent=tensor([1., 1.]))"
        assert repr(fwAD.make_dual(torch.tensor(3.0), torch.tensor(1.0))) == \
            "tensor(3., tangent=1.0)"
        square = fwAD.make_dual(torch.zeros(2, 2), torch.ones(2, 2))
        assert repr(square) == ("tensor([[0., 0.],\n        [0., 0.]], tangent=tensor([[1., 1.],"
                                "\n        [1., 1.]]))")
    assert repr(dual) == "tensor([1., 2.], grad_fn=<ViewBackward0>)"
