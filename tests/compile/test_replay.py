"""Replaying a capture (chapter 19): the function's Python runs on every call and each op
is served from the compiled graph after a check, so side effects, views, in-place
changes and randomness behave as in eager mode."""

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn

pytestmark = pytest.mark.chapter19


def test_python_side_effects_happen_on_every_call():
    log = []

    def f(x):
        log.append(len(log))
        return x.exp()
    compiled = minitorch.compile(f)
    for _ in range(3):
        compiled(minitorch.zeros(2))
    assert log == [0, 1, 2]


def test_a_different_path_is_noticed_and_runs_eagerly():
    scale = [2.0]

    def f(x):
        return (x * scale[0]).sum()
    compiled = minitorch.compile(f, backend="eager")
    assert compiled(minitorch.ones(3)).item() == 6.0
    scale[0] = 5.0                              # Python state the guards do not see
    assert compiled(minitorch.ones(3)).item() == 15.0
    assert compiled._minitorch_compiled.entries[0].misses == 1


def test_views_still_share_memory():
    def f(x):
        y = x * 1
        v = y[0]
        y.add_(1)
        return v
    compiled = minitorch.compile(f)
    for _ in range(2):
        assert compiled(minitorch.zeros(2, 2)).tolist() == [1.0, 1.0]


def test_an_in_place_change_of_a_buffer_is_written_into_it():
    class Counter(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("n", minitorch.zeros(()))

        def forward(self, x):
            self.n.add_(1)
            return x + self.n
    model = Counter()
    compiled = minitorch.compile(model)
    results = [compiled(minitorch.zeros(1)).item() for _ in range(3)]
    assert results == [1.0, 2.0, 3.0] and model.n.item() == 3.0


def test_dropout_draws_new_numbers_each_call():
    model = nn.Dropout(0.5)
    compiled = minitorch.compile(model)
    a = compiled(minitorch.ones(1000))
    b = compiled(minitorch.ones(1000))
    assert not np.array_equal(a.numpy(), b.numpy())
    assert set(np.unique(a.numpy())) <= {0.0, 2.0}


def test_a_value_read_for_a_check_is_no_graph_break():
    # F.embedding checks its indices; the check runs again at each call.
    emb = nn.Embedding(4, 2)
    explained = minitorch._dynamo.explain(emb)(minitorch.tensor([0, 3]))
    assert explained.graph_break_count == 0
    compiled = minitorch.compile(emb)
    compiled(minitorch.tensor([0, 3]))
    with pytest.raises(IndexError, match="index out of range in self"):
        compiled(minitorch.tensor([0, 4]))


def clipped(x):
    y = x * 2
    if y.abs().max() > 1:       # a graph break: which way it goes is Python's business
        y = y / y.abs().max()
    return y.sum()


def test_after_a_call_takes_another_path_the_next_call_captures_it():
    graphs = []
    compiled = minitorch.compile(clipped, backend=lambda gm, ex: graphs.append(gm) or
                                 gm.forward)
    big, small = minitorch.tensor([1.0, -3.0]), minitorch.tensor([0.1, -0.3])
    compiled(big)
    compiled(big)
    assert len(graphs) == 2                     # one graph before the break, one after
    for _ in range(3):                          # the branch now goes the other way
        assert compiled(small).item() == clipped(small).item()
    code = compiled._minitorch_compiled
    assert len(code.entries) == 2               # the second call captured the new path
    assert [e.misses for e in code.entries] == [0, 1]


def test_a_branch_that_alternates_settles_on_one_capture_per_path():
    compiled = minitorch.compile(clipped, backend="eager")
    big, small = minitorch.tensor([1.0, -3.0]), minitorch.tensor([0.1, -0.3])
    for x in [big, small, small] + [big, small] * 4:
        assert compiled(x).item() == clipped(x).item()
    assert len(compiled._minitorch_compiled.entries) == 2


def test_a_size_left_symbolic_by_view_minus_one_replays_without_going_astray():
    compiled = minitorch.compile(lambda x: x.view(-1, 2).sum(0), backend="eager")
    for n in (2, 3, 4, 5):
        assert compiled(minitorch.ones(n, 2)).tolist() == [float(n), float(n)]
    entries = compiled._minitorch_compiled.entries
    assert len(entries) == 2 and [e.misses for e in entries] == [0, 0]


def test_the_first_calls_activations_are_not_kept():
    """The capture's own tensors (the first call's input, intermediates and result)
    are let go after compiling: only parameters, buffers and outside constants stay."""
    import gc
    import tracemalloc
    model = nn.Sequential(nn.Linear(64, 1024), nn.ReLU(), nn.Linear(1024, 64))
    x = minitorch.randn(512, 64)
    compiled = minitorch.compile(model)
    tracemalloc.start()
    try:
        before = _numpy_bytes(tracemalloc)
        compiled(x).sum().backward()
        gc.collect()
        after = _numpy_bytes(tracemalloc)
    finally:
        tracemalloc.stop()
    intermediate = 512 * 1024 * 4                # one (512, 1024) float32 activation
    grads = sum(p.numel() for p in model.parameters()) * 4
    assert after - before < grads + intermediate // 2


def _numpy_bytes(tracemalloc):
    snapshot = tracemalloc.take_snapshot().filter_traces(
        [tracemalloc.DomainFilter(True, np.lib.tracemalloc_domain)])
    return sum(stat.size for stat in snapshot.statistics("filename"))
