"""Custom autograd.Function: the whole ctx API, checked against PyTorch's behaviour."""

import numpy as np
import pytest

import minitorch
from minitorch.autograd import Function, gradcheck
from minitorch.autograd.function import once_differentiable

from tests.seed_code import Exp    # the seed's Exp

pytestmark = pytest.mark.chapter6


@pytest.mark.task("6.8")
def test_custom_function_node_is_named_after_it():
    x = minitorch.tensor([0.5, 1.0], requires_grad=True)
    y = Exp.apply(x)
    assert y.grad_fn.name() == "ExpBackward"
    assert type(y.grad_fn).__name__ == "ExpBackward"
    assert repr(y).endswith("grad_fn=<ExpBackward>)")
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.5, 1.0]), rtol=1e-6)


@pytest.mark.task("6.8")
def test_ctx_is_the_grad_fn_and_keeps_attributes():
    class Scale(Function):
        @staticmethod
        def forward(ctx, t, k):
            ctx.k = k
            return t * k

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None

    x = minitorch.tensor([1.0], requires_grad=True)
    y = Scale.apply(x, 4.0)
    assert y.grad_fn.k == 4.0
    y.sum().backward()
    assert x.grad.tolist() == [4.0]


@pytest.mark.task("6.8")
def test_only_tensor_arguments_appear_in_next_functions():
    class Scale(Function):
        @staticmethod
        def forward(ctx, t, k):
            return t * k

        @staticmethod
        def backward(ctx, g):
            return g, None

    x = minitorch.tensor([1.0], requires_grad=True)
    y = Scale.apply(x, 2.0)
    assert len(y.grad_fn.next_functions) == 1
    assert y.grad_fn.next_functions[0][0].variable is x


@pytest.mark.task("6.8")
def test_forward_runs_with_grad_disabled():
    seen = []

    class Probe(Function):
        @staticmethod
        def forward(ctx, t):
            seen.append(minitorch.is_grad_enabled())
            out = t * 2
            seen.append(out.requires_grad)
            return out

        @staticmethod
        def backward(ctx, g):
            return g * 2

    Probe.apply(minitorch.ones(1, requires_grad=True))
    assert seen == [False, False]


@pytest.mark.task("6.8")
def test_needs_input_grad():
    seen = []

    class Probe(Function):
        @staticmethod
        def forward(ctx, a, b, k):
            seen.append(ctx.needs_input_grad)
            return a * b * k

        @staticmethod
        def backward(ctx, g):
            return None, g, None

    a = minitorch.ones(2, requires_grad=True)
    Probe.apply(a, minitorch.ones(2), 3)
    assert seen == [(True, False, False)]


@pytest.mark.task("6.8")
def test_wrong_number_of_gradients():
    class TooFew(Function):
        @staticmethod
        def forward(ctx, t, c):
            return t * c

        @staticmethod
        def backward(ctx, g):
            return g

    x = minitorch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"returned an incorrect number of gradients \(expected 2, got 1\)"):
        TooFew.apply(x, 2.0).sum().backward()


@pytest.mark.task("6.8")
def test_extra_none_gradients_are_allowed():
    class Extra(Function):
        @staticmethod
        def forward(ctx, t, c):
            return t * c

        @staticmethod
        def backward(ctx, g):
            return g * 2, None, None

    x = minitorch.ones(2, requires_grad=True)
    Extra.apply(x, 2.0).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


@pytest.mark.task("6.8")
def test_gradient_of_wrong_shape_is_rejected():
    class Bad(Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return minitorch.ones(3)

    x = minitorch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"returned an invalid gradient at index 0 - got \[3\] but "
                                           r"expected shape compatible with \[2\]"):
        Bad.apply(x).sum().backward()


@pytest.mark.task("6.8")
def test_broadcastable_gradient_is_summed_to_input_shape():
    class Wide(Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return minitorch.ones(3, 2)

    x = minitorch.ones(2, requires_grad=True)
    Wide.apply(x).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


@pytest.mark.task("6.8")
def test_save_for_backward_only_takes_tensors():
    class Saver(Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t, 3.0)
            return t * 2

    with pytest.raises(TypeError, match="save_for_backward can only save"):
        Saver.apply(minitorch.ones(1, requires_grad=True))


@pytest.mark.task("6.8")
def test_save_for_forward_takes_tensors_or_none_only():
    """PyTorch 2.13 refuses a number with an AssertionError, with or without forward mode."""
    class Keeper(Function):
        @staticmethod
        def forward(ctx, t, extra):
            ctx.save_for_forward(t, None) if extra is None else ctx.save_for_forward(extra)
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, None

    x = minitorch.ones(2, requires_grad=True)
    assert Keeper.apply(x, None).tolist() == [2.0, 2.0]
    with pytest.raises(AssertionError, match="save_for_forward expects all arguments to be "
                       "tensors"):
        Keeper.apply(x, 3)


@pytest.mark.task("6.8")
def test_mark_dirty_bumps_version_and_rebases_graph():
    class Double(Function):
        @staticmethod
        def forward(ctx, a):
            a.mul_(2)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, g):
            return g * 2

    a = minitorch.tensor([1.0, 2.0], requires_grad=True)
    b = a.clone()
    v0 = b._version
    c = Double.apply(b)
    assert c is b
    assert b._version - v0 == 2            # the inner mul_ and mark_dirty, as in PyTorch
    assert b.grad_fn.name() == "DoubleBackward"
    c.sum().backward()
    assert a.grad.tolist() == [2.0, 2.0]


