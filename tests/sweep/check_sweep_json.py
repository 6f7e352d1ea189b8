#!/usr/bin/env python3
"""Checks a `shardroof sweep` JSON record: its structure (the keys the README
documents) and its internal consistency: D_empirical agrees with its own
points, D_peak follows the model formula from the reported ceilings, the
bounds agree with the times, and the CSV has one row per point."""
import csv
import json
import math
import sys


def fail(msg):
    print("check_sweep_json: " + msg)
    sys.exit(1)


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def main():
    path = sys.argv[1]
    with open(path) as f:
        doc = json.load(f)
    for key in ("command", "ranks", "settings", "environment", "ceilings", "points", "crossover"):
        if key not in doc:
            fail(f"missing key {key}")
    if doc["command"] != "sweep":
        fail("command is not sweep")
    n = doc["ranks"]
    st = doc["settings"]
    for key in ("B", "F", "datatype", "collective", "impl"):
        if key not in st:
            fail(f"settings lacks {key}")
    ce = doc["ceilings"]
    for key in ("C_flops_per_s", "W_bytes_per_s", "alpha_s"):
        if not isinstance(ce.get(key), (int, float)):
            fail(f"ceilings.{key} missing or not a number")
    pts = doc["points"]
    if len(pts) != len(st["D"]):
        fail(f"{len(pts)} points for {len(st['D'])} values of D")
    for p in pts:
        for key in ("D", "t_math_s", "t_comm_s", "t_step_s", "flops_per_s", "intensity", "bound", "check"):
            if key not in p:
                fail(f"point lacks {key}")
        for t in ("t_math_s", "t_comm_s", "t_step_s"):
            s = p[t]
            if not (0 < s["min"] <= s["median"] <= s["max"]):
                fail(f"D={p['D']}: {t} not ordered min <= median <= max: {s}")
        expect = "compute" if p["t_math_s"]["median"] >= p["t_comm_s"]["median"] else "communication"
        if p["bound"] != expect:
            fail(f"D={p['D']}: bound {p['bound']} but times say {expect}")
        if p["check"]["passed"] is not True:
            fail(f"D={p['D']}: check did not pass: {p['check']}")
        shard = math.ceil(p["D"] / n)
        flops = 2 * st["B"] * shard * st["F"] / p["t_math_s"]["median"]
        if not close(flops, p["flops_per_s"], 1e-9):
            fail(f"D={p['D']}: flops_per_s {p['flops_per_s']} != {flops}")
        s_bytes = st["bytes_per_element"]
        factor = 1 if st["collective"] == "all_reduce" else 2
        if n > 1 and not close(p["intensity"], factor * p["D"] / ((n - 1) * s_bytes)):
            fail(f"D={p['D']}: intensity {p['intensity']}")

    cr = doc["crossover"]
    for key in ("D_empirical", "D_predicted", "D_peak", "rel_error"):
        if key not in cr:
            fail(f"crossover lacks {key}")
    # D_empirical from the points: first upward change of sign of T_math - T_comm.
    D = [p["D"] for p in pts]
    tm = [p["t_math_s"]["median"] for p in pts]
    tc = [p["t_comm_s"]["median"] for p in pts]
    mine = None
    for i in range(len(D) - 1):
        if tm[i] < tc[i] and tm[i + 1] >= tc[i + 1]:
            r0, r1 = math.log(tm[i] / tc[i]), math.log(tm[i + 1] / tc[i + 1])
            frac = r0 / (r0 - r1) if r0 != r1 else 0.5
            mine = math.exp(math.log(D[i]) + frac * (math.log(D[i + 1]) - math.log(D[i])))
            break
    if mine is None:
        if cr["D_empirical"] is not None:
            fail("D_empirical reported but the points do not bracket a crossing")
        if cr.get("extend") not in ("up", "down"):
            fail("not bracketed, but no direction to extend")
    else:
        if cr["D_empirical"] is None or not close(mine, cr["D_empirical"], 1e-9):
            fail(f"D_empirical {cr['D_empirical']} != {mine} from the points")
        if not (D[0] <= cr["D_empirical"] <= D[-1]):
            fail("D_empirical outside the swept range")
    # D_peak from the reported ceilings (README, "The model").
    # A link fit that failed (times not growing with size on a noisy
    # machine) reports W = 0 and leaves D_peak null.
    if n > 1 and ce["W_bytes_per_s"] == 0:
        if cr["D_peak"] is not None:
            fail(f"D_peak {cr['D_peak']} without a link fit (W = 0)")
    elif n > 1:
        C, W, a = ce["C_flops_per_s"], ce["W_bytes_per_s"], ce["alpha_s"]
        g = ce.get("g_s_per_element", 0.0)
        s_bytes, B, F = st["bytes_per_element"], st["B"], st["F"]
        if st["collective"] == "all_reduce":
            d_peak = (n - 1) * s_bytes * C / W + n * (n - 1) * a * C / (B * F) + (n - 1) * g * C / 2
        else:
            d_peak = (n - 1) * s_bytes * C / (2 * W) + n * (n - 1) * a * C / (2 * B * F) + (n - 1) * g * C / 2
        if cr["D_peak"] is None or not close(d_peak, cr["D_peak"], 1e-9):
            fail(f"D_peak {cr['D_peak']} != {d_peak} from the ceilings")
    if cr["D_empirical"] is not None and cr["D_predicted"] is not None:
        rel = (cr["D_predicted"] - cr["D_empirical"]) / cr["D_empirical"]
        if not close(rel, cr["rel_error"], 1e-9):
            fail(f"rel_error {cr['rel_error']} != {rel}")
    if len(sys.argv) > 2:
        with open(sys.argv[2]) as f:
            rows = list(csv.DictReader(f))
        if len(rows) != len(pts):
            fail(f"CSV has {len(rows)} rows for {len(pts)} points")
        for row, p in zip(rows, pts):
            if int(row["D"]) != p["D"] or row["bound"] != p["bound"]:
                fail(f"CSV row {row['D']} disagrees with the JSON")
    print(f"check_sweep_json: ok ({len(pts)} points, D_empirical = {cr['D_empirical']}, D_peak = {cr['D_peak']})")


if __name__ == "__main__":
    main()
