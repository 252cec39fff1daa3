"""The benchmark harness (bench/) runs, and its numpy and minitorch adapters
compute the same thing, on tiny sizes.  Nothing here looks at times.

The numpy adapter is the floor the benchmarks compare against: numpy with
the backward written by hand.  It only means something if it does the same
math as minitorch, so its gradients are checked against minitorch's
autograd for the same weights and data.
"""

import json

import numpy as np
import pytest

import bench  # noqa: F401  (sets the BLAS thread counts; numpy is already imported by now)
from bench import harness, report, run as bench_run, workloads
from bench.impls import load, minitorch_impl, numpy_impl
from bench.workloads import (deep_chain, digits, fanout_chain, gpt_step, memory_loop, memory_twice,
                             mlp_step, per_op, per_op_no_grad)

IMPLS = {"numpy": numpy_impl, "minitorch": minitorch_impl}


@pytest.fixture
def tiny(monkeypatch):
    """Every workload shrunk to a size that runs in well under a second."""
    monkeypatch.setattr(per_op, "N_OPS", 8)
    monkeypatch.setattr(per_op_no_grad, "N_OPS", 8)
    monkeypatch.setattr(mlp_step, "SIZES", (12, 16, 16, 4))
    monkeypatch.setattr(mlp_step, "BATCH", 6)
    monkeypatch.setattr(deep_chain, "DEPTH", 40)
    monkeypatch.setattr(deep_chain, "DEEPEST", 400)
    monkeypatch.setattr(fanout_chain, "DEPTH", 40)
    monkeypatch.setattr(memory_loop, "SIZE", 100)
    monkeypatch.setattr(memory_loop, "ITERATIONS", 3)
    monkeypatch.setattr(digits, "EPOCHS", 1)
    monkeypatch.setattr(gpt_step, "CONFIG", dict(vocab_size=11, block_size=8, n_layer=1,
                                                n_head=2, n_embd=8))
    monkeypatch.setattr(gpt_step, "BATCH", 2)


def test_both_adapters_always_load():
    found, missing = load(("numpy", "minitorch"))
    assert set(found) == {"numpy", "minitorch"} and not missing


def test_op_chain_gradients_agree():
    x0 = np.random.default_rng(0).uniform(0.5, 1.5, 16).astype(np.float32)
    expected = numpy_impl.op_chain(x0, 12)()
    got = minitorch_impl.op_chain(x0, 12)()
    assert got.dtype == expected.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    np.testing.assert_allclose(expected, np.full(16, 0.999 ** 3, np.float32), rtol=1e-5)


def test_op_chain_can_run_again():
    """The leaf's gradient is reset between runs, not accumulated."""
    x0 = np.ones(4, np.float32)
    run = minitorch_impl.op_chain(x0, 8)
    np.testing.assert_allclose(run(), run(), rtol=0)


def _nets(sizes=(12, 16, 16, 4), batch=6, lr=0.1):
    rng = np.random.default_rng(0)
    weights = mlp_step.init_weights(sizes, rng)
    x, y = mlp_step.data(rng, batch, sizes)
    return [impl.Net(weights, lr) for impl in (numpy_impl, minitorch_impl)], weights, x, y


def test_mlp_step_losses_and_hand_written_gradients_agree():
    (by_hand, mini), weights, x, y = _nets()
    loss_by_hand = by_hand.step(*numpy_impl.batch(x, y))
    loss_mini = mini.step(*minitorch_impl.batch(x, y))
    assert loss_mini == pytest.approx(loss_by_hand, rel=1e-4)
    # The hand-written backward against minitorch's autograd, parameter by parameter.
    autograd = [p.grad.numpy() for p in mini.model.parameters()]
    assert len(autograd) == len(by_hand.grads) == 2 * len(weights)
    for g_auto, g_hand in zip(autograd, by_hand.grads):
        np.testing.assert_allclose(g_hand, g_auto, rtol=1e-4, atol=1e-6)
    # ... and so both took the same SGD step.
    for a, b in zip(by_hand.arrays(), mini.arrays()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert by_hand.dtypes() == mini.dtypes() == {"float32"}


def test_mlp_predictions_agree_after_training():
    (by_hand, mini), _, x, y = _nets()
    for _ in range(5):
        by_hand.step(*numpy_impl.batch(x, y))
        mini.step(*minitorch_impl.batch(x, y))
    np.testing.assert_array_equal(by_hand.predict(x), mini.predict(minitorch_impl.batch(x, y)[0]))


def test_seeds_loop_gradients_agree():
    x = np.random.default_rng(0).standard_normal(50)
    expected = numpy_impl.seeds_backward(numpy_impl.seeds_graph(x.copy()))
    got = minitorch_impl.seeds_backward(minitorch_impl.seeds_graph(x.copy()))
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    np.testing.assert_allclose(expected, 8 * x ** 7, rtol=1e-12)


def test_twice_loop_gradients_agree():
    """``y = x * x`` three times: the same gradient as the squares, ``8 x**7``."""
    x = np.random.default_rng(0).standard_normal(50)
    expected = numpy_impl.seeds_backward(numpy_impl.twice_graph(x.copy()))
    got = minitorch_impl.seeds_backward(minitorch_impl.twice_graph(x.copy()))
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    np.testing.assert_allclose(expected, 8 * x ** 7, rtol=1e-12)


def test_fanout_chain_gradients_agree():
    """``y = y + y * c``, n times: the gradient is ``(1 + c) ** n``."""
    x0 = np.random.default_rng(0).uniform(0.5, 1.5, 16)
    expected = numpy_impl.fanout_chain(x0, 30)()
    got = minitorch_impl.fanout_chain(x0, 30)()
    assert got.dtype == expected.dtype == np.float64
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    np.testing.assert_allclose(expected, np.full(16, (1 + 1e-4) ** 30), rtol=1e-12)


def engine_runs_here():
    """Run a tiny fan-out chain in this process first.  In a student's copy whose engine is
    still a stub, its TaskNotDone is raised here, where the classroom reports the test as
    not done yet; in the fresh child process it would only be a failed subprocess."""
    minitorch_impl.fanout_chain(np.ones(2), 1)()


def test_fanout_chain_runs_in_a_fresh_process():
    engine_runs_here()
    result = fanout_chain.in_fresh_process("minitorch", 20, 1)
    assert result["cpu"] > 0 and result["grad_sum"] == pytest.approx(16 * (1 + 1e-4) ** 20)


def test_op_chain_no_grad_values_agree_and_record_nothing():
    x0 = np.random.default_rng(0).uniform(0.5, 1.5, 16).astype(np.float32)
    expected = numpy_impl.op_chain_no_grad(x0, 12)()
    got = minitorch_impl.op_chain_no_grad(x0, 12)()
    assert got.dtype == expected.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-5)


