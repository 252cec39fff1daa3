"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode; thread-local."""

import threading

import pytest

import minitorch

pytestmark = pytest.mark.chapter5


@pytest.mark.task("5.1")
def test_no_grad_records_nothing():
    x = minitorch.ones(2, requires_grad=True)
    with minitorch.no_grad():
        y = x * 2
        assert not minitorch.is_grad_enabled()
    assert minitorch.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None and y.is_leaf


@pytest.mark.task("5.1")
def test_enable_grad_inside_no_grad():
    x = minitorch.ones(2, requires_grad=True)
    with minitorch.no_grad():
        with minitorch.enable_grad():
            assert (x * 2).requires_grad
        assert not (x * 2).requires_grad


def test_set_grad_enabled_as_function_and_context():
    with minitorch.set_grad_enabled(False):
        assert not minitorch.is_grad_enabled()
    assert minitorch.is_grad_enabled()
    minitorch.set_grad_enabled(False)
    try:
        assert not minitorch.is_grad_enabled()
    finally:
        minitorch.set_grad_enabled(True)
    with pytest.raises(TypeError):
        minitorch.set_grad_enabled("no")


@pytest.mark.task("5.1")
def test_modes_as_decorators_with_and_without_parentheses():
    @minitorch.no_grad()
    def a():
        return minitorch.is_grad_enabled()

    @minitorch.enable_grad()
    def b():
        return minitorch.is_grad_enabled()

    @minitorch.inference_mode()
    def c():
        return minitorch.is_grad_enabled()

    assert a() is False and b() is True and c() is False
    with minitorch.no_grad():
        assert b() is True
    assert minitorch.is_grad_enabled()


@pytest.mark.task("5.1")
def test_mode_restored_after_exception():
    with pytest.raises(ValueError):
        with minitorch.no_grad():
            raise ValueError
    assert minitorch.is_grad_enabled()


@pytest.mark.task("5.3")
def test_inference_mode_tensors_cannot_be_saved_for_backward():
    p = minitorch.ones(2, requires_grad=True)
    with minitorch.inference_mode():
        t = p * 2
        assert not t.requires_grad and t.is_inference()
        made = minitorch.zeros(2)
        assert made.is_inference()
    assert not (p * 2).is_inference()
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        t * p
    assert (t + p).requires_grad        # add saves nothing, so it is allowed (as in PyTorch)
    with pytest.raises(RuntimeError, match="inference tensor outside InferenceMode"):
        t.requires_grad_()


def test_inference_mode_false_does_nothing():
    with minitorch.inference_mode(False):
        assert minitorch.is_grad_enabled()


@pytest.mark.task("5.1")
def test_grad_mode_is_thread_local():
    results = {}
    inside = threading.Event()
    release = threading.Event()

    def worker():
        inside.wait(timeout=10)
        results["worker_enabled"] = minitorch.is_grad_enabled()
        x = minitorch.ones(1, requires_grad=True)
        results["worker_records"] = (x * 2).requires_grad
        release.set()

    thread = threading.Thread(target=worker, daemon=True)
    thread.start()
    try:
        with minitorch.no_grad():
            inside.set()
            release.wait(timeout=10)
            assert not minitorch.is_grad_enabled()
    finally:
        inside.set()                # the worker never waits for a test that failed
        thread.join(timeout=10)
    assert results == {"worker_enabled": True, "worker_records": True}


def test_no_grad_in_a_thread_does_not_leak_out():
    def worker():
        with minitorch.no_grad():
            pass
        minitorch.set_grad_enabled(False)   # left off in that thread only

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert minitorch.is_grad_enabled()


def test_eval_is_not_a_grad_mode():
    """Module.eval() changes how layers behave, not whether operations are recorded."""
    model = minitorch.nn.Sequential(minitorch.nn.Linear(3, 2), minitorch.nn.Dropout(0.5))
    model.eval()
    out = model(minitorch.ones(4, 3))
    assert minitorch.is_grad_enabled() and out.requires_grad and out.grad_fn is not None
    with minitorch.no_grad():
        assert model(minitorch.ones(4, 3)).grad_fn is None


@pytest.mark.task("5.1")
def test_no_grad_and_enable_grad_as_bare_decorators():
    @minitorch.no_grad
    def off():
        return minitorch.is_grad_enabled()

    @minitorch.enable_grad
    def on():
        return minitorch.is_grad_enabled()

    assert off() is False
    with minitorch.no_grad():
        assert on() is True
    assert minitorch.is_grad_enabled()
