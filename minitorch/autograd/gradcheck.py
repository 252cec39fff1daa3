"""gradcheck and gradgradcheck: test a backward against finite differences (chapter 6).

For a function ``f`` of some tensors, the Jacobian can be estimated without
any backward at all: nudge one input element by ``eps`` up and down and look
at how each output element moves, ``(f(x + eps) - f(x - eps)) / 2eps``.
``gradcheck`` builds that numerical Jacobian and the analytical one (from
backward, one output element at a time) and compares them.  Use float64
inputs: in float32 the rounding error of the differences is about as large
as the tolerance.

Besides the comparison, ``gradcheck`` runs the checks PyTorch's does, with
the same keyword arguments:

* backward runs twice on each seed and must give the same numbers, up to
  ``nondet_tol`` (a backward that is not reentrant, or is nondeterministic);
* a zero output gradient must give zero input gradients of the inputs'
  shapes (and, with ``check_grad_dtypes=True``, dtypes): backward must
  multiply by the gradient it receives;
* ``check_undefined_grad``: backward must cope with output gradients that
  never arrived (None), giving no gradient or zeros;
* ``fast_mode=True`` compares one number per (input, output) pair, ``v^T J u``
  for random unit vectors ``u`` and ``v``, instead of whole Jacobians.

``check_forward_ad`` compares forward mode (chapter 12) with finite differences;
``check_batched_grad`` and ``check_batched_forward_grad`` raise
NotImplementedError when set.  ``masked`` only concerns sparse tensors in
PyTorch; minitorch's tensors are all dense, so it only relaxes the zero test
above to ``allclose``, as PyTorch's masked mode does.
"""

import warnings

import numpy as np

