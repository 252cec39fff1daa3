"""gradcheck and gradgradcheck: test a backward against finite differences (chapter 4).

For a function ``f`` of some tensors, the Jacobian can be estimated without
any backward at all: nudge one input element by ``eps`` up and down and look
at how each output element moves, ``(f(x + eps) - f(x - eps)) / 2eps``.
``gradcheck`` builds that numerical Jacobian and the analytical one (from
backward, one output element at a time) and compares them.  Use float64
inputs: in float32 the rounding error of the differences is about as large
as the tolerance.
"""

import warnings

import numpy as np

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck when the analytical and numerical gradients disagree."""


def _tensors(inputs):
    from .._tensor import Tensor
    return isinstance(inputs, Tensor), (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)


def _outputs(func, inputs):
    from .._tensor import Tensor
    out = func(*inputs)
    outs = (out,) if isinstance(out, Tensor) else tuple(out)
    return tuple(o for o in outs if isinstance(o, Tensor))


def _numerical_jacobians(func, inputs, diff_positions, eps):
    """For each differentiable input, a list (one per output) of Jacobians [n_in, n_out]."""
    # Grad mode stays on: ``func`` may itself differentiate (gradgradcheck's does).
    # The inputs are nudged through their numpy arrays, outside autograd's view.
    base = _outputs(func, inputs)
    jacobians = []
    for pos in diff_positions:
        flat = inputs[pos]._data.reshape(-1)
        per_output = [np.zeros((flat.size, o._data.size)) for o in base]
        for i in range(flat.size):
            original = flat[i].item()
            flat[i] = original + eps
            plus = _flat_values(func, inputs)
            flat[i] = original - eps
            minus = _flat_values(func, inputs)
            flat[i] = original
            for k in range(len(base)):
                per_output[k][i] = (plus[k] - minus[k]) / (2 * eps)
        jacobians.append(per_output)
    return jacobians


def _flat_values(func, inputs):
    return [o._data.astype(np.float64).reshape(-1) for o in _outputs(func, inputs)]


def _analytical_jacobians(func, inputs, diff_positions):
    from .._tensor import Tensor
    from . import grad
    outputs = _outputs(func, inputs)
    diff_inputs = [inputs[p] for p in diff_positions]
    jacobians = [[np.zeros((x._data.size, o._data.size)) for o in outputs] for x in diff_inputs]
    for k, out in enumerate(outputs):
        if not out.requires_grad:
            continue
        for j in range(out._data.size):
            seed = np.zeros(out._data.size, dtype=out._data.dtype)
            seed[j] = 1
            grads = grad(out, diff_inputs, Tensor._wrap(seed.reshape(out._data.shape)),
                         retain_graph=True, allow_unused=True)
            for i, g in enumerate(grads):
                if g is not None:
                    jacobians[i][k][:, j] = g._data.astype(np.float64).reshape(-1)
    return jacobians


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, fast_mode=False, **ignored):
    """True if ``func``'s backward matches finite differences for ``inputs``.

    On a mismatch raises :class:`GradcheckError` (a RuntimeError) that shows
    both Jacobians, or returns False when ``raise_exception=False``.
    """
    _, inputs = _tensors(inputs)
    from .._tensor import Tensor
    diff_positions = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not diff_positions:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of the them have requires_grad=True.")
    for i in diff_positions:
        if inputs[i]._data.dtype != np.float64:
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point. "
                          "This check will likely fail if all the inputs are not of double precision "
                          "floating point.", UserWarning, stacklevel=2)
    numerical = _numerical_jacobians(func, inputs, diff_positions, eps)
    analytical = _analytical_jacobians(func, inputs, diff_positions)
    for i, pos in enumerate(diff_positions):
        for k, (num, ana) in enumerate(zip(numerical[i], analytical[i])):
            if not np.allclose(ana, num, rtol=rtol, atol=atol, equal_nan=True):
                message = (f"Jacobian mismatch for output {k} with respect to input {pos},\n"
                           f"numerical:{_fmt(num)}\nanalytical:{_fmt(ana)}\n")
                if raise_exception:
                    raise GradcheckError(message)
                return False
    return True


def _fmt(matrix):
    from .._tensor import Tensor
    return repr(Tensor._wrap(matrix)).replace("tensor(", "tensor(", 1)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  raise_exception=True, **ignored):
    """Check second derivatives: gradcheck applied to the function that computes
    the gradient of ``func`` (a vector-Jacobian product built with create_graph=True)."""
    from .._tensor import Tensor
    from .. import randn
    from . import grad
    _, inputs = _tensors(inputs)
    outputs = _outputs(func, inputs)
    if grad_outputs is None:
        grad_outputs = tuple(randn(*o.shape, dtype=o.dtype, requires_grad=True)
                             for o in outputs if o.requires_grad)
    else:
        grad_outputs = _tensors(grad_outputs)[1]
    n_inputs = len(inputs)
    diff_positions = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]

    def first_derivative(*args):
        xs, gos = args[:n_inputs], args[n_inputs:]
        outs = [o for o in _outputs(func, xs) if o.requires_grad]
        diff = [xs[i] for i in diff_positions]
        grads = grad(outs, diff, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivative, tuple(inputs) + tuple(grad_outputs), eps=eps, atol=atol,
                     rtol=rtol, raise_exception=raise_exception)
