"""vmap agrees with a loop for every op that has a batching rule (chapter 13).

tests/func/test_vmap_agreement.py maps the op catalogue of tests/strategies.py.  The
catalogue reaches most ops with a rule but not all: in-place activations, the ops
that only a backward pass calls (``ReluGrad``, ``SumToSize``, ``IndexPutAccumulate``),
reductions with a ``dtype``, the padding modes, a few arithmetic variants.  Here each
of those gets a case, with hypothesis-drawn float64 inputs, mapped with ``vmap`` and
compared with a loop over the examples; backward-only ops are reached the way
``jacrev`` reaches them, by mapping a ``vjp_fn`` over a batch of cotangents.  The
last test checks that the catalogue and these cases together reach every op of
``BATCH_RULES`` through its rule, except the few listed in ``UNREACHED`` with why.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, HealthCheck, strategies as st

import minitorch
import minitorch.nn.functional as F
from minitorch.func import vmap, vjp, batching_rules

from tests.strategies import arrays, op_catalogue

pytestmark = pytest.mark.chapter13

BATCH = 3
f64 = minitorch.float64


def _pulled_back(f, shape):
    """``u -> vjp_fn(u)`` for ``f`` at a fixed point of ``shape``: mapped over a batch
    of cotangents it runs ``f``'s backward ops on batched values, as ``jacrev`` does."""
    point = minitorch.tensor(np.linspace(0.3, 1.7, int(np.prod(shape))).reshape(shape),
                             dtype=f64)
    out, vjp_fn = vjp(f, point)
    return (lambda u: vjp_fn(u)[0]), tuple(out.shape)


def _backward_case(f, shape):
    """A case built when a test asks for it, not when the module is imported (in a
    course's release the autograd that ``vjp`` needs may still be a stub)."""
    def build():
        fn, out_shape = _pulled_back(f, shape)
        return fn, [(out_shape, -2.0, 2.0)]
    return build


def _case(name):
    case = CASES[name]
    return case() if callable(case) else case


_TARGET = minitorch.tensor([1, 3])

