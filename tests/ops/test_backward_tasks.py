"""The backward of chapter 6's built-in Functions, checked against derivatives written
out with numpy: sigmoid, a tensor to the power of a tensor, div, a tensor to the power of
a number, mm, sum and mean (classroom tasks 6.1-6.6), and gradcheck's numerical Jacobian
(task 6.7).  Mul's backward is given code (chapters 3-5 multiply tensors): its tests
here carry no task.

Each gradient is taken twice: with grad mode off during backward (``backward()``, the
usual case) and on (``create_graph=True``, where the gradient is itself recorded).
Operands are broadcast against each other, so that a gradient must be summed back to its
operand's shape.
"""

import numpy as np
import pytest

import minitorch
from minitorch.autograd import Function, grad, gradcheck
from minitorch.autograd.gradcheck import _numerical_jacobians

pytestmark = pytest.mark.chapter6

CREATE_GRAPH = pytest.mark.parametrize("create_graph", [False, True], ids=["plain", "create_graph"])

RNG = np.random.default_rng(6)
A = RNG.normal(size=(2, 3))
ROW = RNG.normal(size=(3,))
COLUMN = RNG.normal(size=(2, 1))
SEED = RNG.normal(size=(2, 3))


def leaf(values):
    return minitorch.tensor(np.array(values, dtype=np.float64), requires_grad=True)


def gradients(f, arrays, seed, create_graph):
    """d(sum(seed * f(*inputs))) / d inputs, as numpy arrays (None for no gradient)."""
    inputs = [leaf(a) for a in arrays]
    out = f(*inputs)
    found = grad(out, inputs, minitorch.tensor(seed), create_graph=create_graph,
                 allow_unused=True)
    if not create_graph:
        assert not any(g is not None and g.requires_grad for g in found)
    return [None if g is None else g.detach().numpy() for g in found]


def close(got, expected):
    assert got.shape == np.shape(expected)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


# ----- 6.1: sigmoid, through its output --------------------------------------------------
def sigmoid(x):
    return 1 / (1 + np.exp(-x))


@pytest.mark.task("6.1")
@CREATE_GRAPH
def test_sigmoid_backward_is_y_times_one_minus_y(create_graph):
    gx, = gradients(lambda x: x.sigmoid(), [A], SEED, create_graph)
    s = sigmoid(A)
    close(gx, SEED * s * (1 - s))


@pytest.mark.task("6.1")
def test_sigmoid_backward_at_large_inputs_is_finite():
    x = leaf([-800.0, -30.0, 0.0, 30.0, 800.0])
    x.sigmoid().sum().backward()
    assert np.isfinite(x.grad.numpy()).all()
    close(x.grad.numpy()[1:4], [sigmoid(-30) * sigmoid(30), 0.25, sigmoid(-30) * sigmoid(30)])


@pytest.mark.task("6.1")
def test_sigmoid_second_derivative():
    x = leaf(A)
    g, = grad(x.sigmoid().sum(), [x], create_graph=True)
    g2, = grad(g.sum(), [x])
    s = sigmoid(A)
    close(g2.numpy(), s * (1 - s) * (1 - 2 * s))


@pytest.mark.task("6.1")
def test_sigmoid_records_its_own_backward_node_for_double_backward():
    x = leaf(A)
    g, = grad(x.sigmoid().sum(), [x], create_graph=True)
    assert g.grad_fn is not None and g.grad_fn.name() == "SigmoidBackwardBackward0"


# ----- mul: given code (chapters 3-5 multiply tensors), checked here all the same ---------
@CREATE_GRAPH
@pytest.mark.parametrize("b", [A * 2 - 1, ROW, COLUMN], ids=["same shape", "row", "column"])
def test_mul_backward(create_graph, b):
    ga, gb = gradients(lambda x, y: x * y, [A, b], SEED, create_graph)
    close(ga, SEED * b)
    close(gb, (SEED * A).sum(axis=0) if b.shape == (3,) else
          (SEED * A).sum(axis=1, keepdims=True) if b.shape == (2, 1) else SEED * A)


def test_mul_gradient_only_for_the_input_that_requires_it():
    a = leaf(A)
    b = minitorch.tensor(ROW)
    (a * b).backward(minitorch.tensor(SEED))
    close(a.grad.numpy(), SEED * ROW)
    assert b.grad is None


def test_mul_of_a_tensor_by_itself_counts_both_factors():
    x = leaf(ROW)
    (x * x).sum().backward()
    close(x.grad.numpy(), 2 * ROW)