from .._tensor import Tensor
from .function import Function

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck when the analytical and numerical gradients disagree."""


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """True if ``func``'s backward matches finite differences for ``inputs``.

    On a mismatch raises :class:`GradcheckError` (a RuntimeError) that shows
    both Jacobians, or returns False when ``raise_exception=False``.
    """
    _refuse_unsupported(check_forward_ad, check_backward_ad, check_batched_grad,
                        check_batched_forward_grad)
    try:
        inputs = _as_tuple(inputs)
        if check_forward_ad:
            _check_forward_ad(func, inputs, eps, atol, rtol)
        if not check_backward_ad:
            return True
        return _gradcheck(func, inputs, eps, atol, rtol, nondet_tol,
                          check_undefined_grad, check_grad_dtypes, fast_mode, bool(masked))
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _refuse_unsupported(forward_ad, backward_ad, batched, batched_forward):
    if not (forward_ad or backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad "
                             "to be True")
    if batched_forward:
        raise NotImplementedError("minitorch's gradcheck does not check batched forward "
                                  "gradients: leave check_batched_forward_grad False")
    if batched:
        raise NotImplementedError("minitorch's gradcheck does not check batched gradients: "
                                  "leave check_batched_grad False")


def _check_forward_ad(func, inputs, eps, atol, rtol):
    """Forward mode (chapter 12) against finite differences: for each element of each
    input that requires grad, the tangents of the outputs along that element."""
    from . import forward_ad
    diff_positions = _check_inputs(inputs)
    numerical = _numerical_jacobians(func, inputs, diff_positions, eps)
    for i, pos in enumerate(diff_positions):
        x = inputs[pos]
        for row in range(x._data.size):
            one_hot = np.zeros(x._data.size, dtype=x._data.dtype)
            one_hot[row] = 1
            with forward_ad.dual_level():
                duals = list(inputs)
                duals[pos] = forward_ad.make_dual(x.detach(), Tensor._wrap(
                    one_hot.reshape(x._data.shape)))
                outs = [o for o in _as_tuple(func(*duals))
                        if isinstance(o, Tensor) and o._data.dtype.kind == "f"]
                tangents = [forward_ad.unpack_dual(o).tangent for o in outs]
            for k, t in enumerate(tangents):
                forward = np.zeros(outs[k]._data.size) if t is None else \
                    t._data.reshape(-1)
                num = numerical[i][k][row]
                if not _allclose(forward, num, rtol, atol):
                    raise GradcheckError(
                        f"Jacobian computed with forward mode mismatch for output {k} with "
                        f"respect to input {i},\nnumerical:{num}\nanalytical:{forward}\n")


def _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
               check_grad_dtypes, fast_mode, masked):
    diff_positions = _check_inputs(inputs)
    diff_inputs = [inputs[p] for p in diff_positions]
    outputs = _differentiable(func(*inputs))
    if not outputs:
        return _check_no_differentiable_outputs(func, inputs, diff_positions, eps)
    compare = _compare_fast if fast_mode else _compare_slow
    compare(func, inputs, diff_positions, outputs, eps, atol, rtol, nondet_tol,
            check_grad_dtypes)
    _check_backward_multiplies_by_its_gradient(outputs, diff_inputs, masked)
    if check_undefined_grad:
        _check_undefined_output_gradients(func, inputs, diff_inputs)
    return True


# ----- inputs and outputs ---------------------------------------------------------------------
def _as_tuple(x):
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x) if isinstance(x, (list, tuple)) else (x,)


def _check_inputs(inputs):
    """The positions of the inputs that require grad (at least one), each one that
    gradcheck can nudge element by element."""
    positions = []
    for i, x in enumerate(inputs):
        if not (isinstance(x, Tensor) and x.requires_grad):
            continue
        if x._data.dtype != np.float64:
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point. This check will likely fail if all the inputs are not of "
                          "double precision floating point.", UserWarning, stacklevel=4)
        if any(st == 0 and n > 1 for st, n in zip(x._data.strides, x._data.shape)):
            raise RuntimeError(f"The {i}th input has a dimension with stride 0 (a view made by "
                               "expand): nudging one of its elements would move several. Pass "
                               "a copy of it (.clone()) to gradcheck.")
        positions.append(i)
    if not positions:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of them have requires_grad=True.")
    return positions


def _differentiable(out):
    """The outputs that require grad: those backward has a gradient for."""
    outs = _as_tuple(out)
    for o in outs:
        if not isinstance(o, Tensor):
            raise AttributeError(f"gradcheck: func returned a {type(o).__name__}, which has no "
                                 "requires_grad; func must return a Tensor or a tuple of Tensors")
    return [o for o in outs if o.requires_grad]


def _float_outputs(func, inputs):
    """The values of ``func``'s floating point outputs, as numpy arrays of their dtype."""
    return [o._data.copy() for o in _as_tuple(func(*inputs))
            if isinstance(o, Tensor) and o._data.dtype.kind == "f"]


# ----- the numerical side ---------------------------------------------------------------------
def _numerical_jacobians(func, inputs, diff_positions, eps):
    """For each differentiable input, a list (one per floating point output) of
    Jacobians [n_in, n_out], by central differences in the outputs' own dtype."""
    # Grad mode stays on: ``func`` may itself differentiate (gradgradcheck's does).
    # The inputs are nudged through their numpy arrays, outside autograd's view.
    base = _float_outputs(func, inputs)
    jacobians = []
    for pos in diff_positions:
        x = inputs[pos]._data
        per_output = [np.zeros((x.size, o.size), dtype=o.dtype) for o in base]
        for row, index in enumerate(np.ndindex(x.shape)):
            ### BEGIN SOLUTION 6.7
            original = x[index].item()
            x[index] = original - eps
            below = _float_outputs(func, inputs)
            x[index] = original + eps
            above = _float_outputs(func, inputs)
            x[index] = original
            for k, (b, a) in enumerate(zip(below, above)):
                per_output[k][row] = ((a - b) / (2 * eps)).reshape(-1)
            ### END SOLUTION 6.7
        jacobians.append(per_output)
    return jacobians


def _differentiable_columns(func, inputs, jacobians):
    """Keep, of each input's per-output Jacobians, those of the outputs that require grad."""
    floats = [o for o in _as_tuple(func(*inputs))
              if isinstance(o, Tensor) and o._data.dtype.kind == "f"]
    keep = [k for k, o in enumerate(floats) if o.requires_grad]
    return [[per_output[k] for k in keep] for per_output in jacobians]


