"""vmap's ``randomness`` for every random function (chapter 13), as PyTorch 2.13 decides
it.  The numbers drawn differ from PyTorch's (another generator), so the tests check
the rule: ``'error'`` refuses; ``'same'`` gives every example the same numbers;
``'different'`` gives each its own; and the errors, for an in-place draw into a tensor
that is not batched under ``'different'``, and for ``'same'`` with a draw that reads a
batched input's values.  Each row was observed with PyTorch 2.13 on the same calls."""

import warnings

import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch.func import vmap

pytestmark = pytest.mark.chapter13

B = 4
X = torch.ones(B, 6)
u = torch.ones(6)

ERROR = ("RuntimeError", "vmap: called random operation while in randomness error mode. "
         "Please either use the 'same' or 'different' randomness flags on vmap or perform "
         "the randomness operation out of vmap")
SAME_BATCHED = ("RuntimeError", "Vmap does not currently support same randomness with a "
                "batched tensor input. Please file an issue with functorch")
UNBATCHED_IN_PLACE = ("RuntimeError", "vmap: Cannot ask for different inplace randomness on "
                      "an unbatched tensor. This will appear like same randomness. If this "
                      "is necessary for your usage, please file an issue with functorch.")
SAME, DIFFER = "same", "differ"

# name: (function of one example, output shape, 'same' result, 'different' result)
CASES = {
    "randn": (lambda x: torch.randn(6), (4, 6), SAME, DIFFER),
    "rand": (lambda x: torch.rand(6), (4, 6), SAME, DIFFER),
    "randint": (lambda x: torch.randint(0, 1000, (6,)).float(), (4, 6), SAME, DIFFER),
    "randperm": (lambda x: torch.randperm(6).float(), (4, 6), SAME, DIFFER),
    "normal with a size": (lambda x: torch.normal(0., 1., size=(6,)), (4, 6), SAME, DIFFER),
    "normal of a mean": (lambda x: torch.normal(x, 1.), (4, 6), SAME_BATCHED, DIFFER),
    "normal of a std": (lambda x: torch.normal(0., x), (4, 6), SAME_BATCHED, DIFFER),
    "randn_like": (lambda x: torch.randn_like(x), (4, 6), SAME, DIFFER),
    "rand_like": (lambda x: torch.rand_like(x), (4, 6), SAME, DIFFER),
    "randint_like": (lambda x: torch.randint_like(x, 0, 1000), (4, 6), SAME, DIFFER),
    "randn_like unbatched": (lambda x: torch.randn_like(u), (4, 6), SAME, DIFFER),
    "bernoulli": (lambda x: torch.bernoulli(x * 0.5), (4, 6), SAME_BATCHED, DIFFER),
    "bernoulli with p": (lambda x: torch.bernoulli(x, 0.5), (4, 6), SAME_BATCHED, DIFFER),
    "bernoulli unbatched": (lambda x: torch.bernoulli(u * 0.5), (4, 6), SAME, DIFFER),
    "multinomial": (lambda x: torch.multinomial(x[:5].abs() + 0.2, 3).float(), (4, 3),
                    SAME_BATCHED, DIFFER),
    "multinomial unbatched": (lambda x: torch.multinomial(u[:5], 3).float(), (4, 3), SAME,
                              DIFFER),
    "dropout": (lambda x: F.dropout(x, 0.5, training=True), (4, 6), SAME, DIFFER),
    "dropout unbatched": (lambda x: F.dropout(u, 0.5, training=True), (4, 6), SAME, DIFFER),
    "nn.Dropout": (lambda x: torch.nn.Dropout(0.5)(x), (4, 6), SAME, DIFFER),
    "dropout2d": (lambda x: F.dropout2d(x.reshape(1, 2, 3), 0.5, training=True).reshape(6),
                  (4, 6), SAME, DIFFER),
    "attention dropout": (lambda x: F.scaled_dot_product_attention(
        x.reshape(1, 2, 3), x.reshape(1, 2, 3), x.reshape(1, 2, 3), dropout_p=0.5).reshape(6),
        (4, 6), SAME, DIFFER),
    "normal_": (lambda x: x.clone().normal_(), (4, 6), SAME, DIFFER),
    "uniform_": (lambda x: x.clone().uniform_(), (4, 6), SAME, DIFFER),
    "exponential_": (lambda x: x.clone().exponential_(), (4, 6), SAME, DIFFER),
    "random_": (lambda x: x.clone().random_(0, 1000), (4, 6), SAME, DIFFER),
    "bernoulli_": (lambda x: x.clone().bernoulli_(0.5), (4, 6), SAME, DIFFER),
    "bernoulli_ of a tensor": (lambda x: x.clone().bernoulli_(x * 0.5), (4, 6), SAME_BATCHED,
                               DIFFER),
    "normal_ unbatched": (lambda x: torch.empty(6).normal_(), (4, 6), SAME,
                          UNBATCHED_IN_PLACE),
    "uniform_ unbatched": (lambda x: torch.empty(6).uniform_() + x, (4, 6), SAME,
                           UNBATCHED_IN_PLACE),
    "x + randn": (lambda x: x + torch.randn(6), (4, 6), SAME, DIFFER),
    "randn of x.shape": (lambda x: torch.randn(x.shape), (4, 6), SAME, DIFFER),
}


