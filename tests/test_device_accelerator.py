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
    with pytest.raises(RuntimeError, match="CPU only"):
        torch.set_default_device("cuda")
    with pytest.raises(RuntimeError):
        torch.set_default_device("foo")
