"""``autograd.Variable`` (``variable.py``) and ``autograd.profiler`` (``profiler.py``): the
pre-0.4 wrapper returns a plain tensor sharing memory, as PyTorch 2.13's does; the profiler
runs its block and records nothing."""

import warnings

import pytest

import minitorch as torch
from minitorch.autograd import Variable

pytestmark = pytest.mark.chapter4


def test_variable_returns_a_new_leaf_sharing_memory_and_version():
    x = torch.ones(2)
    v = Variable(x)
    assert type(v) is torch.Tensor and v is not x and not v.requires_grad and v.is_leaf
    x.add_(1)
    assert v.tolist() == [2.0, 2.0] and v._version == x._version == 1
    assert Variable(x, True).requires_grad and Variable(x, requires_grad=True).is_leaf


def test_variable_of_a_graph_tensor_is_cut_from_the_graph():
    y = torch.ones(2, requires_grad=True) * 2
    assert Variable(y).grad_fn is None and not Variable(y).requires_grad
    v = Variable(y, requires_grad=True)
    assert v.grad_fn is None and v.requires_grad and v.is_leaf
    p = Variable(torch.nn.Parameter(torch.ones(1)))
    assert type(p) is torch.Tensor and not p.requires_grad


def test_every_tensor_is_a_variable():
    assert isinstance(torch.ones(1), Variable)
    assert isinstance(torch.nn.Parameter(torch.ones(1)), Variable)
    assert not isinstance(3, Variable) and not issubclass(torch.Tensor, Variable)


def test_volatile_is_ignored_with_a_warning():
    with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
        v = Variable(torch.ones(1), volatile=True)
    assert not v.requires_grad
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="Variable can't be volatile and require_grad at "
                                             "the same time!"):
            Variable(torch.ones(1), True, True)


def test_variable_refusals():
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got int"):
        Variable(3)
    with pytest.raises(TypeError):
        Variable(torch.ones(1), foo=1)
    with pytest.raises(RuntimeError, match="floating point"):
        Variable(torch.ones(2, dtype=torch.int64), requires_grad=True)


def test_profiler_runs_the_block_and_records_nothing():
    x = torch.ones(2, requires_grad=True)
    with torch.autograd.profiler.profile(use_cuda=False, record_shapes=True) as prof:
        with torch.autograd.profiler.record_function("double"):
            y = (x * 2).sum()
    y.backward()
    assert isinstance(prof, torch.autograd.profiler.profile) and x.grad.tolist() == [2.0, 2.0]
    with pytest.raises(NotImplementedError, match="perf_counter"):
        prof.key_averages()
