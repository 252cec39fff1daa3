"""utils.checkpoint: the same gradients as without it, less memory held between forward
and backward (measured with tracemalloc on a deep MLP), and PyTorch 2.13's warnings and
errors."""

import tracemalloc
import warnings

import numpy as np
import pytest

import minitorch as torch
from minitorch.utils.checkpoint import checkpoint, checkpoint_sequential, CheckpointError

pytestmark = pytest.mark.chapter14


def deep_mlp(depth=16, width=128, seed=0):
    torch.manual_seed(seed)
    layers = []
    for _ in range(depth):
        layers += [torch.nn.Linear(width, width), torch.nn.Tanh()]
    return torch.nn.Sequential(*layers).double()


def gradients(model):
    return [p.grad.clone() for p in model.parameters()]


def run(model, inputs, how):
    model.zero_grad()
    out = how(model, inputs)
    out.pow(2).mean().backward()
    return out, gradients(model)


PLAIN = lambda m, x: m(x)                                                  # noqa: E731
WHOLE = lambda m, x: checkpoint(m, x, use_reentrant=False)                 # noqa: E731
SEGMENTS = lambda m, x: checkpoint_sequential(m, 4, x, use_reentrant=False)  # noqa: E731
REENTRANT = lambda m, x: checkpoint_sequential(m, 4, x, use_reentrant=True)  # noqa: E731


@pytest.mark.task("14.1")
@pytest.mark.parametrize("how", [WHOLE, SEGMENTS, REENTRANT])
def test_gradients_equal_the_plain_ones(how):
    model = deep_mlp(depth=6, width=16)
    inputs = torch.randn(8, 16, dtype=torch.float64, requires_grad=True)
    out, expected = run(model, inputs, PLAIN)
    expected_input = inputs.grad.clone()
    inputs.grad = None
    out2, got = run(model, inputs, how)
    np.testing.assert_array_equal(out.detach().numpy(), out2.detach().numpy())
    for e, g in zip(expected, got):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(inputs.grad.numpy(), expected_input.numpy(), rtol=1e-12)


