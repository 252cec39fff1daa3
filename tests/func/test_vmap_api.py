"""vmap's arguments and errors as PyTorch 2.13's: in_dims/out_dims (ints, None, nested
trees), nested vmap, chunk_size, randomness, and what it refuses.

Exception types and messages were read from PyTorch 2.13 on the same calls.
"""

import re
import warnings

import numpy as np
import pytest

import minitorch as torch
from minitorch.func import vmap, grad
from minitorch.ops import BuiltinFunction

from ..doubling import Doubling

pytestmark = pytest.mark.chapter13

x = torch.arange(12, dtype=torch.float64).reshape(3, 4) / 10


@pytest.mark.task("13.3")
def test_in_dims_out_dims_and_shared_inputs():
    np.testing.assert_allclose(vmap(torch.sin, in_dims=1)(x).numpy(), np.sin(x.numpy()).T)
    out = vmap(lambda a, b: a * b, in_dims=(0, None))(x, torch.ones(4, dtype=torch.float64))
    np.testing.assert_allclose(out.numpy(), x.numpy())
    first, second = vmap(lambda a: (a, a), out_dims=(0, 1))(x)
    assert tuple(first.shape) == (3, 4) and tuple(second.shape) == (4, 3)
    assert tuple(vmap(lambda a: a.sum(), in_dims=-1)(x).shape) == (4,)


@pytest.mark.task("13.3")
def test_pytrees_in_and_out():
    data = {"a": x, "b": torch.ones(4, dtype=torch.float64)}
    out = vmap(lambda d: {"p": d["a"] * d["b"], "s": d["a"].sum()},
               in_dims=({"a": 0, "b": None},))(data)
    assert tuple(out["p"].shape) == (3, 4) and tuple(out["s"].shape) == (3,)
    pairs = vmap(lambda t: t[0] + t[1][0])((x, [x]))
    np.testing.assert_allclose(pairs.numpy(), 2 * x.numpy())


@pytest.mark.task("13.3")
def test_an_unbatched_output_is_broadcast_and_out_dims_none_keeps_it():
    c = torch.ones(2, dtype=torch.float64)
    expanded = vmap(lambda a: c)(x)
    assert tuple(expanded.shape) == (3, 2)
    assert expanded.stride() == (0, 1)      # PyTorch 2.13: a view of c, not a copy
    assert vmap(lambda a: c, out_dims=None)(x) is c


@pytest.mark.task("13.3")
def test_a_batched_tensor_does_not_require_grad():
    # PyTorch 2.13: False inside vmap, even for an input that requires grad (gradients
    # flow through the batched value)
    seen = []

    def f(a):
        seen.append(a.requires_grad)
        return a * 2
    vmap(f)(x.detach().requires_grad_())
    assert seen == [False]


IN_PLACE_CHANGES = {
    "add_": lambda t: t.add_(1),
    "mul_": lambda t: t.mul_(torch.ones(4)),
    "zero_": lambda t: t.zero_(),
    "fill_": lambda t: t.fill_(2.0),
    "copy_": lambda t: t.copy_(torch.ones(4)),
    "through a view": lambda t: t.view(2, 2).add_(1),
    "exp_": lambda t: t.exp_(),
}


@pytest.mark.task("13.3")
@pytest.mark.parametrize("change", IN_PLACE_CHANGES.values(), ids=IN_PLACE_CHANGES)
def test_an_in_place_change_under_vmap_moves_the_inputs_version_once(change):
    # PyTorch 2.13: the batched input is changed in place, so its version moves: by one
    # per change, from where it was (3 here)
    a = torch.zeros(3, 4)
    for _ in range(3):
        a.add_(1)
    vmap(lambda t: (change(t), t)[1])(a)
    assert a._version == 4


@pytest.mark.task("13.3")
def test_in_place_changes_under_nested_vmap_and_in_dims_1_move_the_inputs_version():
    # PyTorch 2.13: 2 after two changes; the batch dim elsewhere, or two levels, alike
    def twice(t):
        t.add_(1)
        return t.mul_(2)
    for a, mapped in [(torch.zeros(3, 4), vmap(twice)), (torch.zeros(4, 3),
                      vmap(twice, in_dims=1)), (torch.zeros(2, 3, 4), vmap(vmap(twice)))]:
        mapped(a)
        assert a._version == 2
        np.testing.assert_allclose(a.numpy(), np.full(tuple(a.shape), 2.0))


