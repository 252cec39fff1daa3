"""Agreement figures and the list of differences, as JSON and as markdown."""

import json
from collections import Counter, defaultdict

from .compare import CLASSES


def summarize(record):
    """One line saying what a run gave."""
    if record is None:
        return "(missing)"
    r = record["result"]
    text = _describe(r)
    if record.get("backward_error"):
        b = record["backward_error"]
        text += f"; backward raised {b['type']}: {b['message'][:200]}"
    return text


def _describe(r, n=300):
    kind = r.get("kind")
    if kind == "error":
        return f"raises {r['type']}: {r['message'][:n]}"
    if kind in ("Tensor", "Parameter"):
        extra = ""
        if r.get("requires_grad"):
            extra = f", grad_fn={r['grad_fn']}" if r.get("grad_fn") else ", requires_grad"
        values = json.dumps(r.get("values"))
        if len(values) > 160:
            values = values[:160] + "..."
        return f"{kind} {r['dtype']} {r['shape']} {values}{extra}"
    if kind in ("tuple", "list"):
        inner = ", ".join(_describe(v, 80) for v in r["items"][:6])
        return f"{kind}({inner}{', ...' if len(r['items']) > 6 else ''})"
    if kind == "dict":
        inner = ", ".join(f"{k}: {_describe(v, 60)}" for k, v in r["items"][:6])
        return "{" + inner + "}"
    if "value" in r:
        return f"{kind} {r['value']!r}"[:n]
    return kind or "?"


def build(cases, torch_run, mini_run, comparisons):
    by_cat = defaultdict(Counter)
    rows = []
    for case in cases:
        cid = case["id"]
        diffs, group = comparisons[cid]
        by_cat[case["category"]]["total"] += 1
        by_cat[case["category"]]["agree" if not diffs else group] += 1
        rows.append({"case": case, "torch": torch_run.get(cid), "minitorch": mini_run.get(cid),
                     "diffs": diffs, "group": group})
    return by_cat, rows


def figures_table(by_cat):
    lines = ["| category | agree | total | " + " | ".join(f"({k})" for k in CLASSES) + " |",
             "| --- | ---: | ---: | " + " | ".join("---:" for _ in CLASSES) + " |"]
    total = Counter()
    for cat in sorted(by_cat):
        c = by_cat[cat]
        total.update(c)
        lines.append(f"| {cat} | {c['agree']} | {c['total']} | "
                     + " | ".join(str(c[k]) for k in CLASSES) + " |")
    lines.append(f"| **all** | **{total['agree']}** | **{total['total']}** | "
                 + " | ".join(str(total[k]) for k in CLASSES) + " |")
    return "\n".join(lines)


def markdown(by_cat, rows, meta):
    out = ["# minitorch against PyTorch: differential probe report", "",
           f"PyTorch {meta['torch']}, minitorch {meta['minitorch']}, seed {meta['seed']}, "
           f"{len(rows)} cases.", "",
           "Groups: " + "; ".join(f"({k}) {v}" for k, v in CLASSES.items()) + ".", "",
           figures_table(by_cat), ""]
    for group, title in CLASSES.items():
        bad = [r for r in rows if r["group"] == group]
        if not bad:
            continue
        out += [f"## ({group}) {title}: {len(bad)} cases", ""]
        for r in sorted(bad, key=lambda r: (r["case"]["category"], r["case"]["id"])):
            case = r["case"]
            out += [f"### `{case['id']}` ({case['category']})", ""]
            if case.get("note"):
                out += [case["note"], ""]
            out += ["```python", case["src"], "```", "",
                    f"- PyTorch: {summarize(r['torch'])}",
                    f"- minitorch: {summarize(r['minitorch'])}",
                    "- differs in: " + "; ".join(f"{f} ({d})" for f, d in r["diffs"])]
            for name in ("torch", "minitorch"):
                rec = r[name] or {}
                if rec.get("stdout") and any(f == "stdout" for f, _ in r["diffs"]):
                    out += [f"- {name} printed:", "", "```", rec["stdout"].rstrip()[:1500], "```"]
            out.append("")
    return "\n".join(out)
