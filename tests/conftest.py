"""Shared test set-up: hypothesis profiles and a fixed seed for every test.

The strategies themselves live in ``tests/strategies.py``.  Tests are marked
by the chapter that explains what they check (``pytest -m chapter3``) and,
where they grade a classroom task, by that task (``@pytest.mark.task("3.2")``).
"""

import os
import sys

import pytest
from hypothesis import settings, HealthCheck

# The default profile draws the same examples on every run (derandomize): `make test`, CI
# and a student's copy pass or fail the same way each time, never on a rare draw (CI once
# failed on one). The thorough profile draws new examples each run, to look for bugs:
# HYPOTHESIS_PROFILE=thorough make test.
settings.register_profile("default", max_examples=25, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=300, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(autouse=True)
def _seed():
    import minitorch
    minitorch.manual_seed(0)
    yield
    # A test that fails half-way (or finds a bug that flips a global mode) must not
    # change what the tests after it see.
    minitorch.set_grad_enabled(True)
    minitorch.set_default_dtype(minitorch.float32)
    # Compiled graphs are cached per function, shared by every compile of it (as in
    # PyTorch, whose own tests reset between tests too): forget them.
    if "minitorch._dynamo.eval_frame" in sys.modules:
        minitorch._dynamo.reset()