@pytest.mark.task("13.3")
def test_a_batched_tensor_has_a_version_counter_of_its_own():
    # PyTorch 2.13: inside vmap a batched tensor's _version is 0 and stays 0 (a view of it,
    # and a batched result, too), whatever the input's version (3 here): the in-place
    # changes made through it bump the input's (3 -> 5), not its own
    a = torch.zeros(3, 4)
    for _ in range(3):
        a.add_(1)
    seen = []

    def f(t):
        seen.append(t._version)
        t.add_(1)
        seen.append(t._version)
        v = t.view(2, 2)
        seen.append(v._version)
        v.mul_(2)
        seen.append((t._version, v._version))
        u = t + 1
        u.add_(1)
        seen.append(u._version)
        return t
    vmap(f)(a)
    assert (seen, a._version) == ([0, 0, 0, (0, 0), 0], 5)
    nested = []

    def g(t):
        nested.append(t._version)
        t.add_(1)
        nested.append(t._version)
        return t
    b = torch.zeros(2, 3, 4)
    vmap(vmap(g))(b)
    assert (nested, b._version) == ([0, 0], 1)


# PyTorch 2.13's message when backward meets the output of exp changed in place, up to its
# hint (minitorch's says what to do instead: differences.md, "Error messages")
EXP_CHANGED = ("one of the variables needed for gradient computation has been modified by an "
               "inplace operation: [torch.FloatTensor [3, 2]], which is output 0 of Exp, is at "
               "version 1; expected version 0 instead.")


def test_a_saved_tensor_changed_in_place_under_vmap_is_caught_at_backward():
    # exp saves its output; changing it in place under vmap, where it was made (outside
    # the mapped function, or inside it), is caught as PyTorch 2.13 catches it
    a = torch.ones(3, 2, requires_grad=True)
    y = a.exp()
    vmap(lambda t: t.mul_(2))(y)
    assert y._version == 1
    with pytest.raises(RuntimeError, match=re.escape(EXP_CHANGED)):
        y.sum().backward()

    def changes_what_exp_saved(t):
        u = t.exp()
        u.mul_(2)
        return u
    out = vmap(changes_what_exp_saved)(torch.ones(3, 2, requires_grad=True))
    with pytest.raises(RuntimeError, match=re.escape(EXP_CHANGED)):
        out.sum().backward()


@pytest.mark.task("13.3")
def test_nested_vmap_is_an_outer_product_of_batches():
    a = torch.arange(3, dtype=torch.float64)
    b = torch.arange(4, dtype=torch.float64)
    table = vmap(vmap(lambda p, q: p * q + q, in_dims=(None, 0)), in_dims=(0, None))(a, b)
    np.testing.assert_allclose(table.numpy(), np.outer(a.numpy(), b.numpy()) + b.numpy())


@pytest.mark.task("13.3")
def test_where_finds_the_batched_mask_behind_its_stand_in():
    # where's condition reaches the op as an array, a BatchedTensor's stand-in _data;
    # the stand-in leads back to its BatchedTensor (wrap sets its _owner)
    flipped = vmap(lambda a: torch.where(a > 0.45, a, -a))(x)
    np.testing.assert_allclose(flipped.numpy(), [[-0.0, -0.1, -0.2, -0.3],
                                                 [-0.4, 0.5, 0.6, 0.7],
                                                 [0.8, 0.9, 1.0, 1.1]])
    half = torch.full((4,), 0.5, dtype=torch.float64)
    raised = vmap(lambda a, b: torch.where(a < b, b, a * 2), in_dims=(0, None))(x, half)
    np.testing.assert_allclose(raised.numpy(), [[0.5, 0.5, 0.5, 0.5],
                                                [0.5, 1.0, 1.2, 1.4],
                                                [1.6, 1.8, 2.0, 2.2]])


def test_chunk_size_gives_the_same_result():
    f = lambda a: (a.softmax(0) * a).sum()          # noqa: E731
    np.testing.assert_allclose(vmap(f, chunk_size=2)(x).numpy(), vmap(f)(x).numpy())


