"""Autograd facts checked against PyTorch 2.13 (chapters 4 and 5): gradients at
points where a formula breaks down, what each node saves and in which order the
pack hooks see it, graphs that can be run only once, grad and inference modes,
double backward."""

import math

import numpy as np
import pytest

import minitorch as torch

pytestmark = pytest.mark.chapter5


# ----- gradients at singular points ---------------------------------------------------------

SINGULAR = [
    ("x ** tensor(0.) at 0", lambda x: x ** torch.tensor(0.0), [0.0, 1.0], [0.0, 0.0]),
    ("x ** x at 0", lambda x: x ** x, [0.0, 1.0], [0.0, 1.0]),
    ("x ** 0 at 0", lambda x: x ** 0, [0.0, 2.0], [0.0, 0.0]),
    ("x ** 2 at 0", lambda x: x ** 2, [0.0, 2.0], [0.0, 4.0]),
    ("x ** 0.5 at 0", lambda x: x ** 0.5, [0.0, 1.0], [math.inf, 0.5]),
    ("sqrt at 0", lambda x: x.sqrt(), [0.0, 1.0], [math.inf, 0.5]),
    ("0 ** x", lambda x: 0 ** x, [0.0, 2.0], [0.0, 0.0]),
    ("abs + relu + clamp at 0", lambda x: x.abs() + x.relu() + x.clamp(min=0), [0.0, 0.0],
     [1.0, 1.0]),
    ("clamp at its bounds", lambda x: x.clamp(-1, 0.5), [-2.0, -1.0, 0.5, 2.0],
     [0.0, 1.0, 1.0, 0.0]),
    ("max with ties", lambda x: x.max(), [3.0, 3.0, 1.0], [0.5, 0.5, 0.0]),
    ("max(dim) with ties", lambda x: x.max(0).values, [3.0, 3.0, 1.0], [1.0, 0.0, 0.0]),
    ("min with ties", lambda x: x.min(), [1.0, 3.0, 1.0], [0.5, 0.0, 0.5]),
]


@pytest.mark.parametrize("f, at, expected", [s[1:] for s in SINGULAR], ids=[s[0] for s in SINGULAR])
def test_gradient_at_a_singular_point(f, at, expected):
    x = torch.tensor(at, requires_grad=True)
    f(x).sum().backward()
    assert x.grad.tolist() == expected


def test_pow_gradients_with_zero_base_and_exponent():
    x = torch.tensor([0.0, 2.0], requires_grad=True)
    b = torch.tensor([0.0, 3.0], requires_grad=True)
    (x ** b).sum().backward()
    assert x.grad.tolist() == [0.0, 12.0]
    assert b.grad[0].item() == 0.0 and abs(b.grad[1].item() - 8 * math.log(2)) < 1e-5


def test_negative_number_base_to_a_tensor_power_has_nan_gradient():
    x = torch.tensor([-1.0, 2.0], requires_grad=True)
    ((-2.0) ** x).sum().backward()
    assert all(math.isnan(v) for v in x.grad.tolist())


def test_exponent_gradient_of_mixed_precision_pow_is_computed_in_float64():
    a = torch.tensor([1.5], requires_grad=True)
    b = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)
    (a ** b).sum().backward()
    assert abs(b.grad.item() - 1.5 * math.log(1.5)) < 1e-12


# ----- what nodes save ----------------------------------------------------------------------

def test_a_factor_that_needs_no_gradient_is_the_only_one_saved():
    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2)
    y = a * b
    assert y.grad_fn._saved_self is None and y.grad_fn._saved_other is b
    w = torch.ones(3, 2)
    z = torch.ones(2, 3, requires_grad=True) @ w
    assert z.grad_fn._saved_self is None and z.grad_fn._saved_mat2 is w


@pytest.mark.task("4.1")
def test_number_operands_are_saved_as_0d_tensors():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    other = (x * 3).grad_fn._saved_other
    assert isinstance(other, torch.Tensor) and other.ndim == 0 and other.item() == 3
    assert (x / 3).grad_fn._saved_other.item() == 3


