"""vmap agrees with a loop over the examples, for every op of the catalogue.

Each catalogue entry (tests/strategies.py) is mapped over a batch of 3 drawn
examples, with each input either batched (at a drawn dim) or shared (in_dim
None), and compared with calling the op on each example and stacking.  Ops with
a batching rule must not fall back to the loop (no performance warning); the
second test pins which ones do.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, HealthCheck, strategies as st

import minitorch
from minitorch.func import vmap, batching_rules

from tests.strategies import op_catalogue, op_inputs, NEEDS_DISTINCT

pytestmark = pytest.mark.chapter13

CATALOGUE = op_catalogue()
BATCH = 3

# Ops that reach an op without a batching rule when every input is batched (the loop
# fallback, with a warning): some losses with a reduction, masked_select (its size depends
# on the values), and conv2d / layer_norm / embedding with batched weights.
FALLS_BACK = {"bce_logits", "conv2d", "embedding", "huber", "layer_norm", "masked_select"}

# In-place ops on a shared (unbatched) tensor with a batched operand: PyTorch refuses.
IN_PLACE = {"mul_", "add_", "sub_", "div_", "copy_", "setitem"}

# nn.functional code that reads values outside of any Function (the batch statistics
# of batch_norm, binary_cross_entropy's range check): vmap says so instead of guessing.
READS_VALUES = {"batch_norm", "bce"}


def _batched_inputs(data, specs, distinct):
    examples = [data.draw(op_inputs(specs, distinct=distinct)) for _ in range(BATCH)]
    dims = [data.draw(st.sampled_from([None, 0, -1] if len(s[0]) else [None, 0]))
            for s in specs]
    if all(d is None for d in dims):
        dims[0] = 0
    inputs = []
    for i, d in enumerate(dims):
        if d is None:
            inputs.append(minitorch.tensor(examples[0][i], dtype=minitorch.float64))
        else:
            stacked = np.stack([e[i] for e in examples], axis=d if d >= 0 else
                               examples[0][i].ndim + 1 + d)
            inputs.append(minitorch.tensor(stacked, dtype=minitorch.float64))
    return inputs, dims


def _loop(fn, inputs, dims):
    def example(b):
        return fn(*(x.select(d, b) if d is not None else x for x, d in zip(inputs, dims)))
    return minitorch.stack([example(b) for b in range(BATCH)])


@pytest.mark.parametrize("name", sorted(CATALOGUE))
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_vmap_agrees_with_a_loop(name, data):
    fn, specs = CATALOGUE[name]
    inputs, dims = _batched_inputs(data, specs, name in NEEDS_DISTINCT)
    if name in READS_VALUES:
        with pytest.raises(RuntimeError, match="read the values of a batched tensor"):
            vmap(fn, in_dims=tuple(dims))(*inputs)
        return
    if name in IN_PLACE and dims[0] is None:
        with pytest.raises(RuntimeError, match="vmap: inplace arithmetic"):
            vmap(fn, in_dims=tuple(dims))(*inputs)
        return
    batching_rules._warned.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        batched = vmap(fn, in_dims=tuple(dims))(*inputs)
    expected = _loop(fn, inputs, dims)
    assert tuple(batched.shape) == tuple(expected.shape)
    np.testing.assert_allclose(batched.numpy(), expected.numpy(), rtol=1e-12, atol=1e-12)
    fell_back = any("performance drop" in str(w.message) for w in caught)
    if name not in FALLS_BACK:
        assert not fell_back, [str(w.message) for w in caught]


def test_the_fallback_list_is_exact():
    """Every op listed as falling back really does (so the list cannot rot)."""
    for name in sorted(FALLS_BACK):
        fn, specs = CATALOGUE[name]
        inputs = [minitorch.tensor(np.linspace(0.1, 0.9, int(np.prod((BATCH,) + s[0])))
                                   .reshape((BATCH,) + s[0]), dtype=minitorch.float64)
                  for s in specs]
        batching_rules._warned.clear()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            vmap(fn)(*inputs)
        assert any("performance drop" in str(w.message) for w in caught), name
