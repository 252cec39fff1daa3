"""pytest set-up for the whole repository: starting the notebooks' kernels under nbval.

nbval starts one Jupyter kernel per notebook and sends the kernel's own error output to
/dev/null. Now and then a kernel exits before it answers its first request ("Kernel died
before replying to kernel_info"): when two test runs start kernels at the same moment (make
test-machines runs two at a time), both can be handed the same free TCP port, and the one
that binds it second exits. No cell has run then, so nothing about the notebook is known.
Here a kernel that dies while starting is started again, up to three times in all, and a
kernel that never starts fails with the last lines it wrote to its error output.
The unit tests' own set-up is tests/conftest.py.
"""

import tempfile
import warnings

KERNEL_STARTS = 3


def _start_with_retries(start):
    def start_new_kernel(*args, **kwargs):
        for attempt in range(1, KERNEL_STARTS + 1):
            with tempfile.TemporaryFile(mode="w+") as errors:
                kwargs["stderr"] = errors
                try:
                    return start(*args, **kwargs)
                except RuntimeError as error:
                    errors.seek(0)
                    said = errors.read().strip().splitlines()[-8:]
                    why = f"{error}; the kernel wrote: " + (" | ".join(said) or "nothing")
                    if attempt == KERNEL_STARTS:
                        raise RuntimeError(f"no kernel started in {KERNEL_STARTS} tries: "
                                           f"{why}") from error
                    warnings.warn(f"a notebook kernel died while starting ({why}); "
                                  "starting another", RuntimeWarning, stacklevel=2)
    start_new_kernel.__wrapped__ = start
    return start_new_kernel


def pytest_configure(config):
    try:
        from nbval import kernel
    except ImportError:                 # pytest without nbval: only unit tests run
        return
    if not hasattr(kernel.start_new_kernel, "__wrapped__"):
        kernel.start_new_kernel = _start_with_retries(kernel.start_new_kernel)
