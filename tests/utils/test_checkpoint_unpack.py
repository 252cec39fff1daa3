"""Task 14.1: checkpoint's unpack hook (``_Frame.unpack`` and ``_Frame._recompute``, the
non-reentrant variant): the first tensor backward asks for reruns the function once, with
the random state of the first run, and every saved tensor comes from that rerun."""

import gc
import weakref

import numpy as np
import pytest

import minitorch as torch
from minitorch.utils.checkpoint import checkpoint

pytestmark = pytest.mark.chapter14


def small_mlp(seed=0):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.Tanh(),
                               torch.nn.Linear(7, 3), torch.nn.Sigmoid()).double()


def gradients(model, inputs, checkpointed):
    model.zero_grad()
    inputs = inputs.detach().requires_grad_()
    out = checkpoint(model, inputs, use_reentrant=False) if checkpointed else model(inputs)
    (out * out).sum().backward()
    return [inputs.grad] + [p.grad for p in model.parameters()]


@pytest.mark.task("14.1")
def test_gradients_equal_those_without_checkpoint():
    model = small_mlp()
    inputs = torch.randn(4, 5, dtype=torch.float64)
    for plain, recomputed in zip(gradients(model, inputs, False),
                                 gradients(model, inputs, True)):
        np.testing.assert_allclose(recomputed.numpy(), plain.numpy(), rtol=1e-13)


@pytest.mark.task("14.1")
def test_the_function_runs_once_more_however_many_tensors_it_saved():
    calls = []

    def f(a):
        calls.append(1)
        return (a.sin() * a.exp()).tanh()       # several ops, each saving tensors

    a = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
    checkpoint(f, a, use_reentrant=False).sum().backward()
    assert len(calls) == 2
    s, e = np.sin(a.detach().numpy()), np.exp(a.detach().numpy())
    expected = (1 - np.tanh(s * e) ** 2) * (np.cos(a.detach().numpy()) * e + s * e)
    # 1 - tanh**2 near tanh = 1 loses digits: a last-bit difference in sin, exp or tanh
    # (another CPU's, or make test PERTURB=ulp) moves the third value by about 4e-11
    np.testing.assert_allclose(a.grad.numpy(), expected, rtol=1e-9)


@pytest.mark.task("14.1")
def test_dropout_is_recomputed_with_the_same_mask():
    torch.manual_seed(0)
    inputs = torch.randn(60, dtype=torch.float64, requires_grad=True)
    out = checkpoint(lambda a: torch.nn.functional.dropout(a * 3, 0.5), inputs,
                     use_reentrant=False)
    out.sum().backward()
    kept = out.detach().numpy() != 0
    np.testing.assert_array_equal(inputs.grad.numpy(), np.where(kept, 6.0, 0.0))


@pytest.mark.task("14.1")
def test_the_recomputation_is_freed_as_soon_as_backward_is_done():
    # The recomputation's graph is thrown away: its ops save nothing in it (the catching
    # pack hook returns None).  A pack hook that returns the tensor makes every op that
    # saves its own output (tanh, exp, sigmoid) a cycle, output -> grad_fn -> output,
    # which only the garbage collector frees: each checkpointed block's recomputation
    # then stays in memory after backward, and a checkpoint can cost more than none.
    outputs = []

    def f(a):
        out = (a.sin() * a.exp()).tanh()        # tanh and exp save their outputs
        outputs.append(weakref.ref(out))
        return out

    a = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        checkpoint(f, a, use_reentrant=False).sum().backward()
        assert len(outputs) == 2                # the first run and the recomputation
        assert outputs[1]() is None, (
            "the recomputed output is still alive after backward: the catching pack "
            "hook of _recompute must keep nothing in the recomputed graph (return None)")
    finally:
        if was_enabled:
            gc.enable()


@pytest.mark.task("14.1")
def test_a_second_backward_recomputes_again():
    # PyTorch 2.13: with retain_graph=True a second backward through a checkpoint gets
    # the same gradients again (the saved tensors are recomputed once more)
    calls = []

    def f(a):
        calls.append(1)
        return a.exp().sin()

    a = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
    out = checkpoint(f, a, use_reentrant=False).sum()
    out.backward(retain_graph=True)
    first = a.grad.clone()
    out.backward()
    e = np.exp(a.detach().numpy())
    np.testing.assert_allclose(first.numpy(), np.cos(e) * e, rtol=1e-13)
    np.testing.assert_allclose(a.grad.numpy(), 2 * first.numpy(), rtol=1e-13)
    assert len(calls) == 3              # the forward and one recomputation per backward


@pytest.mark.task("14.1")
def test_context_fn_is_called_once_and_its_second_context_wraps_the_recomputation():
    # PyTorch 2.13 calls context_fn once, in forward: its first context wraps the
    # function's run, its second each recomputation
    entered = []

    class Note:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            entered.append(self.name)

        def __exit__(self, *exc):
            return False

    made = []

    def context_fn():
        made.append(1)
        return Note("forward"), Note("recompute")

    a = torch.tensor([0.3, -1.2], dtype=torch.float64, requires_grad=True)
    out = checkpoint(lambda t: t.sin(), a, use_reentrant=False, context_fn=context_fn)
    assert (len(made), entered) == (1, ["forward"])
    out.sum().backward()
    assert (len(made), entered) == (1, ["forward", "recompute"])
