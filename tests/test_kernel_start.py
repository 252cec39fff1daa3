"""The repository's conftest.py: a notebook kernel that dies while starting under nbval is
started again (two test runs at once can be handed the same port), and one that never
starts fails with what it wrote to its error output."""

import importlib.util
import pathlib

import pytest

pytestmark = pytest.mark.book

ROOT = pathlib.Path(__file__).resolve().parents[1]


def root_conftest():
    spec = importlib.util.spec_from_file_location("_root_conftest", ROOT / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def dying_start(deaths):
    """A stand-in for nbval's start_new_kernel whose first ``deaths`` kernels exit."""
    calls = []

    def start(startup_timeout=60, kernel_name="python", **kwargs):
        calls.append(kwargs)
        if len(calls) <= deaths:
            kwargs["stderr"].write("zmq.error.ZMQError: Address already in use\n")
            kwargs["stderr"].flush()
            raise RuntimeError("Kernel died before replying to kernel_info")
        return "manager", "client"
    return start, calls


def test_a_kernel_that_dies_while_starting_is_started_again():
    start, calls = dying_start(deaths=2)
    with pytest.warns(RuntimeWarning, match="Address already in use") as said:
        assert root_conftest()._start_with_retries(start)(kernel_name="k") == (
            "manager", "client")
    assert len(calls) == 3 and len(said) == 2


def test_a_kernel_that_never_starts_fails_with_what_it_wrote():
    start, calls = dying_start(deaths=5)
    with pytest.warns(RuntimeWarning), pytest.raises(RuntimeError) as raised:
        root_conftest()._start_with_retries(start)(kernel_name="k")
    assert len(calls) == 3
    assert "no kernel started in 3 tries" in str(raised.value)
    assert "Address already in use" in str(raised.value)


def test_nbval_starts_its_kernels_through_the_retry():
    kernel = pytest.importorskip("nbval.kernel")
    assert hasattr(kernel.start_new_kernel, "__wrapped__")