def test_harness_interleaves_and_takes_per_round_ratios():
    calls = []
    runs = {"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}
    times = harness.interleaved(runs, rounds=3, reps=2)
    assert calls[:2] == ["a", "b"]                       # the warm-up
    assert calls[2:6] == ["a", "b", "a", "b"]            # round 1: turn by turn
    assert calls[6:10] == ["b", "a", "b", "a"]           # round 2: the order rotates
    assert len(times["a"]["cpu"]) == len(times["b"]["wall"]) == 3
    r = harness.ratio([2.0, 4.0, 9.0], [1.0, 1.0, 3.0])
    assert r == {"per_round": [2.0, 4.0, 3.0], "median": 3.0}


@pytest.mark.parametrize("name", workloads.NAMES)
def test_each_workload_runs_tiny(tiny, name):
    if name == "fanout_chain":                          # it runs in fresh processes
        engine_runs_here()
    result = workloads.get(name).run(dict(IMPLS), rounds=2, quick=True)
    if name == "gpt_step":                              # PyTorch only: no GPT in numpy
        assert set(result["impls"]) == {"minitorch"} and result["met"] is None
        return
    if name == "gpt_step_compiled":                     # compiled beside eager minitorch
        assert set(result["impls"]) == {"minitorch", "minitorch_eager"}
        assert result["met"] in (False, None) and result["compile_seconds"] > 0
        return
    if name == "mlp_step_compiled":
        assert set(result["impls"]) == {"numpy", "minitorch", "minitorch_eager"}
        assert result["compile_seconds"] > 0
        assert result["impls"]["minitorch"]["first_loss"] == pytest.approx(
            result["impls"]["numpy"]["first_loss"], rel=1e-5)
        return
    assert set(result["impls"]) == {"numpy", "minitorch"}
    assert result["met"] in (True, False, None)
    if name in ("per_op", "per_op_no_grad", "deep_chain", "fanout_chain", "digits"):      # their reference, PyTorch, is not here
        assert result["met"] is None or result["met"] is False
    assert len(result["ratios"]["minitorch/numpy"]["per_round"]) == 2


def test_workload_checks(tiny):
    assert mlp_step.run(dict(IMPLS), 1, True)["minitorch_float32"] is True
    deep = deep_chain.run(dict(IMPLS), 1, True)["minitorch_depth_100000"]
    assert deep["ok"] is True
    for workload in (memory_loop, memory_twice):
        mem = workload.run(dict(IMPLS), 1, True)["impls"]
        assert mem["numpy"]["flat"] and mem["minitorch"]["flat"]
    dig = digits.run(dict(IMPLS), 1, True)
    assert dig["same_accuracy"] is True
    assert dig["impls"]["minitorch"]["accuracy"] == pytest.approx(dig["impls"]["numpy"]["accuracy"], abs=0.01)


def test_run_writes_table_json_and_chart(tiny, tmp_path, capsys):
    assert bench_run.main(["--rounds", "1", "--impls", "numpy", "minitorch", "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    results = json.loads((tmp_path / "latest.json").read_text(encoding="utf-8"))
    assert list(results["workloads"]) == list(workloads.NAMES)
    assert results["machine"]["threads"] == 1 and results["machine"]["numpy"] == np.__version__
    assert (tmp_path / "latest.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert report.table(results) in printed
    assert "not installed" in report.table(results)      # PyTorch and DeZero columns