@pytest.mark.task("13.3")
@pytest.mark.parametrize("chunk_size", [1, 2, 3, 5])
def test_chunks_are_joined_along_each_outputs_out_dim(chunk_size):
    # 3 examples: chunks of 1, 2 (the last one shorter), 3 and 5 (a single call)
    shared = torch.ones(2, dtype=torch.float64)
    total, doubled, same = vmap(lambda a: ((a.sin() * a).sum(), a * 2, shared),
                                out_dims=(0, 1, None), chunk_size=chunk_size)(x)
    np.testing.assert_allclose(total.numpy(), (np.sin(x.numpy()) * x.numpy()).sum(1),
                               rtol=1e-13)
    np.testing.assert_array_equal(doubled.numpy(), 2 * x.numpy().T)
    assert same is shared


@pytest.mark.task("13.3")
def test_chunk_size_calls_the_function_once_per_chunk():
    # PyTorch 2.13: 5 examples in chunks of 2 are 3 calls, of 2, 2 and 1 examples (an
    # output the same for every example is expanded to each chunk's size); a chunk_size
    # as large as the batch is one call
    calls = []
    shared = torch.ones(2, dtype=torch.float64)

    def f(a):
        calls.append(1)
        return a * 2, shared
    five = torch.arange(15, dtype=torch.float64).reshape(5, 3)
    doubled, same = vmap(f, chunk_size=2)(five)
    assert len(calls) == 3
    np.testing.assert_array_equal(doubled.numpy(), 2 * five.numpy())
    np.testing.assert_array_equal(same.numpy(), np.ones((5, 2)))
    calls.clear()
    vmap(f, chunk_size=5)(five)
    assert len(calls) == 1


@pytest.mark.task("13.3")
def test_vmap_of_grad_and_grad_of_vmap():
    per_row = vmap(grad(lambda a: (a ** 3).sum()))(x)
    np.testing.assert_allclose(per_row.numpy(), 3 * x.numpy() ** 2)
    total = grad(lambda a: vmap(lambda r: (r ** 2).sum())(a).sum())(x)
    np.testing.assert_allclose(total.numpy(), 2 * x.numpy())


