"""``minitorch.compile`` (chapter 19): capture, graph breaks, guards and recompiles,
dynamic sizes, the public switches and their errors.

Counts and messages observed on PyTorch 2.13 where PyTorch has the same thing
(``explain``'s counts, ``fullgraph``'s exception type, the guard failure wording, the
errors of bad arguments); minitorch's op-level graphs count ``sum`` as an op where
PyTorch's explain lists only call_function nodes (PyTorch: 4 ops, minitorch: 5).
"""

import warnings

import numpy as np
import pytest

import minitorch
import minitorch._dynamo as dynamo
import minitorch.nn as nn
from minitorch._dynamo.exc import InvalidBackend, Unsupported

pytestmark = pytest.mark.chapter19


def branchy(x):
    x = x * 2
    if x.sum() > 0:
        x = x + 1
    return x * 3


class Recorder:
    """A backend that keeps the graphs it is given and runs them as they are."""

    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return gm.forward


def test_explain_counts_graphs_and_breaks():
    out = dynamo.explain(branchy)(minitorch.ones(3))
    assert (out.graph_count, out.graph_break_count) == (2, 1)      # as PyTorch
    assert [[op.__name__ for op in ops] for op in [0] for ops in out.ops_per_graph] == \
        [["mul_scalar", "sum", "gt"], ["add_scalar", "mul_scalar"]]
    assert out.op_count == 5
    reason = out.break_reasons[0]
    assert "Tensor.__bool__" in reason.reason and reason.user_stack[0].name == "branchy"
    assert "Graph Count: 2\nGraph Break Count: 1\nOp Count: 5\nBreak Reasons:" in str(out)


def test_explain_forgets_every_compiled_graph_first():
    # PyTorch 2.13: explain starts with torch._dynamo.reset(), so functions compiled
    # before it capture again on their next call (backend calls 1, 2, 3, 4 below).
    recorder = Recorder()

    def double_sin(x):
        return (x * 2).sin()

    def cos_plus_one(x):
        return x.cos() + 1
    compiled = minitorch.compile(double_sin, backend=recorder)
    x = minitorch.ones(3)
    compiled(x)
    compiled(x)
    assert len(recorder.graphs) == 1
    dynamo.explain(double_sin)(x)
    compiled(x)
    assert len(recorder.graphs) == 2
    other = minitorch.compile(cos_plus_one, backend=recorder)
    other(x)
    dynamo.explain(double_sin)(x)
    other(x)
    assert len(recorder.graphs) == 4


def test_a_graph_break_keeps_both_branches_right():
    compiled = minitorch.compile(branchy, backend="eager")
    for x in (minitorch.ones(3), -minitorch.ones(3), minitorch.ones(3)):
        assert compiled(x).tolist() == branchy(x).tolist()


def test_fullgraph_refuses_a_graph_break():
    compiled = minitorch.compile(branchy, backend="eager", fullgraph=True)
    with pytest.raises(Unsupported, match="fullgraph=True"):
        compiled(minitorch.ones(3))
    assert issubclass(Unsupported, RuntimeError)


def test_the_backend_is_called_once_per_graph_and_the_graph_is_minitorchs_ops():
    backend = Recorder()
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU())
    compiled = minitorch.compile(model, backend=backend)
    x = minitorch.randn(5, 3)
    for _ in range(3):
        np.testing.assert_array_equal(compiled(x).detach().numpy(), model(x).detach().numpy())
    assert len(backend.graphs) == 1
    code = backend.graphs[0].code
    assert "def forward(self, input, p_0_weight, p_0_bias):" in code
    assert "addmm = minitorch.ops.aten.addmm(p_0_bias, input_1, t)" in code


@pytest.mark.task("19.1")
def test_guards_recompile_with_pytorchs_reason():
    backend = Recorder()
    model = nn.Linear(3, 2)
    compiled = minitorch.compile(model, backend=backend, dynamic=False)
    compiled(minitorch.randn(4, 3))
    compiled(minitorch.randn(5, 3))
    compiled(minitorch.randn(4, 3).double().float())       # the first entry again
    model.eval()
    compiled(minitorch.randn(4, 3))
    with minitorch.no_grad():
        compiled(minitorch.randn(4, 3))
    assert compiled._compiled.recompile_reasons == [
        "tensor 'input' size mismatch at index 0. expected 4, actual 5",
        "a module's training flag changed (train() or eval())",
        "GLOBAL_STATE changed: grad_mode "]
    assert len(backend.graphs) == 4


