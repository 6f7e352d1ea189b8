#!/usr/bin/env python3
"""Heatmaps of a `shardroof link --json` record: one-way bandwidth W (GB/s)
and latency alpha (us) per rank pair, same-node pairs outlined apart from
cross-node ones, and for a loaded pattern (bidir, shift, ring) W under the
pattern / idle ping-pong W. The title names the pattern; shift and ring
matrices are directed (row = sender, column = receiver). Needs matplotlib
(Debian: python3-matplotlib).

    scripts/plot_link.py results/link.json -o results/link.png
"""
import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import matplotlib_python  # noqa: E402

matplotlib_python.require(__file__)


def directed(doc):
    """Shift and ring pairs are transfers src -> dst; the others stand for both directions."""
    return doc.get("pattern", "pingpong") in ("shift", "ring")


def pair_matrices(doc):
    """N x N matrices of W (GB/s), alpha (us), W loaded / idle and same_node (None = not measured)."""
    n = int(doc["ranks"])
    w = [[math.nan] * n for _ in range(n)]
    a = [[math.nan] * n for _ in range(n)]
    ratio = [[math.nan] * n for _ in range(n)]
    same = [[None] * n for _ in range(n)]
    for p in doc["pairs"]:
        i, j = int(p["src"]), int(p["dst"])
        for (r, c) in ((i, j),) if directed(doc) else ((i, j), (j, i)):
            same[r][c] = bool(p["same_node"])
            if p.get("W_bytes_per_s") is not None:
                w[r][c] = p["W_bytes_per_s"] / 1e9
                a[r][c] = p["alpha_s"] * 1e6
            if p.get("W_loaded_over_idle") is not None:
                ratio[r][c] = p["W_loaded_over_idle"]
    return n, w, a, ratio, same


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", help="file written by `shardroof link --json`")
    ap.add_argument("-o", "--output", default=None, help="image file (default: JSON name with .png)")
    args = ap.parse_args()
    with open(args.json) as f:
        doc = json.load(f)
    if doc.get("command") != "link" or "pairs" not in doc:
        sys.exit(f"{args.json}: not a `shardroof link` record")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_link.py needs matplotlib (apt-get install python3-matplotlib)")

    n, w, a, ratio, same = pair_matrices(doc)
    pattern = doc.get("pattern", "pingpong")
    panels = [(w, f"W one-way (GB/s), {pattern}", "viridis"), (a, "alpha latency (us)", "magma_r")]
    if "idle_pairs" in doc:
        panels.append((ratio, f"W {pattern} / W idle ping-pong", "RdYlGn"))
    fig, axes = plt.subplots(1, len(panels), figsize=(2.5 * len(panels) + 0.5 * n, 2.5 + 0.25 * n),
                             constrained_layout=True)
    for ax, (data, title, cmap) in zip(axes, panels):
        im = ax.imshow(data, cmap=cmap)
        fig.colorbar(im, ax=ax, shrink=0.8)
        ax.set_title(title)
        ax.set_xlabel("receiver" if directed(doc) else "rank")
        ax.set_ylabel("sender" if directed(doc) else "rank")
        ax.set_xticks(range(n))
        ax.set_yticks(range(n))
        if n <= 16:
            lo, hi = im.get_clim()
            for r in range(n):
                for c in range(n):
                    if not math.isnan(data[r][c]):
                        # Readable on either end of the colour map; cross-node pairs marked "x".
                        dark = (data[r][c] - lo) / ((hi - lo) or 1) < 0.5
                        if cmap.endswith("_r"):
                            dark = not dark
                        mark = "x" if same[r][c] is False else ""
                        ax.text(c, r, f"{data[r][c]:.3g}{mark}", ha="center", va="center", fontsize=7,
                                color="white" if dark else "black")
    summary = doc.get("summary", {})
    parts = []
    for key, label in (("same_node", "same node"), ("cross_node", "cross node")):
        s = summary.get(key) or {}
        if s.get("fitted"):
            parts.append(f"{label}: W {s['W_bytes_per_s']['median'] / 1e9:.3g} GB/s, "
                         f"alpha {s['alpha_s']['median'] * 1e6:.3g} us ({s['fitted']} pairs, medians)")
    load = (doc.get("load") or {}).get("W_loaded_over_idle")
    if load:
        parts.append(f"W / idle W median {load['median']:.2f} ({load['min']:.2f} .. {load['max']:.2f})")
    parts.append("x = cross-node pair")
    fig.suptitle(f"shardroof link, pattern {pattern}, {n} ranks on {doc.get('nodes', '?')} node(s)\n"
                 + "; ".join(parts), fontsize=9)
    out = args.output or (args.json.rsplit(".", 1)[0] + ".png")
    fig.savefig(out, dpi=120)
    print(out)


if __name__ == "__main__":
    main()
