"""How a Tensor prints: ``tensor([1.0000, 2.5000], requires_grad=True)``.

The layout follows PyTorch's: four decimals for floats unless every value
is whole (``1.``), scientific notation when magnitudes are far apart, rows
aligned under each other, and long tensors summarised with ``...``.  The chapters compare these
printed outputs with nbval, so the format is part of what the tests check.
"""

import numpy as np

from . import _dtype


class _PrintOptions:
    """What ``set_printoptions`` changes."""
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = None


PRINT_OPTS = _PrintOptions()
_PROFILES = {"default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
             "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
             "full": dict(precision=4, threshold=float("inf"), edgeitems=3, linewidth=80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Change how tensors print, as ``torch.set_printoptions`` does."""
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"unknown print profile {profile!r}: use one of "
                             f"{', '.join(_PROFILES)}")
        for key, value in _PROFILES[profile].items():
            setattr(PRINT_OPTS, key, value)
    for key, value in (("precision", precision), ("threshold", threshold),
                       ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            setattr(PRINT_OPTS, key, value)
    PRINT_OPTS.sci_mode = sci_mode


def _float_formatter(values):
    finite = values[np.isfinite(values)]
    nonzero = np.abs(finite[finite != 0])
    spread = nonzero.size > 0 and (nonzero.max() / nonzero.min() > 1000 or nonzero.max() > 1e8)
    p = PRINT_OPTS.precision
    if PRINT_OPTS.sci_mode is not None:
        spread = PRINT_OPTS.sci_mode
    if np.all(finite == np.round(finite)) and PRINT_OPTS.sci_mode is None:
        body = "{:.%de}" % p if spread else "{:.0f}."
    elif spread or (nonzero.size > 0 and nonzero.min() < 1e-4 and PRINT_OPTS.sci_mode is None):
        body = "{:.%de}" % p
    else:
        body = "{:.%df}" % p
    return lambda v: _special(v) or body.format(v)


def _special(v):
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return None


def _formatter(data, shown):
    kind = data.dtype.kind
    if kind == "b":
        return lambda v: "True" if v else "False"
    if kind in "iu":
        return lambda v: str(int(v))
    return _float_formatter(shown.astype(np.float64))


def _shown_values(data, summarize):
    if not summarize or data.ndim == 0:
        return data.reshape(-1)
    parts = [data]
    for axis in range(data.ndim):
        parts = [np.concatenate([np.take(p, range(PRINT_OPTS.edgeitems), axis=axis),
                                 np.take(p, range(p.shape[axis] - PRINT_OPTS.edgeitems, p.shape[axis]), axis=axis)],
                                axis=axis) if p.shape[axis] > 2 * PRINT_OPTS.edgeitems else p for p in parts]
    return parts[0].reshape(-1)


def format_data(data, indent):
    """The bracketed body of a tensor's repr, e.g. ``[[1., 2.],\\n  [3., 4.]]``."""
    summarize = data.size > PRINT_OPTS.threshold
    shown = _shown_values(data, summarize)
    fmt = _formatter(data, shown)
    # Floats are aligned on the width of their nonzero finite values (PyTorch's rule: zeros,
    # nan and inf do not widen the columns); integers and bools on all of them.
    measured = shown[np.isfinite(shown) & (shown != 0)] if shown.dtype.kind == "f" else shown
    width = max((len(fmt(v)) for v in measured), default=1)
    if data.ndim == 0:
        return fmt(data.item())

    def cell(v):
        return fmt(v).rjust(width)

    def block(x, depth):
        if x.ndim == 1:
            items = _items(x, summarize)
            cells = [cell(v) if v is not None else " ..." for v in items]
            per_line = max(1, (PRINT_OPTS.linewidth - indent - depth) // (width + 2))
            lines = [", ".join(cells[i:i + per_line]) for i in range(0, len(cells), per_line)]
            return "[" + (",\n" + " " * (indent + depth + 1)).join(lines) + "]"
        rows = [block(r, depth + 1) if r is not None else "..." for r in _items(x, summarize)]
        sep = "," + "\n" * (x.ndim - 1) + " " * (indent + depth + 1)
        return "[" + sep.join(rows) + "]"

    return block(data, 0)


def _items(x, summarize):
    n = x.shape[0]
    if summarize and n > 2 * PRINT_OPTS.edgeitems:
        return [x[i] for i in range(PRINT_OPTS.edgeitems)] + [None] + [x[i] for i in range(n - PRINT_OPTS.edgeitems, n)]
    return [x[i] for i in range(n)]


def tensor_repr(t, prefix="tensor(", suffix_extra=()):
    data = t._data
    body = format_data(data, len(prefix))
    suffixes = []
    if data.size == 0:
        body = "[]"
        if data.ndim != 1:
            suffixes.append(f"size={tuple(data.shape)}")
        if t.dtype is not _dtype.get_default_dtype():     # nothing shows it is an integer
            suffixes.append(f"dtype={t.dtype!r}")
    elif t.dtype not in (_dtype.get_default_dtype(), _dtype.int64, _dtype.bool):
        suffixes.append(f"dtype={t.dtype!r}")
    if t._grad_fn is not None:
        # PyTorch drops the C++ namespace: grad_fn=<CopyBackwards>, not <torch::autograd::...>
        suffixes.append(f"grad_fn=<{t._grad_fn.name().rsplit('::', 1)[-1]}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    tangent = _current_tangent(t)
    if tangent is not None:
        suffixes.append(f"tangent={tangent}")      # format(): a 0-d tangent as its number
    suffixes.extend(suffix_extra)
    return _with_suffixes(prefix + body, suffixes, len(prefix))


def _current_tangent(t):
    """The tangent ``t`` carries at the open dual level, as ``unpack_dual`` finds it
    (chapter 12); None outside a level."""
    if not t._fw_grads and (t._base is None or not t._base._fw_grads):
        return None
    from .autograd import forward_ad
    return forward_ad.unpack_dual(t).tangent


def _with_suffixes(text, suffixes, indent):
    """Append ``, suffix`` for each suffix; one that would pass the line width goes on a
    line of its own, indented under the values.  ``room`` counts as PyTorch's printer
    does: two more than the current line until the first break, exact after it.  A dtype
    is measured as PyTorch spells it (``torch.float64``), so that the same code breaks its
    lines at the same places with either library."""
    parts = [text]
    room = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        width = len(suffix.replace("minitorch.", "torch."))
        if room + width + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            room = indent + width
        else:
            parts.append(", " + suffix)
            room += width + 2
    return "".join(parts) + ")"
