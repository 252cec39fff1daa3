"""The fast paths stay correct (issue #5).  Tests never assert times: the
benchmarks in bench/ measure speed; these check that what the fast paths
skip is only what may be skipped.

* Under ``no_grad`` nothing is recorded: results have no ``grad_fn`` and do
  not require grad, even when the inputs do.
* When no input requires grad, no node is made, with grad mode on.
* float32 stays float32: through Python-number operands, every op the
  benchmarks use, and a whole MLP training step with ``nn`` and ``optim``
  (parameters, activations, loss and gradients).
"""

import warnings

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch import nn, optim
from minitorch.ops import number_like, number_operands

pytestmark = pytest.mark.chapter4


def _ops():
    """Named ops over (x, w, b, labels): a 4x3 input, a 2x3 weight, a bias and class indices."""
    return {
        "mul_scalar": lambda x, w, b, t: x * 0.5,
        "rmul_scalar": lambda x, w, b, t: 2.0 * x,
        "add_scalar": lambda x, w, b, t: x + 1,
        "sub_scalar": lambda x, w, b, t: 1.5 - x,
        "div_scalar": lambda x, w, b, t: x / 3,
        "pow_int": lambda x, w, b, t: x ** 2,
        "mul": lambda x, w, b, t: x * x,
        "exp": lambda x, w, b, t: x.exp(),
        "log": lambda x, w, b, t: (x * x + 1).log(),
        "sum": lambda x, w, b, t: x.sum(),
        "mean": lambda x, w, b, t: x.mean(),
        "matmul": lambda x, w, b, t: x @ w.t(),
        "linear": lambda x, w, b, t: F.linear(x, w, b),
        "relu": lambda x, w, b, t: F.relu(x),
        "cross_entropy": lambda x, w, b, t: F.cross_entropy(F.linear(x, w, b), t),
    }


OPS = _ops()


def _inputs(requires_grad):
    rng = np.random.default_rng(0)
    x = minitorch.tensor(rng.standard_normal((4, 3)).astype(np.float32), requires_grad=requires_grad)
    w = minitorch.tensor(rng.standard_normal((2, 3)).astype(np.float32), requires_grad=requires_grad)
    b = minitorch.tensor(rng.standard_normal(2).astype(np.float32), requires_grad=requires_grad)
    t = minitorch.tensor(np.array([0, 1, 1, 0]))
    return x, w, b, t


@pytest.mark.parametrize("name", OPS)
def test_no_graph_under_no_grad(name):
    x, w, b, t = _inputs(requires_grad=True)
    with minitorch.no_grad():
        y = OPS[name](x, w, b, t)
    assert y.grad_fn is None
    assert not y.requires_grad
    assert y.is_leaf


def test_no_graph_under_no_grad_for_a_whole_chain():
    x = minitorch.ones(16, requires_grad=True)
    with minitorch.no_grad():
        y = x
        for _ in range(25):
            y = (y * 0.999 + 0.001).exp().log()
    assert y.grad_fn is None and not y.requires_grad
    # x itself is untouched: it still requires grad, and grad mode is back on afterwards.
    assert x.requires_grad and minitorch.is_grad_enabled()
    z = (x * 2).sum()
    assert z.grad_fn is not None


@pytest.mark.parametrize("name", OPS)
def test_no_node_when_no_input_requires_grad(name):
    x, w, b, t = _inputs(requires_grad=False)
    assert minitorch.is_grad_enabled()
    y = OPS[name](x, w, b, t)
    assert y.grad_fn is None
    assert not y.requires_grad


def test_one_input_requiring_grad_is_enough_for_a_node():
    x, w, b, t = _inputs(requires_grad=False)
    w.requires_grad_()
    y = F.linear(x, w, b)
    assert y.grad_fn is not None and y.requires_grad
    y.sum().backward()
    assert w.grad is not None and x.grad is None and b.grad is None


@pytest.mark.parametrize("name", [n for n in OPS if n != "cross_entropy"])
def test_float32_stays_float32_through_each_op_and_its_backward(name):
    x, w, b, t = _inputs(requires_grad=True)
    y = OPS[name](x, w, b, t)
    assert y.dtype == minitorch.float32
    y.sum().backward()
    for leaf in (x, w, b):
        if leaf.grad is not None:
            assert leaf.grad.dtype == minitorch.float32, name


