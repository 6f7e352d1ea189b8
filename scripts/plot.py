#!/usr/bin/env python3
"""Plots a `shardroof sweep` JSON record.

    python3 scripts/plot.py results/sweep.json [-o results/sweep.png]

(Run by a python3 without matplotlib, it runs itself again on one that has
it, /usr/bin/python3 with Debian's python3-matplotlib: matplotlib_python.py.)

Left: T_math, T_comm and T_step (and T_overlap, from `sweep --overlap K`)
against D (log-log; medians, with min-max bars), each T_math point marked
with its regime (c compute, m memory, o overhead, x communication-bound),
the GEMM's three roofs as thin lines (compute 2B(D/N)F/C_peak, memory
s(B D/N + D/N F + B F)/M, the measured floor), D*_empirical and its 95%
interval (shaded), the book's D*_book and the roofline's D* marked, T_comm at
S (all samples), each state of T_comm where the run found several, and the
book's T_comm as horizontal lines, and the best an overlapped step can do,
max(T_math, T_comm), as a dotted line when T_overlap is there.
Right: the inter-chip roofline: achieved FLOP/s per rank against the
inter-chip intensity D/((N-1)s), with the C_peak roof and the W_eff slope
(FLOP/s = W_eff * intensity, W_eff from T_comm at S), meeting at the
critical intensity C_peak/W_eff; the book's W as a dotted slope.

A record of `sweep --sharding fsdp` is drawn against the whole batch B (its
swept dimension, settings.swept), the weight D x F whole on every rank:
the roofs are 2(B/N)DF/C_peak and s(B/N D + D F + B/N F)/M, the floor one
row per rank, B* and its per-rank value B*/N marked; with --overlap
prefetch, T_serial and T_prefetch per layer.
"""
import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import matplotlib_python  # noqa: E402