def _check_no_differentiable_outputs(func, inputs, diff_positions, eps):
    """No output requires grad: then none may depend on the inputs at all."""
    for per_output in _numerical_jacobians(func, inputs, diff_positions, eps):
        if any(np.any(j != 0) for j in per_output):
            raise GradcheckError("Numerical gradient for function expected to be zero: no "
                                 "output requires grad, yet the outputs change with the inputs")
    return True


# ----- the analytical side --------------------------------------------------------------------
def _analytical_jacobian(output, diff_inputs, check_grad_dtypes, nondet_tol):
    """For one output, the Jacobian [n_in, n_out] of each differentiable input, one backward
    per output element; computed twice, to catch a backward that is not reentrant."""
    first = _jacobian_by_rows(output, diff_inputs, check_grad_dtypes)
    second = _jacobian_by_rows(output, diff_inputs, False)
    for a, b in zip(first, second):
        if a.size and np.abs(a - b).max() > nondet_tol:
            raise GradcheckError(_NOT_REENTRANT.format(nondet_tol))
    return first


_NOT_REENTRANT = ("Backward is not reentrant: run twice with the same input and gradient, it "
                  "gave results that differ by more than nondet_tol={}. A backward should "
                  "be deterministic; if yours is not on purpose, pass gradcheck a larger "
                  "nondet_tol.")


def _jacobian_by_rows(output, diff_inputs, check_grad_dtypes):
    from . import grad
    jacobians = [np.zeros((x._data.size, output._data.size), dtype=x._data.dtype)
                 for x in diff_inputs]
    for j in range(output._data.size):
        seed = np.zeros(output._data.size, dtype=output._data.dtype)
        seed[j] = 1
        grads = grad(output, diff_inputs, Tensor._wrap(seed.reshape(output._data.shape)),
                     retain_graph=True, allow_unused=True)
        for jacobian, g, x in zip(jacobians, grads, diff_inputs):
            if g is not None:
                _check_gradient_of(x, g, check_grad_dtypes)
                jacobian[:, j] = g._data.reshape(-1)
    return jacobians


def _check_gradient_of(x, g, check_dtype):
    if check_dtype and g._data.dtype != x._data.dtype:
        raise GradcheckError(f"Gradient has dtype mismatch: {g.dtype} for an input of "
                             f"{x.dtype}; backward must return each gradient in its input's dtype")
    if g._data.shape != x._data.shape:
        raise GradcheckError(f"Analytical gradient has incorrect size: {list(g.shape)} for an "
                             f"input of shape {list(x.shape)}")


# ----- comparing them -------------------------------------------------------------------------
def _compare_slow(func, inputs, diff_positions, outputs, eps, atol, rtol, nondet_tol,
                  check_grad_dtypes):
    """Whole Jacobians, element by element."""
    diff_inputs = [inputs[p] for p in diff_positions]
    numerical = _differentiable_columns(
        func, inputs, _numerical_jacobians(func, inputs, diff_positions, eps))
    for k, out in enumerate(outputs):
        analytical = _analytical_jacobian(out, diff_inputs, check_grad_dtypes, nondet_tol)
        for i, ana in enumerate(analytical):
            num = numerical[i][k]
            if not _allclose(ana, num, rtol, atol):
                raise GradcheckError(_mismatch(k, i, num, ana))


def _compare_fast(func, inputs, diff_positions, outputs, eps, atol, rtol, nondet_tol,
                  check_grad_dtypes):
    """One number per (output k, input i): v_k^T J u_i for random unit vectors; the
    tolerance ``atol`` grows with sum(u) * sum(v), as each element of J may be off by it."""
    rng = np.random.default_rng(0)          # its own generator: the user's stays untouched
    diff_inputs = [inputs[p] for p in diff_positions]
    us = [_unit_vector(rng, x) for x in diff_inputs]
    vs = [_unit_vector(rng, o) for o in outputs]
    for i, (pos, u) in enumerate(zip(diff_positions, us)):
        ju = _numerical_directional(func, inputs, pos, u, eps)
        for k, (out, v) in enumerate(zip(outputs, vs)):
            vj = _analytical_vjp(out, diff_inputs, v, check_grad_dtypes, nondet_tol)[i]
            num, ana = np.dot(v, ju[k]), np.dot(vj, u)
            if not _allclose(ana, num, rtol, atol * u.sum() * v.sum()):
                raise GradcheckError(_mismatch(k, i, num, ana) +
                                     _slow_details(func, inputs, diff_positions, k, i, eps,
                                                   atol, rtol))


