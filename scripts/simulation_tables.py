#!/usr/bin/env python3
"""The tables of scripts/bench-simulation.sh, from the records it left in --dir.

coll: each simulated row (median over ranks' max per call; one call, the
simulation being deterministic) beside
  - the cost model: coll's own model column (its record's `expected`:
    src/model/collective_cost.h on the preset's links, g = 0);
  - the two-level model: `predict --nodes M --ranks-per-node K`
    (src/model/two_level.h, ring and hier, g = 0);
and, where a row misses the two-level model by more than 15%, the model's
terms (the same formula, split; their sum is checked against predict's
value) so the term that misses can be named.
sweep: the simulated D* of each implementation beside predict's.
levels (--levels-ranks): ring (and hier, where coll ran it over the levels)
AllReduce on L-level platforms (simulate.sh --topology FILE) beside the
L-level model (`predict --topology FILE`: src/model/topology.h, g = 0),
with each run's wall time.
"""
import argparse
import json
import os
import sys


def load(path):
    return json.load(open(path)) if os.path.exists(path) else None


def bytes_of(text):
    units = {"K": 10, "M": 20, "G": 30}
    return int(text[:-1]) << units[text[-1]] if text[-1] in units else int(text)


def size_text(b):
    return f"{b >> 20}Mi" if b >= 1 << 20 else f"{b >> 10}Ki"


def two_level_terms(tl, collective, S):
    """The two-level formula's terms (src/model/two_level.h), for naming
    the one that misses; the caller checks their sum against predict."""
    K, M = tl["ranks_per_node"], tl["nodes"]
    N = K * M
    R = tl["ranks_per_inter_link"]
    ai, Wi = tl["intra"]["latency_s"], tl["intra"]["bytes_per_s"]
    ao, Wo = tl["inter"]["latency_s"], tl["inter"]["bytes_per_s"]
    f = 2 if collective == "all_reduce" else 1
    ring = {"latency": f * (N - 1) * max(ai, ao), "bandwidth": f * (N - 1) / N * S / min(Wi, Wo)}
    hier = {"latency inside": f * (K - 1) * ai, "bandwidth inside": f * (K - 1) / K * S / Wi,
            "latency across": f * (M - 1) * ao, "bandwidth across": f * (M - 1) / M * (S / K) * R / Wo}
    return ring, hier


def reduction_s(tl, collective, impl, S, memory_bytes_per_s, elem=4):
    """The time the simulation charges for the reductions (3 s/M per element:
    two operands read, one written) of ring or hier; float elements."""
    K, M = tl["ranks_per_node"], tl["nodes"]
    N = K * M
    E = S / elem
    g = 3 * elem / memory_bytes_per_s if memory_bytes_per_s else 0
    if impl == "ring":
        return (N - 1) / N * E * g
    return ((K - 1) / K * E + (M - 1) / M * E / K) * g


