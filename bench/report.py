"""The outputs of a run: the printed table and the chart (the JSON is written by ``bench.run``)."""

LABELS = {"numpy": "numpy by hand", "torch": "PyTorch", "dezero": "DeZero", "minitorch": "minitorch",
          "minitorch_eager": "eager minitorch"}
CHART = {"per_op": "per op", "per_op_no_grad": "per op,\nno_grad", "mlp_step": "MLP step",
         "deep_chain": "depth 10,000", "fanout_chain": "y = y + y * c,\nfresh process",
         "memory_loop": "chapter 2's loop\n(memory)",
         "memory_twice": "x * x loop\n(memory)", "memory_seeded": "x * x loop,\nseed held",
         "digits": "digits", "gpt_step": "GPT step",
         "mlp_step_compiled": "MLP step,\ncompiled", "gpt_step_compiled": "GPT step,\ncompiled"}
SHORT = {"per_op": "per-op overhead (µs/op)", "per_op_no_grad": "per-op overhead, no_grad (µs/op)",
         "mlp_step": "MLP 784-512-512-10 step (ms)", "deep_chain": "chain of depth 10,000 (s)",
         "fanout_chain": "y = y + y * c, depth 10,000, fresh process (s)",
         "memory_loop": "chapter 2's loop, backward peak",
         "memory_twice": "loop with y = x * x, backward peak",
         "memory_seeded": "same, backward(seed) with the seed held, peak",
         "digits": "digits MLP, 20 epochs (s)",
         "gpt_step": "GPT 4x128, context 64, step (ms)",
         "mlp_step_compiled": "MLP step, minitorch.compile (ms)",
         "gpt_step_compiled": "GPT step, minitorch.compile (ms)"}
MEMORY = ("memory_loop", "memory_twice", "memory_seeded")
COLUMNS = ("numpy", "torch", "dezero", "minitorch")


def _size(n):
    return f"{n / 1024:.0f} KiB" if abs(n) >= 1024 else f"{n:.0f} B"


def machine_line(machine):
    """The CPU and numpy's SIMD level, printed with the table: the ratios move from one
    machine to another (the benchmarks appendix shows two)."""
    simd = machine.get("numpy_simd") or {}
    found = " ".join(simd.get("found", [])) or "none beyond the baseline"
    blas = ", ".join(f"{b.get('internal_api')} {b.get('architecture')}" for b in
                     machine.get("threadpools", []) if b.get("user_api") == "blas")
    return (f"[bench] CPU: {machine['cpu']}; numpy {machine['numpy']} SIMD: baseline "
            f"{' '.join(simd.get('baseline', [])) or '?'}, found {found}"
            + (f"; BLAS: {blas}" if blas else ""))


def cell(workload, name, result):
    """One implementation's entry in the table, as text."""
    impl = result["impls"].get(name)
    if impl is None:
        return "n/a" if name == "numpy" else "not installed"    # no GPT by hand in numpy
    if workload in MEMORY:
        if impl["median"] is None:
            return "n/a (own allocator)"
        flat = "flat" if impl["flat"] else f"grows {_size(impl['growth'])}"
        return f"{flat}, peak {_size(impl['median'])}"
    text = f"{impl['median']:.3g}"
    if workload == "digits":
        text += f", {100 * impl['accuracy']:.1f}%"
    return text


def verdict(workload, result):
    met = {True: "yes", False: "NO", None: "n/a"}[result["met"]]
    reference = result["target"]["reference"]
    r = result["ratios"].get(f"minitorch/{reference}")
    if r is not None and r["median"] is not None:
        met += f" ({r['median']:.2f}x {LABELS[reference]})"
    eager = result["ratios"].get("minitorch/minitorch_eager")
    if eager is not None and eager["median"] is not None:
        met += f" ({eager['median']:.2f}x {LABELS['minitorch_eager']})"
    if result.get("note"):
        met += f"; {result['note']}"
    return met


def table(results):
    """The table: one row per workload, medians per implementation, the target and whether it is met."""
    head = ["workload"] + [LABELS[c] for c in COLUMNS] + ["target", "met?"]
    rows = [head]
    for workload, result in results["workloads"].items():
        rows.append([SHORT.get(workload, workload)] + [cell(workload, c, result) for c in COLUMNS]
                    + [result["target"]["text"], verdict(workload, result)])
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    line = lambda row: "| " + " | ".join(v.ljust(w) for v, w in zip(row, widths)) + " |"
    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(rows[0]), rule] + [line(r) for r in rows[1:]])


def chart(results, path):
    """Bars: each implementation's median per-round ratio to the target's reference; the target as a line."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    workloads = list(results["workloads"].items())
    colors = {"numpy": "#999999", "torch": "#ee4c2c", "dezero": "#4c72b0", "minitorch": "#2ca02c"}
    fig, ax = plt.subplots(figsize=(10, 4.8))
    width = 0.2
    for i, (workload, result) in enumerate(workloads):
        reference = result["target"]["reference"]
        for j, name in enumerate(COLUMNS):
            impl = result["impls"].get(name)
            if name == reference:
                value = 1.0 if impl is not None and impl.get("median") is not None else None
            else:
                value = impl.get("ratio_to_reference") if impl else None
            if value is None:
                continue
            x = i + (j - 1.5) * width
            ax.bar(x, value, width, color=colors[name], label=LABELS[name] if i == 0 else None)
            if name == "minitorch":     # its ratio, written above the bar and the target line
                ax.annotate(f"{value:.2f}", (x, max(value, result["target"]["max_ratio"]) * 1.04),
                            ha="center", va="bottom", fontsize=8)
        target = result["target"]["max_ratio"]
        ax.hlines(target, i - 2 * width, i + 2 * width, colors="black", linestyles="dashed",
                  label="target for minitorch" if i == 0 else None)
    ax.set_yscale("log")
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter
    ax.yaxis.set_major_locator(FixedLocator([0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50]))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}x"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xticks(range(len(workloads)))
    ax.set_xticklabels([f"{CHART.get(w, w)}\nvs {LABELS[r['target']['reference']]}" for w, r in workloads],
                       fontsize=8)
    ax.set_ylabel("relative to the target's reference (log scale)")
    machine = results["machine"]
    simd = (machine.get("numpy_simd") or {}).get("found") or []
    ax.set_title(f"Time (memory for the loops) relative to the target's reference\n"
                 f"{machine['cpu']}, {machine['threads']} thread, numpy {machine['numpy']}"
                 f"{' (' + simd[-1] + ')' if simd else ''}, "
                 f"median of {results['settings']['rounds']} per-round ratios", fontsize=9)
    ax.legend(fontsize=8, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.17), frameon=False)
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