@pytest.mark.task("6.8")
def test_mark_dirty_on_leaf_requiring_grad_raises():
    class Touch(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad has been used in an in-place"):
        Touch.apply(minitorch.ones(1, requires_grad=True))


@pytest.mark.task("6.8")
def test_mark_non_differentiable_and_zero_gradient_for_it():
    seen = []

    class WithIndex(Function):
        @staticmethod
        def forward(ctx, a):
            idx = minitorch.tensor([1, 0])
            out = a * 1
            ctx.mark_non_differentiable(idx)
            return out, idx

        @staticmethod
        def backward(ctx, g, g_idx):
            seen.append(g_idx.tolist())
            return g

    a = minitorch.ones(2, requires_grad=True)
    out, idx = WithIndex.apply(a)
    assert out.requires_grad and not idx.requires_grad
    out.sum().backward()
    assert seen == [[0, 0]]


@pytest.mark.task("6.8")
@pytest.mark.parametrize("materialize, expected", [(True, [0.0, 0.0]), (False, None)])
def test_set_materialize_grads(materialize, expected):
    seen = []

    class Two(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.set_materialize_grads(materialize)
            return a * 2, a * 3

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append(None if g2 is None else g2.tolist())
            return g1 * 2

    a = minitorch.ones(2, requires_grad=True)
    p, _ = Two.apply(a)
    p.sum().backward()
    assert seen == [expected]


@pytest.mark.task("6.8")
def test_returning_an_input_unchanged_makes_a_new_tensor():
    class Identity(Function):
        @staticmethod
        def forward(ctx, a):
            return a

        @staticmethod
        def backward(ctx, g):
            return g

    a = minitorch.ones(2, requires_grad=True)
    b = Identity.apply(a)
    assert b is not a and b.grad_fn.name() == "IdentityBackward" and a.is_leaf


@pytest.mark.task("6.8")
def test_once_differentiable_runs_without_grad_and_blocks_double_backward():
    modes = []

    class Square(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a ** 2

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            a, = ctx.saved_tensors
            modes.append(minitorch.is_grad_enabled())
            return g * 2 * a

    a = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = Square.apply(a)
    g_out = minitorch.ones(2, requires_grad=True)
    ga, = minitorch.autograd.grad(y, a, g_out, create_graph=True)
    assert modes == [False]
    assert ga.requires_grad
    with pytest.raises(RuntimeError, match="marked with @once_differentiable"):
        ga.sum().backward()


@pytest.mark.task("6.8")
def test_apply_under_no_grad_records_nothing():
    x = minitorch.ones(2, requires_grad=True)
    with minitorch.no_grad():
        y = Exp.apply(x)
    assert not y.requires_grad and y.grad_fn is None


def test_instantiating_a_function_warns():
    with pytest.warns(DeprecationWarning, match="should not be instantiated"):
        Exp()


def test_gradcheck_passes_and_fails():
    x = minitorch.tensor([0.5, 1.0], dtype=minitorch.float64, requires_grad=True)
    assert gradcheck(Exp.apply, (x,))

    class Wrong(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3

    with pytest.raises(minitorch.autograd.GradcheckError, match="Jacobian mismatch for output 0 "
                                                                "with respect to input 0"):
        gradcheck(Wrong.apply, (x,))
    assert issubclass(minitorch.autograd.GradcheckError, RuntimeError)
    assert gradcheck(Wrong.apply, (x,), raise_exception=False) is False


def test_gradcheck_warns_for_float32():
    x = minitorch.tensor([0.5], requires_grad=True)
    with pytest.warns(UserWarning, match="not a double precision"):
        gradcheck(Exp.apply, (x,), eps=1e-2, atol=1e-2, rtol=1e-2)


def test_gradgradcheck_catches_a_wrong_double_backward():
    class CubeWrongSecond(Function):
        """Right first derivative, but backward uses a detached input, so the
        second derivative misses a term."""
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a ** 3

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return g * 3 * a.detach() ** 2

    x = minitorch.tensor([0.7, 1.3], dtype=minitorch.float64, requires_grad=True)
    assert gradcheck(CubeWrongSecond.apply, (x,))
    assert minitorch.autograd.gradgradcheck(CubeWrongSecond.apply, (x,), raise_exception=False) is False
    assert minitorch.autograd.gradgradcheck(lambda t: t ** 3, (x,))


@pytest.mark.task("6.8")
def test_mark_non_differentiable_on_a_returned_input():
    class PassBoth(Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.mark_non_differentiable(b)
            return a, b

        @staticmethod
        def backward(ctx, ga, gb):
            return ga, gb

    a = minitorch.ones(2, requires_grad=True)
    b = minitorch.ones(2, requires_grad=True)
    x, y = PassBoth.apply(a, b)
    assert x.requires_grad and not y.requires_grad


@pytest.mark.task("6.8")
def test_needs_input_grad_is_reported_under_no_grad_too():
    seen = []

    class Probe(Function):
        @staticmethod
        def forward(ctx, a, b, k):
            seen.append(ctx.needs_input_grad)
            return a * k

        @staticmethod
        def backward(ctx, g):
            return g, None, None

    with minitorch.no_grad():
        out = Probe.apply(minitorch.ones(2, requires_grad=True), minitorch.ones(2), 3.0)
    assert seen == [(True, False, False)] and not out.requires_grad


@pytest.mark.task("6.8")
def test_saved_non_differentiable_output_comes_back_without_graph():
    class WithIndex(Function):
        @staticmethod
        def forward(ctx, a):
            idx = minitorch.tensor([1.0, 0.0])
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(idx)
            return a * 2, idx

        @staticmethod
        def backward(ctx, g, g_idx):
            idx, = ctx.saved_tensors
            assert not idx.requires_grad and idx.grad_fn is None
            return g * 2

    a = minitorch.ones(2, requires_grad=True)
    out, idx = WithIndex.apply(a)
    out.sum().backward()
    assert a.grad.tolist() == [2.0, 2.0]


@pytest.mark.task("6.8")
def test_tensors_inside_containers_are_not_graph_inputs():
    """PyTorch 2.13: only tensors passed directly to apply are tracked.  A tensor inside a
    list or dict gets no edge and no gradient; a Function whose tensors all sit in a
    container records nothing (its result does not require grad)."""
    class SumList(Function):
        @staticmethod
        def forward(ctx, xs):
            SumList.flags = ctx.needs_input_grad
            return xs[0] + xs[1]

        @staticmethod
        def backward(ctx, g):
            return None

    class Scaled(Function):
        @staticmethod
        def forward(ctx, x, extras):
            return x * extras["scale"]

        @staticmethod
        def backward(ctx, g):
            return g * 2, None

    a = minitorch.ones(2, requires_grad=True)
    b = minitorch.ones(2, requires_grad=True)
    out = SumList.apply([a, b])
    assert SumList.flags == (False,)
    assert out.grad_fn is None and not out.requires_grad

    x = minitorch.ones(2, requires_grad=True)
    scale = minitorch.tensor(2.0, requires_grad=True)
    y = Scaled.apply(x, {"scale": scale})
    assert len(y.grad_fn.next_functions) == 1
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0] and scale.grad is None


@pytest.mark.task("6.8")
def test_gradient_for_a_tensor_that_needs_none_is_ignored():
    """PyTorch 2.13 accepts (and drops) a gradient returned for a tensor argument that does
    not require grad; only arguments that are no tensor must get None."""
    class Both(Function):
        @staticmethod
        def forward(ctx, x, w):
            return x * w

        @staticmethod
        def backward(ctx, g):
            return g * 2, g * 3

    x = minitorch.ones(2, requires_grad=True)
    w = minitorch.ones(2)
    Both.apply(x, w).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0] and w.grad is None


def test_once_differentiable_error_node_hangs_from_a_stand_in_leaf():
    """PyTorch 2.13: the Error node of a once-differentiable backward is linked to fresh
    leaves, not to the incoming gradients.  backward() reaches it and raises; autograd.grad
    for chosen inputs finds no path (unused input); gradgradcheck sees zeros and fails."""
    class CubeOnce(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        @once_differentiable
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return grad * 3 * x ** 2

    x = minitorch.tensor(2.0, requires_grad=True)
    d1, = minitorch.autograd.grad(CubeOnce.apply(x) ** 2, x, create_graph=True)
    assert d1.item() == 192.0 and d1.requires_grad and repr(d1).endswith("grad_fn=<Error>)")
    stand_in = d1.grad_fn.next_functions[0][0].variable
    assert len(d1.grad_fn.next_functions) == 1 and stand_in.is_leaf
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        minitorch.autograd.grad(d1, x)
    assert minitorch.autograd.grad(d1, x, allow_unused=True) == (None,)
    with pytest.raises(RuntimeError, match="marked with @once_differentiable"):
        d1.backward()
    assert x.grad is None
    x64 = minitorch.tensor([0.5, -1.0, 2.0], dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradgradcheck(CubeOnce.apply, (x64,), raise_exception=False) is False