# ----- 6.2: a tensor to the power of a tensor --------------------------------------------
@pytest.mark.task("6.2")
@CREATE_GRAPH
@pytest.mark.parametrize("base, exponent", [(A * A + 0.5, A), (A * A + 0.5, ROW),
                                            (COLUMN * COLUMN + 0.5, A)],
                         ids=["same shape", "row exponent", "column base"])
def test_pow_backward(create_graph, base, exponent):
    ga, gb = gradients(lambda x, y: x ** y, [base, exponent], SEED, create_graph)
    full_a, full_b = np.broadcast_arrays(base, exponent)
    da = SEED * full_b * full_a ** (full_b - 1)
    db = SEED * full_a ** full_b * np.log(full_a)
    close(ga, da.sum(axis=1, keepdims=True) if base.shape == (2, 1) else da)
    close(gb, db.sum(axis=0) if exponent.shape == (3,) else db)


@pytest.mark.task("6.2")
def test_pow_gradient_only_for_the_input_that_requires_it():
    a = leaf(A * A + 0.5)
    b = minitorch.tensor(ROW)
    (a ** b).backward(minitorch.tensor(SEED))
    close(a.grad.numpy(), SEED * ROW * (A * A + 0.5) ** (ROW - 1))
    assert b.grad is None
    x = minitorch.tensor(A * A + 0.5)
    e = leaf(ROW)
    (x ** e).backward(minitorch.tensor(SEED))
    close(e.grad.numpy(), (SEED * (A * A + 0.5) ** ROW * np.log(A * A + 0.5)).sum(axis=0))
    assert x.grad is None


@pytest.mark.task("6.2")
def test_pow_backward_at_zero_takes_pytorchs_values():
    # PyTorch 2.13: a = [0, 0, 2, 0, -2, 3], b = [0, 2, 0, -1, 2, 0.5] (float32),
    # (a ** b).sum().backward() gives these two gradients.
    a = minitorch.tensor([0.0, 0.0, 2.0, 0.0, -2.0, 3.0], requires_grad=True)
    b = minitorch.tensor([0.0, 2.0, 0.0, -1.0, 2.0, 0.5], requires_grad=True)
    (a ** b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [0.0, 0.0, 0.0, -np.inf, -4.0, 0.28867513],
                               rtol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), [0.0, 0.0, 0.69314718, -np.inf, np.nan,
                                                1.9028523], rtol=1e-6)


def test_pow_backward_takes_the_slopes_in_the_results_dtype():
    # PyTorch 2.13: a float32 base to a float64 exponent is float64; the base's gradient
    # comes back float32 (3.0, 12.0), the exponent's float64.  (No task: the dtypes are
    # given code, and the cast of a gradient to its input's dtype is task 6.8's.)
    a = minitorch.tensor([1.5, 2.0], dtype=minitorch.float32, requires_grad=True)
    b = minitorch.tensor([2.0, 3.0], dtype=minitorch.float64, requires_grad=True)
    y = a ** b
    y.sum().backward()
    assert y.dtype == minitorch.float64
    assert a.grad.dtype == minitorch.float32 and b.grad.dtype == minitorch.float64
    np.testing.assert_allclose(a.grad.numpy(), [3.0, 12.0], rtol=1e-7)
    np.testing.assert_allclose(b.grad.numpy(), [1.5 ** 2 * np.log(1.5), 8 * np.log(2.0)],
                               rtol=1e-12)


@pytest.mark.task("6.2")
def test_pow_of_a_tensor_by_itself_counts_both_slopes():
    x = leaf(ROW * ROW + 0.5)
    (x ** x).sum().backward()
    v = ROW * ROW + 0.5
    close(x.grad.numpy(), v ** v * (1 + np.log(v)))


# ----- 6.3: div ------------------------------------------------------------------------
DIVISORS = [A * A + 0.5, ROW * ROW + 0.5, COLUMN * COLUMN + 0.5]


@pytest.mark.task("6.3")
@CREATE_GRAPH
@pytest.mark.parametrize("b", DIVISORS, ids=["same shape", "row", "column"])
def test_div_backward(create_graph, b):
    ga, gb = gradients(lambda x, y: x / y, [A, b], SEED, create_graph)
    close(ga, SEED / b)
    full = -SEED * A / (b * b)
    close(gb, full.sum(axis=0) if b.shape == (3,) else
          full.sum(axis=1, keepdims=True) if b.shape == (2, 1) else full)