def coll_table(args, lines):
    sizes = [bytes_of(s) for s in args.sizes.split()]
    lines.append("# coll on simulated clusters: time per call (us, max over ranks; out of place / in place), against")
    lines.append("# the cost model (coll's model column: collective_cost.h on the preset's links, g = 0) and the")
    lines.append("# two-level model (predict --nodes M --ranks-per-node 8: two_level.h, ring and hier, g = 0).")
    lines.append("# The simulation charges reductions at the preset's memory bandwidth (3 s/M per element), which both")
    lines.append("# models leave out. check: ok = every result of the row exact (private buffers); - = not checked")
    lines.append("# (shared buffers: N^2 S above 16 GiB; the smaller sizes' rows ran the same code, checked).")
    lines.append("# skew: how far apart the ranks left the barrier before the call (us, the largest; the timing rule")
    lines.append("# times each rank from its own exit, so a call that needs every peer at once carries it; the models")
    lines.append("# have no such term).")
    head = (f"{'ranks':>5} {'nodes':>5} {'collective':<14} {'impl':<8} {'size':>5} {'sim out':>10} {'sim in':>10} "
            f"{'cost':>10} {'sim/cost':>8} {'2-level':>10} {'sim/2lvl':>8} {'skew':>6}  check")
    lines.append(head)
    misses = []
    ratio = {}  # (collective, size, N) -> {impl: sim time}
    model_ratio = {}
    for n in [int(x) for x in args.ranks.split()]:
        for c in args.collectives.split():
            for s_text in args.sizes.split():
                S = bytes_of(s_text)
                doc = load(os.path.join(args.dir, f"coll-{n}-{c}-{s_text}.json"))
                if not doc:
                    lines.append(f"{n:>5} {'':>5} {c:<14} {'-':<8} {size_text(S):>5}  (no record)")
                    continue
                pred = load(os.path.join(args.dir, f"predict-{n}-{c}-{s_text}.json"))
                tl = pred["two_level"] if pred else None
                nodes = doc["topology"]["nodes"]
                rows = {}
                for r in doc["results"]:
                    rows.setdefault(r["impl"], {})["in" if r["in_place"] else "out"] = r
                for impl, pl in rows.items():
                    out, inp = pl.get("out"), pl.get("in")
                    t_out = out["time_us"]["median"] if out else float("nan")
                    t_in = inp["time_us"]["median"] if inp else float("nan")
                    exp = (out or {}).get("expected") or {}
                    cost = exp.get("time_s")
                    cost_us = cost * 1e6 if cost else None
                    two = None
                    if tl and impl in ("ring", "hier"):
                        two = tl["T_comm_ring_s" if impl == "ring" else "T_comm_hier_s"] * 1e6
                    if doc["settings"].get("check"):
                        ok = all(p.get("wrong") == 0 for p in pl.values())
                        check = "ok" if ok else "WRONG"
                    else:
                        check = "-"
                    sim = t_out
                    ratio.setdefault((c, S, n), {})[impl] = sim
                    if two is not None:
                        model_ratio.setdefault((c, S, n), {})[impl] = two
                    skews = (out or {}).get("time_us", {}).get("per_rank_skew") or []
                    skew = max((max(x) for x in skews if x), default=float("nan"))
                    cost_text = f"{cost_us:10.1f}" if cost_us else f"{'-':>10}"
                    cr = f"{sim / cost_us:8.2f}" if cost_us else f"{'-':>8}"
                    two_text = f"{two:10.1f}" if two is not None else f"{'-':>10}"
                    tr = f"{sim / two:8.2f}" if two else f"{'-':>8}"
                    lines.append(f"{n:>5} {nodes:>5} {c:<14} {impl:<8} {size_text(S):>5} {t_out:10.1f} {t_in:10.1f} "
                                 f"{cost_text} {cr} {two_text} {tr} {skew:6.1f}  {check}")
                    if two and abs(sim / two - 1) > 0.15:
                        ring_terms, hier_terms = two_level_terms(tl, c, S)
                        terms = ring_terms if impl == "ring" else hier_terms
                        total = sum(terms.values())
                        if abs(total * 1e6 - two) > 1e-6 * two + 1e-3:
                            print(f"simulation_tables: the terms ({total * 1e6}) do not sum to predict's {two}",
                                  file=sys.stderr)
                            sys.exit(1)
                        # Beside them, what the simulation charges and the
                        # model leaves out: the reductions at the preset's
                        # memory bandwidth (3 s/M per element).
                        misses.append((n, c, impl, S, sim, two, terms, reduction_s(tl, c, impl, S, args.memory),
                                       skew))
    lines.append("")
    lines.append("# hier against ring, T_ring / T_hier (above 1: hier faster), simulated and two-level model:")
    for c in args.collectives.split():
        for S in sizes:
            cells = []
            first = None
            for n in [int(x) for x in args.ranks.split()]:
                r = ratio.get((c, S, n), {})
                m = model_ratio.get((c, S, n), {})
                if "ring" in r and "hier" in r:
                    sim = r["ring"] / r["hier"]
                    mod = m["ring"] / m["hier"] if "ring" in m and "hier" in m else float("nan")
                    cells.append(f"N={n}: {sim:.2f} (model {mod:.2f})")
                    if first is None and sim > 1:
                        first = n
            where = f"hier faster from {first} ranks" if first else "hier never faster here"
            lines.append(f"#   {c} {size_text(S)}: " + ", ".join(cells) + f"; {where}")
    if misses:
        lines.append("")
        lines.append("# rows off the two-level model by more than 15%, with the model's terms (us):")
        for n, c, impl, S, sim, two, terms, red, skew in misses:
            t = ", ".join(f"{k} {v * 1e6:.1f}" for k, v in terms.items())
            lines.append(f"#   {n} ranks {c} {impl} {size_text(S)}: simulated {sim:.1f}, model {two:.1f} "
                         f"({sim - two:+.1f}, x{sim / two:.2f}); terms: {t}; not in the model: reductions at M "
                         f"{red * 1e6:.1f}, barrier skew {skew:.1f}")