@pytest.mark.task("13.3")
@pytest.mark.parametrize("call, error, message", [
    (lambda: vmap(torch.sin, in_dims=2)(x), ValueError,
     "Got in_dim=2 for some input, but that input is a Tensor of dimensionality 2 so expected "
     "in_dim to satisfy -2 <= in_dim < 2."),
    (lambda: vmap(torch.add, in_dims=(0,))(x, x), ValueError,
     "in_dims is not compatible with the structure of `inputs`"),
    (lambda: vmap(torch.add)(x, torch.ones(4, 4)), ValueError,
     "vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
     "[3, 4] for the mapped dimension"),
    (lambda: vmap(torch.add)(x, 3.0), ValueError,
     "Got in_dim=0 for an input but the input is of type <class 'float'>. We cannot vmap over "
     "non-Tensor arguments, please use None as the respective in_dim"),
    (lambda: vmap(torch.add, in_dims=(None, None))(x, x), ValueError,
     "vmap: Expected at least one Tensor to vmap over"),
    (lambda: vmap(lambda a: 3.0)(x), ValueError, "must only return Tensors, got type <class "
     "'float'>. Did you mean to set out_dims= to None for output?"),
    (lambda: vmap(lambda a: a.sum(), out_dims=None)(x), ValueError,
     "can not return a BatchedTensor when out_dim is None"),
    (lambda: vmap(lambda a: a.sum().item())(x), RuntimeError,
     "vmap: It looks like you're calling .item() on a Tensor."),
    (lambda: vmap(lambda a: bool(a.sum() > 0))(x), RuntimeError,
     "vmap: It looks like you're attempting to use a Tensor in some data-dependent control "
     "flow."),
    (lambda: vmap(lambda a: a.normal_())(x.clone()), RuntimeError,
     "vmap: called random operation while in randomness error mode."),
    (lambda: vmap(lambda a, b: a.add_(b), in_dims=(None, 0))(torch.ones(4), x.float()),
     RuntimeError, "vmap: inplace arithmetic(self, *extra_args) is not possible"),
    (lambda: vmap(torch.sin, in_dims=0.5)(x), ValueError,
     "expected `in_dims` to be int or a (potentially nested) tuple matching the structure of "
     "inputs, got: <class 'float'>."),
    (lambda: vmap(torch.sin, in_dims=[0])(x), ValueError,
     "vmap(sin, in_dims=[0], ...)(<inputs>): expected `in_dims` to be int or a (potentially "
     "nested) tuple matching the structure of inputs, got: <class 'list'>."),
    (lambda: vmap(torch.sin, in_dims=-3)(x), ValueError,
     "vmap(sin, in_dims=-3, ...)(<inputs>): Got in_dim=-3 for some input, but that input is "
     "a Tensor of dimensionality 2 so expected in_dim to satisfy -2 <= in_dim < 2."),
    (lambda: vmap(torch.sin, randomness="foo")(x), RuntimeError,
     "Only allowed values for randomness are 'error', 'different', or 'same'. Got foo"),
    (lambda: vmap(torch.sin)(torch.tensor(1.0)), ValueError,
     "that input is a Tensor of dimensionality 0 so expected in_dim to satisfy -0 <= in_dim"),
    (lambda: vmap(torch.sin, chunk_size=0)(x), ValueError,
     "vmap: chunk_size should be None or greater than 0. (got 0)"),
    (lambda: vmap(torch.sin)(), ValueError, "got no inputs. Maybe you forgot to add inputs"),
    # the prefix names the in_dims the user passed, not the one input's dim
    (lambda: vmap(torch.add, in_dims=(0, 2))(x, x), ValueError,
     "vmap(add, in_dims=(0, 2), ...)(<inputs>): Got in_dim=2 for some input, but that input "
     "is a Tensor of dimensionality 2 so expected in_dim to satisfy -2 <= in_dim < 2."),
    (lambda: vmap(torch.add, in_dims=(0, 0))(x, 3.0), ValueError,
     "vmap(add, in_dims=(0, 0), ...)(<inputs>): Got in_dim=0 for an input but the input is "
     "of type <class 'float'>."),
    (lambda: vmap(lambda a, b, c: a, in_dims=(0, 0, 1))(x, x, x), ValueError,
     "got sizes [3, 3, 4] for the mapped dimension"),
    # A bool is an int to Python; PyTorch lets it through and fails in Tensor.size with a
    # TypeError: the same type, with a message that says what to give instead.
    (lambda: vmap(torch.sin, in_dims=True)(x), TypeError,
     "vmap(sin, in_dims=True, ...)(<inputs>): in_dims=True is a bool, not a dim"),
    (lambda: vmap(torch.add, in_dims=(0, False))(x, x), TypeError,
     "in_dims holds the bool False, not a dim"),
])
def test_errors_as_pytorch(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


@pytest.mark.task("13.3")
def test_randomness_different_and_same():
    torch.manual_seed(0)
    different = vmap(lambda a: a.clone().normal_(), randomness="different")(x)
    assert not np.allclose(different[0].numpy(), different[1].numpy())
    same = vmap(lambda a: a.clone().normal_(), randomness="same")(x)
    np.testing.assert_array_equal(same[0].numpy(), same[1].numpy())


@pytest.mark.task("13.3")
@pytest.mark.parametrize("like", ["empty_like", "zeros_like", "ones_like"])
def test_a_like_of_a_batched_tensor_is_batched(like):
    """PyTorch 2.13: ``torch.empty_like(x).normal_()`` under vmap draws per example with
    'different' and once with 'same'; ``zeros_like(x).add_(x)`` fills it per example."""
    make = getattr(torch, like)
    torch.manual_seed(0)
    different = vmap(lambda a: make(a).normal_(), randomness="different")(x)
    assert not np.allclose(different[0].numpy(), different[1].numpy())
    same = vmap(lambda a: make(a).normal_(), randomness="same")(x)
    np.testing.assert_array_equal(same[0].numpy(), same[1].numpy())
    np.testing.assert_array_equal(vmap(lambda a: make(a).add_(a))(x).numpy(),
                                  (make(x) + x).numpy())
    full = vmap(lambda a: torch.full_like(a, 2.0).mul_(a))(x)
    np.testing.assert_array_equal(full.numpy(), 2 * x.numpy())


@pytest.mark.task("13.3")
def test_an_in_place_draw_on_an_unbatched_tensor_is_refused_under_different():
    """A shared draw where every example should get its own: PyTorch 2.13's error."""
    with pytest.raises(RuntimeError, match="Cannot ask for different inplace randomness on "
                       "an unbatched tensor"):
        vmap(lambda a: a + torch.empty(4, dtype=torch.float64).normal_(),
             randomness="different")(x)


@pytest.mark.task("13.3")
@pytest.mark.parametrize("draw, noise", [
    (lambda a: a + torch.randn(4, dtype=torch.float64), lambda out, a: out - a),
    (lambda a: torch.nn.functional.dropout(a, 0.5), lambda out, a: out / a),
])
def test_randomness_of_draws_that_are_not_in_place(draw, noise):
    with pytest.raises(RuntimeError, match="randomness error mode"):
        vmap(draw)(x)
    inputs = x + 1
    same = noise(vmap(draw, randomness="same")(inputs), inputs)
    np.testing.assert_allclose(same[0].numpy(), same[1].numpy())
    different = noise(vmap(draw, randomness="different")(inputs), inputs)
    assert not np.allclose(different[0].numpy(), different[1].numpy())


@pytest.mark.task("13.3")
def test_an_op_without_a_rule_loops_with_pytorchs_warning():
    from minitorch.func import batching_rules
    batching_rules._warned.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        target = torch.full((4,), 0.25, dtype=torch.float64)
        f = lambda a: torch.nn.functional.huber_loss(a, target)      # noqa: E731
        out = vmap(f)(x)
        vmap(f)(x)
    warned = [w for w in caught if "There is a performance drop because we have not yet "
              "implemented the batching rule for HuberLoss" in str(w.message)]
    assert len(warned) == 1                 # once per op, however many calls
    np.testing.assert_allclose(out.numpy(), [f(row).item() for row in x])


@pytest.mark.task("13.3")
def test_the_loop_fallback_keeps_a_tuple_of_results_and_non_tensors():
    class Ends(BuiltinFunction):
        """A built-in op without a batching rule: its input's first and last element,
        and its length (not a tensor)."""

        @staticmethod
        def forward(ctx, a):
            return a._data[0].copy(), a._data[-1].copy(), len(a._data)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # the fallback's warning, tested above
        out = vmap(Ends.apply, out_dims=(0, 0, None))(x)
    assert type(out) is tuple
    first, last, length = out
    np.testing.assert_array_equal(first.numpy(), x.numpy()[:, 0])
    np.testing.assert_array_equal(last.numpy(), x.numpy()[:, -1])
    assert length == 4


@pytest.mark.task("13.3")
def test_a_custom_function_needs_a_vmap_rule():
    with pytest.raises(RuntimeError, match="autograd.Function with functorch transforms"):
        vmap(Doubling.apply)(x)

    class WithRule(Doubling):
        @staticmethod
        def vmap(info, in_dims, a):
            return a * 2, in_dims[0]
    np.testing.assert_allclose(vmap(WithRule.apply)(x).numpy(), 2 * x.numpy())


@pytest.mark.task("13.3")
def test_a_setup_context_function_without_a_vmap_rule_says_so():
    """PyTorch 2.13's message for a Function in the setup_context style without a rule."""
    class Triple(torch.autograd.Function):
        @staticmethod
        def forward(a):
            return a * 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 3
    with pytest.raises(RuntimeError, match="You tried to vmap over Triple, but it does not "
                       "have vmap support. Please override and implement the vmap "
                       "staticmethod or set generate_vmap_rule=True."):
        vmap(Triple.apply)(x)


@pytest.mark.task("13.3")
def test_the_mapped_function_is_wrapped_as_pytorch_wraps_it():
    # PyTorch 2.13: vmap(f).__name__ == 'f', its __doc__ is f's, __wrapped__ is f.
    def scaled(a):
        """Twice a."""
        return a * 2

    mapped = vmap(scaled)
    assert (mapped.__name__, mapped.__doc__, mapped.__wrapped__) == ("scaled", "Twice a.",
                                                                     scaled)