@pytest.mark.task("6.3")
@CREATE_GRAPH
def test_div_of_a_broadcast_numerator(create_graph):
    b = A * A + 0.5
    ga, gb = gradients(lambda x, y: x / y, [ROW, b], SEED, create_graph)
    close(ga, (SEED / b).sum(axis=0))
    close(gb, -SEED * ROW / (b * b))


# ----- 6.4: pow by a number ------------------------------------------------------------
@pytest.mark.task("6.4")
@CREATE_GRAPH
@pytest.mark.parametrize("e", [2, 3, 0.5, -1.5, 1])
def test_pow_by_a_number(create_graph, e):
    base = A * A + 0.25
    gx, = gradients(lambda x: x ** e, [base], SEED, create_graph)
    close(gx, SEED * e * base ** (e - 1))


@pytest.mark.task("6.4")
def test_pow_second_derivative():
    x = leaf(ROW * ROW + 0.5)
    g, = grad((x ** 3).sum(), [x], create_graph=True)
    g2, = grad(g.sum(), [x])
    close(g2.numpy(), 6 * (ROW * ROW + 0.5))


# ----- 6.5: matrix product -------------------------------------------------------------
@pytest.mark.task("6.5")
@CREATE_GRAPH
@pytest.mark.parametrize("n, k, m", [(2, 3, 4), (4, 3, 2), (3, 3, 3), (1, 5, 1)])
def test_mm_backward(create_graph, n, k, m):
    rng = np.random.default_rng(n * 100 + k * 10 + m)
    a, b, seed = rng.normal(size=(n, k)), rng.normal(size=(k, m)), rng.normal(size=(n, m))
    ga, gb = gradients(lambda x, y: x.mm(y), [a, b], seed, create_graph)
    close(ga, seed @ b.T)
    close(gb, a.T @ seed)


@pytest.mark.task("6.5")
def test_matmul_operator_of_matrices_and_only_the_weight_requires_grad():
    rng = np.random.default_rng(65)
    x, w = minitorch.tensor(rng.normal(size=(5, 3))), leaf(rng.normal(size=(3, 2)))
    (x @ w).sum().backward()
    close(w.grad.numpy(), x.numpy().T @ np.ones((5, 2)))
    assert x.grad is None


@pytest.mark.task("6.5")
def test_mm_second_derivative_through_the_gradient():
    a, b = leaf(A), leaf(A.T.copy())
    ga, = grad((a.mm(b) ** 2).sum(), [a], create_graph=True)      # 2 (A B) B^T
    gb, = grad(ga.sum(), [b])
    # d/dB of 1^T (A B B^T) 1 = A^T 1 1^T B + 1 1^T A B (the two places B appears)
    n, k = A.shape
    B = A.T
    expected = 2 * (A.T @ np.ones((n, k)) @ B + np.ones((k, n)) @ A @ B)
    close(gb.numpy(), expected)


# ----- 6.6: sum and mean ---------------------------------------------------------------
@pytest.mark.task("4.2")
@CREATE_GRAPH
def test_sum_of_everything(create_graph):
    gx, = gradients(lambda x: x.sum(), [A], np.array(1.5), create_graph)
    close(gx, np.full(A.shape, 1.5))


@pytest.mark.task("6.6")
@CREATE_GRAPH
@pytest.mark.parametrize("dims, keepdim", [(0, False), (1, False), (1, True), ((0, 2), False),
                                            ((0, 2), True), (-1, False)])
def test_sum_over_dims(create_graph, dims, keepdim):
    x = RNG.normal(size=(2, 3, 4))
    out_shape = np.sum(x, axis=dims, keepdims=keepdim).shape
    seed = np.arange(1.0, 1.0 + np.prod(out_shape)).reshape(out_shape)
    gx, = gradients(lambda t: t.sum(dims, keepdim=keepdim), [x], seed, create_graph)
    kept = seed if keepdim else np.expand_dims(seed, dims)
    close(gx, np.broadcast_to(kept, x.shape))


@pytest.mark.task("6.6")
@CREATE_GRAPH
@pytest.mark.parametrize("shape", [(2, 3), (4,), (2, 3, 5), ()])
def test_mean_of_everything(create_graph, shape):
    x = RNG.normal(size=shape)
    gx, = gradients(lambda t: t.mean(), [x], np.array(2.0), create_graph)
    close(gx, np.full(shape, 2.0 / max(x.size, 1)))


