"""A module that imports ``sqrt`` from math and also ``fx.wrap``s it, so that a trace of
``root`` patches the same global twice (as an autowrapped math function, then as a
wrapped name): tests/fx/test_symbolic_trace.py checks that it is put back."""

from math import sqrt

import minitorch.fx as fx

fx.wrap("sqrt")


def root(x):
    return sqrt(x)