def held_after_forward(model, inputs, how):
    """Bytes allocated by the forward pass and still alive when it returns: what the graph
    saved for backward (plus the output)."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        out = how(model, inputs)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    out.sum().backward()
    return held


@pytest.mark.task("14.1")
def test_checkpointing_holds_less_memory_between_forward_and_backward():
    model = deep_mlp()
    inputs = torch.randn(64, 128, dtype=torch.float64, requires_grad=True)
    activation = 64 * 128 * 8
    plain = held_after_forward(model, inputs, PLAIN)
    segments = held_after_forward(model, inputs, SEGMENTS)
    whole = held_after_forward(model, inputs, WHOLE)
    # without: every layer's input stays saved (Tanh saves its output, which is the
    # next Linear's saved input: one activation per layer)
    assert plain > 16 * activation
    # four segments: three boundary inputs kept, and the last segment's four layers
    assert segments < 9 * activation
    # all of it: the input and the output only
    assert whole < 2 * activation


def dropout(a):
    return torch.nn.functional.dropout(a, 0.5)


def dropout_blocks():
    return [torch.nn.Dropout(0.5), torch.nn.Identity()]     # the first one checkpointed


CHECKPOINTED_DROPOUT = {
    "hooks": lambda x, **kw: checkpoint(dropout, x, use_reentrant=False, **kw),
    "reentrant": lambda x, **kw: checkpoint(dropout, x, use_reentrant=True, **kw),
    "sequential": lambda x, **kw: checkpoint_sequential(dropout_blocks(), 2, x,
                                                        use_reentrant=False, **kw),
    "sequential, reentrant": lambda x, **kw: checkpoint_sequential(
        dropout_blocks(), 2, x, use_reentrant=True, **kw),
}


def dropout_gradient(how, **kwargs):
    """The output and the input's gradient of a checkpointed dropout, with the generator
    reseeded between forward and backward (as any draw in between would move it)."""
    torch.manual_seed(0)
    inputs = torch.randn(50, dtype=torch.float64, requires_grad=True)
    out = how(inputs, **kwargs)
    torch.manual_seed(1)
    out.sum().backward()
    return out.detach().numpy(), inputs.grad.numpy()


@pytest.mark.task("14.1")
@pytest.mark.parametrize("how", CHECKPOINTED_DROPOUT.values(), ids=CHECKPOINTED_DROPOUT)
def test_dropout_draws_the_same_mask_when_recomputed(how):
    # PyTorch 2.13, all four ways: the recomputation draws with the forward's random
    # state, and then puts back the state it found, so the next draw is as if no
    # recomputation had happened
    out, grad = dropout_gradient(how)
    np.testing.assert_array_equal(grad, np.where(out != 0, 2.0, 0.0))
    after = torch.rand(4)
    torch.manual_seed(1)
    np.testing.assert_array_equal(after.numpy(), torch.rand(4).numpy())


@pytest.mark.task("14.1")
@pytest.mark.parametrize("how", CHECKPOINTED_DROPOUT.values(), ids=CHECKPOINTED_DROPOUT)
def test_without_preserve_rng_state_the_recomputation_draws_anew(how):
    # PyTorch 2.13: preserve_rng_state=False recomputes with the generator as backward
    # finds it (here just reseeded with 1), so the gradient has another mask
    out, grad = dropout_gradient(how, preserve_rng_state=False)
    torch.manual_seed(1)
    np.testing.assert_array_equal(grad, dropout(torch.ones(50, dtype=torch.float64)).numpy())
    assert (grad != 0).tolist() != (out != 0).tolist()


@pytest.mark.task("14.1")
def test_use_reentrant_must_be_passed_explicitly():
    inputs = torch.randn(3, requires_grad=True)
    with pytest.warns(UserWarning, match="torch.utils.checkpoint: the use_reentrant parameter "
                      "should be passed explicitly. Starting in PyTorch 2.9"):
        checkpoint(torch.sin, inputs)
    with pytest.warns(UserWarning, match="torch.utils.checkpoint.checkpoint_sequential: the "
                      "use_reentrant parameter should be passed explicitly"):
        out = checkpoint_sequential([torch.nn.ReLU(), torch.nn.Tanh()], 2, inputs)
    # ... and then both run the reentrant variant (PyTorch 2.13's node names)
    assert type(out.grad_fn.next_functions[0][0]).__name__ == "CheckpointFunctionBackward"
    with pytest.warns(UserWarning):
        assert type(checkpoint(torch.sin, inputs).grad_fn).__name__ == \
            "CheckpointFunctionBackward"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checkpoint(torch.sin, inputs, use_reentrant=False)


@pytest.mark.task("14.1")
@pytest.mark.parametrize("call, error, message", [
    (lambda x: checkpoint(torch.sin, x, use_reentrant=True, context_fn=lambda: None),
     ValueError, "Passing `context_fn` or `debug` is only supported when use_reentrant=False."),
    (lambda x: checkpoint(torch.sin, x, use_reentrant=False, determinism_check="x"),
     ValueError, "determinism_check should be one of ['default', 'none'], but got x"),
    (lambda x: checkpoint(torch.sin, x, use_reentrant=False, foo=1), TypeError, "foo"),
    (lambda x: checkpoint(lambda a, scale=1.0: a * scale, x, use_reentrant=True, scale=2.0),
     ValueError, "Unexpected keyword arguments: scale"),
    (lambda x: checkpoint(lambda a, s=1.0, t=0.0: a * s + t, x, use_reentrant=True, s=2.0,
                          t=1.0),
     ValueError, "Unexpected keyword arguments: s,t"),
    (lambda x: checkpoint(torch.sin, x, use_reentrant=True, debug=True),
     ValueError, "Passing `context_fn` or `debug` is only supported when use_reentrant=False."),
    (lambda x: checkpoint_sequential([torch.nn.ReLU()], 1, x, use_reentrant=True, foo=2),
     ValueError, "Unexpected keyword arguments: foo"),
])
def test_errors_as_pytorch(call, error, message):
    with pytest.raises(error) as info:
        call(torch.randn(3, requires_grad=True))
    assert message in str(info.value)


@pytest.mark.task("14.1")
def test_determinism_check_is_read_by_the_hook_variant_only():
    # PyTorch 2.13: the reentrant variant never reads determinism_check
    x = torch.randn(3, requires_grad=True)
    out = checkpoint(torch.sin, x, use_reentrant=True, determinism_check="x")
    np.testing.assert_allclose(out.detach().numpy(), np.sin(x.detach().numpy()), rtol=1e-6)


@pytest.mark.task("14.1")
def test_the_reentrant_variant_warns_and_refuses_as_pytorch():
    # PyTorch 2.13's texts: no input requires grad (a warning at forward); no recomputed
    # output requires grad (an error at backward)
    with pytest.warns(UserWarning, match="^None of the inputs have requires_grad=True. "
                      "Gradients will be None$"):
        checkpoint(torch.sin, torch.randn(3), use_reentrant=True)
    calls = [0]

    def detached_when_recomputed(a):
        calls[0] += 1
        return a.sin() if calls[0] == 1 else a.detach().sin()
    out = checkpoint(detached_when_recomputed, torch.randn(3, requires_grad=True),
                     use_reentrant=True)
    with pytest.raises(RuntimeError, match="^none of output has requires_grad=True, this "
                       r"checkpoint\(\) is not necessary$"):
        out.sum().backward()


@pytest.mark.task("14.1")
def test_a_recomputation_that_saves_another_number_of_tensors_is_caught():
    calls = [0]

    def changes(a):
        calls[0] += 1
        return a.sin().exp() if calls[0] == 1 else a.sin()
    out = checkpoint(changes, torch.randn(3, requires_grad=True), use_reentrant=False)
    with pytest.raises(CheckpointError, match="^torch.utils.checkpoint: A different number "
                       "of tensors was saved during the original forward and recomputation."
                       "\nNumber of tensors saved during forward: 2\nNumber of tensors "
                       "saved during recomputation: 1."):
        out.sum().backward()


@pytest.mark.task("14.1")
def test_a_recomputation_that_saves_other_shapes_is_caught():
    calls = [0]

    def changes(a):
        calls[0] += 1
        return a.sin() if calls[0] == 1 else a[:2].sin()
    out = checkpoint(changes, torch.randn(3, requires_grad=True), use_reentrant=False)
    with pytest.raises(CheckpointError, match="Recomputed values for the following tensors "
                       "have different metadata than during the forward pass"):
        out.sum().backward()
    assert issubclass(CheckpointError, RuntimeError)


def float32_when_recomputed():
    calls = [0]

    def changes(a):
        calls[0] += 1
        return a.sin() if calls[0] == 1 else a.float().sin()
    return changes


@pytest.mark.task("14.1")
def test_a_recomputation_that_saves_other_dtypes_is_caught():
    x = torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64, requires_grad=True)
    out = checkpoint(float32_when_recomputed(), x, use_reentrant=False)
    with pytest.raises(CheckpointError) as info:
        out.sum().backward()
    assert ("tensor at position 0:\nsaved metadata: {'shape': minitorch.Size([3]), "
            "'dtype': minitorch.float64}\nrecomputed metadata: {'shape': minitorch.Size([3]), "
            "'dtype': minitorch.float32}") in str(info.value)


@pytest.mark.task("14.1")
def test_determinism_check_none_lets_the_recomputation_differ():
    # PyTorch 2.13: no error; sin's input is the float32 recomputed one, the gradient
    # float64 as the input
    x = torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64, requires_grad=True)
    out = checkpoint(float32_when_recomputed(), x, use_reentrant=False,
                     determinism_check="none")
    out.sum().backward()
    assert x.grad.dtype == torch.float64
    np.testing.assert_allclose(x.grad.numpy(), np.cos([0.5, 1.0, 2.0]), rtol=1e-6)


@pytest.mark.task("14.1")
def test_the_reentrant_recomputation_gets_inputs_requiring_grad_as_the_originals():
    seen = []

    def f(a, b):
        seen.append((a.requires_grad, b.requires_grad))
        return a * b
    a = torch.randn(3, requires_grad=True)
    checkpoint(f, a, torch.randn(3), use_reentrant=True).sum().backward()
    assert seen == [(True, False), (True, False)]       # forward, then the recomputation


@pytest.mark.task("14.1")
def test_saved_tensor_hooks_do_the_work():
    """Nothing of what the function saves is kept: each saved tensor is packed to its
    number by chapter 5's hooks."""
    inputs = torch.randn(4, dtype=torch.float64, requires_grad=True)
    out = checkpoint(lambda a: a.exp().sin(), inputs, use_reentrant=False)
    out.sum().backward()
    np.testing.assert_allclose(inputs.grad.numpy(),
                               (np.cos(np.exp(inputs.detach().numpy())) *
                                np.exp(inputs.detach().numpy())), rtol=1e-12)


@pytest.mark.task("14.1")
def test_node_names_as_pytorch():
    # Expected names from PyTorch 2.13: the reentrant variant records one node of its own;
    # the other leaves the graph of the function's ops (the last segment of
    # checkpoint_sequential runs without checkpointing).
    x = torch.ones(3, requires_grad=True)
    names = [type(checkpoint(torch.sin, x, use_reentrant=True).grad_fn).__name__,
             type(checkpoint(torch.sin, x, use_reentrant=False).grad_fn).__name__,
             type(checkpoint_sequential([torch.nn.ReLU(), torch.nn.Tanh()], 2, x,
                                        use_reentrant=True).grad_fn).__name__]
    assert names == ["CheckpointFunctionBackward", "SinBackward0", "TanhBackward0"]
