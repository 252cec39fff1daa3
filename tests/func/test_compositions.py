"""Compositions of transforms against PyTorch 2.13: vmap over jacobians, jvps and
vjps, Hessians per example, grad of a closure over an outer grad's input, jacrev of
jacrev.  Expected values from PyTorch 2.13 (torch.func) on the same calls."""

import numpy as np
import pytest

import minitorch as torch
from minitorch.func import vmap, grad, jacrev, jacfwd, jvp, vjp, hessian

pytestmark = pytest.mark.chapter13

d = torch.float64
xs = torch.tensor([[0.5, -1.0, 2.0], [0.1, 0.2, 0.3]], dtype=d)
vs = torch.tensor([[1.0, 0.0, 2.0], [0.5, -0.5, 1.0]], dtype=d)


def f(a):
    return (a.sin() * a.sum()).exp()


def close(actual, expected):
    np.testing.assert_allclose(actual.detach().numpy(), np.asarray(expected), rtol=1e-10,
                               atol=1e-12)


def test_vmap_of_jacrev_and_of_jacfwd():
    expected = (
        [[4.426024065011141, 1.0900955679286828, 1.0900955679286828],
         [-0.014340281835054675, 0.877525469791216, -0.014340281835054675],
         [3.909658767996519, 3.909658767996519, 2.1523648800975863]]
    )
    close(vmap(jacrev(f))(xs).sum(0), expected)
    close(vmap(jacfwd(f))(xs).sum(0), expected)


@pytest.mark.task("13.3")
def test_vmap_of_jvp_and_of_vjp():
    close(vmap(lambda p, t: jvp(f, (p,), (t,))[1])(xs, vs), (
        [[5.654370959385879, -0.7144816710232624, 5.787021479575116],
         [0.42292403298450437, -0.10742174934432132, 1.0372574124188823]]
    ))
    close(vmap(lambda p, c: vjp(f, p)[1](c)[0])(xs, vs), (
        [[10.799785262991168, 8.09771248085048, 3.214314327772472],
         [0.6108680314201559, -0.03730185056775026, 0.9783453625893422]]
    ))


@pytest.mark.task("13.3")
def test_vmap_of_a_vjp_fn_made_outside():
    out, fn = vjp(f, xs[0])
    close(vmap(fn)(vs)[0], (
        [[10.799785262991168, 8.09771248085048, 3.214314327772472],
         [5.518972909999461, 4.053245667633003, 1.7262374423901132]]
    ))


def test_a_hessian_per_example():
    close(vmap(hessian(lambda a: (a.tanh() ** 2).sum()))(xs)[1], (
        [[1.9211223982446843, 0.0, 0.0], [0.0, 1.6974497587860022, 0.0],
         [0.0, 0.0, 1.3643061061011235]]
    ))


def test_grad_of_a_closure_over_the_outer_input():
    inner = lambda x: grad(lambda y: (x * y.sin()).sum())(x).sum()     # noqa: E731
    close(grad(inner)(xs[0]), (
        [0.6378697925882713, -0.30116867893975674, -2.234741690198506]
    ))


@pytest.mark.task("13.3")
def test_jacrev_of_jacrev():
    close(jacrev(jacrev(lambda a: (a ** 3).sum()))(xs[0]), (
        [[3.0, -0.0, 0.0], [0.0, -6.0, 0.0], [0.0, -0.0, 12.0]]
    ))