def _unit_vector(rng, t):
    u = rng.random(t._data.size).astype(t._data.dtype)
    return u / np.linalg.norm(u) if u.size else u


def _numerical_directional(func, inputs, pos, u, eps):
    """J u for each differentiable output, by central differences along ``u``."""
    x = inputs[pos]._data
    original = x.copy()
    x[...] = original - eps * u.reshape(x.shape)
    below = _differentiable_values(func, inputs)
    x[...] = original + eps * u.reshape(x.shape)
    above = _differentiable_values(func, inputs)
    x[...] = original
    return [((a - b) / (2 * eps)).reshape(-1) for b, a in zip(below, above)]


def _differentiable_values(func, inputs):
    return [o._data.copy() for o in _differentiable(func(*inputs))]


def _analytical_vjp(output, diff_inputs, v, check_grad_dtypes, nondet_tol):
    """v^T J for each differentiable input (flattened), computed twice like the Jacobian."""
    from . import grad
    results = []
    for _ in range(2):
        seed = Tensor._wrap(v.astype(output._data.dtype).reshape(output._data.shape))
        grads = grad(output, diff_inputs, seed, retain_graph=True, allow_unused=True)
        row = []
        for g, x in zip(grads, diff_inputs):
            if g is not None:
                _check_gradient_of(x, g, check_grad_dtypes)
            row.append(np.zeros(x._data.size, x._data.dtype) if g is None
                       else g._data.reshape(-1).copy())
        results.append(row)
    for a, b in zip(*results):
        if a.size and np.abs(a - b).max() > nondet_tol:
            raise GradcheckError(_NOT_REENTRANT.format(nondet_tol))
    return results[0]


def _slow_details(func, inputs, diff_positions, k, i, eps, atol, rtol):
    """The full Jacobians of the failing pair, for the message of a fast-mode failure."""
    diff_inputs = [inputs[p] for p in diff_positions]
    outputs = _differentiable(func(*inputs))
    num = _differentiable_columns(
        func, inputs, _numerical_jacobians(func, inputs, [diff_positions[i]], eps))[0][k]
    ana = _analytical_jacobian(outputs[k], diff_inputs, False, float("inf"))[i]
    verdict = ("They agree within the tolerances: call gradcheck with fast_mode=False."
               if _allclose(ana, num, rtol, atol) else "")
    return (f"\n(Fast mode compared v^T J u for random unit vectors u and v.) The whole "
            f"Jacobians:\nnumerical:{_fmt(num)}\nanalytical:{_fmt(ana)}\nlargest difference: "
            f"{np.abs(num - ana).max() if num.size else 0.0}. {verdict}\n")


def _allclose(analytical, numerical, rtol, atol):
    dtype = np.promote_types(np.asarray(analytical).dtype, np.asarray(numerical).dtype)
    return np.allclose(np.asarray(analytical, dtype), np.asarray(numerical, dtype), rtol=rtol,
                       atol=atol, equal_nan=True)


def _mismatch(k, i, numerical, analytical):
    return (f"Jacobian mismatch for output {k} with respect to input {i},\n"
            f"numerical:{_fmt(numerical)}\nanalytical:{_fmt(analytical)}\n")


def _fmt(values):
    return repr(Tensor._wrap(np.asarray(values)))