def sweep_table(args, lines):
    ranks = [int(x) for x in args.sweep_ranks.split()] if args.sweep_ranks else []
    if not ranks:
        return
    lines.append("")
    lines.append("# sweep on simulated clusters (B = F = 1024, float, compute injected from the preset): the measured D*")
    lines.append("# (where T_math and T_comm cross, interpolated between the points D*/2, D*, 2 D* of the model) beside")
    lines.append("# predict's two-level D* (N C T_comm / (2 B F) on the preset's links, g = 0) and the run's T_comm at S.")
    lines.append(f"{'ranks':>5} {'impl':<5} {'sim D*':>14} {'predict D*':>14} {'sim/pred':>8} {'T_comm sim':>12} "
                 f"{'T_comm pred':>12}  check")
    for n in ranks:
        pred = load(os.path.join(args.dir, f"predict-sweep-{n}.json"))
        for impl in ("ring", "hier"):
            doc = load(os.path.join(args.dir, f"sweep-{n}-{impl}.json"))
            if not doc:
                continue
            d = (doc.get("crossover") or {}).get("D_empirical")
            tl = pred["two_level"] if pred else {}
            pd = tl.get(f"D_star_{impl}")
            pt = tl.get(f"T_comm_{impl}_s")
            points = doc.get("points") or []
            tc = [p["t_comm_s"]["median"] for p in points if p.get("t_comm_s")]
            tcs = sorted(tc)[len(tc) // 2] if tc else None
            r = f"{d / pd:8.2f}" if d and pd else f"{'-':>8}"
            lines.append(f"{n:>5} {impl:<5} {d if d else float('nan'):14.0f} {pd if pd else float('nan'):14.0f} {r} "
                         f"{(tcs or float('nan')) * 1e3:10.3f}ms {(pt or float('nan')) * 1e3:10.3f}ms  "
                         f"not checked (injected: no product)")


def levels_table(args, lines):
    lines.append("# coll all_reduce on simulated L-level clusters (simulate.sh --topology levels-N.toml): time per call")
    lines.append("# (us, max over ranks, one call after a barrier or the mean of a batch: the calls column, out of place /")
    lines.append("# in place) against the L-level model (predict --topology")
    lines.append("# levels-N.toml: model/topology.h, the row of the top level, g = 0; the simulation also charges the")
    lines.append("# reductions at M, 3 s/M per element). hier2: the two-level hier whose nodes are the groups below the top")
    lines.append("# level (--ranks-per-node P_(L-2)), against the L-level model of those two levels (predict --level: the")
    lines.append("# ranks below the top at the flat ring's link over them, the top level with its oversubscription).")
    lines.append("# wall: the simulation's wall time on this machine (both places), with the load average at its end.")
    lines.append(f"{'ranks':>5} {'levels':<12} {'impl':<5} {'size':>5} {'sim out':>10} {'sim in':>10} {'model':>10} "
                 f"{'sim/model':>9} {'within 10%':>10} {'calls':>5} {'wall s':>7}  check  load at end")
    for n in [int(x) for x in args.levels_ranks.split()]:
        for s_text in args.levels_sizes.split():
            S = bytes_of(s_text)
            pred = load(os.path.join(args.dir, f"levels-predict-{n}-{s_text}.json"))
            groups = "x".join(str(l["group_size"]) for l in pred["topology"]["levels"]) if pred else "-"
            top = pred["levels"][-1] if pred else None
            for impl in ("ring", "hier", "hier2"):
                base = os.path.join(args.dir, f"levels-coll-{n}-{impl}-{s_text}")
                doc = load(base + ".json")
                if not doc:
                    skipped = base + ".skipped"
                    if os.path.exists(skipped):
                        text = open(skipped).read().strip()
                        lines.append(f"{n:>5} {groups:<12} {impl:<5} {size_text(S):>5}  "
                                     + (text if text.startswith("FAILED") else "skipped: " + text))
                    elif impl == "ring":
                        lines.append(f"{n:>5} {groups:<12} {impl:<5} {size_text(S):>5}  (no record)")
                    continue
                rows = {}
                for r in doc["results"]:
                    if r["impl"] == impl.rstrip("2"):
                        rows["in" if r["in_place"] else "out"] = r
                t_out = rows["out"]["time_us"]["median"] if "out" in rows else float("nan")
                t_in = rows["in"]["time_us"]["median"] if "in" in rows else float("nan")
                if impl == "hier2":
                    # The two-level hier over groups of level L-2: the L-level
                    # model of those two levels (predict --level).
                    two = load(os.path.join(args.dir, f"levels-predict-hier2-{n}-{s_text}.json"))
                    model = two["levels"][-1]["T_comm_hier_s"] * 1e6 if two else float("nan")
                else:
                    model = top["T_comm_ring_s" if impl == "ring" else "T_comm_hier_s"] * 1e6 if top else float("nan")
                ratio = t_out / model if model else float("nan")
                wall = load(base + ".wall.json") or {}
                check = ("ok" if all(r.get("wrong") == 0 for r in rows.values()) else "WRONG") \
                    if doc["settings"].get("check") else "-"
                load_end = " ".join(wall.get("load_end", []))
                calls = doc["settings"].get("batch", 1)
                lines.append(f"{n:>5} {groups:<12} {impl:<5} {size_text(S):>5} {t_out:10.1f} {t_in:10.1f} {model:10.1f} "
                             f"{ratio:9.3f} {'yes' if abs(ratio - 1) <= 0.10 else 'no':>10} {calls:>5} "
                             f"{wall.get('wall_s', float('nan')):7.0f}  {check:<5}  {load_end}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--ranks", required=True)
    ap.add_argument("--sizes", required=True)
    ap.add_argument("--collectives", required=True)
    ap.add_argument("--sweep-ranks", default="")
    ap.add_argument("--hw", default="")
    ap.add_argument("--memory", type=float, default=0, help="the preset's memory bandwidth M, bytes/s")
    ap.add_argument("--levels-ranks", default="")
    ap.add_argument("--levels-sizes", default="")
    a = ap.parse_args()
    lines = []
    if a.levels_ranks:
        level_lines = []
        levels_table(a, level_lines)
        with open(os.path.join(a.dir, "levels-table.txt"), "w") as f:
            f.write("\n".join(level_lines) + "\n")
        print("\n".join(level_lines))
    if not a.ranks.split():
        return
    coll_table(a, lines)
    with open(os.path.join(a.dir, "coll-table.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    sweep_lines = []
    sweep_table(a, sweep_lines)
    with open(os.path.join(a.dir, "sweep-table.txt"), "w") as f:
        f.write("\n".join(sweep_lines) + "\n")
    print("\n".join(lines + sweep_lines))


if __name__ == "__main__":
    main()