def test_saved_non_tensor_attributes():
    x = torch.ones(2, 3, requires_grad=True)
    assert (x + 3).grad_fn._saved_alpha == 1
    assert (x - torch.ones(2, 3)).grad_fn._saved_alpha == 1
    s = x.sum(1).grad_fn
    assert (s._saved_dim, s._saved_keepdim, s._saved_self_sym_sizes) == ((1,), False, (2, 3))
    assert x.mean().grad_fn._saved_self_sym_sizes == (2, 3)
    assert x.view(3, 2).grad_fn._saved_self_sym_sizes == (2, 3)
    assert (x ** 3).grad_fn._saved_exponent == 3


def packed_shapes(build):
    """Shapes of the tensors the pack hook sees while ``build`` runs, then while backward unpacks them."""
    log = []

    def pack(t):
        log.append(("pack", list(t.shape)))
        return t

    def unpack(t):
        log.append(("unpack", list(t.shape)))
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        out = build()
    out.sum().backward()
    return log


PACK_ORDERS = [
    ("a * b", lambda a, b, m, n: a * b,
     [("pack", [1]), ("pack", [2]), ("unpack", [1]), ("unpack", [2])]),
    ("a * a", lambda a, b, m, n: a * a,
     [("pack", [2]), ("pack", [2]), ("unpack", [2]), ("unpack", [2])]),
    ("a * constant", lambda a, b, m, n: a * torch.ones(2), [("pack", [2]), ("unpack", [2])]),
    ("a.exp()", lambda a, b, m, n: a.exp(), [("pack", [2]), ("unpack", [2])]),
    ("a ** b", lambda a, b, m, n: a ** b, [("pack", [1]), ("pack", [2]), ("pack", [2]),
                                          ("unpack", [1]), ("unpack", [2]), ("unpack", [2])]),
    ("m @ n", lambda a, b, m, n: m @ n,
     [("pack", [3, 2]), ("pack", [2, 3]), ("unpack", [3, 2]), ("unpack", [2, 3])]),
]


@pytest.mark.parametrize("build, expected",
                         [p[1:] for p in PACK_ORDERS], ids=[p[0] for p in PACK_ORDERS])
def test_what_is_packed_and_in_which_order(build, expected):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0], requires_grad=True)
    m, n = torch.ones(2, 3, requires_grad=True), torch.ones(3, 2, requires_grad=True)
    assert packed_shapes(lambda: build(a, b, m, n)) == expected


def test_saved_tensors_hooks_context_value_is_none():
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t) as h:
        pass
    assert h is None


# ----- a graph runs once --------------------------------------------------------------------

ONCE = [
    ("(x * 2).sum()", lambda x: (x * 2).sum()),
    ("x * 1 then sum", lambda x: (x * 1).sum()),
    ("x.sum() * 3", lambda x: x.sum() * 3),
]


@pytest.mark.task("4.2")
@pytest.mark.parametrize("build", [o[1] for o in ONCE], ids=[o[0] for o in ONCE])
def test_a_graph_that_saved_values_runs_only_once(build):
    """A Python number operand counts as saved (``x * 2`` keeps the 2)."""
    x = torch.ones(2, requires_grad=True)
    y = build(x)
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


@pytest.mark.task("4.2")
def test_a_graph_that_saved_nothing_can_run_again():
    x = torch.ones(2, requires_grad=True)
    y = (x + 1).sum()
    y.backward()
    y.backward()
    assert x.grad.tolist() == [2.0, 2.0]


@pytest.mark.task("4.2")
def test_a_shared_subgraph_is_freed_by_the_first_backward():
    x = torch.ones(2, requires_grad=True)
    y = x * 1
    torch.autograd.grad((y * 2).sum(), x)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        torch.autograd.grad((y * 3).sum(), x)


# ----- grad modes and inference mode ----------------------------------------------------------

def test_set_grad_enabled_as_a_decorator_changes_nothing_until_called():
    @torch.set_grad_enabled(False)
    def f(x):
        return x * 2

    assert torch.is_grad_enabled()
    assert not f(torch.ones(2, requires_grad=True)).requires_grad
    assert torch.is_grad_enabled()


def test_no_grad_decorates_a_generator_function():
    def gen():
        yield torch.is_grad_enabled()
        yield torch.is_grad_enabled()

    g = torch.no_grad()(gen)()
    assert [next(g), torch.is_grad_enabled(), next(g)] == [False, True, False]


