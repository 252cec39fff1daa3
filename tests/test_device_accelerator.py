"""``torch.accelerator`` and the default device (``minitorch/_device.py``): no accelerator,
the CPU as default, as PyTorch 2.13 answers on a machine without one."""

import pytest

import minitorch as torch

pytestmark = pytest.mark.chapter3


def test_no_accelerator():
    assert torch.accelerator.is_available() is False
    assert torch.accelerator.current_accelerator() is None
    assert torch.accelerator.current_accelerator(check_available=True) is None
    assert torch.accelerator.device_count() == 0


@pytest.mark.parametrize("name", ["current_device_index", "synchronize", "empty_cache",
                                  "current_stream", "memory_allocated"])
def test_asking_about_the_missing_accelerator_fails(name):
    with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is "
                                           "available"):
        getattr(torch.accelerator, name)()


def test_the_usual_device_choice_gives_the_cpu():
    device = (torch.accelerator.current_accelerator().type
              if torch.accelerator.is_available() else "cpu")
    assert torch.ones(2).to(device).device == torch.device("cpu")


def test_default_device_is_the_cpu():
    assert torch.get_default_device() == torch.device("cpu")
    torch.set_default_device("cpu")
    torch.set_default_device(torch.device("cpu"))
    torch.set_default_device(None)
    assert torch.ones(1).device == torch.get_default_device()
    with pytest.raises(AssertionError, match="CPU only"):       # PyTorch's type, at once
        torch.set_default_device("cuda")
    with pytest.raises(RuntimeError):
        torch.set_default_device("foo")


# Each call, the exception type PyTorch 2.13 (a CPU-only build) raises, and how its message
# starts; minitorch adds what to do after it.
REFUSED_DEVICES = [
    (lambda: torch.ones(2).to("cuda"), AssertionError, "Torch not compiled with CUDA enabled"),
    (lambda: torch.ones(2).cuda(), AssertionError, "Torch not compiled with CUDA enabled"),
    (lambda: torch.ones(2).to(torch.device("cuda", 0)), AssertionError,
     "Torch not compiled with CUDA enabled"),
    (lambda: torch.zeros(2, device="cuda"), AssertionError,
     "Torch not compiled with CUDA enabled"),
    (lambda: torch.tensor([1.0], device="cuda"), AssertionError,
     "Torch not compiled with CUDA enabled"),
    (lambda: torch.nn.Linear(2, 2).to("cuda"), AssertionError,
     "Torch not compiled with CUDA enabled"),
    (lambda: torch.nn.Linear(2, 2).cuda(), AssertionError,
     "Torch not compiled with CUDA enabled"),
    (lambda: torch.ones(2).to("mps"), RuntimeError,
     "PyTorch is not linked with support for mps devices"),
    (lambda: torch.ones(2).to(device=0), RuntimeError,
     "Cannot access accelerator device when none is available"),
    (lambda: torch.FloatTensor([1], device="cuda"), RuntimeError,
     "legacy constructor expects device type: cpu but device type: cuda was passed"),
    (lambda: torch.Generator(device="cuda"), RuntimeError, ""),
    (lambda: torch.ones(2).type("torch.cuda.FloatTensor"), RuntimeError, ""),
]


@pytest.mark.parametrize("call, error, start", REFUSED_DEVICES)
def test_a_device_other_than_the_cpu_is_refused_with_pytorchs_exception_type(call, error, start):
    with pytest.raises(error) as caught:
        call()
    assert type(caught.value) is error
    assert str(caught.value).startswith(start) and "CPU only" in str(caught.value)