@pytest.mark.task("19.1")
def test_a_submodules_training_flag_is_guarded_too(monkeypatch):
    # PyTorch 2.13 recompiles here too; its guard reads "fn._modules['1'].training == True".
    backend = Recorder()
    model = nn.Sequential(nn.Linear(3, 3), nn.Dropout())
    compiled = minitorch.compile(model, backend=backend, dynamic=False)
    compiled(minitorch.randn(4, 3))
    model[1].eval()                      # the root's own flag does not change
    monkeypatch.setattr(dynamo.config, "error_on_recompile", True)
    with pytest.raises(dynamo.exc.RecompileError) as info:
        compiled(minitorch.randn(4, 3))
    assert str(info.value).endswith(
        "    - 0/0: a module's training flag changed (train() or eval())")
    monkeypatch.setattr(dynamo.config, "error_on_recompile", False)
    x = minitorch.randn(4, 3)
    assert compiled(x).tolist() == model(x).tolist()
    assert compiled._compiled.recompile_reasons == [
        "a module's training flag changed (train() or eval())"]
    assert len(backend.graphs) == 2


def scaled_sum(x):
    return (x * 3).sum()


@pytest.mark.task("19.1")
def test_error_on_recompile_lists_each_capture_newest_first(monkeypatch):
    # Observed on PyTorch 2.13 with torch._dynamo.config.error_on_recompile: guards are
    # checked dtype, requires_grad, rank, then sizes; entries listed as frame/entry,
    # newest first; frames numbered from 0 again after reset().
    dynamo.reset()
    minitorch.compile(lambda x: x + 1, backend="eager")(minitorch.ones(2))     # frame 0
    compiled = minitorch.compile(scaled_sum, backend="eager", dynamic=False)
    compiled(minitorch.ones(4))
    compiled(minitorch.ones(4, dtype=minitorch.float64))
    monkeypatch.setattr(dynamo.config, "error_on_recompile", True)
    where = f"{scaled_sum.__code__.co_filename}:{scaled_sum.__code__.co_firstlineno}"
    messages = []
    for x in (minitorch.ones(4, dtype=minitorch.float16), minitorch.ones(3, 3),
              minitorch.ones(5, requires_grad=True)):
        with pytest.raises(dynamo.exc.RecompileError) as info:
            compiled(x)
        messages.append(str(info.value))
    assert messages[0] == (
        f"Recompiling function scaled_sum in {where}\n"
        "    triggered by the following guard failure(s):\n"
        "    - 1/1: tensor 'x' dtype mismatch. expected Double, actual Half\n"
        "    - 1/0: tensor 'x' dtype mismatch. expected Float, actual Half")
    assert messages[1].endswith("- 1/0: tensor 'x' rank mismatch. expected 1, actual 2")
    assert messages[2].endswith("- 1/0: tensor 'x' requires_grad mismatch. "
                                "expected requires_grad=0")
    assert isinstance(info.value, RuntimeError)
    dynamo.reset()
    compiled(minitorch.ones(4))
    with pytest.raises(dynamo.exc.RecompileError, match="- 0/0: GLOBAL_STATE changed"):
        with minitorch.no_grad():
            compiled(minitorch.ones(4))


def mixed_inputs(xs, n, opts):
    return xs[0] * n + opts["scale"] * xs[1]


@pytest.mark.task("19.1")
def test_guards_name_inputs_inside_lists_and_dicts_and_plain_values(monkeypatch):
    # Reasons observed on PyTorch 2.13 (its message adds the line and a user stack).
    dynamo.reset()
    backend = Recorder()
    compiled = minitorch.compile(mixed_inputs, backend=backend, dynamic=False)

    def inputs(first=(2,), n=2, **scale):
        return ([minitorch.ones(*first), minitorch.ones(2)], n,
                {"scale": minitorch.ones(2, **scale)})
    assert compiled(*inputs()).tolist() == [3.0, 3.0]
    assert compiled(*inputs()).tolist() == [3.0, 3.0]        # guards pass: replayed
    assert len(backend.graphs) == 1
    monkeypatch.setattr(dynamo.config, "error_on_recompile", True)
    for args, reason in [
            (inputs(first=(3,)), "tensor 'xs[0]' size mismatch at index 0. expected 2, "
                                 "actual 3"),
            (inputs(n=3), "n == 2"),
            (inputs(dtype=minitorch.float64), "tensor 'opts['scale']' dtype mismatch. "
                                              "expected Float, actual Double"),
            (inputs(requires_grad=True), "tensor 'opts['scale']' requires_grad mismatch. "
                                         "expected requires_grad=0")]:
        with pytest.raises(dynamo.exc.RecompileError) as info:
            compiled(*args)
        assert str(info.value).endswith(f"    - 0/0: {reason}")
    monkeypatch.setattr(dynamo.config, "error_on_recompile", False)
    assert compiled(*inputs(n=3)).tolist() == [4.0, 4.0]
    assert compiled._minitorch_compiled.recompile_reasons == ["n == 2"]
    assert len(backend.graphs) == 2


