#!/usr/bin/env python3
"""busbw against size from a `shardroof coll --json` record: one line per
implementation, solid out of place and dotted in place, the model's busbw
(each row's `expected`, the implementation's cost formula on the run's own
link) as a dashed line of the same colour, and the link's W (the record's
`model`) as a horizontal line: how close each implementation gets to what
its formula and the wire allow. A preset's published figure, when a row
carries one, is a dash-dotted line. Needs matplotlib (Debian:
python3-matplotlib).

    scripts/plot_coll.py results/coll.json -o results/coll.png
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import matplotlib_python  # noqa: E402

matplotlib_python.require(__file__)


def series(doc):
    """{impl: {"out": [(bytes, busbw)], "in": [...], "model": [...]}} in size order, sizes > 0."""
    out = {}
    for r in doc.get("results", []):
        b = int(r.get("bytes", 0))
        if b <= 0:
            continue
        s = out.setdefault(r["impl"], {"out": [], "in": [], "model": []})
        s["in" if r.get("in_place") else "out"].append((b, r["busbw_GBps"]))
        e = r.get("expected")
        if e and not r.get("in_place") and e.get("busbw_GBps"):
            s["model"].append((b, e["busbw_GBps"]))
    for s in out.values():
        for k in s:
            s[k].sort()
    return out


def published(doc):
    for r in doc.get("results", []):
        p = (r.get("expected") or {}).get("published")
        if p:
            return p
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json", help="a `shardroof coll --json` record")
    ap.add_argument("-o", "--output", help="PNG to write (default: the record's name with .png)")
    args = ap.parse_args()
    with open(args.json) as f:
        doc = json.load(f)
    data = series(doc)
    if not data:
        sys.exit(f"{args.json}: no results with a size above 0 to plot")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (impl, s) in enumerate(sorted(data.items())):
        c = colours[k % len(colours)]
        for key, style, label in (("out", "-o", "out of place"), ("in", ":s", "in place")):
            if s[key]:
                xs, ys = zip(*s[key])
                ax.plot(xs, ys, style, color=c, markersize=3, label=f"{impl} {label}")
        if s["model"]:
            xs, ys = zip(*s["model"])
            ax.plot(xs, ys, "--", color=c, alpha=0.8, label=f"{impl} model")
    model = doc.get("model") or {}
    W = model.get("W_bytes_per_s") or 0
    if W > 0:
        ax.axhline(W / 1e9, color="black", linewidth=1, label=f"link W (fit) {W / 1e9:.3g} GB/s")
    p = published(doc)
    if p:
        ax.axhline(p["busbw_GBps"], color="grey", linestyle="-.", label=f"published {p['busbw_GBps']:.3g} GB/s")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("size S (bytes)")
    ax.set_ylabel("busbw (GB/s)")
    ax.grid(True, which="both", alpha=0.3)
    st = doc.get("settings", {})
    hosts = len(set((doc.get("environment") or {}).get("hosts", []))) or "?"
    ax.set_title(f"shardroof coll: {st.get('collective', '?')} {st.get('datatype', '')} on {doc.get('ranks', '?')} "
                 f"ranks, {hosts} host(s)\nmodel: {model.get('source', 'none')}", fontsize=9)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    out = args.output or (args.json.rsplit(".", 1)[0] + ".png")
    fig.savefig(out, dpi=120)
    print(out)


if __name__ == "__main__":
    main()
