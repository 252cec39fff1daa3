"""minitorch's numpy backend (chapter 21) computes scaled dot-product attention with its
own kernels: the forward keeps the dense query, key and value and the weights for the
backward (which then copies nothing again), takes each row's maximum by halves and
its sums with einsum.  Values and gradients are eager minitorch's up to the order of
those additions."""

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch._inductor import codegen
from minitorch._inductor.codegen import _row_max
from minitorch._inductor.compile_fx import output_code

pytestmark = pytest.mark.chapter21

# A course release that stubs task 15.2 leaves the backend's attention kernels out (they
# repeat the task's answer: classroom/tasks.toml), and compiled attention runs the op.
needs_the_backends_attention = pytest.mark.skipif(
    not hasattr(codegen, "_attention_and_saved"),
    reason="this copy of the course leaves the backend's attention kernels out (task 15.2)")


def attention_block(qkv, key, heads):
    """q and v split from one projection and viewed as heads, as GPT's attention does;
    the keys given (``key``: with or without a gradient)."""
    b, t, c3 = qkv.shape
    q, _, v = qkv.split(c3 // 3, dim=2)
    q, v = [x.view(b, t, heads, c3 // (3 * heads)).transpose(1, 2) for x in (q, v)]
    return F.scaled_dot_product_attention(q, key, v, is_causal=True)


@needs_the_backends_attention
@pytest.mark.parametrize("key_needs_grad", [True, False])
def test_attention_runs_the_backends_kernels_with_eagers_values(key_needs_grad):
    minitorch.manual_seed(0)
    w = minitorch.randn(8, 24, requires_grad=True)
    x = minitorch.randn(3, 5, 8)
    key = minitorch.randn(3, 5, 2, 4, requires_grad=key_needs_grad)

    def f(x, w, key):
        y = attention_block(x @ w, key.transpose(1, 2), heads=2)
        return (y * y).sum(), y
    results = []
    for run in (f, minitorch.compile(f)):
        w.grad = key.grad = None
        loss, y = run(x, w, key)
        loss.backward()
        results.append((y.detach().numpy().copy(), w.grad.numpy().copy(),
                        None if key.grad is None else key.grad.numpy().copy()))
    forward, backward = output_code(2)
    assert "attention_and_saved(" in forward and "attention_backward(" in backward
    for eager, compiled in zip(*results):
        assert (eager is None) == (compiled is None)
        if eager is not None:
            np.testing.assert_allclose(compiled, eager, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n", [1, 2, 5, 7, 64])
def test_row_max_by_halves_is_numpys_max(n):
    rng = np.random.default_rng(n)
    scores = rng.standard_normal((3, 4, n)).astype(np.float32)
    scores[0, 1, :] = -np.inf
    scores[1, 2, n // 2] = np.nan
    assert np.array_equal(_row_max(scores), scores.max(axis=-1, keepdims=True),
                          equal_nan=True)


@needs_the_backends_attention
def test_a_backward_compiled_alone_gets_attentions_own_context():
    # The forward run op by op (nop) saves attention's autograd node, not the backend's
    # arrays: the compiled backward hands that to attention's own backward.
    from minitorch._functorch.aot_autograd import aot_function, nop
    from minitorch._inductor import compile_graph
    minitorch.manual_seed(0)
    q = minitorch.randn(2, 3, 5, 4, requires_grad=True)
    f = lambda q: F.scaled_dot_product_attention(q, q * 2, q, is_causal=True).sum()
    f(q).backward()
    eager, q.grad = q.grad.numpy().copy(), None
    aot_function(f, nop, compile_graph)(q).backward()
    assert "attention_backward(" in output_code(1)[0]
    np.testing.assert_allclose(q.grad.numpy(), eager, rtol=1e-5, atol=1e-6)


def test_the_heads_gradients_are_copied_once_into_the_projections_gradient():
    # q, k, v split from one projection: their gradients, heads merged back, are
    # concatenated; each is copied once, into its place (cat_last), not cloned first.
    minitorch.manual_seed(0)
    w = minitorch.randn(8, 24, requires_grad=True)
    x = minitorch.randn(3, 5, 8)

    def f(x, w):
        qkv = x @ w
        q, k, v = [t.view(3, 5, 2, 4).transpose(1, 2) for t in qkv.split(8, dim=2)]
        return F.scaled_dot_product_attention(q, k, v, is_causal=True).pow(2).sum()
    f(x, w).backward()
    eager, w.grad = w.grad.numpy().copy(), None
    minitorch.compile(f)(x, w).backward()
    backward = output_code(1)[0]
    assert "cat_last(" in backward and "np.concatenate" not in backward
    assert ".copy()" not in backward
    np.testing.assert_allclose(w.grad.numpy(), eager, rtol=1e-5, atol=1e-6)


def test_cat_last_is_numpys_concatenate_of_the_merged_parts():
    from minitorch._inductor.codegen import _cat_last
    rng = np.random.default_rng(0)
    parts = [np.swapaxes(rng.standard_normal((2, 4, 3, 5)), 1, 2) for _ in range(3)]
    merged = [p.reshape(2, 3, 20) for p in parts]
    assert np.array_equal(_cat_last(parts, (4, 5)), np.concatenate(merged, axis=2))
