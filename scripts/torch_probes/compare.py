"""Compare the two runs of one case, field by field, and say what kind of difference it is.

Fields: ``type`` (of the result), ``dtype``, ``shape``, ``values``, ``requires_grad``,
``grad_fn`` (node names, also of returned nodes), ``error_type`` (when both
raise), ``outcome`` (one raised and the other did not), ``backward`` (the
automatic backward of the result), ``grads`` (of leaves), ``stdout`` (what the
case printed) and ``warnings`` (categories).  Printed text and strings are
compared after replacing ``minitorch`` with ``torch``: the package's name is the
one difference the contract allows.
"""

import math

# Which group of the findings each field belongs to.
VALUE_FIELDS = {"type", "dtype", "shape", "values", "grads", "backward"}
GRAPH_FIELDS = {"grad_fn", "requires_grad", "stdout"}
MISSING_API_ERRORS = {"AttributeError", "ImportError", "ModuleNotFoundError", "NameError",
                      "NotImplementedError"}

CLASSES = {
    "a": "silent wrong values, dtypes or types",
    "b": "engine/graph semantics, node names, printed output",
    "c": "exception type (or raises where PyTorch does not, or the reverse)",
    "d": "missing API",
    "w": "warnings only",
}


def normalize_text(s):
    return s.replace("minitorch", "torch")


def tolerances(case, dtype):
    if case.get("exact"):
        return 0.0, 0.0
    rtol, atol = {"float32": (1e-5, 1e-6), "float64": (1e-10, 1e-12),
                  "pyfloat": (1e-6, 1e-9)}.get(dtype, (0.0, 0.0))
    if case.get("rtol") is not None:
        rtol = case["rtol"]
    if case.get("atol") is not None:
        atol = case["atol"]
    return rtol, atol


def _close(a, b, rtol, atol):
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b and type(a) is type(b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
            return True
        if a == b:
            return True
        if math.isinf(a) or math.isinf(b) or (isinstance(a, float) and math.isnan(a)) or \
                (isinstance(b, float) and math.isnan(b)):
            return False
        return abs(a - b) <= atol + rtol * abs(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y, rtol, atol) for x, y in zip(a, b))
    return a == b


def compare_values(t, m, case, diffs, where=""):
    """Append ``(field, detail)`` pairs for each difference between two encodings."""
    kt, km = t.get("kind"), m.get("kind")
    if kt != km:
        diffs.append(("type", f"{where}{kt} vs {km}"))
        return
    if kt in ("Tensor", "Parameter"):
        for key in ("dtype", "shape"):
            if t[key] != m[key]:
                diffs.append((key, f"{where}{t[key]} vs {m[key]}"))
        if t["requires_grad"] != m["requires_grad"]:
            diffs.append(("requires_grad", f"{where}{t['requires_grad']} vs {m['requires_grad']}"))
        if t["grad_fn"] != m["grad_fn"]:
            diffs.append(("grad_fn", f"{where}{t['grad_fn']} vs {m['grad_fn']}"))
        if case.get("values", True) and t["shape"] == m["shape"]:
            rtol, atol = tolerances(case, t["dtype"])
            if t.get("values") is None or m.get("values") is None:
                if t.get("summary") and m.get("summary"):
                    if not _close(t["summary"], m["summary"], max(rtol, 1e-5), max(atol, 1e-5)):
                        diffs.append(("values", f"{where}sums differ"))
                elif ("values_error" in t) != ("values_error" in m):
                    diffs.append(("values", f"{where}{t.get('values_error')} vs {m.get('values_error')}"))
            elif not _close(t["values"], m["values"], rtol, atol):
                diffs.append(("values", f"{where}{_short(t['values'])} vs {_short(m['values'])}"))
        return
    if kt in ("tuple", "list"):
        if len(t["items"]) != len(m["items"]):
            diffs.append(("shape", f"{where}{len(t['items'])} items vs {len(m['items'])}"))
            return
        for i, (a, b) in enumerate(zip(t["items"], m["items"])):
            compare_values(a, b, case, diffs, f"{where}[{i}] ")
        return
    if kt == "dict":
        kt_keys = [k for k, _ in t["items"]]
        km_keys = [k for k, _ in m["items"]]
        if kt_keys != km_keys:
            diffs.append(("values", f"{where}keys {kt_keys} vs {km_keys}"))
            return
        for (k, a), (_, b) in zip(t["items"], m["items"]):
            compare_values(a, b, case, diffs, f"{where}[{k!r}] ")
        return
    if kt == "ndarray":
        if t["dtype"] != m["dtype"] or t["shape"] != m["shape"]:
            diffs.append(("dtype", f"{where}{t['dtype']}{t['shape']} vs {m['dtype']}{m['shape']}"))
        elif case.get("values", True) and not _close(t["values"], m["values"], *tolerances(case, "float32")):
            diffs.append(("values", f"{where}{_short(t['values'])} vs {_short(m['values'])}"))
        return
    if kt == "node":
        if t["value"] != m["value"]:
            diffs.append(("grad_fn", f"{where}{t['value']} vs {m['value']}"))
        return
    if kt == "str":
        if normalize_text(t["value"]) != normalize_text(m["value"]):
            diffs.append(("values", f"{where}{t['value']!r} vs {m['value']!r}"))
        return
    if kt == "float":
        if not case.get("values", True):
            return
        a, b = t["value"], m["value"]
        if isinstance(a, str) or isinstance(b, str):      # inf/nan stored as text
            if str(a) != str(b):
                diffs.append(("values", f"{where}{a} vs {b}"))
        elif not _close(a, b, *tolerances(case, "pyfloat")):
            diffs.append(("values", f"{where}{a!r} vs {b!r}"))
        return
    if kt in ("int", "bool", "NoneType", "dtype", "Size", "object", "set") or kt.startswith("numpy."):
        if case.get("values", True) or kt in ("dtype", "Size", "object"):
            if t.get("value", t.get("items")) != m.get("value", m.get("items")):
                field = "dtype" if kt == "dtype" else "shape" if kt == "Size" else \
                    "type" if kt == "object" else "values"
                diffs.append((field, f"{where}{t.get('value')} vs {m.get('value')}"))
        return