# ----- backward's other duties ----------------------------------------------------------------
def _check_backward_multiplies_by_its_gradient(outputs, diff_inputs, masked):
    """Zero output gradients must give zero input gradients, of the inputs' shape and dtype."""
    from . import grad
    zeros = [Tensor._wrap(np.zeros_like(o._data)) for o in outputs]
    for g, x in zip(grad(outputs, diff_inputs, zeros, allow_unused=True), diff_inputs):
        if g is None:
            continue
        zero = np.allclose(g._data, 0) if masked else not np.any(g._data != 0)
        if not zero:
            raise GradcheckError("backward not multiplied by grad_output: a zero output "
                                 "gradient gave a nonzero input gradient")
        if g._data.dtype != x._data.dtype:
            raise GradcheckError(f"grad is incorrect type: {g.dtype} for an input of {x.dtype}")
        if g._data.shape != x._data.shape:
            raise GradcheckError(f"grad is incorrect size: {list(g.shape)} for an input of "
                                 f"shape {list(x.shape)}")


def _check_undefined_output_gradients(func, inputs, diff_inputs):
    """Backward must cope with output gradients that are undefined (None): all of them at
    once, then one output at a time.  It may raise nothing and must give None or zeros."""
    from . import grad
    outputs = _differentiable(func(*inputs))
    cases = [[_NoGradient.apply(o) for o in outputs]]
    if len(outputs) > 1:
        for k in range(len(outputs)):
            outs = _differentiable(func(*inputs))
            cases.append([_NoGradient.apply(o) if j == k else o for j, o in enumerate(outs)])
    for case in cases:
        zeros = [Tensor._wrap(np.zeros_like(o._data)) for o in case]
        try:
            grads = grad(case, diff_inputs, zeros, allow_unused=True)
        except RuntimeError as error:
            raise GradcheckError("Expected backward function to handle undefined output grads: "
                                 f"it raised {error!r} when an output's gradient was None. "
                                 "Treat None as zeros (or call ctx.set_materialize_grads"
                                 "(True)).") from error
        if any(g is not None and np.any(g._data != 0) for g in grads):
            raise GradcheckError("Expected all input grads to be undefined or zero when all "
                                 "output grads are undefined or zero: backward returned a "
                                 "nonzero gradient for a gradient of None.")


class _NoGradient(Function):
    """Identity in forward; in backward it sends no gradient (None) back, as if its output
    had not been used."""

    @staticmethod
    def forward(ctx, x):
        return x._data

    @staticmethod
    def backward(ctx, grad):
        return None


# ----- second derivatives ---------------------------------------------------------------------
def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """Check second derivatives: gradcheck applied to the function that computes
    the gradient of ``func`` (a vector-Jacobian product built with create_graph=True)."""
    from . import grad
    _refuse_second_order_options(check_fwd_over_rev, check_rev_over_rev, check_undefined_grad,
                                 check_batched_grad)
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        grad_outputs = tuple(_random_grad_output(o, gen_non_contig_grad_outputs)
                             for o in _differentiable(func(*inputs)))
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_inputs = len(inputs)
    diff_positions = [i for i, x in enumerate(inputs) if getattr(x, "requires_grad", False)]

    def first_derivative(*args):
        xs, gos = args[:n_inputs], args[n_inputs:]
        outs = _differentiable(func(*xs))
        grads = grad(outs, [xs[i] for i in diff_positions], gos, create_graph=True,
                     allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivative, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, fast_mode=fast_mode, masked=masked)


def _refuse_second_order_options(fwd_over_rev, rev_over_rev, undefined, batched):
    if not (fwd_over_rev or rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev "
                             "to be True")
    if undefined and not rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev "
                             "to be True")
    if batched and not rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to "
                             "be True")
    if fwd_over_rev:
        raise NotImplementedError("minitorch has no forward-mode automatic differentiation: "
                                  "leave check_fwd_over_rev False")
    if batched:
        raise NotImplementedError("minitorch has no vmap, so it cannot check batched "
                                  "gradients: leave check_batched_grad False")


def _random_grad_output(output, non_contiguous):
    """A gradient for ``output``, uniform in [-1, 1), that requires grad; with
    ``non_contiguous`` its memory skips every other element (a strided view)."""
    from .. import rand
    values = (rand(*output.shape, dtype=output.dtype) * 2 - 1)._data
    if non_contiguous:
        spread = np.zeros(values.shape + (2,), dtype=values.dtype)
        spread[..., 0] = values
        values = spread[..., 0]
    return Tensor._wrap(values).requires_grad_()
