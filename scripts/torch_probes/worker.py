"""Run probe cases under one backend and write what happened as JSON.

Started by the runner as a separate process, once with real PyTorch and once
with minitorch, so the two never share an interpreter:

    python -m scripts.torch_probes.worker {torch|minitorch} cases.json results.json

Only the standard library, numpy and the backend are imported here.  Each case
runs in a fresh namespace with ``torch`` (the backend), ``nn``, ``F``, ``np``
and ``math`` bound; its printed output, its warnings, its result (or the
exception it raised) and the gradients of the leaf tensors it left in its
namespace are encoded in a backend-neutral form (see ``encode``).
"""

import ast
import contextlib
import io
import json
import math
import signal
import sys
import traceback
import warnings

import numpy as np

TIMEOUT_SECONDS = 20
MAX_ELEMENTS = 2000          # values of larger tensors are summarised
NOTHING = object()


class ProbeTimeout(Exception):
    pass


def load_backend(name):
    if name == "torch":
        import torch
        import torch.nn.functional  # noqa: F401
        torch.set_num_threads(1)
        return torch
    import minitorch
    import minitorch.nn.functional  # noqa: F401
    return minitorch


# ----- encoding results ---------------------------------------------------------------

def _dtype_name(d):
    return str(d).rsplit(".", 1)[-1]


def encode(x, torch, depth=0):
    """A JSON-able description of a value that can be compared across backends."""
    if depth > 6:
        return {"kind": "deep"}
    if isinstance(x, torch.Tensor):
        return encode_tensor(x, torch)
    if x is None or isinstance(x, (bool, int, float, str)):
        if isinstance(x, float) and not math.isfinite(x):
            return {"kind": "float", "value": repr(x)}
        return {"kind": type(x).__name__, "value": x}
    if isinstance(x, torch.dtype):
        return {"kind": "dtype", "value": _dtype_name(x)}
    if isinstance(x, torch.Size):
        return {"kind": "Size", "value": list(x)}
    if isinstance(x, np.ndarray):
        return {"kind": "ndarray", "dtype": str(x.dtype), "shape": list(x.shape),
                "values": x.tolist() if x.size <= MAX_ELEMENTS else None}
    if isinstance(x, np.generic):
        return {"kind": "numpy." + type(x).__name__, "value": x.item()}
    if isinstance(x, (tuple, list)):
        kind = "list" if isinstance(x, list) else "tuple"
        return {"kind": kind, "items": [encode(v, torch, depth + 1) for v in x]}
    if isinstance(x, dict):
        return {"kind": "dict", "items": [[str(k), encode(v, torch, depth + 1)] for k, v in x.items()]}
    if hasattr(x, "next_functions") and hasattr(x, "name"):
        return {"kind": "node", "value": x.name()}
    if isinstance(x, (set, frozenset)):
        return {"kind": "set", "items": sorted(repr(v) for v in x)}
    return {"kind": "object", "value": type(x).__name__}


def encode_tensor(t, torch):
    d = t.detach()
    out = {"kind": "Tensor" if type(t) is torch.Tensor else type(t).__name__,
           "dtype": _dtype_name(t.dtype), "shape": list(t.shape),
           "requires_grad": bool(t.requires_grad),
           "grad_fn": t.grad_fn.name() if t.grad_fn is not None else None}
    try:
        n = d.numel()
        if n <= MAX_ELEMENTS:
            out["values"] = d.tolist()
        else:
            out["values"] = None
            out["summary"] = [float(d.double().sum().item()), n]
    except Exception as e:                        # values that cannot be read are a finding too
        out["values"] = None
        out["values_error"] = f"{type(e).__name__}: {e}"
    return out


def encode_error(e):
    names = [c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins"]
    return {"kind": "error", "type": type(e).__name__, "builtin_bases": names, "message": str(e)[:2000]}


# ----- running a case -------------------------------------------------------------------

def run_source(src, ns):
    """Exec ``src`` in ``ns``; the value of a final expression, else ``ns['out']``."""
    tree = ast.parse(src)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, "<probe>", "exec"), ns)
    if last is not None:
        return eval(compile(last, "<probe>", "eval"), ns)
    return ns.get("out", NOTHING)


def seed_gradient(out, torch):
    """A gradient with distinct entries (so summed or swapped gradients show)."""
    n = out.numel()
    values = ((np.arange(n) % 7 + 1) / 4.0).reshape(tuple(out.shape))
    return torch.tensor(values.tolist(), dtype=out.dtype)


def leaf_grads(ns, torch):
    grads = {}
    for name, value in ns.items():
        if name.startswith("_") or not isinstance(value, torch.Tensor):
            continue
        if value.requires_grad and value.grad_fn is None:
            grads[name] = encode(value.grad, torch)
    return dict(sorted(grads.items()))


def reset_state(torch):
    torch.manual_seed(0)
    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)


def _on_alarm(signum, frame):
    raise ProbeTimeout(f"the case ran for more than {TIMEOUT_SECONDS} s")


def run_one(case, torch):
    reset_state(torch)
    ns = {"torch": torch, "nn": torch.nn, "F": torch.nn.functional, "np": np, "math": math,
          "__name__": "__probe__"}
    stdout = io.StringIO()
    record = {"id": case["id"]}
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(stdout):
        warnings.simplefilter("always")
        signal.alarm(TIMEOUT_SECONDS)
        try:
            try:
                result = run_source(case["src"], ns)
                record["result"] = {"kind": "nothing"} if result is NOTHING else encode(result, torch)
            except ProbeTimeout:
                raise
            except BaseException as e:  # noqa: B036  (a probe may raise anything, even SystemExit)
                record["result"] = encode_error(e)
                record["traceback"] = traceback.format_exc(limit=-3)[-1500:]
                result = NOTHING
            if case.get("grad", True) and isinstance(result, torch.Tensor) and result.requires_grad:
                try:
                    result.backward(seed_gradient(result, torch))
                except ProbeTimeout:
                    raise
                except Exception as e:
                    record["backward_error"] = encode_error(e)
            try:
                record["grads"] = leaf_grads(ns, torch)
            except Exception as e:
                record["grads"] = {"<error>": encode_error(e)}
        except ProbeTimeout as e:
            record["result"] = encode_error(e)
        finally:
            signal.alarm(0)
    record["stdout"] = stdout.getvalue()[-4000:]
    record["warnings"] = sorted({w.category.__name__ for w in caught})
    record["warning_messages"] = sorted({str(w.message)[:300] for w in caught})[:5]
    return record


def main(argv):
    backend, cases_path, out_path = argv
    torch = load_backend(backend)
    signal.signal(signal.SIGALRM, _on_alarm)
    with open(cases_path) as f:
        cases = json.load(f)
    results = []
    for case in cases:
        try:
            results.append(run_one(case, torch))
        except BaseException as e:  # noqa: B036  (the run must go on)
            results.append({"id": case["id"], "result": encode_error(e), "worker_failure": True})
    meta = {"backend": backend, "version": getattr(torch, "__version__", "?"), "python": sys.version}
    with open(out_path, "w") as f:
        json.dump({"meta": meta, "results": results}, f, default=repr)


if __name__ == "__main__":
    main(sys.argv[1:])
