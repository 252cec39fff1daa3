"""``nn.utils.parametrizations``: three parametrizations built on
``register_parametrization`` (chapter "Module surgery").

* ``weight_norm``: ``weight = g * v / ||v||``, a magnitude ``g`` and a
  direction ``v`` trained separately (``original0`` and ``original1``);
* ``spectral_norm``: ``weight / sigma``, with ``sigma`` the largest singular
  value, estimated by power iteration in buffers ``_u`` and ``_v``;
* ``orthogonal``: a matrix with orthonormal columns (or rows), the matrix
  exponential (or Cayley map) of a skew-symmetric matrix or a product of
  Householder reflections, times a stored orthogonal ``base``.
"""

from enum import Enum, auto

import numpy as np

from ... import linalg
from ..._creation import eye, randn, zeros
from ...ops.shape import cat
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# ----- weight_norm -------------------------------------------------------------------------
def _norm_except_dim(v, dim):
    """The 2-norm of each slice of ``v`` along ``dim``, shaped to broadcast against ``v``
    (``dim=-1``: the norm of all of ``v``)."""
    if dim == -1:
        return v.norm()
    others = [d for d in range(v.ndim) if d != dim % v.ndim]
    return v.norm(dim=others, keepdim=True) if others else v.abs()


class _WeightNorm(Module):
    """``weight = g * v / ||v||``, the norm taken over every dimension but ``dim``."""

    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_v * (weight_g / _norm_except_dim(weight_v, self.dim))

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Split ``module.<name>`` into a magnitude ``parametrizations.<name>.original0`` and
    a direction ``original1``.  Checkpoints of the older ``<name>_g``/``<name>_v`` form
    still load."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def load_old_keys(state_dict, prefix, local_metadata, strict, missing_keys,
                      unexpected_keys, error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(load_old_keys)
    return module


# ----- spectral_norm -----------------------------------------------------------------------
class _SpectralNorm(Module):
    """``weight / sigma``: ``sigma`` is ``uᵀ W v`` for the singular vectors ``u``, ``v``
    that the power iteration refines (one step per call in training mode)."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim % ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            matrix = self._as_matrix(weight)
            rows, cols = matrix.shape
            u = matrix.new_empty(rows).normal_(0, 1)
            v = matrix.new_empty(cols).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(matrix, 15)

    def _as_matrix(self, weight):
        """``weight`` with ``dim`` first and the other dimensions flattened."""
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, matrix, steps):
        """Refine ``_u`` and ``_v`` in place (the buffers stay the same tensors)."""
        with no_grad():
            for _ in range(steps):
                F.normalize(matrix.mv(self._v), dim=0, eps=self.eps, out=self._u)
                F.normalize(matrix.t().mv(self._u), dim=0, eps=self.eps, out=self._v)

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        matrix = self._as_matrix(weight)
        if self.training:
            self._power_method(matrix, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = u.dot(matrix.mv(v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its largest singular value, so the layer stretches no
    input by more than a factor of 1."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


# ----- orthogonal --------------------------------------------------------------------------
class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


def _is_orthogonal(Q):
    n, k = Q.shape[-2], Q.shape[-1]
    tolerance = 10.0 * n * np.finfo(Q.detach().numpy().dtype).eps
    return bool((Q.mT @ Q).allclose(eye(k, dtype=Q.dtype), atol=tolerance))


def _make_orthogonal(A):
    """The Q of ``A = QR`` (A tall) with R's diagonal made non-negative, which makes
    Q unique."""
    q, r = np.linalg.qr(A.detach().numpy())
    signs = np.sign(np.diagonal(r, axis1=-2, axis2=-1))
    return Tensor._wrap(np.ascontiguousarray(q * signs[..., None, :]))


class _Orthogonal(Module):
    """``Q = base @ map(X)``: ``map`` turns any matrix into an orthogonal one, and
    ``base`` (a buffer) holds the orthogonal matrix assigned last."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X, (n, k) = X.mT, (k, n)
        if self.orthogonal_map == _OrthMaps.householder:
            A = X.tril(-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = linalg.householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        else:
            X = X.tril()
            if n != k:
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mT                 # skew-symmetric, so exp(A) is orthogonal
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = linalg.matrix_exp(A)
            else:                        # Cayley: (I - A/2)⁻¹ (I + A/2)
                identity = eye(n, dtype=A.dtype)
                Q = linalg.solve(identity - A / 2, identity + A / 2)
            Q = Q[..., :k] if n != k else Q
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q):
        """Assigning an orthogonal ``Q``: store it (or, if it is not orthogonal, the Q of
        its QR decomposition) in ``base`` and return an ``X`` that ``map`` takes to the
        identity."""
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        with no_grad():
            Q_init = Q
            n, k = Q.shape[-2], Q.shape[-1]
            if n < k:
                Q, (n, k) = Q.mT, (k, n)
            if not hasattr(self, "base"):
                raise NotImplementedError(
                    "minitorch's orthogonal supports use_trivialization=True only (assigning "
                    "needs geqrf otherwise); keep the default")
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:
                extra = randn(*Q.shape[:-2], n, n - k, dtype=Q.dtype)
                Q = _make_orthogonal(cat([Q, extra], dim=-1))
            self.base = Q
            rows, cols = Q_init.shape[-2], Q_init.shape[-1]
            return zeros(Q_init.shape, dtype=Q_init.dtype) - eye(rows, cols, dtype=Q_init.dtype)


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Make ``module.<name>`` orthogonal: orthonormal columns (rows, if it is wide).

    ``orthogonal_map`` is ``"matrix_exp"`` (the default for a square matrix),
    ``"cayley"`` or ``"householder"`` (the default otherwise).  The first value is the weight's
    own, made orthogonal by a QR decomposition if it is not.
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. Got a tensor of "
                         f"{weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    if not use_trivialization:
        raise NotImplementedError("minitorch's orthogonal supports use_trivialization=True "
                                  "only; leave it at its default")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
