"""scripts/perturb (``make test PERTURB=ulp``): minitorch's inexact ops moved by one ulp.

``nudged`` is tested directly; what the mode does to minitorch is tested in a fresh
Python started with the environment variable, as nbval's kernels are."""

import importlib
import os
import pathlib
import pkgutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from scripts.perturb import minitorch_ulp as ulp

pytestmark = pytest.mark.book

ROOT = pathlib.Path(__file__).resolve().parents[1]
PERTURB_DIR = ROOT / "scripts" / "perturb"


def ulps_moved(before, after):
    """How many representable floats lie between ``before`` and ``after`` (signed)."""
    signed = {2: np.int16, 4: np.int32, 8: np.int64}[before.itemsize]
    return after.view(signed).astype(np.int64) - before.view(signed).astype(np.int64)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_an_inexact_value_moves_by_one_ulp_keyed_on_its_last_bit(dtype):
    values = np.exp(np.linspace(-3, 3, 1001)).astype(dtype)
    moved = ulp.nudged(values)
    steps = ulps_moved(values, moved)
    assert set(np.unique(steps)) <= {-1, 0, 1}
    assert np.mean(steps != 0) > 0.95
    last_bit = values.view({2: np.int16, 4: np.int32, 8: np.int64}[values.itemsize]) & 1
    assert ((steps == 1) == ((last_bit == 0) & (steps != 0))).all()   # away from 0 if even
    assert (moved == ulp.nudged(values)).all()                           # a rerun: same bits
    assert (np.sign(moved) == np.sign(values)).all()


def test_negative_values_move_in_magnitude_as_positive_ones_do():
    values = np.array([0.3, 0.1, 2.7182818284590455])
    assert (ulps_moved(-values, ulp.nudged(-values)) ==
            ulps_moved(values, ulp.nudged(values))).all()
    assert (ulp.nudged(-values) == -ulp.nudged(values)).all()


def test_exact_looking_and_special_values_are_left_alone():
    tiny = np.finfo(np.float64).tiny
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -3.0, 2.0 ** 60, 1e20 + 4.0,
                        0.5, 2.375, -0.125, tiny, tiny / 3, 5e-324, np.exp(-1000.0),
                        np.finfo(np.float64).max])
    out = ulp.nudged(special)
    assert (out.view(np.int64) == special.view(np.int64)).all()
    assert not (np.abs(ulp.nudged(np.array([1e-300, 2.2e-308 * 1.5]))) < tiny).any()


def test_a_large_non_integer_still_moves():
    values = np.array([2.0 ** 30 + 0.1, 12345.678], dtype=np.float64)
    assert (np.abs(ulps_moved(values, ulp.nudged(values))) == 1).all()
    big32 = np.array([5000.3], dtype=np.float32)
    assert abs(ulps_moved(big32, ulp.nudged(big32))[0]) == 1


def test_nudged_leaves_its_input_alone_and_takes_any_layout():
    values = np.linspace(0.1, 0.9, 12).reshape(3, 4)
    copy = values.copy()
    out = ulp.nudged(values.T)
    assert (values == copy).all() and out.shape == (4, 3)
    assert (np.abs(ulps_moved(values.T.copy(), out)) <= 1).all()