matplotlib_python.require(__file__)
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def stat(p, key):
    s = p[key]
    return s["median"], s["min"], s["max"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", help="a JSON record written by `shardroof sweep --json`")
    ap.add_argument("-o", "--output", help="PNG to write (default: the JSON's name with .png)")
    args = ap.parse_args()
    with open(args.json) as f:
        doc = json.load(f)
    if doc.get("command") != "sweep":
        sys.exit(f"plot.py: {args.json} is not a sweep record")
    out = args.output or (args.json[:-5] if args.json.endswith(".json") else args.json) + ".png"
    pts = doc["points"]
    if not pts:
        sys.exit("plot.py: the record has no points yet")
    st, ce, cr = doc["settings"], doc["ceilings"], doc["crossover"]
    n = doc["ranks"]

    fig, (ax, rf) = plt.subplots(1, 2, figsize=(14, 7.5))
    # The swept dimension (points' "D" field): D, or the whole batch B with --sharding fsdp.
    x = st.get("swept", "D")
    fsdp = st.get("sharding") == "fsdp"
    D = [p["D"] for p in pts]
    series = [("t_math_s", "T_math (local GEMM)", "tab:blue", "o"),
              ("t_comm_s", "T_comm (" + st["collective"] + ", " + st["impl"] + ")", "tab:red", "s"),
              ("t_step_s", "T_step (gather then GEMM)" if fsdp else "T_step (GEMM then collective)", "tab:green", "^")]
    # --overlap: K, a list of K (T_overlap is the first's) or "auto" (a point may have no chunked step).
    chunks = st.get("overlap", 1)
    if isinstance(chunks, list):
        chunks = chunks[0]
    overlapped = chunks != "prefetch" and (chunks == "auto" or chunks > 1) and all(p.get("t_overlap_s") for p in pts)
    if overlapped:
        series.append(("t_overlap_s", f"T_overlap ({'auto' if chunks == 'auto' else chunks} chunks)", "tab:olive", "D"))
    for key, label, color, marker in series:
        med = [stat(p, key)[0] * 1e3 for p in pts]
        lo = [(stat(p, key)[0] - stat(p, key)[1]) * 1e3 for p in pts]
        hi = [(stat(p, key)[2] - stat(p, key)[0]) * 1e3 for p in pts]
        ax.errorbar(D, med, yerr=[lo, hi], label=label, color=color, marker=marker, ms=5, capsize=3, lw=1.5)
    if overlapped:
        bound = [max(p["t_math_s"]["median"], p["t_comm_s"]["median"]) * 1e3 for p in pts]
        ax.plot(D, bound, color="tab:olive", ls=":", lw=1, label="max(T_math, T_comm): perfect overlap")
    # --overlap prefetch: the layers' steps, per layer.
    if fsdp and all(p.get("prefetch") for p in pts):
        for key, label, color, marker in (("t_serial_s", "T_serial / layers (gather, then GEMM)", "tab:purple", "v"),
                                          ("t_prefetch_s", "T_prefetch / layers (next gather beside the GEMM)",
                                           "tab:olive", "D")):
            ax.plot(D, [p["prefetch"][key]["median"] / p["prefetch"]["layers"] * 1e3 for p in pts], color=color,
                    marker=marker, ms=5, lw=1.2, label=label)
    # The GEMM's roofs over the plotted range (shard = ceil(x/N), at least 1);
    # "whole" is the dimension every rank holds whole beside F: B, or D with fsdp.
    whole, F, es = (st["D"] if fsdp else st["B"]), st["F"], st["bytes_per_element"]
    B = whole
    lo_d, hi_d = max(min(D) / 2, 1), max(D) * 2
    xs = sorted({max(1, round(lo_d * (hi_d / lo_d) ** (k / 60))) for k in range(61)})
    shard = [max(math.ceil(x / n), 1) for x in xs]
    if ce.get("C_flops_per_s"):
        ax.plot(xs, [2 * B * d * F / ce["C_flops_per_s"] * 1e3 for d in shard], color="tab:blue", lw=0.8,
                ls=(0, (4, 2)), label="compute roof 2(B/N)DF/C_peak" if fsdp else "compute roof 2B(D/N)F/C_peak")
    if ce.get("M_bytes_per_s"):
        ax.plot(xs, [es * (B * d + d * F + B * F) / ce["M_bytes_per_s"] * 1e3 for d in shard], color="tab:cyan",
                lw=0.8, ls=(0, (4, 2)),
                label="memory roof s(B/N D + D F + B/N F)/M" if fsdp else "memory roof s(B D/N + D/N F + B F)/M")
    floor = ce.get("floor") or {}
    if floor.get("time_s"):
        ax.axhline(floor["time_s"] * 1e3, color="tab:gray", lw=0.8, ls=(0, (1, 2)),
                   label=f"GEMM floor ({x}/N = 1): {floor['time_s'] * 1e3:.3f} ms, {floor.get('cause', '')}")
    letters = {"compute": "c", "memory": "m", "overhead": "o", "communication": "x"}
    for p in pts:
        ax.annotate(letters.get(p.get("regime", p.get("bound")), "?"), (p["D"], p["t_math_s"]["median"] * 1e3),
                    textcoords="offset points", xytext=(4, 4), fontsize=7, color="tab:blue")
    stab = doc.get("stability") or {}
    comm_stab = stab.get("t_comm") or {}
    if comm_stab.get("verdict") == "unstable":
        for k, state in enumerate(comm_stab.get("states", [])):
            ax.axhline(state["median"] * 1e3, color="tab:red", ls=(0, (6, 3)), lw=0.8, alpha=0.7,
                       label=f"T_comm state {k + 1}: {state['median'] * 1e3:.3f} ms ({100 * state['share']:.0f}% of "
                             "samples)")
    if ce.get("t_comm_measured_s"):
        ax.axhline(ce["t_comm_measured_s"] * 1e3, color="tab:red", ls=":", lw=1,
                   label="T_comm at S, all samples (calibrated model)")
    if ce.get("t_comm_book_s"):
        ax.axhline(ce["t_comm_book_s"] * 1e3, color="tab:brown", ls="-.", lw=1,
                   label=f"book T_comm ({ce.get('link_source', 'link')})")
    ci = cr.get("D_empirical_ci")
    if cr.get("D_empirical") and ci:
        lo = ci[0] if ci[0] is not None else min(D) / 2
        hi = ci[1] if ci[1] is not None else max(D) * 2
        ax.axvspan(lo, hi, color="black", alpha=0.12, lw=0, label=f"95% interval [{lo:.0f}, {hi:.0f}]")
    roofline = cr.get("D_roofline") or {}
    marks = [("D_empirical", cr.get("D_empirical"), f"{x}* measured" + (f" ({cr['roof']} roof)" if cr.get("roof") else ""),
              "black", "-"),
             ("D_book", cr.get("D_book"), f"{x}* book, the prediction (link W, alpha{'' if fsdp else ', g'}; per-point C)",
              "tab:brown", "-."),
             ("D_roofline", roofline.get("D"), f"{x}* roofline (C_peak, M, floor; book T_comm)", "tab:gray", ":")]
    for key, v, label, color, ls in marks:
        if v:
            per_rank = f" ({x}*/N = {v / n:.1f} per rank)" if fsdp else ""
            ax.axvline(v, color=color, ls=ls, lw=1.3, label=f"{label} = {v:.0f}{per_rank}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("whole batch B (rows; each rank holds B/N)" if fsdp else "contracting dimension D (elements)")
    ax.set_ylabel("time per step (ms; median, bars min-max)")
    title = (f"{st['datatype']}, {'D=' + str(st['D']) if fsdp else 'B=' + str(st['B'])}, F={st['F']}, N={n} ranks, "
             f"{st['collective']} {st['impl']}, {st.get('sharding', 'contracting')} sharding")
    ax.set_title("compute vs communication: " + title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)

    # Roofline panel.
    I = [p["intensity"] for p in pts]
    achieved = [p["flops_per_s"] / 1e9 for p in pts]
    step = [p.get("step_flops_per_s", 0) / 1e9 for p in pts]
    C = ce["C_flops_per_s"] / 1e9
    W = (ce.get("W_eff_bytes_per_s") or 0) / 1e9
    W_book = (ce.get("W_bytes_per_s") or 0) / 1e9
    if n > 1 and all(i > 0 for i in I):
        lo_i, hi_i = min(I) / 2, max(I) * 2
        xs = [lo_i * (hi_i / lo_i) ** (k / 100) for k in range(101)]
        rf.plot(xs, [min(C, W * x) for x in xs], color="black", lw=2, label="roof: min(C_peak, W_eff x intensity)")
        rf.axhline(C, color="tab:gray", ls=":", lw=1, label=f"C_peak = {C:.1f} GFLOP/s")
        rf.plot(xs, [W * x for x in xs], color="tab:orange", ls=":", lw=1,
                label=f"W_eff slope, W_eff = {W:.2f} GB/s (T_comm at S)")
        if W_book > 0:
            rf.plot(xs, [W_book * x for x in xs], color="tab:brown", ls="-.", lw=1,
                    label=f"book W = {W_book:.2f} GB/s ({ce.get('link_source', 'link')})")
        if W > 0:
            rf.axvline(C / W, color="tab:gray", ls="--", lw=1, label=f"critical intensity C_peak/W_eff = {C / W:.1f}")
        rf.plot(I, achieved, "o-", color="tab:blue", label="GEMM alone (FLOP/s during T_math)")
        if any(step):
            rf.plot(I, step, "^-", color="tab:green", label="whole step (useful FLOP/s over T_step)")
        name = x
        for x, y, d in zip(I, step if any(step) else achieved, D):
            rf.annotate(f"{name}={d}", (x, y), textcoords="offset points", xytext=(3, -10), fontsize=7)
        rf.set_xscale("log", base=2)
        rf.set_yscale("log")
        rf.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)
    else:
        rf.text(0.5, 0.5, "one rank: no communication, no inter-chip roofline", ha="center", transform=rf.transAxes)
    name = st.get("swept", "D")
    unit = f"{name}/((N-1)s)" if st["collective"] == "all_reduce" else f"2{name}/((N-1)s)"
    rf.set_xlabel(f"inter-chip intensity {unit} (FLOP per byte sent)")
    rf.set_ylabel("achieved GFLOP/s per rank")
    rf.set_title("inter-chip roofline", fontsize=10)
    rf.grid(True, which="both", alpha=0.3)

    summary = doc.get("summary", "").split("\n")[0]
    if summary:
        fig.suptitle(summary, fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"plot.py: wrote {out}")


if __name__ == "__main__":
    main()