@pytest.mark.task("6.6")
@CREATE_GRAPH
@pytest.mark.parametrize("dims, keepdim", [(0, False), (1, True), ((0, 2), False), (-1, False)])
def test_mean_over_dims(create_graph, dims, keepdim):
    x = RNG.normal(size=(2, 3, 4))
    out_shape = np.mean(x, axis=dims, keepdims=keepdim).shape
    seed = np.arange(1.0, 1.0 + np.prod(out_shape)).reshape(out_shape)
    gx, = gradients(lambda t: t.mean(dims, keepdim=keepdim), [x], seed, create_graph)
    kept = seed if keepdim else np.expand_dims(seed, dims)
    count = x.size // int(np.prod(out_shape))
    close(gx, np.broadcast_to(kept, x.shape) / count)


@pytest.mark.task("6.6")
def test_sum_and_mean_second_derivative():
    x = leaf(A)
    g, = grad((x.mean() * x.sum()), [x], create_graph=True)
    g2, = grad(g.sum(), [x])
    close(g2.numpy(), np.full(A.shape, 2 * A.size / A.size))


# ----- 6.7: gradcheck's numerical Jacobian ---------------------------------------------
class Cube(Function):
    """x ** 3 with a backward that is right, or off by ``factor``."""
    factor = 1.0

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @classmethod
    def backward(cls, ctx, g):
        x, = ctx.saved_tensors
        return g * 3 * x * x * cls.factor


class WrongCube(Cube):
    factor = 1.01


@pytest.mark.task("6.7")
def test_numerical_jacobian_of_a_product():
    x = leaf([1.0, 2.0, -0.5])
    y = leaf([3.0, -1.0, 4.0])
    (jx,), (jy,) = _numerical_jacobians(lambda a, b: a * b + a ** 3, (x, y), [0, 1], 1e-6)
    np.testing.assert_allclose(jx, np.diag([3.0, -1.0, 4.0] + 3 * np.array([1.0, 2.0, -0.5]) ** 2), atol=1e-6)
    np.testing.assert_allclose(jy, np.diag([1.0, 2.0, -0.5]), atol=1e-6)


@pytest.mark.task("6.7")
def test_numerical_jacobian_rows_are_inputs_columns_are_outputs():
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    (j,), = _numerical_jacobians(lambda a: a.sum(0) * 2, (x,), [0], 1e-6)
    assert j.shape == (4, 2)
    np.testing.assert_allclose(j, [[2, 0], [0, 2], [2, 0], [0, 2]], atol=1e-6)


@pytest.mark.task("6.7")
def test_gradcheck_passes_a_right_backward_and_leaves_the_inputs_alone():
    x = leaf([0.3, -1.2, 2.0])
    before = x.tolist()
    assert gradcheck(Cube.apply, (x,))
    assert x.tolist() == before
    a, b = leaf(A), leaf(A.T.copy())
    assert gradcheck(lambda p, q: (p.mm(q) * 2).sigmoid(), (a, b))


@pytest.mark.task("6.7")
def test_gradcheck_catches_a_backward_off_by_one_percent():
    x = leaf([0.3, -1.2, 2.0])
    assert gradcheck(WrongCube.apply, (x,), raise_exception=False) is False


@pytest.mark.task("6.5")
@pytest.mark.parametrize("create_graph", [False, True], ids=["plain", "create_graph"])
def test_addmm_backward_as_linear_uses_it(create_graph):
    """``addmm(bias, a, w)`` (what ``nn.Linear`` runs): the bias gets the gradient summed
    over the rows, ``a`` gets ``grad @ w.T``, ``w`` gets ``a.T @ grad`` (PyTorch 2.13)."""
    f64 = minitorch.float64
    b = minitorch.tensor([0.5, -1.0], dtype=f64, requires_grad=True)
    a = minitorch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=f64, requires_grad=True)
    w = minitorch.tensor([[1.0, 0.0], [0.0, 1.0], [2.0, -1.0]], dtype=f64, requires_grad=True)
    y = minitorch.addmm(b, a, w)
    assert y.grad_fn.name() == "AddmmBackward0"
    g = minitorch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=f64)
    gb, ga, gw = minitorch.autograd.grad(y, [b, a, w], g, create_graph=create_graph)
    assert gb.tolist() == [4.0, 6.0]
    assert ga.tolist() == [[1.0, 2.0, 0.0], [3.0, 4.0, 2.0]]
    assert gw.tolist() == [[13.0, 18.0], [17.0, 24.0], [21.0, 30.0]]
    assert ga.requires_grad == gw.requires_grad == create_graph
