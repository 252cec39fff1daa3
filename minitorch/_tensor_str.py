"""How a Tensor prints: ``tensor([1.0000, 2.5000], requires_grad=True)``.

The layout follows PyTorch's: four decimals for floats unless every value
is whole (``1.``), scientific notation when magnitudes are far apart, rows
aligned under each other, and long tensors summarised with ``...``.  The chapters compare these
printed outputs with nbval, so the format is part of what the tests check.
"""

import numpy as np

SUMMARY_THRESHOLD = 1000
EDGE_ITEMS = 3
LINE_WIDTH = 80


def _float_formatter(values):
    finite = values[np.isfinite(values)]
    nonzero = np.abs(finite[finite != 0])
    spread = nonzero.size > 0 and (nonzero.max() / nonzero.min() > 1000 or nonzero.max() > 1e8)
    if np.all(finite == np.round(finite)):
        body = "{:.4e}" if spread else "{:.0f}."
    elif spread or (nonzero.size > 0 and nonzero.min() < 1e-4):
        body = "{:.4e}"
    else:
        body = "{:.4f}"
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
        parts = [np.concatenate([np.take(p, range(EDGE_ITEMS), axis=axis),
                                 np.take(p, range(p.shape[axis] - EDGE_ITEMS, p.shape[axis]), axis=axis)],
                                axis=axis) if p.shape[axis] > 2 * EDGE_ITEMS else p for p in parts]
    return parts[0].reshape(-1)


def format_data(data, indent):
    """The bracketed body of a tensor's repr, e.g. ``[[1., 2.],\\n  [3., 4.]]``."""
    summarize = data.size > SUMMARY_THRESHOLD
    shown = _shown_values(data, summarize)
    fmt = _formatter(data, shown)
    finite = shown[np.isfinite(shown)] if shown.dtype.kind == "f" else shown
    width = max((len(fmt(v)) for v in (finite if finite.size else shown)), default=1)
    if data.ndim == 0:
        return fmt(data.item())

    def cell(v):
        return fmt(v).rjust(width)

    def block(x, depth):
        if x.ndim == 1:
            items = _items(x, summarize)
            cells = [cell(v) if v is not None else " ..." for v in items]
            per_line = max(1, (LINE_WIDTH - indent - depth) // (width + 2))
            lines = [", ".join(cells[i:i + per_line]) for i in range(0, len(cells), per_line)]
            return "[" + (",\n" + " " * (indent + depth + 1)).join(lines) + "]"
        rows = [block(r, depth + 1) if r is not None else "..." for r in _items(x, summarize)]
        sep = "," + "\n" * (x.ndim - 1) + " " * (indent + depth + 1)
        return "[" + sep.join(rows) + "]"

    return block(data, 0)


def _items(x, summarize):
    n = x.shape[0]
    if summarize and n > 2 * EDGE_ITEMS:
        return [x[i] for i in range(EDGE_ITEMS)] + [None] + [x[i] for i in range(n - EDGE_ITEMS, n)]
    return [x[i] for i in range(n)]


def tensor_repr(t, prefix="tensor(", suffix_extra=()):
    data = t._data
    body = format_data(data, len(prefix))
    suffixes = []
    if data.size == 0 and data.ndim > 1 or data.size == 0:
        body = "[]"
        if data.ndim != 1:
            suffixes.append(f"size={tuple(data.shape)}")
    if data.dtype.kind == "f" and data.dtype != t._default_float_np():
        suffixes.append(f"dtype={t.dtype!r}")
    elif data.dtype.kind != "f" and data.dtype.kind != "i" and data.dtype.kind != "b":
        suffixes.append(f"dtype={t.dtype!r}")
    if t._grad_fn is not None:
        suffixes.append(f"grad_fn=<{t._grad_fn.name()}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    suffixes.extend(suffix_extra)
    return prefix + body + "".join(", " + s for s in suffixes) + ")"
