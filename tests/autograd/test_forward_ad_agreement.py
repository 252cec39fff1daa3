"""Forward mode, reverse mode and finite differences agree, op by op, in float64.

For every entry of the op catalogue (tests/strategies.py), with hypothesis-drawn
inputs and tangents: the tangent forward mode computes equals the central finite
difference along the tangent, and ``<u, J t>`` (forward) equals ``<J^T u, t>``
(reverse) for a drawn ``u``.  A second test checks that the catalogue reaches
ops through both the written jvp rules and the fallback through backward.
"""

import numpy as np
import pytest
from hypothesis import given, settings, HealthCheck, strategies as st

import minitorch
import minitorch.autograd.forward_ad as fwAD
from minitorch.autograd import forward_rules

from tests.strategies import op_catalogue, op_inputs, arrays, NEEDS_DISTINCT

pytestmark = pytest.mark.chapter12

CATALOGUE = op_catalogue()
STEP = 1e-6


def _tensors(arrays_):
    return [minitorch.tensor(a, dtype=minitorch.float64) for a in arrays_]


def _forward_tangent(fn, xs, ts):
    with fwAD.dual_level():
        out = fn(*[fwAD.make_dual(x, t) for x, t in zip(xs, ts)])
        primal, tangent = fwAD.unpack_dual(out)
    return primal, tangent


def _finite_difference(fn, xs, ts):
    plus = fn(*[x + STEP * t for x, t in zip(xs, ts)])
    minus = fn(*[x - STEP * t for x, t in zip(xs, ts)])
    return (plus.double() - minus.double()) / (2 * STEP)


@pytest.mark.parametrize("name", sorted(CATALOGUE))
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_forward_reverse_and_finite_differences_agree(name, data):
    fn, specs = CATALOGUE[name]
    values = data.draw(op_inputs(specs, distinct=name in NEEDS_DISTINCT))
    directions = [data.draw(arrays(v.shape, -1.0, 1.0)) for v in values]
    xs, ts = _tensors(values), _tensors(directions)
    primal, tangent = _forward_tangent(fn, xs, ts)
    expected_primal = fn(*xs)
    np.testing.assert_allclose(primal.numpy(), expected_primal.numpy(), rtol=1e-12)
    if tangent is None:                 # no tangent: the op is piecewise constant here
        tangent = minitorch.zeros_like(primal)
    fd = _finite_difference(fn, xs, ts)
    np.testing.assert_allclose(tangent.numpy(), fd.numpy(), rtol=1e-5, atol=1e-6)

    leaves = [x.clone().requires_grad_() for x in xs]
    out = fn(*leaves)
    if not out.requires_grad:
        assert not np.any(tangent.numpy())
        return
    u = minitorch.tensor(data.draw(arrays(tuple(out.shape), -1.0, 1.0)),
                         dtype=minitorch.float64)
    grads = minitorch.autograd.grad(out, leaves, u, allow_unused=True)
    reverse = sum(float((g * t).sum()) for g, t in zip(grads, ts) if g is not None)
    forward = float((u * tangent).sum())
    assert forward == pytest.approx(reverse, rel=1e-8, abs=1e-9)


def _classes_reached(fn, values):
    reached = set()
    original = forward_rules.rule_for

    def recording(cls):
        reached.add(cls)
        return original(cls)
    forward_rules.rule_for = recording
    try:
        _forward_tangent(fn, _tensors(values), _tensors([np.ones_like(v) for v in values]))
    finally:
        forward_rules.rule_for = original
    return reached


def test_the_catalogue_reaches_written_rules_and_the_fallback():
    reached = set()
    for name, (fn, specs) in CATALOGUE.items():
        values = [np.linspace(0.3, 0.9, int(np.prod(s[0])) or 1).reshape(s[0])
                  for s in specs]
        reached |= _classes_reached(fn, values)
    kinds = forward_rules.coverage()
    written = {c for c in reached if kinds.get(c) == "table"}
    derived = {c for c in reached if kinds.get(c) == "through backward"}
    assert len(written) > 60
    assert derived          # losses, norms, pooling...: derived through their backward
