"""``get_rng_state``/``set_rng_state`` and ``Generator.get_state``/``set_state`` hand the
state out as a uint8 tensor, as PyTorch 2.13 does (a ``ByteTensor``; PyTorch's holds 5056
bytes of its Mersenne Twister, minitorch's 48 of numpy's PCG64 and the seed), and refuse
anything else with PyTorch's exception types.  Facts checked against PyTorch 2.13."""

import io

import numpy as np
import pytest

import minitorch as torch

pytestmark = pytest.mark.chapter14


def test_the_state_is_a_uint8_tensor_that_needs_no_grad():
    state = torch.get_rng_state()
    assert isinstance(state, torch.Tensor)
    assert state.dtype == torch.uint8 and state.ndim == 1 and not state.requires_grad
    assert state.is_contiguous()
    assert torch.Generator().get_state().dtype == torch.uint8


def test_setting_a_state_replays_the_draws():
    torch.manual_seed(0)
    torch.randn(3)
    state = torch.get_rng_state()
    first = torch.randn(5)
    assert torch.set_rng_state(state) is None              # PyTorch returns None
    assert torch.equal(torch.randn(5), first)


def test_the_state_is_a_copy_taken_when_asked():
    torch.manual_seed(0)
    state = torch.get_rng_state()
    torch.rand(1)
    assert not torch.equal(state, torch.get_rng_state())
    assert torch.get_rng_state() is not torch.get_rng_state()


def test_the_seed_comes_back_with_the_state():
    # PyTorch: manual_seed(5); s = get_rng_state(); manual_seed(7); set_rng_state(s)
    # -> initial_seed() == 5; a Generator given that state reports 5 too.
    torch.manual_seed(5)
    state = torch.get_rng_state()
    torch.manual_seed(7)
    torch.set_rng_state(state)
    assert torch.initial_seed() == 5
    generator = torch.Generator().manual_seed(3)
    assert generator.set_state(state) is generator
    assert generator.initial_seed() == 5


def test_a_generator_state_moves_between_generators():
    a = torch.Generator().manual_seed(11)
    b = torch.Generator().manual_seed(12)
    b.set_state(a.get_state())
    assert torch.equal(torch.rand(4, generator=a), torch.rand(4, generator=b))


def test_any_shape_with_the_right_bytes_is_taken():
    # PyTorch takes state.view(2, -1) (it reads the bytes, whatever the shape).
    torch.manual_seed(1)
    state = torch.get_rng_state()
    first = torch.rand(3)
    torch.set_rng_state(state.view(2, -1))
    assert torch.equal(torch.rand(3), first)


@pytest.mark.parametrize("bad, kind", [({}, "dict"), ([1, 2], "list"),
                                       (np.zeros(48, np.uint8), "numpy.ndarray")])
def test_a_state_that_is_no_tensor_is_a_type_error(bad, kind):
    # PyTorch: TypeError: expected a torch.ByteTensor, but got dict
    with pytest.raises(TypeError, match=f"^expected a torch.ByteTensor, but got {kind}"):
        torch.set_rng_state(bad)
    with pytest.raises(TypeError, match=f"^expected a torch.ByteTensor, but got {kind}"):
        torch.Generator().set_state(bad)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int8, torch.bool])
def test_a_tensor_of_another_dtype_is_a_type_error(dtype):
    # PyTorch: TypeError: RNG state must be a torch.ByteTensor
    with pytest.raises(TypeError, match="^RNG state must be a torch.ByteTensor"):
        torch.set_rng_state(torch.get_rng_state().to(dtype))


def test_a_state_of_the_wrong_size_is_a_runtime_error():
    # PyTorch: RuntimeError: Expected a CPUGeneratorImplState of size 5056 but found the
    # input RNG state size to be 10
    state = torch.get_rng_state()
    with pytest.raises(RuntimeError, match="^Expected a CPUGeneratorImplState of size 48 but "
                                           "found the input RNG state size to be 10"):
        torch.set_rng_state(state[:10])
    with pytest.raises(RuntimeError, match="size to be 1"):
        torch.Generator().set_state(torch.tensor(5, dtype=torch.uint8))


def test_bytes_that_are_no_state_are_refused_and_change_nothing():
    # PyTorch: set_rng_state(torch.zeros(5056, dtype=torch.uint8)) ->
    # RuntimeError: Invalid mt19937 state
    torch.manual_seed(2)
    before = torch.get_rng_state()
    with pytest.raises(RuntimeError, match="^Invalid mt19937 state"):
        torch.set_rng_state(torch.zeros(48, dtype=torch.uint8))
    assert torch.equal(torch.get_rng_state(), before)


def test_the_state_survives_save_and_load():
    torch.manual_seed(3)
    state = torch.get_rng_state()
    first = torch.randn(4)
    buffer = io.BytesIO()
    torch.save({"rng_state": state}, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer)["rng_state"]
    assert loaded.dtype == torch.uint8
    torch.set_rng_state(loaded)
    assert torch.equal(torch.randn(4), first)
