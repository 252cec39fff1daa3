"""nn.utils: gradient clipping and parameter vectors against PyTorch 2.13 (chapter 10).

Expected norms and clipped gradients were printed by PyTorch 2.13 for the
same gradients.
"""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

import minitorch as torch
import minitorch.nn as nn
from minitorch.nn.utils import (clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm,
                                parameters_to_vector, vector_to_parameters)
from tests.strategies import arrays, shapes

pytestmark = pytest.mark.chapter10


def two_params():
    a, b = nn.Parameter(torch.zeros(2, 3)), nn.Parameter(torch.zeros(4))
    a.grad = torch.tensor([[1.0, -2.0, 3.0], [0.5, -0.25, 4.0]])
    b.grad = torch.tensor([-1.0, 2.0, -3.0, 0.125])
    return [a, b]


def grads(params):
    return [p.grad.tolist() for p in params]


# (norm_type, total norm, gradients after clip_grad_norm_(params, 1.5, norm_type)) from PyTorch 2.13.
CLIPPED = [
    (2.0, 6.657937049865723,
     [[[0.22529497742652893, -0.45058995485305786, 0.6758849620819092],
       [0.11264748871326447, -0.05632374435663223, 0.9011799097061157]],
      [-0.22529497742652893, 0.45058995485305786, -0.6758849620819092, 0.028161872178316116]]),
    (1, 16.875,
     [[[0.08888887614011765, -0.1777777522802353, 0.26666662096977234],
       [0.04444443807005882, -0.02222221903502941, 0.3555555045604706]],
      [-0.08888887614011765, 0.1777777522802353, -0.26666662096977234, 0.011111109517514706]]),
    (0.5, 140.49810791015625,
     [[[0.010676300153136253, -0.021352600306272507, 0.03202889859676361],
       [0.005338150076568127, -0.0026690750382840633, 0.04270520061254501]],
      [-0.010676300153136253, 0.021352600306272507, -0.03202889859676361, 0.0013345375191420317]]),
    (math.inf, 4.0,
     [[[0.37499991059303284, -0.7499998211860657, 1.124999761581421],
       [0.18749995529651642, -0.09374997764825821, 1.4999996423721313]],
      [-0.37499991059303284, 0.7499998211860657, -1.124999761581421, 0.046874988824129105]]),
    ("inf", 4.0,
     [[[0.37499991059303284, -0.7499998211860657, 1.124999761581421],
       [0.18749995529651642, -0.09374997764825821, 1.4999996423721313]],
      [-0.37499991059303284, 0.7499998211860657, -1.124999761581421, 0.046874988824129105]]),
    (0, 2.0,
     [[[0.7499996423721313, -1.4999992847442627, 2.2499990463256836],
       [0.3749998211860657, -0.18749991059303284, 2.9999985694885254]],
      [-0.7499996423721313, 1.4999992847442627, -2.2499990463256836, 0.09374995529651642]]),
    (-math.inf, 0.125, [[[1.0, -2.0, 3.0], [0.5, -0.25, 4.0]], [-1.0, 2.0, -3.0, 0.125]]),
    (3, 5.144360065460205,
     [[[0.291581392288208, -0.583162784576416, 0.874744176864624],
       [0.145790696144104, -0.072895348072052, 1.166325569152832]],
      [-0.291581392288208, 0.583162784576416, -0.874744176864624, 0.036447674036026]]),
]


@pytest.mark.parametrize("norm_type, total, clipped", CLIPPED, ids=[str(c[0]) for c in CLIPPED])
def test_clip_grad_norm_matches_pytorch(norm_type, total, clipped):
    params = two_params()
    norm = clip_grad_norm_(params, 1.5, norm_type=norm_type)
    assert norm.shape == () and norm.dtype == torch.float32 and not norm.requires_grad
    assert norm.item() == pytest.approx(total, rel=1e-6)
    for got, expected in zip(grads(params), clipped):
        assert np.allclose(got, expected, rtol=1e-6, atol=0)


def test_grads_below_the_limit_are_unchanged_and_the_grad_objects_kept():
    params = two_params()
    before, objects = grads(params), [p.grad for p in params]
    assert clip_grad_norm_(params, 100.0).item() == pytest.approx(6.657937049865723, rel=1e-6)
    assert grads(params) == before and all(p.grad is g for p, g in zip(params, objects))


def test_clip_grad_norm_edge_cases():
    assert clip_grad_norm_([nn.Parameter(torch.zeros(1))], 1.0).tolist() == 0.0        # no grads
    assert clip_grad_norm_([], 1.0).dtype == torch.float32
    single = two_params()[0]
    assert clip_grad_norm_(single, 1.0).item() == pytest.approx(5.505678653717041, rel=1e-6)
    assert clip_grad_norm_(two_params(), torch.tensor(1.0)).item() == pytest.approx(6.657937049865723, rel=1e-6)
    nan_grads = two_params()
    nan_grads[0].grad[0, 0] = float("nan")
    assert math.isnan(clip_grad_norm_(nan_grads, 1.0).item())
    assert all(np.isnan(g).all() for g in (np.array(x) for x in grads(nan_grads)))