# name: (function of one example's inputs, [(example shape, low, high) per input])
CASES = {
    "sub_scalar": (lambda a: a - 0.5, [((4,), -3, 3)]),
    "sub_alpha": (lambda a, b: minitorch.sub(a, b, alpha=2), [((4,), -3, 3), ((4,), -3, 3)]),
    "remainder": (lambda a, b: a % b, [((4,), -3, 3), ((4,), 0.5, 2)]),
    "remainder_scalar": (lambda a: a % 0.7, [((4,), -3, 3)]),
    "floor_divide": (lambda a, b: a // b, [((4,), -3, 3), ((4,), 0.5, 2)]),
    "ceil": (lambda a: a.ceil(), [((2, 3), -3, 3)]),
    "trunc": (lambda a: a.trunc(), [((2, 3), -3, 3)]),
    "clamp_tensor": (lambda a, b: a.clamp(min=b - 1.0, max=b), [((4,), -3, 3), ((4,), -1, 1)]),
    "min_all": (lambda a: a.min(), [((2, 3), -3, 3)]),
    "amin": (lambda a: a.amin(0), [((2, 3), -3, 3)]),
    "sum_dim_dtype": (lambda a: a.sum(0, dtype=minitorch.float32), [((2, 3), -3, 3)]),
    "mean_dim_dtype": (lambda a: a.mean(0, dtype=minitorch.float32), [((2, 3), -3, 3)]),
    "sum_to_size": (lambda a: a.sum_to_size(1, 4), [((2, 4), -3, 3)]),
    "split_with_sizes": (lambda a: a.split([1, 3])[1], [((4, 2), -3, 3)]),
    "squeeze_dims": (lambda a: a.unsqueeze(0).unsqueeze(2).squeeze((0, 2)),
                     [((2, 3), -3, 3)]),
    "alias": (lambda a: a[...], [((2, 3), -3, 3)]),
    "to_copy": (lambda a: a.to(minitorch.float32), [((2, 3), -3, 3)]),
    "fill_": (lambda a: a.clone().fill_(2.0), [((4,), -3, 3)]),
    "fill_tensor_": (lambda a: a.clone().fill_(minitorch.tensor(2.0, dtype=f64)),
                     [((4,), -3, 3)]),
    "zero_": (lambda a: a.clone().zero_(), [((4,), -3, 3)]),
    "relu_": (lambda a: F.relu(a.clone(), inplace=True), [((4,), -3, 3)]),
    "elu_": (lambda a: F.elu(a.clone(), inplace=True), [((4,), -3, 3)]),
    "hardtanh_": (lambda a: F.hardtanh(a.clone(), inplace=True), [((4,), -3, 3)]),
    "leaky_relu_": (lambda a: F.leaky_relu(a.clone(), 0.1, inplace=True), [((4,), -3, 3)]),
    "cross_entropy_probabilities": (lambda a, t: F.cross_entropy(a, t.softmax(-1)),
                                    [((2, 4), -3, 3), ((2, 4), -3, 3)]),
    "cross_entropy_smoothing": (lambda a: F.cross_entropy(a, _TARGET, label_smoothing=0.1),
                                [((2, 4), -3, 3)]),
    "pad_circular": (lambda a: F.pad(a, (1, 1), mode="circular"), [((2, 4), -3, 3)]),
    "pad_replicate_1d": (lambda a: F.pad(a, (1, 1), mode="replicate"), [((2, 4), -3, 3)]),
    "pad_replicate_2d": (lambda a: F.pad(a, (1, 1, 1, 1), mode="replicate"),
                         [((2, 3, 4), -3, 3)]),
    "pad_replicate_3d": (lambda a: F.pad(a, (1, 1, 1, 1, 1, 1), mode="replicate"),
                         [((1, 2, 3, 4), -3, 3)]),
    "pad_reflect_2d": (lambda a: F.pad(a, (1, 1, 1, 1), mode="reflect"),
                       [((2, 3, 4), -3, 3)]),
    "pad_reflect_3d": (lambda a: F.pad(a, (1, 1, 1, 1, 1, 1), mode="reflect"),
                       [((1, 2, 3, 4), -3, 3)]),
    "backward_of_relu": _backward_case(lambda t: (t - 1.0).relu(), (4,)),
    "backward_of_sigmoid": _backward_case(lambda t: t.sigmoid(), (4,)),
    "backward_of_tanh": _backward_case(lambda t: t.tanh(), (4,)),
    "backward_of_slicing": _backward_case(lambda t: t[1:3], (4,)),
    "backward_of_broadcasting": _backward_case(
        lambda t: t * minitorch.tensor([[1.0], [2.0]], dtype=f64), (3,)),
}

# Ops with a rule that neither the catalogue nor CASES reaches through the rule, and why.
UNREACHED = {
    "activation.Erf": "called only inside GELU's backward, on saved (unbatched) values",
    "activation.Log1p": "called only inside binary_cross_entropy's double backward",
    "pointwise.OutputDerivative": "a base class (ReluGrad, SigmoidGrad, TanhGrad)",
    "padding.SeparableLinearMap": "a base class (the reflection and replication pads)",
    "rounding._Step": "a base class (floor, ceil, trunc)",
    "random.Uniform": "random: tests/func/test_vmap_api.py checks the randomness rule",
    "random.Normal": "random: as above",
    "random.Bernoulli": "random: as above",
    "random.Exponential": "random: as above",
    "random.RandomIntegers": "random: as above",
    "functional._ConvolutionOfNoChannels": "a convolution of inputs with no channels (empty "
                                           "values): tests/nn/test_conv_no_channels.py",
}


def _name(cls):
    return f"{cls.__module__.split('.')[-1]}.{cls.__name__}"


def _stacked(examples):
    return [minitorch.tensor(np.stack([e[i] for e in examples]), dtype=f64)
            for i in range(len(examples[0]))]


def _loop(fn, inputs):
    return minitorch.stack([fn(*[x[b] for x in inputs]) for b in range(BATCH)])


@pytest.mark.parametrize("name", sorted(CASES))
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_vmap_agrees_with_a_loop(name, data):
    fn, specs = _case(name)
    examples = [[data.draw(arrays(shape, low, high)) for shape, low, high in specs]
                for _ in range(BATCH)]
    inputs = _stacked(examples)
    batching_rules._warned.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        batched = vmap(fn)(*inputs)
    expected = _loop(fn, inputs)
    assert tuple(batched.shape) == tuple(expected.shape)
    assert batched.dtype == expected.dtype
    np.testing.assert_allclose(batched.numpy(), expected.numpy(), rtol=1e-12, atol=1e-12)
    assert not any("performance drop" in str(w.message) for w in caught), name


def _reached_by(run):
    """The ops whose batching rule runs while ``run()`` runs (the loop fallback's
    ops are not counted: they have no rule)."""
    reached, real = set(), batching_rules.apply_rule

    def recording(cls, args, level):
        if cls in batching_rules.BATCH_RULES:
            reached.add(cls)
        return real(cls, args, level)

    batching_rules.apply_rule = recording
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run()
    finally:
        batching_rules.apply_rule = real
    return reached


def _run_everything():
    for fn, specs in op_catalogue().values():
        inputs = [minitorch.tensor(np.linspace(0.1, 0.9, BATCH * int(np.prod(s[0])))
                                   .reshape((BATCH,) + s[0]) * np.linspace(1, 2, BATCH)
                                   .reshape((BATCH,) + (1,) * len(s[0])), dtype=f64)
                  for s in specs]
        try:
            vmap(fn)(*inputs)
        except RuntimeError:    # in-place ops on shared tensors, values read: elsewhere
            pass
    for fn, specs in map(_case, CASES):
        vmap(fn)(*[minitorch.tensor(np.linspace(0.6, 1.4, BATCH * int(np.prod(shape)))
                                    .reshape((BATCH,) + shape), dtype=f64)
                   for shape, _, _ in specs])


def test_every_op_with_a_rule_is_reached():
    reached = {_name(cls) for cls in _reached_by(_run_everything)}
    with_rule = {_name(cls) for cls in batching_rules.BATCH_RULES}
    assert with_rule - reached == set(UNREACHED), (
        f"not reached, add a case: {sorted(with_rule - reached - set(UNREACHED))}; "
        f"reached now, take off UNREACHED: {sorted(set(UNREACHED) & reached)}")
