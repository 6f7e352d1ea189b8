#!/usr/bin/env python3
"""The fit and the table of scripts/calibrate-simulation.sh.

  simulation_calibration.py fit --dir EMULATED --rates "0.5 1" --write FILE [--command C] [--load L]
  simulation_calibration.py compare --emulated DIR --simulated DIR --rates "0.5 1"

fit: SMPI's network model gives a message of m bytes, alone on its route,
the time  L * lat_factor(m) + m / (R * bw_factor(m)),  L the route's latency
and R its bandwidth; smpi/lat-factor and smpi/bw-factor are piecewise
constant in m ("size:factor;..."; the entry with the largest size at or
below m applies). Each segment's factors come from a least-squares line
t = a + b m through the emulated ping-pong's fastest one-way times of its sizes:
lat_factor = a / L, bw_factor = 1 / (b R), averaged (geometrically) over
the rates; L is the smallest message's time, R the shaped rate in bytes/s.
The loopback link of an emulated node (2 ranks in one namespace) gets its
own L and R under the same factors.
"""
import argparse
import datetime
import json
import math
import os
import platform
import sys

# Where the emulated links change regime: below 1 KiB a message is latency;
# Open MPI's TCP eager limit is 64 KiB (past it, its rendezvous). The
# links' shaper has no burst to leave out (scripts/emulate-links.sh
# --shaper: a bucket of a frame and a measured slack), so each segment's
# factors come from all of its sizes.
SEGMENTS = [8, 1024, 65536]


def one_way(path):
    """The fastest one-way time of each size: whatever else runs on the
    machine (the TCP stacks of both ranks share its cores) only adds to a
    time, so the least of the iterations is the link's own."""
    doc = json.load(open(path))
    pair = doc["pairs"][0]
    return {t["bytes"]: t["one_way_s"]["min"] for t in pair["times"]}


def line(points):
    """Least squares t = a + b m; None for fewer than two sizes."""
    if len(points) < 2:
        return None
    n = len(points)
    mx = sum(m for m, _ in points) / n
    my = sum(t for _, t in points) / n
    sxx = sum((m - mx) ** 2 for m, _ in points)
    if sxx == 0:
        return None
    b = sum((m - mx) * (t - my) for m, t in points) / sxx
    return my - b * mx, b


def segment_of(m):
    lo = SEGMENTS[0]
    for s in SEGMENTS:
        if m >= s:
            lo = s
    return lo


def fit(args):
    per_rate = {}
    latency = []
    measured = []  # (date, load average) of each emulated record
    for text in args.rates.split():
        path = os.path.join(args.dir, f"link-{text}.json")
        t = one_way(path)
        per_rate[float(text)] = t
        latency.append(t[min(t)])
        env = json.load(open(path)).get("environment", {})
        measured.append((env.get("date", "?"), env.get("load_average", "?")))
    L = sum(latency) / len(latency)
    # The shaper each rate ran on, as emulate-links.sh named it on the console.
    shapers = []
    for text in args.rates.split():
        console = os.path.join(args.dir, f"link-{text}.txt")
        words = [l.split("(shaper: ", 1)[1].rsplit(")", 1)[0] for l in open(console) if "(shaper: " in l] \
            if os.path.exists(console) else []
        shapers.append((text, words[0] if words else "not recorded"))
    lat_f, bw_f = {}, {}
    residuals = []
    for lo in SEGMENTS:
        la, bw = [], []
        for r, t in per_rate.items():
            R = r * 1e9 / 8
            pts = sorted((m, s) for m, s in t.items() if segment_of(m) == lo)
            fitted = line(pts)
            if fitted is None:
                continue
            a, b = fitted
            if a > 0:
                la.append(a / L)
            if b > 0:
                bw.append(1 / (b * R))
        lat_f[lo] = math.exp(sum(map(math.log, la)) / len(la)) if la else 1.0
        bw_f[lo] = math.exp(sum(map(math.log, bw)) / len(bw)) if bw else 1.0
    # How well the factors reproduce each measured size.
    for r, t in per_rate.items():
        R = r * 1e9 / 8
        for m, s in sorted(t.items()):
            lo = segment_of(m)
            model = L * lat_f[lo] + m / (R * bw_f[lo])
            residuals.append((r, m, s, model))
    loop = one_way(os.path.join(args.dir, "loopback.json"))
    big = sorted((m, s) for m, s in loop.items() if m >= SEGMENTS[-1])
    fitted = line(big)
    loop_R = 1 / (fitted[1] * bw_f[SEGMENTS[-1]]) if fitted and fitted[1] > 0 else 0
    loop_L = loop[min(loop)] / lat_f[SEGMENTS[0]]

    def table(f):
        return ";".join(f"{lo}:{f[lo]:.4g}" for lo in sorted(f, reverse=True))

    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    when = "; ".join(f"{d} (load average {l})" for d, l in measured)
    lines = []
    loads = [float(l.split()[0]) for _, l in measured if l not in ("?", "")]
    if loads and max(loads) > (os.cpu_count() or 1):
        lines += [f"# WARNING: measured on a loaded machine (load average up to {max(loads):g} on {os.cpu_count()} CPUs):",
                  "# the emulated times include waiting for a CPU, and the factors below carry it. Run the",
                  "# command below again on a quiet machine, alone, before trusting `simulate.sh --rate`.", ""]
    lines += [
        "# SimGrid's network factors for the emulated links of scripts/emulate-links.sh",
        "# (shaped veth pairs between network namespaces, Open MPI over TCP), read by",
        "# `scripts/simulate.sh --rate GBIT`. Written by scripts/calibrate-simulation.sh:",
        "# SMPI's ping-pong calibration (docs/simulation.md, \"Calibration\"): the one-way",
        "# time of each size (the fastest of its iterations), fitted per segment as",
        "# L * lat-factor + m / (R * bw-factor).",
        f"# Measured on {platform.node()} ({os.cpu_count()} CPUs) at rates {args.rates} Gbit/s: {when};",
        f"# the whole measurement began at load average {args.load}; fitted {now}. Command: {args.command}",
        *(f"# Shaper at {r} Gbit/s: {w}" for r, w in shapers),
        "",
        "[link]",
        f"latency_s = {L:.6g}          # the smallest message's one-way time (rates' mean)",
        "payload_share = 1.0           # of the shaped rate; the bw-factors carry what TCP delivers",
        "",
        "[loopback]                    # 2 ranks of one emulated node: loopback TCP, not shaped",
        f"bytes_per_s = {loop_R:.6g}",
        f"latency_s = {loop_L:.6g}",
        "",
        "[smpi]",
        f"\"smpi/bw-factor\" = \"{table(bw_f)}\"",
        f"\"smpi/lat-factor\" = \"{table(lat_f)}\"",
        "\"network/TCP-gamma\" = 0        # no window bound: the rates are far below it",
        "",
        "# The fit against the measurements it came from: rate (Gbit/s), bytes, measured and",
        "# modelled one-way time (us).",
    ]
    worst = 0
    for r, m, s, model in residuals:
        lines.append(f"#   {r:g} {m:>8} {s * 1e6:10.2f} {model * 1e6:10.2f} {model / s - 1:+.1%}")
        if m >= 1024:
            worst = max(worst, abs(model / s - 1))
    lines.append(f"# worst fit from 1 KiB: {worst:.1%}")
    with open(args.write, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(l for l in lines if not l.startswith("#   ")))