def test_non_finite_norm_can_raise():
    params = two_params()
    params[0].grad[0, 0] = float("inf")
    with pytest.raises(RuntimeError, match="^The total norm of order 2.0 for gradients from `parameters` is "
                                           "non-finite, so it cannot be clipped. To disable this error and "
                                           "scale the gradients by the non-finite norm anyway, set "
                                           "`error_if_nonfinite=False`$"):
        clip_grad_norm_(params, 1.0, error_if_nonfinite=True)


def test_float64_gradients_stay_float64():
    p = nn.Parameter(torch.zeros(2, dtype=torch.float64))
    p.grad = torch.from_numpy(np.array([3.0, 4.0]))
    assert clip_grad_norm_([p], 1.0).item() == 5.0
    assert p.grad.dtype == torch.float64 and np.allclose(p.grad.numpy(), [0.6, 0.8], rtol=1e-6)


def test_get_total_norm_and_clip_grads_with_norm():
    assert get_total_norm([torch.tensor([3.0, 4.0]), torch.tensor([12.0])]).item() == 13.0
    params = two_params()
    clip_grads_with_norm_(params, 1.0, torch.tensor(2.0))
    assert np.allclose(grads(params)[1], [-0.4999997615814209, 0.9999995231628418, -1.4999992847442627,
                                          0.06249997019767761], rtol=1e-7)


def test_clipping_is_not_recorded():
    params = two_params()
    for p in params:
        p.grad.requires_grad_()
    clip_grad_norm_(params, 1.0)
    assert all(p.grad.grad_fn is None for p in params)


@given(shape=shapes(min_dims=1, max_dims=3), max_norm=st.floats(0.01, 10), data=st.data())
def test_clipped_norm_is_at_most_max_norm(shape, max_norm, data):
    values = data.draw(arrays(shape, low=-100, high=100))
    p = nn.Parameter(torch.zeros(*shape, dtype=torch.float64))
    p.grad = torch.from_numpy(values.copy())
    total = clip_grad_norm_([p], max_norm).item()
    assert total == pytest.approx(np.linalg.norm(values), rel=1e-12, abs=1e-12)
    after = np.linalg.norm(p.grad.numpy())
    assert after <= max_norm * (1 + 1e-9)
    if total > max_norm:
        assert np.allclose(p.grad.numpy() * (total + 1e-6) / max_norm, values, rtol=1e-9, atol=1e-9)


# ----- clip_grad_value_ -----------------------------------------------------------------------------
def test_clip_grad_value_matches_pytorch():
    params = two_params()
    assert clip_grad_value_(params, 1.5) is None
    assert grads(params) == [[[1.0, -1.5, 1.5], [0.5, -0.25, 1.5]], [-1.0, 1.5, -1.5, 0.125]]
    single = two_params()[1]
    clip_grad_value_(single, 0.5)
    assert single.grad.tolist() == [-0.5, 0.5, -0.5, 0.125]


# ----- parameters as one vector ----------------------------------------------------------------------
def test_parameters_to_vector_is_differentiable():
    layer = nn.Linear(3, 2)
    vec = parameters_to_vector(layer.parameters())
    assert vec.shape == (8,) and vec.requires_grad and vec.grad_fn is not None
    assert vec.tolist() == layer.weight.detach().reshape(-1).tolist() + layer.bias.tolist()
    (vec * torch.arange(8.0)).sum().backward()
    assert layer.weight.grad.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert layer.bias.grad.tolist() == [6.0, 7.0]


def test_vector_to_parameters_makes_views_of_the_vector():
    params = two_params()
    ids = [id(p) for p in params]
    vec = torch.arange(10.0)
    vector_to_parameters(vec, params)
    assert [p.tolist() for p in params] == [[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], [6.0, 7.0, 8.0, 9.0]]
    assert [id(p) for p in params] == ids and all(p.requires_grad and p.is_leaf for p in params)
    vec[0] = 100
    assert params[0][0, 0].item() == 100.0            # as in PyTorch, they share the vector's memory
    vector_to_parameters(torch.arange(30.0), two_params())         # a longer vector is fine
    with pytest.raises(TypeError, match="^expected minitorch.Tensor, but got: list$"):
        vector_to_parameters([1, 2], params)
    with pytest.raises(RuntimeError):
        vector_to_parameters(torch.arange(3.0), two_params())


def test_round_trip():
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    vec = parameters_to_vector(model.parameters()).detach().clone()
    vector_to_parameters(vec * 2, model.parameters())
    assert np.allclose(parameters_to_vector(model.parameters()).detach().numpy(), 2 * vec.numpy())
