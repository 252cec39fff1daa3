"""Python imports this at start-up when scripts/perturb is on PYTHONPATH.

With ``MINITORCH_PERTURB=ulp`` set it installs minitorch_ulp (see there) before anything
imports minitorch; without it, it does nothing. Either way it then runs the
``sitecustomize`` this one hides, if the interpreter has one further down ``sys.path``.
"""

import importlib.machinery
import importlib.util
import os
import sys

import minitorch_ulp

minitorch_ulp.install_from_environment()


def _run_the_hidden_sitecustomize():
    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


_run_the_hidden_sitecustomize()