def results(path):
    doc = json.load(open(path))
    out = {}
    for r in doc["results"]:
        if r.get("wrong") not in (0, None):
            print(f"WRONG RESULTS: {path}: {r['impl']} {r['bytes']} B: {r['wrong']}", file=sys.stderr)
        out[(r["collective"], r["impl"], r["bytes"], r["in_place"])] = (r["time_us"]["median"], r.get("wrong"))
    return out


def compare(args):
    names = [("2r-ar", "2"), ("2r-rs", "2"), ("2x2-ar", "2x2"), ("2x2-rs", "2x2")]
    print("# coll over emulated links against its simulation: median time per call (us), simulated / emulated;")
    print("# goal within 10%; native is Open MPI 4.1's own collective emulated, and SMPI's implementation of Open")
    print("# MPI's decision rules simulated (not the same code). A row's check: both runs' results exact ('ok').")
    print(f"{'Gbit/s':>6} {'ranks':>5} {'collective':<15} {'impl':<9} {'size':>6} {'place':<5} "
          f"{'emulated':>10} {'simulated':>10} {'sim/emu':>7}  verdict  check")
    within = total = 0
    wrong = 0
    for rate in args.rates.split():
        for name, ranks in names:
            ep = os.path.join(args.emulated, f"coll-{name}-{rate}.json")
            sp = os.path.join(args.simulated, f"coll-{name}-{rate}.json")
            if not (os.path.exists(ep) and os.path.exists(sp)):
                print(f"# missing {ep} or {sp}")
                continue
            e, s = results(ep), results(sp)
            for key in sorted(e):
                if key not in s:
                    continue
                collective, impl, size, in_place = key
                te, we = e[key]
                ts, ws = s[key]
                ratio = ts / te if te > 0 else float("nan")
                ok = abs(ratio - 1) <= 0.10
                checked = "ok" if we == 0 and ws == 0 else "WRONG" if (we or ws) else "-"
                wrong += checked == "WRONG"
                total += 1
                within += ok
                size_text = f"{size >> 20}Mi" if size >= 1 << 20 else f"{size >> 10}Ki"
                print(f"{rate:>6} {ranks:>5} {collective:<15} {impl:<9} {size_text:>6} {'in' if in_place else 'out':<5} "
                      f"{te:10.1f} {ts:10.1f} {ratio:7.2f}  {'PASS' if ok else 'MISS':<7}  {checked}")
    print(f"# {within} of {total} rows within 10%; {wrong} with wrong results")
    return 1 if wrong else 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="what", required=True)
    f = sub.add_parser("fit")
    f.add_argument("--dir", required=True)
    f.add_argument("--rates", required=True)
    f.add_argument("--write", required=True)
    f.add_argument("--command", default="")
    f.add_argument("--load", default="")
    c = sub.add_parser("compare")
    c.add_argument("--emulated", required=True)
    c.add_argument("--simulated", required=True)
    c.add_argument("--rates", required=True)
    a = ap.parse_args()
    if a.what == "fit":
        fit(a)
        return 0
    return compare(a)


if __name__ == "__main__":
    sys.exit(main())
