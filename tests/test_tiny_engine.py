"""The tiny DeZero-style engine of chapter 2: its functions hold their outputs weakly (task 2.1).

The engine lives in code cells of ``book/02b_tiny_engine.ipynb``; the cells are run up to the
one that holds the task's region (``classroom.nbcode``), and what they defined is checked:
``keep_outputs`` stores weak references, ``output_vars`` reads them back, backward still
works through them, and dropping the last result frees the whole graph by reference
counting alone (the cycle of the chapter is gone).
"""

import gc
import pathlib
import weakref

import numpy as np
import pytest

from classroom.nbcode import notebook_namespace

pytestmark = pytest.mark.chapter2

NOTEBOOK = pathlib.Path(__file__).resolve().parents[1] / "book" / "02b_tiny_engine.ipynb"


@pytest.fixture(scope="module")
def engine():
    return notebook_namespace(NOTEBOOK, task="2.1")


@pytest.fixture
def gc_off():
    enabled = gc.isenabled()
    gc.disable()
    yield
    if enabled:
        gc.enable()


@pytest.mark.task("2.1")
def test_outputs_are_stored_as_weak_references(engine):
    x = engine["Var"](np.array(3.0))
    y = engine["weak_square"](x)
    refs = y.made_by.outputs
    assert len(refs) == 1, f"one output, so one entry in outputs, got {len(refs)}"
    kind = type(refs[0])
    assert kind is weakref.ref, (
        f"each entry of outputs must be a weakref.ref, got {kind.__module__}.{kind.__name__}")
    assert refs[0]() is y


@pytest.mark.task("2.1")
def test_output_vars_gives_the_outputs_back(engine):
    x = engine["Var"](np.array(3.0))
    y = engine["weak_add"](x, x)
    outputs = list(y.made_by.output_vars())     # a list or a tuple: the page asks for neither
    assert len(outputs) == 1 and outputs[0] is y


@pytest.mark.task("2.1")
def test_dropping_the_result_frees_the_graph_without_the_collector(engine, gc_off):
    x = engine["Var"](np.array(3.0))
    t = engine["weak_add"](x, x)
    y = engine["weak_square"](t)
    probes = [weakref.ref(obj) for obj in (y, y.made_by, t, t.made_by)]
    del t, y
    assert [p() is None for p in probes] == [True] * 4


@pytest.mark.task("2.1")
def test_backward_reads_gradients_through_the_weak_references(engine):
    Var, weak_add, weak_square = engine["Var"], engine["weak_add"], engine["weak_square"]
    x0, x1 = Var(np.array(1.0)), Var(np.array(1.0))
    t = weak_add(x0, x1)
    y = weak_add(x0, t)
    y.backward()                                  # intermediate gradients dropped
    assert (y.grad, t.grad, x0.grad, x1.grad) == (None, None, 2.0, 1.0)
    x = Var(np.array(3.0))
    z = weak_square(weak_square(x))
    z.backward(retain_grad=True)
    assert x.grad == 4 * 3.0 ** 3 and z.grad == 1.0


def test_strong_outputs_still_leak_for_comparison(engine, gc_off):
    """The chapter's naive engine is left as it was: its graph is a cycle (not part of
    the task, so that an unfinished task scores nothing)."""
    x = engine["Var"](np.array(3.0))
    y = engine["square"](x)
    probe = weakref.ref(y)
    del y
    assert probe() is not None
    gc.collect()
    assert probe() is None
