#!/usr/bin/env python3
"""Plots a `shardroof sweep` JSON record.

    /usr/bin/python3 scripts/plot.py results/sweep.json [-o results/sweep.png]

Left: T_math, T_comm and T_step (and T_overlap, from `sweep --overlap K`)
against D (log-log; medians, with min-max bars), with D*_empirical and its
95% interval (shaded), the calibrated D*_predicted and the book's D*_book
marked, T_comm at S (all samples) and the book's T_comm as horizontal
lines, and the best an overlapped step can do, max(T_math, T_comm), as a
dotted line when T_overlap is there.
Right: the inter-chip roofline: achieved FLOP/s per rank against the
inter-chip intensity D/((N-1)s), with the C_peak roof and the W_eff slope
(FLOP/s = W_eff * intensity, W_eff from T_comm at S), meeting at the
critical intensity C_peak/W_eff; the book's W as a dotted slope.
"""
import argparse
import json
import math
import sys

import matplotlib

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

    fig, (ax, rf) = plt.subplots(1, 2, figsize=(13, 5.2))
    D = [p["D"] for p in pts]
    series = [("t_math_s", "T_math (local GEMM)", "tab:blue", "o"),
              ("t_comm_s", "T_comm (" + st["collective"] + ", " + st["impl"] + ")", "tab:red", "s"),
              ("t_step_s", "T_step (GEMM then collective)", "tab:green", "^")]
    chunks = st.get("overlap", 1)
    overlapped = chunks > 1 and all(p.get("t_overlap_s") for p in pts)
    if overlapped:
        series.append(("t_overlap_s", f"T_overlap ({chunks} chunks)", "tab:olive", "D"))
    for key, label, color, marker in series:
        med = [stat(p, key)[0] * 1e3 for p in pts]
        lo = [(stat(p, key)[0] - stat(p, key)[1]) * 1e3 for p in pts]
        hi = [(stat(p, key)[2] - stat(p, key)[0]) * 1e3 for p in pts]
        ax.errorbar(D, med, yerr=[lo, hi], label=label, color=color, marker=marker, ms=5, capsize=3, lw=1.5)
    if overlapped:
        bound = [max(p["t_math_s"]["median"], p["t_comm_s"]["median"]) * 1e3 for p in pts]
        ax.plot(D, bound, color="tab:olive", ls=":", lw=1, label="max(T_math, T_comm): perfect overlap")
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
    marks = [("D_empirical", "D* measured", "black", "-"),
             ("D_predicted", "D* calibrated (T_comm at S, per-point C)", "tab:purple", "--"),
             ("D_book", "D* book (link W, alpha, g; per-point C)", "tab:brown", "-.")]
    for key, label, color, ls in marks:
        v = cr.get(key)
        if v:
            ax.axvline(v, color=color, ls=ls, lw=1.3, label=f"{label} = {v:.0f}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("contracting dimension D (elements)")
    ax.set_ylabel("time per step (ms; median, bars min-max)")
    title = (f"{st['datatype']}, B={st['B']}, F={st['F']}, N={n} ranks, "
             f"{st['collective']} {st['impl']}")
    ax.set_title("compute vs communication: " + title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")

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
        for x, y, d in zip(I, step if any(step) else achieved, D):
            rf.annotate(f"D={d}", (x, y), textcoords="offset points", xytext=(3, -10), fontsize=7)
        rf.set_xscale("log", base=2)
        rf.set_yscale("log")
        rf.legend(fontsize=8, loc="upper left")
    else:
        rf.text(0.5, 0.5, "one rank: no communication, no inter-chip roofline", ha="center", transform=rf.transAxes)
    unit = "D/((N-1)s)" if st["collective"] == "all_reduce" else "2D/((N-1)s)"
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
