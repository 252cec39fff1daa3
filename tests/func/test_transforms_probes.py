"""minitorch.func's transforms against PyTorch 2.13, on the same calls.

Expected values from PyTorch 2.13 (torch.func), computed once in float64 and
written in as literals.
"""

import numpy as np
import pytest

import minitorch as torch
import minitorch.autograd.forward_ad as fwAD
from minitorch.func import (grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, vmap,
                            functional_call, stack_module_state)

pytestmark = pytest.mark.chapter13

d = torch.float64
x = torch.tensor([0.5, -1.0, 2.0], dtype=d)
y = torch.tensor([1.5, 0.25, -0.75], dtype=d)
v = torch.tensor([1.0, 2.0, -1.0], dtype=d)


def close(actual, expected):
    if isinstance(actual, (tuple, list)):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            close(a, e)
        return
    np.testing.assert_allclose(actual.detach().numpy(), np.asarray(expected), rtol=1e-10,
                               atol=1e-12)


def test_grad():
    f = lambda a: (a.sin() * a).sum()      # noqa: E731
    close(grad(f)(x), [0.9182168195493894, -1.3817732906760363, 0.0770037537313969])


def test_grad_and_value_with_argnums_and_aux():
    g = lambda a, b: ((a * b.exp()).sum(), a.cos())     # noqa: E731
    grads, (value, aux) = grad_and_value(g, argnums=(0, 1), has_aux=True)(x, y)
    expected = (
        [[4.4816890703380645, 1.2840254166877414, 0.4723665527410147],
         [2.2408445351690323, -1.2840254166877414, 0.9447331054820294]]
    )
    close(grads, expected)
    assert value.item() == pytest.approx(1.9015522239633202, rel=1e-12)
    close(aux, x.cos().numpy())


def test_vjp():
    out, fn = vjp(lambda a, b: a * b.tanh(), x, y)
    expected = (
        [[0.9051482536448664, 0.48983732480741826, 0.6351489523872873],
         [0.0903533194618243, -1.880029697612756, -1.193171616562663]]
    )
    close(fn(v), expected)


def test_jvp():
    expected = (
        [[0.2562950898507828, 0.057187164443661384, 1.1486349029655656],
         [0.4736758106697472, 0.1628785239368394, -0.17440210236900278]]
    )
    close(jvp(lambda a: a.exp() / a.cosh().sum(), (x,), (v,)), expected)


def h(a, b):
    return torch.stack([a * b, a.sin() + b ** 2]).sum(0)


def test_jacrev_with_two_argnums():
    expected = (
        [[[2.3775825618903728, 0.0, -0.0], [0.0, 0.7903023058681398, -0.0],
          [0.0, 0.0, -1.1661468365471424]],
         [[3.5, 0.0, 0.0], [0.0, -0.5, 0.0], [0.0, 0.0, 0.5]]]
    )
    close(jacrev(h, argnums=(0, 1))(x, y), expected)


def test_jacfwd():
    close(jacfwd(h, argnums=1)(x, y), [[3.5, 0.0, 0.0], [0.0, -0.5, 0.0], [0.0, 0.0, 0.5]])


def s(a):
    return (a ** 3 * a.sum()).sum() + a.softmax(0)[0]


def test_hessian():
    result = hessian(s)(x)
    expected = (
        [[6.0938824255588955, 3.7455475439918415, 12.660570030449263],
         [3.7455475439918415, -3.006319742140524, 15.010772198148683],
         [12.660570030449263, 15.010772198148683, 42.07865777140206]]
    )
    close(result, expected)
    assert not result.requires_grad


def test_forward_over_reverse_hessian_vector_product():
    expected = (
        [0.924407483093316, -17.27786413843789, 0.6034566553445737]
    )
    close(jvp(grad(s), (x,), (v,))[1], expected)


def test_jacfwd_of_jacrev():
    expected = (
        [[[0.4826024938564739, 0.7864477329659274, 0.7864477329659274],
          [0.7864477329659274, 0.0, 0.0], [0.7864477329659274, 0.0, 0.0]],
         [[0.0, 0.41997434161402614, 0.0],
          [0.41997434161402614, 1.7994986959018893, 0.41997434161402614],
          [0.0, 0.41997434161402614, 0.0]],
         [[0.0, 0.0, 0.07065082485316443], [0.0, 0.0, 0.07065082485316443],
          [0.07065082485316443, 0.07065082485316443, -0.06302638143434061]]]
    )
    close(jacfwd(jacrev(lambda a: a.tanh() * a.sum()))(x), expected)


def test_jvp_of_jvp_and_grad_of_grad():
    inner = lambda a: jvp(lambda b: (b ** 3).sum(), (a,), (v,))[1]    # noqa: E731
    assert jvp(inner, (x,), (y,))[1].item() == pytest.approx(10.5)
    second = grad(grad(lambda a: a.sin() * a ** 2))(torch.tensor(0.7, dtype=d))
    assert second.item() == pytest.approx(3.114326832125481, rel=1e-12)


W = torch.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]], dtype=d)
X = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0], [0.2, 0.1, -0.3], [2.0, -2.0, 1.0]],
                 dtype=d)
Y = torch.tensor([0, 1, 1, 0])


def test_per_sample_gradients_through_cross_entropy():
    def loss(w, xb, yb):
        return torch.nn.functional.cross_entropy((xb @ w.T).unsqueeze(0), yb.unsqueeze(0))
    expected = (
        [[[-0.2689414213699951, -0.5378828427399902, -0.8068242641099853],
          [0.26894142136999516, 0.5378828427399903, 0.8068242641099854]],
         [[-0.48750260351578967, 0.24375130175789483, 0.0],
          [0.48750260351578967, -0.24375130175789483, 0.0]],
         [[0.08026246797750962, 0.04013123398875481, -0.12039370196626441],
          [-0.08026246797750958, -0.04013123398875479, 0.12039370196626437]],
         [[-0.3089305301670695, 0.3089305301670695, -0.15446526508353475],
          [0.3089305301670694, -0.3089305301670694, 0.1544652650835347]]]
    )
    close(vmap(grad(loss), in_dims=(None, 0, 0))(W, X, Y), expected)


def test_functional_call_swaps_parameters_for_one_call():
    m = torch.nn.Linear(3, 2).double()
    with torch.no_grad():
        m.weight.copy_(W)
        m.bias.copy_(torch.tensor([0.5, -0.5], dtype=d))
    expected = (
        [[1.6999999999999997, -1.2999999999999998], [0.09999999999999998, -0.8],
         [0.32, 0.12], [2.3000000000000003, -2.0999999999999996]]
    )
    close(functional_call(m, {"weight": W * 2}, (X,)), expected)
    close(m.weight, W.numpy())              # the module's own parameter is back