def test_float32_through_an_mlp_training_step():
    minitorch.manual_seed(0)
    model = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 4))
    optimizer = optim.SGD(model.parameters(), lr=0.1)
    rng = np.random.default_rng(0)
    x = minitorch.from_numpy(rng.standard_normal((8, 12)).astype(np.float32))
    labels = minitorch.from_numpy(rng.integers(0, 4, 8))
    for _ in range(2):
        optimizer.zero_grad()
        hidden = model[1](model[0](x))
        logits = model(x)
        loss = F.cross_entropy(logits, labels)
        loss.backward()
        optimizer.step()
        assert hidden.dtype == logits.dtype == loss.dtype == minitorch.float32
        for p in model.parameters():
            assert p.dtype == minitorch.float32
            assert p.grad.dtype == minitorch.float32
            assert p.grad._data.dtype == np.float32 and p._data.dtype == np.float32


def test_float64_stays_float64():
    x = minitorch.tensor(np.ones(3), requires_grad=True)
    y = (x * 0.5 + 1).exp().log() ** 2
    y.sum().backward()
    assert y.dtype == minitorch.float64 and x.grad.dtype == minitorch.float64


@pytest.mark.parametrize("a_grad, b_grad", [(True, False), (False, True), (True, True)])
def test_built_in_nodes_see_which_inputs_need_a_gradient(a_grad, b_grad):
    """``BuiltinFunction.apply`` hands nodes shared ``needs_input_grad`` tuples for one and
    two arguments: each node still sees its own inputs' flags."""
    a = minitorch.ones(3, requires_grad=a_grad)
    b = minitorch.ones(3, requires_grad=b_grad)
    assert (a * b).grad_fn.needs_input_grad == (a_grad, b_grad)
    leaf = a if a_grad else b
    assert (leaf + 2.0).grad_fn.needs_input_grad == (True, False)
    assert leaf.exp().grad_fn.needs_input_grad == (True,)
    (a * b).sum().backward()
    assert (a.grad is not None) == a_grad and (b.grad is not None) == b_grad


# ----- the array path's saved tensors (issue #16) ---------------------------------------
def _modified_after_saving(create_graph):
    """The error backward raises when ``exp``'s saved result and ``log``'s saved input were
    changed in place after saving; create_graph=True takes the tensor path."""
    x = minitorch.tensor([0.5, 1.0, 1.5], requires_grad=True)
    y = x.exp()
    z = y.log()
    y.mul_(2)           # both nodes saved y (as output and as input): now at version 1
    with pytest.raises(RuntimeError) as error:
        z.sum().backward(create_graph=create_graph)
    return str(error.value)


def test_array_path_refuses_a_changed_saved_tensor_as_the_tensor_path_does():
    message = _modified_after_saving(create_graph=False)
    assert "modified by an inplace operation" in message
    assert "is at version 1; expected version 0" in message
    assert message == _modified_after_saving(create_graph=True)


def test_array_path_refuses_freed_saved_tensors_as_the_tensor_path_does():
    x = minitorch.tensor([0.5, 1.0, 1.5], requires_grad=True)
    y = x.exp().log()
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.grad_fn._saved_self


def test_saved_tensor_hooks_and_release_leave_no_hooked_state_behind():
    """A saved tensor's rare fields (hooks) start unset and are dropped on release."""
    x = minitorch.tensor([0.5, 1.0, 1.5], requires_grad=True)
    with minitorch.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
        y = x.exp()
    plain = x.exp()
    hooked_entry, plain_entry = y.grad_fn._saved[0], plain.grad_fn._saved[0]
    assert hooked_entry.unpack_hook is not None and plain_entry.unpack_hook is None
    np.testing.assert_allclose(minitorch.autograd.grad(y.sum(), x)[0].numpy(),
                               np.exp([0.5, 1.0, 1.5]), rtol=1e-6)
    assert hooked_entry.freed and hooked_entry.unpack_hook is None
    assert hooked_entry.packed is None and hooked_entry.link is None


# ----- inference mode: the flag is read only while some block is open (issue #16) -------
def test_operations_in_inference_mode_make_inference_tensors_however_entered():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    assert not (x * 2).is_inference()
    with minitorch.inference_mode():
        assert (x * 2).is_inference()
        with minitorch.no_grad():       # no_grad inside keeps inference mode on
            assert (x + 1).is_inference()
        with minitorch.inference_mode(False):
            assert not (x * 2).is_inference()
    decorated = minitorch.inference_mode()(lambda t: t.exp())
    assert decorated(x).is_inference()
    with pytest.raises(ZeroDivisionError):
        with minitorch.inference_mode():
            1 / 0
    y = x * 2                           # after every block closed, even by an exception
    assert not y.is_inference() and y.requires_grad


def test_inference_mode_in_one_thread_leaves_other_threads_alone():
    import threading
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    inside, release, seen = threading.Event(), threading.Event(), {}

    def hold_inference_mode():
        with minitorch.inference_mode():
            seen["there"] = (x * 2).is_inference()
            inside.set()
            release.wait(5)

    thread = threading.Thread(target=hold_inference_mode)
    thread.start()
    inside.wait(5)
    here = x * 2
    release.set()
    thread.join()
    assert seen["there"] and not here.is_inference() and here.requires_grad


