"""One small adapter per implementation; every workload talks to them the same way.

An adapter module has ``NAME`` (its key in the results), ``LABEL`` (for
tables), ``version()``, and:

``op_chain(x0, n_ops)``
    Set-up (not timed) for a chain of ``n_ops`` elementwise ops on a leaf
    holding the float32 array ``x0``: ``* MUL``, ``+ ADD``, ``exp``, ``log``,
    cycling, then a sum and backward.  Returns ``run()``, which builds the
    chain, runs backward and returns the gradient of the sum (a numpy array).

``op_chain_no_grad(x0, n_ops)``
    The same chain, without backward, under the implementation's
    ``no_grad()`` (inference: nothing is recorded).  ``run()`` returns the
    chain's result (a numpy array).

``Net(weights, lr)``
    An MLP with ReLU between its linear layers, softmax cross-entropy and
    plain SGD.  ``weights`` is a list of ``(W, b)`` float32 arrays in
    PyTorch's layout (``W`` is out x in).  ``net.step(x, y)`` does one
    training step on a batch made by ``fanout_chain(x0, depth)``
    Set-up for ``depth`` steps of ``y = y + y * FANOUT`` on a leaf holding the
    float64 array ``x0`` (each step uses ``y`` twice, so backward adds two
    gradients at every step), then a sum and backward.  ``run()`` returns the
    gradient (numpy).

``batch(x, y)`` and returns the loss as
    a float; ``net.predict(x)`` returns class indices (numpy);
    ``net.arrays()`` the parameters as numpy arrays (W1, b1, W2, ...);
    ``net.dtypes()`` the dtype names of the parameters, their gradients and
    the last loss.

``fanout_chain(x0, depth)``
    Set-up for ``depth`` steps of ``y = y + y * FANOUT`` on a leaf holding the
    float64 array ``x0`` (each step uses ``y`` twice, so backward adds two
    gradients at every step), then a sum and backward.  ``run()`` returns the
    gradient (numpy).

``batch(x, y)``
    The implementation's own objects for a batch of inputs and labels.

``seeds_graph(x)``, ``twice_graph(x)`` and ``seeds_backward(handle)``
    The seeds' loop body: ``y = square(square(square(x)))`` on a leaf made
    from ``x`` (``twice_graph``: each square written ``u * u``, the same
    tensor twice in one op); then the sum's backward, returning the gradient
    (numpy).  ``seeded_backward(handle)``: backward from a gradient of ones
    that the caller makes and holds while backward runs (``y.backward(seed)``).

The implementations that may be missing (PyTorch, DeZero) raise ImportError
when their module is imported.
"""

import importlib

# The elementwise chain: y = log(exp(y * MUL + ADD)) repeated; values stay near 1.
MUL = 0.999
ADD = 0.001
CYCLE = 4          # ops per repetition of the cycle (mul, add, exp, log)
FANOUT = 1e-4      # the fan-out chain: y = y + y * FANOUT

ORDER = ("numpy", "torch", "dezero", "minitorch")
MODULES = {"numpy": "numpy_impl", "torch": "torch_impl", "dezero": "dezero_impl",
           "minitorch": "minitorch_impl"}


def load(names=ORDER):
    """The adapters that import here, and why the others do not: ``(found, missing)``."""
    found, missing = {}, {}
    for name in names:
        try:
            found[name] = importlib.import_module(f"{__name__}.{MODULES[name]}")
        except ImportError as exc:
            missing[name] = f"{type(exc).__name__}: {exc}"
    return found, missing
