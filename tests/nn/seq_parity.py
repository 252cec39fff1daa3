"""Running a case of ``seq_cases.py`` on minitorch and comparing it with PyTorch's stored
results (``data/seq_pytorch.npz``, from ``scripts/make_seq_fixtures.py``)."""

import pathlib
import warnings

import numpy as np

import minitorch

from . import seq_cases

DATA = pathlib.Path(__file__).parent / "data" / "seq_pytorch.npz"
_expected = None


def expected(name):
    global _expected
    if _expected is None:
        with np.load(DATA) as data:
            _expected = dict(data)
    prefix = name + ":"
    return {k[len(prefix):]: v for k, v in _expected.items() if k.startswith(prefix)}


def check_case(name, rtol=1e-5, atol=1e-6):
    """minitorch's outputs and gradients for case ``name`` equal PyTorch's (float32: each
    element within ``rtol`` of its value or of the array's largest value, since sums
    of float32 terms in another order differ by that much)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        actual = seq_cases.CASES[name](minitorch)
    wanted = expected(name)
    assert sorted(actual) == sorted(wanted)
    for key, value in wanted.items():
        assert actual[key].shape == value.shape, key
        scale = float(np.abs(value).max()) if value.size else 0.0
        np.testing.assert_allclose(actual[key], value, rtol=rtol, atol=max(atol, rtol * scale),
                                   err_msg=key)


def names(prefixes):
    return [n for n in seq_cases.CASES if n.startswith(prefixes)]