def first_plus_rest(x, *rest):
    return x + rest[0] + rest[1]


@pytest.mark.task("19.1")
def test_guards_name_the_items_of_star_args_as_pytorch_does(monkeypatch):
    # PyTorch 2.13: "- 0/0: tensor 'rest[1]' size mismatch at index 0. expected 2,
    # actual 3".
    compiled = minitorch.compile(first_plus_rest, backend="eager", dynamic=False)
    compiled(minitorch.ones(2), minitorch.ones(2), minitorch.ones(2))
    monkeypatch.setattr(dynamo.config, "error_on_recompile", True)
    for args, reason in [((2, 3, 2), "tensor 'rest[0]' size mismatch at index 0. "
                                     "expected 2, actual 3"),
                         ((2, 2, 3), "tensor 'rest[1]' size mismatch at index 0. "
                                     "expected 2, actual 3")]:
        with pytest.raises(dynamo.exc.RecompileError) as info:
            compiled(*[minitorch.ones(n) for n in args])
        assert str(info.value).endswith(f"    - 0/0: {reason}")


def first_times_count(xs):
    return xs[0] * len(xs)


@pytest.mark.task("19.1")
def test_guards_give_each_documented_reason():
    # PyTorch 2.13 (error_on_recompile) says "GLOBAL_STATE changed: default_dtype " and
    # "expected type of 'x' to be a tensor type, ' but found <class 'float'>" (its stray
    # "' " left out here); for a list that grew it says "len(xs) == 2" where minitorch,
    # which guards the flattened inputs, gives their count.
    compiled = minitorch.compile(lambda x: x * 2, backend="eager", dynamic=False)
    compiled(minitorch.ones(2))
    compiled(3.0)
    minitorch.set_default_dtype(minitorch.float64)
    try:
        compiled(minitorch.ones(2, dtype=minitorch.float32))
    finally:
        minitorch.set_default_dtype(minitorch.float32)
    assert compiled._minitorch_compiled.recompile_reasons == [
        "expected type of 'x' to be a tensor type, but found <class 'float'>",
        "GLOBAL_STATE changed: default_dtype "]        # the oldest entry's reason
    counted = minitorch.compile(first_times_count, backend="eager", dynamic=False)
    counted([minitorch.ones(2), minitorch.ones(2)])
    counted([minitorch.ones(2), minitorch.ones(2), minitorch.ones(2)])
    assert counted._minitorch_compiled.recompile_reasons == [
        "the call has 3 inputs, the capture had 2"]


@pytest.mark.task("19.1")
def test_a_capture_that_took_another_path_is_passed_over_with_that_reason():
    compiled = minitorch.compile(branchy, backend="eager", dynamic=False)
    compiled(minitorch.ones(3))
    compiled(-minitorch.ones(3))         # same guards, the other branch: run eagerly
    assert compiled._minitorch_compiled.recompile_reasons == []
    compiled(-minitorch.ones(3))         # the entry went astray last time: capture again
    assert compiled._minitorch_compiled.recompile_reasons == [
        "the last call that passed these guards took another path (an op differed "
        "from the capture, as a graph break can make it)"]


