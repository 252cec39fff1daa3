"""Gradient clipping: keep one bad batch from throwing the parameters far away (chapter 10).

Call it between ``loss.backward()`` and ``optimizer.step()``:

* ``clip_grad_norm_(model.parameters(), max_norm)`` treats all gradients
  as one long vector and, if its norm exceeds ``max_norm``, scales them all
  by ``max_norm / norm``: the direction of the step is kept, its length
  bounded.  It returns the norm before clipping (worth logging);
* ``clip_grad_value_(model.parameters(), clip_value)`` clamps every
  gradient entry to ``[-clip_value, clip_value]``, which changes the
  direction too.

Both change ``p.grad`` in place, outside autograd.
"""

import math

from ... import Tensor, no_grad, stack, tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


def _as_list(tensors):
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def _grads_of(parameters):
    return [p.grad for p in _as_list(parameters) if p.grad is not None]


def _vector_norm(t, norm_type):
    """The norm of order ``norm_type`` of all of ``t``'s entries taken as one vector.

    Written with public tensor ops; the core's ``Tensor.norm`` (or a
    ``linalg.vector_norm``) can replace it once it exists.
    """
    magnitudes = t.abs()
    if norm_type == math.inf:
        return magnitudes.max()
    if norm_type == -math.inf:
        return magnitudes.min()
    if norm_type == 0:
        return (magnitudes != 0).sum().to(t.dtype)
    return magnitudes.pow(norm_type).sum().pow(1.0 / norm_type)


@no_grad()
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of all ``tensors`` together, as if concatenated into one vector (a 0-d tensor).

    ``norm_type`` may be ``inf`` (the largest magnitude).  With
    ``error_if_nonfinite=True`` a nan or infinite norm raises a RuntimeError.
    """
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    total = _vector_norm(stack([_vector_norm(t, norm_type) for t in tensors]), norm_type)
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
            "so it cannot be clipped. To disable this error and scale the gradients by the "
            "non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


@no_grad()
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients by ``max_norm / total_norm`` when that is below 1 (in place)."""
    grads = _grads_of(parameters)
    if not grads:
        return
    scale = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(scale)


@no_grad()
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Rescale the gradients so that their total norm is at most ``max_norm``.

    Returns the total norm before clipping, a 0-d tensor.  ``foreach`` is
    accepted for PyTorch's signature and changes nothing.
    """
    parameters = _as_list(parameters)
    total_norm = get_total_norm(_grads_of(parameters), norm_type, error_if_nonfinite)
    clip_grads_with_norm_(parameters, max_norm, total_norm)
    return total_norm


@no_grad()
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient entry into ``[-clip_value, clip_value]``, in place."""
    clip_value = float(clip_value)
    for g in _grads_of(parameters):
        g.copy_(g.clamp(-clip_value, clip_value))