def test_views_made_under_no_grad_keep_requires_grad():
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        element, view = x[0], x.view(2)
    assert element.requires_grad and view.requires_grad and view.grad_fn is None


def test_inference_mode_false_inside_inference_mode():
    with torch.inference_mode():
        with torch.inference_mode(False):
            y = torch.ones(2)
            enabled = torch.is_inference_mode_enabled()
    assert not y.is_inference() and not enabled


def test_inference_mode_as_a_bare_decorator():
    @torch.inference_mode
    def f(x):
        return x * 2

    assert f(torch.ones(2)).is_inference()


def test_views_and_parameters_of_inference_tensors_are_inference_tensors():
    with torch.inference_mode():
        y = torch.ones(2)
        p = torch.nn.Parameter(torch.ones(2))
    assert y.view(2).is_inference() and p.is_inference()


def test_an_inference_tensor_may_enter_a_graph_that_does_not_save_it():
    with torch.inference_mode():
        y = torch.ones(2)
    x = torch.ones(2, requires_grad=True)
    (x + y).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


# ----- double backward ------------------------------------------------------------------------

def test_double_backward_nodes():
    x = torch.tensor(2.0, requires_grad=True)
    g1, = torch.autograd.grad(x.sigmoid(), x, create_graph=True)
    assert g1.grad_fn.name() == "SigmoidBackwardBackward0"
    y = torch.tensor([1.0, 2.0], requires_grad=True)
    r1, = torch.autograd.grad(y.relu().sum(), y, create_graph=True)
    assert r1.requires_grad and r1.grad_fn.name() == "ThresholdBackwardBackward0"
    assert torch.autograd.grad(r1.sum(), y)[0].tolist() == [0.0, 0.0]


@pytest.mark.parametrize("name, second, third", [
    ("sigmoid", [-0.03639618395557626, 0.05755679485232075],
     [-0.11410088523739327, -0.0963567562895846]),
    ("tanh", [-0.5331818782014544, 0.7268619813835874],
     [-1.3643061061011235, -0.5652092882597702]),
    ("relu", [0.0, 0.0], [0.0, 0.0])])
def test_third_derivatives_through_the_double_backward_nodes(name, second, third):
    # PyTorch 2.13: the second gradient's node is again the op's double backward
    # (SigmoidBackwardBackward0...), and differentiating it once more is exact.
    x = torch.tensor([0.3, -0.5], dtype=torch.float64, requires_grad=True)
    g1, = torch.autograd.grad(getattr(x, name)().sum(), x, create_graph=True)
    g2, = torch.autograd.grad(g1.sum(), x, create_graph=True)
    assert g2.grad_fn.name() == g1.grad_fn.name()
    g3, = torch.autograd.grad(g2.sum(), x)
    np.testing.assert_allclose(g2.tolist(), second, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(g3.tolist(), third, rtol=1e-12, atol=1e-15)


def test_first_gradient_accumulated_under_create_graph_is_a_copy():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor([3.0, 4.0], requires_grad=True)
    (x * y).sum().backward(create_graph=True)
    assert x.grad.requires_grad and x.grad.grad_fn.name() == "torch::autograd::CopyBackwards"


def test_grad_accepts_is_grads_batched():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    assert torch.autograd.grad((x * 2).sum(), x, is_grads_batched=False)[0].tolist() == [2.0, 2.0]
    rows, = torch.autograd.grad(x * x, x, torch.eye(2), is_grads_batched=True)
    assert rows.tolist() == [[2.0, 0.0], [0.0, 4.0]] and not rows.requires_grad
    m = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    batched, = torch.autograd.grad((m @ m).sin(), m, torch.ones(3, 2, 2).cumsum(0),
                                   is_grads_batched=True)
    np.testing.assert_allclose(batched[2].numpy(), [[-7.3482, -14.8006], [-12.8717, -35.8707]],
                               atol=1e-4)      # PyTorch 2.13's values


@pytest.mark.task("4.2")
def test_backward_with_extra_gradients_uses_the_first_ones():
    x = torch.ones(2, requires_grad=True)
    torch.autograd.backward([x * 2], [torch.ones(2), torch.ones(2)])
    assert x.grad.tolist() == [2.0, 2.0]