def _outcome(function, randomness, inputs=X):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = vmap(function, randomness=randomness)(inputs)
    except Exception as e:              # noqa: BLE001 - the type is what is compared
        return type(e).__name__, str(e)
    rows_equal = all(bool((out[i] == out[0]).all()) for i in range(out.shape[0]))
    return tuple(out.shape), SAME if rows_equal else DIFFER


@pytest.mark.parametrize("name", list(CASES))
def test_each_mode_as_pytorch(name):
    function, shape, same, different = CASES[name]
    torch.manual_seed(0)
    assert _outcome(function, "error") == ERROR
    for mode, expected in (("same", same), ("different", different)):
        outcome = _outcome(function, mode)
        assert outcome == (expected if type(expected) is tuple else (shape, expected)), mode


NESTED = {
    "randn": lambda x: torch.randn(5),
    "dropout": lambda x: F.dropout(x, 0.5),
    "randn_like": lambda x: torch.randn_like(x),
    "normal_": lambda x: x.clone().normal_(),
    "bernoulli": lambda x: torch.bernoulli(x * 0.5),
}

# (outer, inner): (inner examples the same?, outer examples the same?) or an error, for
# the functions above on a (3, 4, 5) input; PyTorch 2.13
NESTED_EXPECTED = {
    ("same", "same"): (True, True), ("same", "different"): (False, True),
    ("different", "same"): (True, False), ("different", "different"): (False, False),
}
NESTED_EXCEPTIONS = {
    ("normal_", "different", "same"): UNBATCHED_IN_PLACE,
    ("bernoulli", "same", "same"): SAME_BATCHED,
    ("bernoulli", "same", "different"): SAME_BATCHED,
    ("bernoulli", "different", "same"): SAME_BATCHED,
}


@pytest.mark.parametrize("name", list(NESTED))
@pytest.mark.parametrize("outer, inner", list(NESTED_EXPECTED))
def test_nested_levels_draw_per_example_where_they_ask_to(name, outer, inner):
    inputs = torch.ones(3, 4, 5)
    function = vmap(vmap(NESTED[name], randomness=inner), randomness=outer)
    expected = NESTED_EXCEPTIONS.get((name, outer, inner))
    if expected is not None:
        with pytest.raises(RuntimeError) as info:
            function(inputs)
        assert str(info.value) == expected[1]
        return
    out = function(inputs)
    assert tuple(out.shape) == (3, 4, 5)
    inner_same = bool((out == out[:, :1]).all())
    outer_same = bool((out == out[:1]).all())
    assert (inner_same, outer_same) == NESTED_EXPECTED[(outer, inner)]


@pytest.mark.parametrize("name", list(NESTED))
def test_an_error_level_anywhere_refuses(name):
    inputs = torch.ones(3, 4, 5)
    for outer, inner in (("same", "error"), ("different", "error"), ("error", "same")):
        with pytest.raises(RuntimeError, match="randomness error mode"):
            vmap(vmap(NESTED[name], randomness=inner), randomness=outer)(inputs)


def test_per_example_draws_have_the_distribution_asked_for():
    torch.manual_seed(0)
    noise = vmap(lambda x: torch.randn(1000) * 2 + x, randomness="different")(
        torch.tensor([0.0, 10.0]))
    assert abs(noise[0].mean().item()) < 0.2 and abs(noise[1].mean().item() - 10) < 0.2
    assert abs(noise.std(1) - 2).max().item() < 0.2
    kept = vmap(lambda x: F.dropout(x, 0.25), randomness="different")(torch.ones(3, 4000))
    assert all(v == 0 or abs(v - 4 / 3) < 1e-6 for v in kept.flatten().tolist())
    assert abs((kept == 0).float().mean().item() - 0.25) < 0.02
    orders = vmap(lambda x: torch.randperm(8), randomness="different")(torch.ones(5))
    assert all(sorted(row) == list(range(8)) for row in orders.tolist())