def test_version_counters_are_made_when_first_asked_for():
    """A result nothing changes, views or saves never gets a counter object; one that
    needs it gets it then, and the in-place check works as with an eager counter."""
    x = minitorch.ones(3, requires_grad=True)
    a = x * 2                                   # saved by nothing
    b = a.exp()                                 # ExpBackward0 saves its result
    assert a._counter is None
    assert b._counter is not None and b.grad_fn._saved[0].version_counter is b._counter
    view = a[1:]                                # a view shares (so makes) the counter
    assert a._counter is not None and view._version_counter is a._counter
    c = x * 3
    assert c._version == 0 and c._counter is not None   # reading _version asks for it
    b.mul_(2)                                   # the saved result changed in place
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        b.sum().backward()


def test_views_and_in_place_changes_make_the_counter_they_need():
    """A base with no counter gets one when viewed, shared with the view; a result with
    none gets one at its first in-place change."""
    base = minitorch.zeros(2, 3)
    row = base[1]
    row.add_(1)
    assert base._version == row._version == 1
    y = (base * 1).sum(0)                       # a result with no counter yet
    assert y._counter is None
    y.add_(1)
    assert y._version == 1



# ----- Python numbers as 0-d arrays (``number_operands``, the performance appendix) -----
_SPECIAL_NUMBERS = [0.1, 1.0001, -3.7, 0.0, -0.0, 1e-45, 1e-40, 2.0 ** -149, 65504.0, 65520.0,
                    3.4028235e38, 3.5e38, 1e40, -1e300, float("inf"), float("nan"),
                    0, 1, -7, 2 ** 24 + 1, 2 ** 53 + 1, 2 ** 64, 2 ** 200]


def _with_warnings(compute):
    """``compute()``'s result and the messages of the warnings it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = compute()
    return result, [str(w.message) for w in caught]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.multiply, np.true_divide])
def test_a_number_as_a_0d_array_gives_numpys_own_bits_for_a_python_number(dtype, ufunc):
    """The shortcut's premise: numpy casts a Python number to the array's dtype (NEP 50),
    so a 0-d array of that dtype gives the same bits and the same warnings."""
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.standard_normal(48) * 10.0 ** rng.integers(-8, 8, 48),
                        [0.0, -0.0, np.inf, -np.inf, np.nan]]).astype(dtype)
    numbers = _SPECIAL_NUMBERS + [float(v) for v in rng.standard_normal(40) *
                                  10.0 ** rng.integers(-45, 45, 40)]
    for number in numbers:
        as_array = number_like(number, x)
        assert type(as_array) is np.ndarray and as_array.shape == () and as_array.dtype == dtype
        for left in (True, False):
            expected, warned = _with_warnings(
                lambda: ufunc(x, number) if left else ufunc(number, x))
            got, warned_here = _with_warnings(
                lambda: ufunc(x, as_array) if left else ufunc(as_array, x))
            assert got.dtype == expected.dtype
            assert got.tobytes() == expected.tobytes(), (number, left)
            assert warned_here == warned, (number, left)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("number", [1.0001, 3, -2.5e-3])
def test_ops_with_a_number_pass_it_as_a_0d_array_and_keep_numpys_values(dtype, number):
    """``a + n``, ``a - n``, ``n - a`` and ``a * n`` hand numpy the number as a 0-d array
    of ``a``'s dtype, and so do the backward passes of ``a * n`` and ``a / n``; forward
    and backward give numpy's values for the Python number, bit for bit."""
    x0 = np.random.default_rng(1).standard_normal(16).astype(dtype)
    g = np.random.default_rng(2).standard_normal(16).astype(dtype)
    a = minitorch.from_numpy(x0.copy()).requires_grad_()
    x, y = number_operands(a, number)
    assert x is a._data and type(y) is np.ndarray and y.shape == () and y.dtype == x0.dtype
    cases = [(lambda t: t + number, x0 + number, g), (lambda t: t - number, x0 - number, g),
             (lambda t: number - t, number - x0, -g),
             (lambda t: t * number, x0 * number, g * number),
             (lambda t: t / number, x0 / number, g / number)]
    for op, expected, expected_grad in cases:
        a.grad = None
        out = op(a)
        out.backward(minitorch.from_numpy(g.copy()))
        assert out.dtype == a.dtype
        assert out.detach().numpy().tobytes() == expected.tobytes()
        assert a.grad.numpy().tobytes() == expected_grad.tobytes()