def _short(v, n=120):
    s = repr(v)
    return s if len(s) <= n else s[:n] + "..."


def compare(case, t, m):
    """The differences between the torch record ``t`` and the minitorch record ``m``."""
    diffs = []
    rt, rm = t["result"], m["result"]
    et, em = rt["kind"] == "error", rm["kind"] == "error"
    if et and em:
        if rt["type"] != rm["type"]:
            diffs.append(("error_type", f"{rt['type']} vs {rm['type']}"))
    elif et or em:
        diffs.append(("outcome", f"{_outcome(rt)} vs {_outcome(rm)}"))
    else:
        compare_values(rt, rm, case, diffs)
    bt, bm = t.get("backward_error"), m.get("backward_error")
    if (bt is None) != (bm is None) or (bt and bm and bt["type"] != bm["type"]):
        diffs.append(("backward", f"{_outcome(bt)} vs {_outcome(bm)}"))
    gt, gm = t.get("grads", {}), m.get("grads", {})
    if sorted(gt) != sorted(gm):
        diffs.append(("grads", f"leaves {sorted(gt)} vs {sorted(gm)}"))
    else:
        for name in gt:
            sub = []
            compare_values(gt[name], gm[name], case, sub, f"{name}.grad ")
            diffs.extend(("grads", d) for _, d in sub)
    if normalize_text(t.get("stdout", "")) != normalize_text(m.get("stdout", "")):
        diffs.append(("stdout", "printed output differs"))
    if t.get("warnings", []) != m.get("warnings", []):
        diffs.append(("warnings", f"{t.get('warnings')} vs {m.get('warnings')}"))
    return diffs


def _outcome(r):
    if r is None:
        return "no error"
    if r["kind"] == "error":
        return f"{r['type']}"
    return f"returns {r['kind']}"


# Cases whose result *is* a description of the graph, of the engine's order or of printed
# text: a difference in their values is a graph/engine/repr difference.
GRAPH_CATEGORIES = ("graph", "engine", "repr")


def classify(t, m, diffs, category=""):
    """The findings group (see CLASSES) of a disagreeing case."""
    if not diffs:
        return None
    fields = {f for f, _ in diffs}
    rt, rm = t["result"], m["result"]
    if rm["kind"] == "error" and rt["kind"] != "error":
        if rm["type"] in MISSING_API_ERRORS or "unexpected keyword" in rm["message"] \
                or "positional argument" in rm["message"]:
            return "d"
        return "c"
    if rt["kind"] == "error" or "error_type" in fields or "outcome" in fields:
        return "c"
    if "backward" in fields:
        bm = m.get("backward_error")
        if bm and (bm["type"] in MISSING_API_ERRORS or "unexpected keyword" in bm["message"]):
            return "d"
        return "c" if bm or t.get("backward_error") else "a"
    if fields & VALUE_FIELDS:
        return "b" if category.startswith(GRAPH_CATEGORIES) and "grads" not in fields else "a"
    if fields & GRAPH_FIELDS:
        return "b"
    return "w"