def all_builtin_ops():
    import minitorch
    for module in pkgutil.walk_packages(minitorch.__path__, "minitorch."):
        if not module.name.startswith("minitorch.book"):   # files for chapter 17's page;
            importlib.import_module(module.name)          # gpt.py imports torch
    from minitorch.ops._common import BuiltinFunction

    def below(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from below(sub)
    return {(c.__module__, c.__name__) for c in below(BuiltinFunction)
            if c.__module__.startswith("minitorch.")}     # not an op a test defines


def test_every_op_of_minitorch_is_classified_exact_or_inexact():
    inexact = {(m, n) for m, names in ulp.INEXACT.items() for n in names}
    exact = {(m, n) for m, names in ulp.EXACT.items() for n in names}
    assert not inexact & exact
    unclassified = all_builtin_ops() - inexact - exact
    assert not unclassified, (f"put these ops in INEXACT or EXACT of "
                              f"scripts/perturb/minitorch_ulp.py: {sorted(unclassified)}")


def run_python(code, mode="ulp"):
    """Run ``code`` in a new Python, with scripts/perturb on PYTHONPATH and the mode set
    (or unset when ``mode`` is None); returns the finished process."""
    env = {k: v for k, v in os.environ.items() if k != ulp.MODE_VARIABLE}
    env["PYTHONPATH"] = os.pathsep.join([str(PERTURB_DIR), str(ROOT)])
    if mode is not None:
        env[ulp.MODE_VARIABLE] = mode
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_when_on_inexact_ops_move_and_exact_ones_do_not():
    done = run_python("""
        import numpy as np
        import minitorch as torch
        import minitorch_ulp

        def ulps(a, b):
            return int(np.abs(a.view(np.int64) - b.view(np.int64)).max())

        assert minitorch_ulp.active() == "ulp"
        x = np.array([0.3, 0.7, 1.9])
        t = torch.tensor(x)
        assert ulps(torch.exp(t).numpy(), np.exp(x)) == 1
        assert (torch.exp(torch.tensor([-1000.0, 0.0], dtype=torch.float64)).numpy()
                == [0.0, 1.0]).all()
        assert ulps((t + t * t / 3).numpy(), x + x * x / 3) == 0
        assert ulps(t.sqrt().numpy(), np.sqrt(x)) == 0
        m = np.arange(1, 13).reshape(3, 4) / 7
        assert ulps((torch.tensor(m) @ torch.tensor(m.T)).numpy(), m @ m.T) == 1
        assert ulps(torch.tensor(m).sum(dim=1).numpy(), m.sum(axis=1)) == 1
        assert (t.exp() == t.exp()).all()                    # same input, same bits
        # backward runs as ops, so the gradient's matrix products and sums move too,
        # the same on the usual path as on the double-backward one
        x, w = torch.tensor(m, requires_grad=True), torch.tensor(m[:2], requires_grad=True)
        bias = torch.zeros(2, dtype=torch.float64, requires_grad=True)
        y = torch.nn.functional.linear(x, w, bias)
        g = np.arange(6.0).reshape(3, 2) / 3
        grads = torch.autograd.grad(y, (x, w, bias), torch.tensor(g), retain_graph=True)
        again = torch.autograd.grad(y, (x, w, bias), torch.tensor(g), create_graph=True)
        assert all((a.numpy() == b.detach().numpy()).all() for a, b in zip(grads, again))
        assert ulps(grads[0].numpy(), g @ m[:2]) == 1
        assert ulps(grads[1].numpy(), g.T @ m) == 1
        print("ok")
    """)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_when_on_gradcheck_and_its_reentrancy_test_still_pass():
    done = run_python("""
        import minitorch as torch
        torch.manual_seed(0)
        a = torch.randn(4, 5, dtype=torch.float64, requires_grad=True)
        b = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
        f = lambda a, b: ((a @ b).tanh().softmax(-1) * 3).log().exp().sum(0) ** 1.5
        assert torch.autograd.gradcheck(f, (a, b))
        assert torch.autograd.gradgradcheck(lambda a, b: (a @ b).exp().mean(), (a, b))
        print("ok")
    """)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_when_off_minitorch_is_untouched():
    done = run_python("""
        import sys
        import minitorch as torch
        from minitorch.ops._common import BuiltinBackward
        from minitorch.autograd.function import BackwardCFunction, FunctionMeta
        assert "_nudges" not in vars(torch.ops.pointwise.Exp.forward)
        assert BuiltinBackward._run_backward is not BackwardCFunction._run_backward
        assert "minitorch_ulp" not in sys.modules or sys.modules["minitorch_ulp"].active() is None
        print("ok")
    """, mode=None)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_an_unknown_mode_stops_python_with_what_to_set():
    done = run_python("print('ran')", mode="ulps")
    assert done.returncode == 2 and "ran" not in done.stdout
    assert "MINITORCH_PERTURB='ulps': unknown mode" in done.stderr and "ulp" in done.stderr


def test_installing_after_minitorch_is_imported_is_refused():
    done = run_python("""
        import minitorch
        from scripts.perturb import minitorch_ulp
        try:
            minitorch_ulp.install()
        except RuntimeError as e:
            print("refused:", e)
    """, mode=None)
    assert "refused: minitorch_ulp.install() must run before minitorch" in done.stdout
