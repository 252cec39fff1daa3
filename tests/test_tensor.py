"""Tensors: creation, dtypes, attributes, printing, conversion, values of every op vs numpy."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import minitorch
from tests.strategies import shapes, broadcastable_shapes, arrays

pytestmark = pytest.mark.chapter3


def test_default_dtypes_follow_pytorch():
    assert minitorch.tensor([1.0, 2.0]).dtype == minitorch.float32
    assert minitorch.tensor([1, 2]).dtype == minitorch.int64 == minitorch.long
    assert minitorch.tensor([True, False]).dtype == minitorch.bool
    assert minitorch.tensor(np.zeros(2)).dtype == minitorch.float64 == minitorch.double
    assert minitorch.zeros(2).dtype == minitorch.float32
    assert minitorch.arange(3).dtype == minitorch.int64
    assert minitorch.arange(3.0).dtype == minitorch.float32


def test_dtype_promotion_like_pytorch():
    ints = minitorch.tensor([1, 2])
    assert (ints / minitorch.tensor([2, 2])).dtype == minitorch.float32
    assert (ints * 2.5).dtype == minitorch.float32
    assert (ints * minitorch.tensor([1.0, 2.0])).dtype == minitorch.float32
    assert (minitorch.ones(2) * 2.0).dtype == minitorch.float32
    assert (minitorch.ones(2, dtype=minitorch.float64) * minitorch.ones(2)).dtype == minitorch.float64
    assert ints.sum().dtype == minitorch.int64
    assert minitorch.tensor([True, True]).sum().item() == 2


def test_float32_stays_float32_through_ops_and_gradients():
    x = minitorch.randn(3, 4, requires_grad=True)
    w = minitorch.randn(4, 2, requires_grad=True)
    y = ((x @ w).relu().sigmoid() * 2.0 + 1).log_softmax(1).mean()
    assert y.dtype == minitorch.float32
    y.backward()
    assert x.grad.dtype == minitorch.float32 and w.grad.dtype == minitorch.float32


@pytest.mark.parametrize("make, expected", [
    (lambda: minitorch.tensor([1.0, 2.5], requires_grad=True), "tensor([1.0000, 2.5000], requires_grad=True)"),
    (lambda: minitorch.tensor([1.0, 2.5], requires_grad=True) * 2, "tensor([2., 5.], grad_fn=<MulBackward0>)"),
    (lambda: minitorch.tensor([[1, 2], [3, 4]]), "tensor([[1, 2],\n        [3, 4]])"),
    (lambda: minitorch.tensor([1e-5, 1.0]), "tensor([1.0000e-05, 1.0000e+00])"),
    (lambda: minitorch.tensor(3.5), "tensor(3.5000)"),
    (lambda: minitorch.tensor([True, False]), "tensor([ True, False])"),
    (lambda: minitorch.ones(2, dtype=minitorch.float64), "tensor([1., 1.], dtype=minitorch.float64)"),
    (lambda: minitorch.zeros(2, 3), "tensor([[0., 0., 0.],\n        [0., 0., 0.]])"),
    (lambda: minitorch.tensor([-1.5, 2.0]), "tensor([-1.5000,  2.0000])"),
    (lambda: minitorch.tensor([float("inf"), float("nan"), 1.0]), "tensor([inf, nan, 1.])"),
    (lambda: minitorch.zeros(0), "tensor([])"),
])
def test_repr(make, expected):
    assert repr(make()) == expected


def test_repr_summarises_large_tensors():
    text = repr(minitorch.arange(2000.0))
    assert "..." in text and text.startswith("tensor([0.0000e+00")


def test_attributes():
    x = minitorch.zeros(2, 3)
    assert x.shape == (2, 3) and x.size() == (2, 3) and x.size(1) == 3 and x.size(-1) == 3
    assert repr(x.shape) == "minitorch.Size([2, 3])"
    assert x.ndim == 2 and x.dim() == 2 and x.numel() == 6 and len(x) == 2
    assert x.is_leaf and not x.requires_grad and x.grad is None and x.grad_fn is None
    assert x._version == 0


def test_conversions():
    x = minitorch.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert isinstance(x.numpy(), np.ndarray)
    assert x[0, 1].item() == 2.0 and float(x[1, 1]) == 4.0 and int(x[1, 0]) == 3
    assert x.double().dtype == minitorch.float64 and x.long().dtype == minitorch.int64
    assert x.to(minitorch.float32) is x
    assert np.asarray(x).shape == (2, 2)


def test_tensor_copies_and_from_numpy_shares():
    data = np.ones(3, dtype=np.float32)
    copied = minitorch.tensor(data)
    shared = minitorch.from_numpy(data)
    data[0] = 5
    assert copied.tolist() == [1.0, 1.0, 1.0]
    assert shared.tolist() == [5.0, 1.0, 1.0]


@pytest.mark.task("4.1")
def test_detach_shares_memory_but_not_graph():
    x = minitorch.ones(2, requires_grad=True)
    y = x * 2
    d = y.detach()
    assert d.is_leaf and not d.requires_grad
    d.add_(1)
    assert y.tolist() == [3.0, 3.0]


@pytest.mark.task("4.1")
def test_requires_grad_propagates():
    x, y = minitorch.randn(5, 5), minitorch.randn(5, 5)
    z = minitorch.randn((5, 5), requires_grad=True)
    a = x + y
    assert a.requires_grad is False
    b = a + z
    assert b.requires_grad is True and not b.is_leaf


def test_seeded_random_numbers_repeat():
    minitorch.manual_seed(7)
    a = minitorch.randn(3)
    minitorch.manual_seed(7)
    assert a.equal(minitorch.randn(3))
    r = minitorch.rand(1000)
    assert 0 <= r.min().item() and r.max().item() < 1


def test_creation_functions():
    assert minitorch.ones(2, 3).tolist() == [[1.0] * 3] * 2
    assert minitorch.zeros((2,)).tolist() == [0.0, 0.0]
    assert minitorch.full((2,), 7).tolist() == [7, 7]
    assert minitorch.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]
    x = minitorch.ones(2, 2, dtype=minitorch.float64)
    assert minitorch.zeros_like(x).dtype == minitorch.float64
    assert minitorch.ones_like(x).tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert minitorch.empty(3).shape == (3,)
    assert minitorch.randn(2, 3, requires_grad=True).requires_grad


UNARY_NUMPY = {
    "exp": (lambda t: t.exp(), np.exp), "tanh": (lambda t: t.tanh(), np.tanh),
    "abs": (lambda t: t.abs(), np.abs), "relu": (lambda t: t.relu(), lambda a: np.maximum(a, 0)),
    "sigmoid": (lambda t: t.sigmoid(), lambda a: 1 / (1 + np.exp(-a))),
    "neg": (lambda t: -t, np.negative), "square": (lambda t: t ** 2, np.square),
}


@pytest.mark.parametrize("name", sorted(UNARY_NUMPY))
@given(data=st.data())
def test_unary_values_match_numpy(name, data):
    ours, theirs = UNARY_NUMPY[name]
    a = data.draw(arrays(data.draw(shapes())))
    np.testing.assert_allclose(ours(minitorch.tensor(a)).numpy(), theirs(a), rtol=1e-12)


@given(data=st.data())
def test_binary_values_match_numpy_broadcasting(data):
    sa, sb = data.draw(broadcastable_shapes())
    a, b = data.draw(arrays(sa, 0.5, 2)), data.draw(arrays(sb, 0.5, 2))
    ta, tb = minitorch.tensor(a), minitorch.tensor(b)
    for ours, theirs in [(ta + tb, a + b), (ta - tb, a - b), (ta * tb, a * b), (ta / tb, a / b),
                         (ta ** tb, a ** b)]:
        assert ours.shape == theirs.shape
        np.testing.assert_allclose(ours.numpy(), theirs, rtol=1e-12)


def test_sigmoid_and_log_softmax_are_stable_for_large_inputs():
    x = minitorch.tensor([-1000.0, 0.0, 1000.0])
    assert x.sigmoid().tolist() == [0.0, 0.5, 1.0]
    ls = minitorch.tensor([[1000.0, 0.0]]).log_softmax(1)
    assert np.isfinite(ls.numpy()).all() and ls[0, 0].item() == 0.0


def test_non_differentiable_points_follow_pytorch():
    x = minitorch.tensor([0.0, 0.0, 0.0], requires_grad=True)
    (x.relu() + x.abs() + x.sqrt()).sum().backward()
    # relu'(0) = 0, abs'(0) = 0, sqrt'(0) = inf
    assert x.grad.tolist() == [float("inf")] * 3
    y = minitorch.tensor([0.0], requires_grad=True)
    (y.relu() + y.abs()).sum().backward()
    assert y.grad.tolist() == [0.0]
    z = minitorch.tensor([-1.0], requires_grad=True)
    z.sqrt().sum().backward()
    assert np.isnan(z.grad.item())


def test_max_ties_share_the_gradient():
    x = minitorch.tensor([1.0, 3.0, 3.0], requires_grad=True)
    x.max().backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.5]


def test_indexing_values_and_views():
    x = minitorch.arange(12.0).reshape(3, 4)
    assert x[1].tolist() == [4.0, 5.0, 6.0, 7.0]
    assert x[:, 1].tolist() == [1.0, 5.0, 9.0]
    assert x[x > 9].tolist() == [10.0, 11.0]
    assert x[[0, 2]].shape == (2, 4)
    assert x[minitorch.tensor([2, 0])][0].tolist() == [8.0, 9.0, 10.0, 11.0]
    v = x[0]
    v[0] = 100.0
    assert x[0, 0].item() == 100.0          # basic indexing gives a view


def test_cat_stack_and_shape_ops():
    a, b = minitorch.ones(2, 3), minitorch.zeros(2, 3)
    assert minitorch.cat([a, b]).shape == (4, 3)
    assert minitorch.cat([a, b], dim=1).shape == (2, 6)
    assert minitorch.stack([a, b]).shape == (2, 2, 3)
    assert minitorch.stack([a, b], dim=-1).shape == (2, 3, 2)
    assert a.t().shape == (3, 2) and a.T.shape == (3, 2)
    assert a.unsqueeze(1).shape == (2, 1, 3) and a.unsqueeze(-1).shape == (2, 3, 1)
    assert a.unsqueeze(0).squeeze().shape == (2, 3) and a.unsqueeze(0).squeeze(0).shape == (2, 3)
    assert a.reshape(-1).shape == (6,) and a.view(3, 2).shape == (3, 2)
    assert a[0].expand(4, 3).shape == (4, 3) and a[:1].expand_as(b).shape == (2, 3)
    assert a.sum(dim=1, keepdim=True).shape == (2, 1) and a.mean(0).shape == (3,)
    values, indices = minitorch.tensor([[1.0, 5.0], [7.0, 2.0]]).max(1)
    assert values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0]


def test_comparisons_give_bool_tensors_and_tensors_stay_hashable():
    x = minitorch.tensor([1.0, 2.0])
    assert (x > 1).tolist() == [False, True] and (x == 2).dtype == minitorch.bool
    assert len({x, x}) == 1


def test_parameters_like_subclass_shares_memory():
    class Sub(minitorch.Tensor):
        pass
    base = minitorch.ones(2)
    s = minitorch.Tensor._make_subclass(Sub, base, True)
    assert isinstance(s, Sub) and s.requires_grad and s.is_leaf
    base.add_(1)
    assert s.tolist() == [2.0, 2.0]
    assert type(s * 2) is minitorch.Tensor


def test_legacy_constructor():
    assert minitorch.Tensor([1, 2]).dtype == minitorch.float32
    assert minitorch.Tensor(2, 3).shape == (2, 3)


def test_deepcopy_of_leaves_and_parameters():
    import copy
    x = minitorch.ones(2, requires_grad=True)
    x.grad = minitorch.ones(2)
    y = copy.deepcopy(x)
    assert y is not x and y.requires_grad and y.grad.tolist() == [1.0, 1.0]
    y.detach().add_(1)
    assert x.tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="Only Tensors created explicitly by the user"):
        copy.deepcopy(x * 2)
    p = minitorch.nn.Parameter(minitorch.ones(2))
    q = copy.deepcopy(p)
    assert type(q) is minitorch.nn.Parameter and q.requires_grad
    model = minitorch.nn.Linear(2, 2)
    clone = copy.deepcopy(model)
    assert clone.weight is not model.weight and clone.weight.equal(model.weight)


def test_deepcopy_of_a_parameter_drops_its_grad_as_in_pytorch():
    # PyTorch 2.13: Parameter.__deepcopy__ builds type(p)(p.data.clone(), p.requires_grad),
    # so the copy has no .grad and none of the attributes set on the parameter, while a
    # plain leaf tensor keeps its .grad (test above).  Copying a trained model therefore
    # gives parameters with grad None (checked with torch: None, None, None, False).
    import copy
    p = minitorch.nn.Parameter(minitorch.ones(2))
    p.tag = "x"
    (p * 2).sum().backward()
    q = copy.deepcopy(p)
    assert q.grad is None and not hasattr(q, "tag")
    assert type(q) is minitorch.nn.Parameter and q.requires_grad and q.equal(p)
    model = minitorch.nn.Linear(2, 1)
    model(minitorch.ones(1, 2)).sum().backward()
    assert copy.deepcopy(model).weight.grad is None and model.weight.grad is not None
    frozen = minitorch.nn.Parameter(minitorch.ones(2), requires_grad=False)
    assert not copy.deepcopy(frozen).requires_grad
    copies = copy.deepcopy([p, p])
    assert copies[0] is copies[1]
