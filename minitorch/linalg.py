"""``minitorch.linalg``: the few linear-algebra functions the parametrizations use
(chapter "Module surgery").

``solve`` and ``eigvalsh`` are Functions with their own backward: for
``X = A⁻¹B`` the gradients are ``dB = A⁻ᵀG`` and ``dA = -dB Xᵀ``; for the
eigenvalues of a symmetric ``A = V diag(w) Vᵀ``, ``dA = V diag(g) Vᵀ``.

``vector_norm`` and ``norm`` measure tensors (``weight_norm``), ``matrix_exp``
and ``householder_product`` make orthogonal matrices (``orthogonal``).  The
last two are written with differentiable ops (matrix products, sums, slices),
so their gradients come from the ops they are built from, with no backward
formula of their own.
"""

import math
import numbers

import numpy as np

from ._creation import eye
from .ops._common import BuiltinFunction, wrap
from .ops.statistics import norm as _vector_norm_op

__all__ = ["vector_norm", "norm", "matrix_norm", "matrix_exp", "householder_product",
           "solve", "eigvalsh"]


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The ``ord``-norm of ``x``'s entries, over ``dim`` (every entry by default)."""
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: ord must be a number, got {ord!r}; for a "
                           "matrix norm such as 'fro' use linalg.matrix_norm")
    return _vector_norm_op(x, ord, dim, keepdim, dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """A matrix norm over the two dimensions ``dim``: ``"fro"``, or the largest (``1``,
    ``inf``) or smallest (``-1``, ``-inf``) absolute column or row sum."""
    if A.ndim < 2:
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 "
                           f"dimensions, but got {A.ndim}")
    if dtype is not None:
        A = A.to(dtype)
    rows, cols = (d % A.ndim for d in dim)
    if ord == "fro":
        return _vector_norm_op(A, 2, (rows, cols), keepdim)
    if ord in (1, -1, math.inf, -math.inf):
        summed, over = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = A.abs().sum(dim=summed, keepdim=True)
        pick = sums.amax if ord > 0 else sums.amin
        result = pick(dim=over, keepdim=True)
        return result if keepdim else result.squeeze((rows, cols))
    raise NotImplementedError(f"linalg.matrix_norm: ord={ord!r} needs singular values, which "
                              "minitorch does not compute; use 'fro', 1, -1, inf or -inf")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """A vector norm (1-D input, or one ``dim``) or a matrix norm (2-D input, or two
    ``dim``); with neither ``ord`` nor ``dim`` the 2-norm of every entry."""
    if isinstance(dim, numbers.Integral):
        dim = (dim,)
    if ord is None:
        return _vector_norm_op(A, 2, dim, keepdim, dtype)
    if dim is None:
        dim = tuple(range(A.ndim)) if A.ndim in (1, 2) else None
        if dim is None:
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input "
                               f"must be 1D or 2D. Got {A.ndim}D.")
    if len(dim) == 1:
        return vector_norm(A, ord, dim, keepdim, dtype=dtype)
    return matrix_norm(A, ord, dim, keepdim, dtype=dtype)


def _check_square(A, name):
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.{name}: A must be batches of square matrices, but they "
                           f"are {A.shape[-2] if A.ndim > 1 else 1} by {A.shape[-1]} matrices")


def matrix_exp(A):
    """``exp(A) = I + A + A @ A / 2 + ...`` for a square matrix (or a batch of them).

    Scaling and squaring: ``A / 2**s`` is small enough that 18 terms of the
    series are exact to float64 rounding, and ``exp(A) = exp(A / 2**s) ** (2**s)``
    is ``s`` squarings.
    """
    _check_square(A, "matrix_exp")
    n = A.shape[-1]
    size = float(np.abs(A.detach().numpy()).sum(axis=-1).max()) if A.numel() else 0.0
    squarings = max(0, math.ceil(math.log2(size)) + 1) if size > 0 else 0
    scaled = A / (2.0 ** squarings)
    identity = eye(n, dtype=A.dtype)
    result, term = identity + scaled, scaled
    for k in range(2, 19):
        term = term @ scaled / k
        result = result + term
    for _ in range(squarings):
        result = result @ result
    return result


def householder_product(A, tau):
    """The first ``n`` columns of ``H_1 H_2 ... H_k``, where ``H_i = I - tau_i v_i v_iᵀ``
    and ``v_i`` is column ``i`` of ``A`` below the diagonal with a 1 on it (LAPACK's
    way of storing the Q of a QR decomposition).  ``A`` is ``m x n``, ``m >= n >= k``."""
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.householder_product: input must have at least 2 "
                           "dimensions.")
    m, n = A.shape[-2], A.shape[-1]
    k = tau.shape[-1]
    if m < n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater "
                           "than or equal to input.shape[-1]")
    if n < k:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater "
                           "than or equal to tau.shape[-1]")
    reflectors = A.tril(-1) + eye(m, n, dtype=A.dtype)
    Q = eye(m, dtype=A.dtype)
    for i in range(k):
        v = reflectors[..., :, i:i + 1]
        Q = Q - (Q @ v) @ (tau[..., i:i + 1].unsqueeze(-1) * v.transpose(-2, -1))
    return Q[..., :, :n]



class Solve(BuiltinFunction):
    """``X`` with ``A @ X = B``."""
    _backward_name = "LinalgSolveExBackward0"

    @staticmethod
    def forward(ctx, A, B, vector):
        b = B._data[..., None] if vector else B._data
        try:
            X = np.linalg.solve(A._data, b)
        except np.linalg.LinAlgError:
            raise RuntimeError("torch.linalg.solve: The solver failed because the input "
                               "matrix is singular.") from None
        X = X[..., 0] if vector else X
        result = wrap(X)
        ctx.save_for_backward(A, result)
        ctx.vector = vector
        return result

    @staticmethod
    def backward(ctx, grad):
        A, X = ctx.saved_tensors
        grad_B = solve(A.mT, grad)
        if ctx.vector:
            grad_A = -grad_B.unsqueeze(-1) @ X.unsqueeze(-2)
        else:
            grad_A = -grad_B @ X.mT
        return grad_A, grad_B, None


def solve(A, B, *, left=True):
    """The solution ``X`` of ``A @ X = B`` for a square, invertible ``A`` (``B`` a matrix
    or a vector)."""
    _check_square(A, "solve")
    if not left:
        return solve(A.mT, B.mT).mT
    vector = B.ndim == A.ndim - 1
    if B.shape[-1 if vector else -2] != A.shape[-1]:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"AX = B ({tuple(A.shape)} and {tuple(B.shape)})")
    return Solve.apply(A, B, vector)


class Eigvalsh(BuiltinFunction):
    """The eigenvalues of a symmetric matrix, in ascending order."""
    _backward_name = "LinalgEighBackward0"

    @staticmethod
    def forward(ctx, A, uplo):
        values, vectors = np.linalg.eigh(A._data, UPLO=uplo)
        ctx.save_for_backward(wrap(vectors))
        return wrap(values)

    @staticmethod
    def backward(ctx, grad):
        V, = ctx.saved_tensors
        return (V * grad.unsqueeze(-2)) @ V.mT, None


def eigvalsh(A, UPLO="L"):
    """The eigenvalues of the symmetric matrix ``A`` (only its ``UPLO`` triangle is
    read), smallest first."""
    _check_square(A, "eigvalsh")
    return Eigvalsh.apply(A, UPLO)