@pytest.mark.task("19.1")
@pytest.mark.parametrize("name", ["recompile_limit", "cache_size_limit"])
def test_too_many_recompiles_fall_back_with_a_logged_warning(monkeypatch, caplog, name):
    # PyTorch 2.13 logs "torch._dynamo hit config.recompile_limit (2)" at level WARNING,
    # once, with the newest entry's failed guard; it gives no Python warning.
    monkeypatch.setattr(dynamo.config, name, 2)
    backend = Recorder()
    compiled = minitorch.compile(lambda x, n: x * n, backend=backend)
    compiled(minitorch.ones(2), 1)
    compiled(minitorch.ones(2), 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert compiled(minitorch.ones(2), 3).tolist() == [3.0, 3.0]
        assert compiled(minitorch.ones(2), 4).tolist() == [4.0, 4.0]
    assert len(backend.graphs) == 2
    assert [r.levelname for r in caplog.records] == ["WARNING"]
    lines = caplog.records[0].getMessage().splitlines()
    assert lines[0] == "minitorch._dynamo hit config.recompile_limit (2)"
    assert lines[2] == "   last reason: 0/1: n == 2"


@pytest.mark.task("19.1")
def test_the_limit_names_the_newest_entry_and_is_logged_again_after_reset(caplog):
    # PyTorch 2.13, limit 8, sizes 1..10: "last reason: 0/7: tensor 'x' size mismatch
    # at index 0. expected 8, actual 9"; after reset() it is reached and logged again.
    def double(x):
        return x * 2
    compiled = minitorch.compile(double, backend="eager", dynamic=False)
    for _ in range(2):
        dynamo.reset()
        for n in range(1, 11):
            compiled(minitorch.ones(n))
    assert [r.getMessage().splitlines()[2] for r in caplog.records] == [
        "   last reason: 0/7: tensor 'x' size mismatch at index 0. expected 8, "
        "actual 9"] * 2


def test_cache_size_limit_is_another_name_of_recompile_limit(monkeypatch):
    # PyTorch 2.13: setting either name changes both (defaults 8).
    assert dynamo.config.recompile_limit == dynamo.config.cache_size_limit == 8
    monkeypatch.setattr(dynamo.config, "recompile_limit", 2)
    assert dynamo.config.cache_size_limit == 2
    monkeypatch.setattr(dynamo.config, "cache_size_limit", 3)
    assert dynamo.config.recompile_limit == 3


@pytest.mark.task("19.1")
def test_dynamic_true_keeps_one_graph_across_sizes():
    backend = Recorder()

    def f(x):
        b, t = x.shape
        return (x * 2).view(b * t).sum(0) + x.reshape(t, b).t().sum()
    compiled = minitorch.compile(f, backend=backend, dynamic=True)
    for n in (3, 4, 5):
        assert compiled(minitorch.ones(n, 2)).item() == f(minitorch.ones(n, 2)).item()
    assert len(backend.graphs) == 1
    assert "sym_size" in backend.graphs[0].code
    assert compiled._minitorch_compiled.entries[0].misses == 0


@pytest.mark.task("19.1")
def test_a_symbolic_size_stands_for_sizes_of_two_or_more(monkeypatch):
    # PyTorch 2.13: with dynamic=True one graph serves 3, 5 and 7 rows; 1 or 0 rows (or
    # 1 column) fail the guard "2 <= x.size()[0]" and capture again.
    backend = Recorder()
    compiled = minitorch.compile(lambda x: x * 2, backend=backend, dynamic=True)
    for n in (3, 5, 7):
        assert compiled(minitorch.ones(n, 2)).tolist() == [[2.0, 2.0]] * n
    assert len(backend.graphs) == 1
    monkeypatch.setattr(dynamo.config, "error_on_recompile", True)
    for shape, reason in [((1, 2), "2 <= x.size()[0]"), ((0, 2), "2 <= x.size()[0]"),
                          ((5, 1), "2 <= x.size()[1]")]:
        with pytest.raises(dynamo.exc.RecompileError) as info:
            compiled(minitorch.ones(*shape))
        assert str(info.value).endswith(f"/0: {reason}")
    monkeypatch.setattr(dynamo.config, "error_on_recompile", False)
    assert compiled(minitorch.ones(1, 2)).tolist() == [[2.0, 2.0]]
    assert len(backend.graphs) == 2


@pytest.mark.task("19.1")
def test_a_size_that_changes_becomes_dynamic_on_the_second_capture():
    backend = Recorder()
    compiled = minitorch.compile(lambda x: x.view(-1, 2).sum(0), backend=backend)
    for n in (2, 3, 4, 5):
        compiled(minitorch.ones(n, 2))
    assert len(backend.graphs) == 2          # PyTorch's automatic dynamic shapes: also 2


@pytest.mark.task("19.1")
def test_mark_dynamic():
    backend = Recorder()
    compiled = minitorch.compile(lambda x: x.view(x.shape[0] * 2) * 2, backend=backend)
    x = minitorch.ones(3, 2)
    dynamo.mark_dynamic(x, 0)
    compiled(x)
    assert "sym_size" in backend.graphs[0].code


@pytest.mark.task("19.1")
def test_mark_dynamic_makes_a_size_symbolic_even_with_dynamic_false():
    # PyTorch 2.13: dynamic=False makes no size symbolic on its own, but a dim marked
    # with mark_dynamic still is (its graph takes s77); 5 rows replay the 3-row graph.
    backend = Recorder()
    compiled = minitorch.compile(lambda x: x.view(x.shape[0] * 2) * 2, backend=backend,
                                 dynamic=False)
    x = minitorch.ones(3, 2)
    dynamo.mark_dynamic(x, 0)
    compiled(x)
    assert "sym_size(x, 0)" in backend.graphs[0].code
    assert compiled(minitorch.ones(5, 2)).tolist() == [2.0] * 10
    assert len(backend.graphs) == 1


@pytest.mark.task("19.1")
def test_dynamic_true_leaves_sizes_0_and_1_fixed():
    # PyTorch 2.13, x of shape (1, 3): the graph takes one symbolic size, dim 1's; the
    # size 1 of dim 0 is written in.
    backend = Recorder()
    compiled = minitorch.compile(lambda x: x.view(x.shape[0] * x.shape[1]) * 2,
                                 backend=backend, dynamic=True)
    assert compiled(minitorch.ones(1, 3)).tolist() == [2.0, 2.0, 2.0]
    code = backend.graphs[0].code
    assert "sym_size(x, 1)" in code and "sym_size(x, 0)" not in code


@pytest.mark.task("19.1")
@pytest.mark.parametrize("transform", ["vmap", "jvp"])
def test_a_compiled_function_inside_a_transform_runs_as_written(transform):
    # PyTorch 2.13: torch.func.vmap / jvp of a compiled function never call its backend.
    backend = Recorder()
    compiled = minitorch.compile(lambda x: x * 2 + 1, backend=backend)
    if transform == "vmap":
        assert minitorch.func.vmap(compiled)(minitorch.ones(3, 2)).tolist() == \
            [[3.0, 3.0]] * 3
    else:
        out, tangent = minitorch.func.jvp(compiled, (minitorch.ones(2),),
                                          (minitorch.ones(2),))
        assert (out.tolist(), tangent.tolist()) == ([3.0, 3.0], [2.0, 2.0])
    assert backend.graphs == []


def test_compile_as_a_decorator_with_arguments():
    @minitorch.compile(backend="eager", fullgraph=True)
    def g(x):
        return x + 1
    assert g(minitorch.ones(1)).tolist() == [2.0] and g.__name__ == "g"


def test_an_optimized_module_wraps_the_original():
    model = nn.Linear(2, 2)
    compiled = minitorch.compile(model, backend="eager")
    assert type(compiled).__name__ == "OptimizedModule" and compiled._orig_mod is model
    assert list(compiled.state_dict()) == ["_orig_mod.weight", "_orig_mod.bias"]
    assert compiled.in_features == 2
    assert repr(compiled).startswith("OptimizedModule(\n  (_orig_mod): Linear(")


def test_module_compile_in_place_keeps_the_state_dict():
    model = nn.Linear(2, 2)
    model.compile(backend="eager")
    assert type(model).__name__ == "Linear" and list(model.state_dict()) == ["weight", "bias"]
    x = minitorch.randn(3, 2)
    expected = x @ model.weight.t() + model.bias
    for _ in range(2):
        np.testing.assert_array_equal(model(x).detach().numpy(), expected.detach().numpy())
    assert len(model.forward._minitorch_compiled.entries) == 1


def test_reset_forgets_the_captures():
    backend = Recorder()
    compiled = minitorch.compile(lambda x: x * 2, backend=backend)
    compiled(minitorch.ones(2))
    dynamo.reset()
    compiled(minitorch.ones(2))
    minitorch.compiler.reset()
    compiled(minitorch.ones(2))
    assert len(backend.graphs) == 3


def plus_one(x):
    return x + 1


@pytest.mark.task("19.1")
def test_a_fullgraph_compile_replays_what_an_earlier_compile_of_the_function_captured():
    # PyTorch 2.13 caches per function (its code), shared by every torch.compile of it:
    # the fullgraph wrapper replays the two graphs and raises only when it captures.
    backend = Recorder()
    minitorch.compile(branchy, backend=backend, dynamic=False)(minitorch.ones(3))
    strict = minitorch.compile(branchy, backend=backend, dynamic=False, fullgraph=True)
    assert strict(minitorch.ones(3)).tolist() == [9.0, 9.0, 9.0]
    assert len(backend.graphs) == 2
    with pytest.raises(Unsupported):
        strict(minitorch.ones(4))


@pytest.mark.task("19.1")
def test_two_compiles_of_a_function_share_its_captures_and_recompiles(monkeypatch,
                                                                     caplog):
    # PyTorch 2.13: the second wrapper replays; its new size is a recompile of frame 0
    # ("0/0: ..." with error_on_recompile); the limit counts both wrappers' captures.
    backend = Recorder()
    first = minitorch.compile(plus_one, backend=backend, dynamic=False)
    second = minitorch.compile(plus_one, backend=backend, dynamic=False)
    first(minitorch.ones(1))
    second(minitorch.ones(1))
    assert len(backend.graphs) == 1
    monkeypatch.setattr(dynamo.config, "error_on_recompile", True)
    with pytest.raises(dynamo.exc.RecompileError) as info:
        second(minitorch.ones(2))
    assert str(info.value).splitlines()[-1] == \
        "    - 0/0: tensor 'x' size mismatch at index 0. expected 1, actual 2"
    monkeypatch.setattr(dynamo.config, "error_on_recompile", False)
    monkeypatch.setattr(dynamo.config, "recompile_limit", 2)
    second(minitorch.ones(2))
    first(minitorch.ones(3))                # a third capture: over the limit
    assert len(backend.graphs) == 2
    assert caplog.records[0].getMessage().splitlines()[2].endswith(
        "tensor 'x' size mismatch at index 0. expected 2, actual 3")
    minitorch.compiler.reset()              # forgets them for every wrapper
    second(minitorch.ones(1))
    assert len(backend.graphs) == 3


def test_another_backend_captures_on_its_own():
    # PyTorch 2.13 compiles again for another backend (a failed backend guard there;
    # minitorch keeps a cache per backend, so it is no recompile here).
    one, other = Recorder(), Recorder()
    minitorch.compile(plus_one, backend=one)(minitorch.ones(1))
    minitorch.compile(plus_one, backend=other)(minitorch.ones(1))
    assert (len(one.graphs), len(other.graphs)) == (1, 1)


def test_compile_backend_defaults_to_none_meaning_inductor():
    # PyTorch 2.13: torch.compile(..., backend: str | Callable | None = None, ...).
    import inspect
    assert inspect.signature(minitorch.compile).parameters["backend"].default is None
    compiled = minitorch.compile(plus_one)
    assert compiled(minitorch.ones(2)).tolist() == [2.0, 2.0]
    assert compiled._minitorch_compiled.backend is dynamo.lookup_backend("inductor")


def test_is_compiling_only_while_capturing():
    seen = []

    def f(x):
        seen.append(minitorch.compiler.is_compiling())
        return x + 1
    compiled = minitorch.compile(f, backend="eager")
    compiled(minitorch.ones(1))
    compiled(minitorch.ones(1))
    assert seen == [True, False] and not minitorch.compiler.is_compiling()


def test_disable_makes_a_graph_break_and_runs_as_written():
    calls = []

    @minitorch.compiler.disable
    def python_side(x):
        calls.append(1)
        return x * 10
    backend = Recorder()
    compiled = minitorch.compile(lambda x: python_side(x + 1) - 1, backend=backend)
    for _ in range(2):
        assert compiled(minitorch.ones(2)).tolist() == [19.0, 19.0]
    assert len(calls) == 2 and len(backend.graphs) == 2


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(mode="foo"), RuntimeError, "Unrecognized mode=foo, should be one of: default, lite, "
                                     "reduce-overhead, max-autotune-no-cudagraphs, max-autotune"),
    (dict(backend="nope"), InvalidBackend, "Invalid backend: 'nope'"),
    (dict(mode="default", options={"a": 1}), RuntimeError,
     "Either mode or options can be specified, but both can't be specified at the same time."),
])
def test_bad_arguments_fail_as_in_pytorch(kwargs, error, message):
    with pytest.raises(error, match=message):
        minitorch.compile(lambda x: x, **kwargs)


def test_compile_needs_a_callable_and_lists_its_backends():
    with pytest.raises(AssertionError, match="A callable function is expected, but "
                                             "<class 'int'> is provided."):
        minitorch.compile(3)
    assert minitorch.compiler.list_backends() == ["inductor"]
    assert {"eager", "aot_eager", "inductor"} <= set(dynamo.list_backends(exclude_tags=()))
