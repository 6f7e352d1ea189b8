#!/usr/bin/env python3
"""Each launch beside the combined answer, from a `shardroof combine --json`
record. Sweep launches: each launch's D* with its own interval (within that
launch), the across-launch median with its 95% interval (a band) and the
prediction interval for the next launch (a wider, lighter band); the book's
D* per launch as hollow markers where the record has it. Coll launches: per
size, each launch's median time with its own interval and the combined
median with its interval, on log axes. Needs matplotlib (Debian:
python3-matplotlib).

    scripts/plot_combine.py results/combine.json -o results/combine.png
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


def finite(v, default):
    return default if v is None or (isinstance(v, float) and math.isinf(v)) else v


def plot_sweep(doc, ax):
    launches = doc["launches"]
    d = doc["D"]
    xs = list(range(1, len(launches) + 1))
    vals = [l["D"]["value"] for l in launches]
    top = max([finite(l["D"]["ci"][1], v) for l, v in zip(launches, vals)] + [finite(d["prediction_interval"][1], 0)])
    lo = [v - max(l["D"]["ci"][0], 0) for l, v in zip(launches, vals)]
    hi = [finite(l["D"]["ci"][1], top * 1.5) - v for l, v in zip(launches, vals)]
    ax.axhspan(d["prediction_interval"][0], finite(d["prediction_interval"][1], top * 1.5), color="tab:blue", alpha=0.1,
               label="next launch (95% prediction)")
    ax.axhspan(d["ci"][0], finite(d["ci"][1], top * 1.5), color="tab:blue", alpha=0.3,
               label="combined median, 95% across launches")
    ax.axhline(d["median"], color="tab:blue", lw=1.5)
    ax.errorbar(xs, vals, yerr=[lo, hi], fmt="o", color="black", capsize=4, label="each launch: D* (own interval)")
    books = [(x, l["book"]["value"]) for x, l in zip(xs, launches) if l.get("book")]
    if books:
        ax.plot([b[0] for b in books], [b[1] for b in books], "o", mfc="none", color="tab:red", label="book D*")
    ax.set_xticks(xs)
    ax.set_xlabel("launch")
    ax.set_ylabel("D*")
    ax.set_yscale("log")
    ax.set_title(f"D* over {len(launches)} launches: {d['median']:.1f} "
                 f"[{d['ci'][0]:.1f}, {finite(d['ci'][1], float('inf')):.1f}]; between launches "
                 f"{100 * d['between_share']:.0f}% of the variance")
    ax.legend(fontsize=8)


def plot_coll(doc, ax):
    rows = [r for r in doc["rows"] if not r["in_place"]]
    impls = sorted({r["impl"] for r in rows})
    k = len(doc["launches"])
    for n, impl in enumerate(impls):
        rs = sorted((r for r in rows if r["impl"] == impl), key=lambda r: r["bytes"])
        sizes = [r["bytes"] for r in rs]
        for i in range(k):
            # Launches side by side at each size, a little apart.
            shift = 1 + 0.04 * (i - (k - 1) / 2)
            v = [r["launches_time_us"][i]["value"] for r in rs]
            lo = [max(x - r["launches_time_us"][i]["ci"][0], 0) for x, r in zip(v, rs)]
            hi = [finite(r["launches_time_us"][i]["ci"][1], x) - x for x, r in zip(v, rs)]
            ax.errorbar([s * shift for s in sizes], v, yerr=[lo, hi], fmt=".", color=f"C{n}", alpha=0.5, capsize=2,
                        label=f"{impl}: each launch" if i == 0 else None)
        med = [r["time_us"]["median"] for r in rs]
        ax.plot(sizes, med, "-", color=f"C{n}", label=f"{impl}: combined median")
        ax.fill_between(sizes, [r["time_us"]["ci"][0] for r in rs],
                        [finite(r["time_us"]["ci"][1], m) for r, m in zip(rs, med)], color=f"C{n}", alpha=0.2)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("bytes")
    ax.set_ylabel("time (us)")
    ax.set_title(f"coll over {k} launches (out of place): each launch, and the combined median with its interval")
    ax.legend(fontsize=8)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json", help="a `shardroof combine --json` record")
    ap.add_argument("-o", "--output", help="PNG to write (default: the record's name with .png)")
    args = ap.parse_args()
    with open(args.json) as f:
        doc = json.load(f)
    if doc.get("command") != "combine":
        sys.exit(f"{args.json}: not a `shardroof combine` record")
    fig, ax = plt.subplots(figsize=(8, 5))
    (plot_sweep if doc.get("of") == "sweep" else plot_coll)(doc, ax)
    fig.tight_layout()
    out = args.output or args.json.rsplit(".", 1)[0] + ".png"
    fig.savefig(out, dpi=110)
    print(f"plot_combine: wrote {out}")


if __name__ == "__main__":
    main()
