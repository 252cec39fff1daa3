"""A module that imports ``sqrt`` from math and also ``fx.wrap``s it, so that a trace of
``root`` patches the same global twice (as an autowrapped math function, then as a
wrapped name), and that wraps ``halve``, which ``halved`` calls here:
tests/fx/test_symbolic_trace.py checks that sqrt is put back, and that a function
traced elsewhere records ``halve`` through ``halved``."""

from math import sqrt

import minitorch.fx as fx

fx.wrap("sqrt")
fx.wrap("halve")


def root(x):
    return sqrt(x)


def halve(x):
    return x / 2


def halved(x):
    return halve(x)
