#!/usr/bin/env python3
"""Checks the record `shardroof predict --json` wrote against values computed
by hand (the arithmetic is beside each case), not against the model's code.

usage: check_predict_json.py FILE CASE     CASE: all_reduce | reduce_scatter | overlap | overlap_auto

all_reduce, reduce_scatter: N = 4 ranks, float (s = 4), B = F = 1000,
C = 1e12 FLOP/s, W = 1e10 B/s, a = 1e-6 s, g = 1e-9 s per element
(--reduce-rate 1e9). overlap, overlap_auto: the pipeline of --overlap on
N = 2 ranks, float, B = F = 1000, C = 1e12, W = 1e10, no latency."""
import json
import math
import sys


class CheckError(Exception):
    pass


def close(got, want, what):
    if not isinstance(got, (int, float)) or isinstance(got, bool):
        raise CheckError(f"{what}: {got!r} is not a number")
    if not math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-18):
        raise CheckError(f"{what}: {got!r}, computed by hand {want!r}")


def equal(got, want, what):
    if got != want:
        raise CheckError(f"{what}: {got!r}, expected {want!r}")


CASES = {
    # predict --flops 1e12 --bw 1e10 --latency 1e-6 --reduce-rate 1e9 --memory-bw 5e9
    #         --ranks 4 --datatype float --B 1000 --F 1000 --D 600,1999,12000
    "all_reduce": {
        "collective": "all_reduce",
        "memory_bytes_per_s": 5e9,
        # C/W = 1e12/1e10; C/M = 1e12/5e9
        "critical_intensity": 100.0,
        "memory_critical_intensity": 200.0,
        # (N-1)*s*C/W = 3*4*1e12/1e10
        "D_star_bandwidth": 1200.0,
        # + N(N-1)*a*C/(B*F) = 12*1e-6*1e12/1e6 = 12, + (N-1)*g*C/2 = 3*1e-9*1e12/2 = 1500
        "D_star": 2712.0,
        # T_comm = 2(N-1)*a + 2(N-1)/N*B*F*s/W + (N-1)/N*B*F*g = 6e-6 + 6e-4 + 7.5e-4
        "T_comm_s": 1.356e-3,
        # Shard d = ceil(D/N): compute 2*B*d*F/C = 2e-6*d, memory ((B+F)*d + B*F)*s/M
        # = 1.6e-6*d + 8e-4, which reaches T_comm first, at d = 5.56e-4/1.6e-6 = 347.5
        # (compute at d = 678): D = 4*347.5.
        "D_star_memory": 1390.0,
        "D_90_no_overlap": 9 * 2712.0,
        # The floor: writing the partial sum at M, ((B+F)*1 + B*F)*s/M = 1002000*4/5e9 (no --overhead).
        "floor": {"time_s": 8.016e-4, "memory_s": 8.016e-4, "cause": "memory"},
        # Every roof: the memory roof reaches T_comm first (d = 347.5, D = 1390); its slope there is
        # (B+F)*d/((B+F)*d + B*F) = 695000/1695000: below 0.5, ill-conditioned.
        "roofline": {"kind": "crossing", "D": 1390.0, "roof": "memory", "slope": 695000 / 1695000,
                     "ill_conditioned": True},
        "points": [
            # d = 150: compute 3e-4, memory 2.4e-4 + 8e-4 = 1.04e-3 < T_comm; I = D/((N-1)*s) = 600/12
            {"D": 600, "D_per_rank": 150, "T_math_s": 1.04e-3, "T_math_compute_s": 3e-4, "bound": "communication",
             "intensity": 50.0, "frac_peak_overlap": 3e-4 / 1.356e-3, "frac_peak_no_overlap": 3e-4 / 2.396e-3},
            # d = ceil(499.75) = 500: compute 1e-3, memory 1.6e-3 >= T_comm: memory-bound
            {"D": 1999, "D_per_rank": 500, "T_math_s": 1.6e-3, "T_math_compute_s": 1e-3, "bound": "memory",
             "intensity": 1999 / 12, "frac_peak_overlap": 1e-3 / 1.6e-3, "frac_peak_no_overlap": 1e-3 / 2.956e-3},
            # d = 3000: compute 6e-3 > memory 5.6e-3: compute-bound
            {"D": 12000, "D_per_rank": 3000, "T_math_s": 6e-3, "T_math_compute_s": 6e-3, "bound": "compute",
             "intensity": 1000.0, "frac_peak_overlap": 1.0, "frac_peak_no_overlap": 6e-3 / 7.356e-3},
        ],
    },
    # predict --flops 1e12 --bw 1e10 --latency 1e-6 --reduce-rate 1e9 --ranks 4 --datatype float
    #         --B 1000 --F 1000 --collective reduce_scatter --D 400,2106
    "reduce_scatter": {
        "collective": "reduce_scatter",
        "memory_bytes_per_s": 0.0,
        "critical_intensity": 100.0,
        "memory_critical_intensity": 0.0,
        # (N-1)*s*C/(2W) = 12*1e12/2e10
        "D_star_bandwidth": 600.0,
        # + N(N-1)*a*C/(2*B*F) = 6, + (N-1)*g*C/2 = 1500
        "D_star": 2106.0,
        # T_comm = (N-1)*a + (N-1)/N*B*F*s/W + (N-1)/N*B*F*g = 3e-6 + 3e-4 + 7.5e-4
        "T_comm_s": 1.053e-3,
        "D_star_memory": 2106.0,  # no memory roof: the same as D*
        "D_90_no_overlap": 9 * 2106.0,
        # No memory roof and no overhead: no floor.
        "floor": {"time_s": 0.0, "memory_s": 0.0, "cause": "memory"},
        # Every roof is the compute roof alone: d = 1.053e-3*1e12/2e6 = 526.5, D = 2106, slope 1.
        "roofline": {"kind": "crossing", "D": 2106.0, "roof": "compute", "slope": 1.0, "ill_conditioned": False},
        "points": [
            # d = 100: 2e-4 < T_comm; I = 2D/((N-1)*s) = 800/12
            {"D": 400, "D_per_rank": 100, "T_math_s": 2e-4, "T_math_compute_s": 2e-4, "bound": "communication",
             "intensity": 800 / 12, "frac_peak_overlap": 2e-4 / 1.053e-3, "frac_peak_no_overlap": 2e-4 / 1.253e-3},
            # d = ceil(526.5) = 527: 1.054e-3 >= T_comm: compute-bound just past D*
            {"D": 2106, "D_per_rank": 527, "T_math_s": 1.054e-3, "T_math_compute_s": 1.054e-3, "bound": "compute",
             "intensity": 4212 / 12, "frac_peak_overlap": 1.0, "frac_peak_no_overlap": 1.054e-3 / 2.107e-3},
        ],
    },
}


def check(doc, want):
    equal(doc.get("command"), "predict", "command")
    st = doc["settings"]
    for key, value in (("datatype", "float"), ("bytes_per_elem", 4), ("collective", want["collective"]),
                       ("ranks", 4), ("B", 1000), ("F", 1000)):
        equal(st.get(key), value, f"settings.{key}")
    equal(doc.get("hardware"), None, "hardware (no preset was named)")
    ce = doc["ceilings"]
    for key, value in (("flops_per_s", 1e12), ("link_bytes_per_s", 1e10), ("latency_s", 1e-6),
                       ("reduce_s_per_elem", 1e-9), ("memory_bytes_per_s", want["memory_bytes_per_s"])):
        close(ce.get(key), value, f"ceilings.{key}")
    for key in ("critical_intensity", "memory_critical_intensity", "D_star_bandwidth", "D_star", "T_comm_s",
                "D_star_memory", "D_90_no_overlap"):
        close(doc.get(key), want[key], key)
    fl, want_fl = doc["floor"], want["floor"]
    close(fl.get("time_s"), want_fl["time_s"], "floor.time_s")
    close(fl.get("memory_s"), want_fl["memory_s"], "floor.memory_s")
    equal(fl.get("cause"), want_fl["cause"], "floor.cause")
    rl, want_rl = doc["roofline"], want["roofline"]
    equal(rl.get("kind"), want_rl["kind"], "roofline.kind")
    close(rl.get("D"), want_rl["D"], "roofline.D")
    equal(rl.get("roof"), want_rl["roof"], "roofline.roof")
    close(rl["conditioning"].get("slope"), want_rl["slope"], "roofline.conditioning.slope")
    equal(rl["conditioning"].get("ill_conditioned"), want_rl["ill_conditioned"], "roofline.conditioning.ill_conditioned")
    points = doc["points"]
    equal([p.get("D") for p in points], [p["D"] for p in want["points"]], "the points' D")
    for got, expected in zip(points, want["points"]):
        where = f"point D={expected['D']}"
        equal(got.get("D_per_rank"), expected["D_per_rank"], f"{where}: D_per_rank")
        equal(got.get("bound"), expected["bound"], f"{where}: bound")
        close(got.get("T_comm_s"), want["T_comm_s"], f"{where}: T_comm_s")
        for key in ("T_math_s", "T_math_compute_s", "intensity", "frac_peak_overlap", "frac_peak_no_overlap"):
            close(got.get(key), expected[key], f"{where}: {key}")


def check_overlap(doc, case):
    # predict --flops 1e12 --bw 1e10 --ranks 2 --datatype float --B 1000 --F 1000 --D 400,900
    #         --overlap 4 (or auto)
    # D* = (N-1)*s*C/W = 400; T_comm = 2*(1/2)*1000*1000*4/1e10 = 4e-4 s.
    ov = doc["overlap"]
    close(ov["d_star"], 400.0, "overlap.d_star")
    # At D* T_math = T_comm = 4e-4: 50% without overlap.
    close(ov["efficiency_no_overlap"], 0.5, "overlap.efficiency_no_overlap")
    close(ov["T_no_overlap_at_d_star_s"], 8e-4, "overlap.T_no_overlap_at_d_star_s")
    # 90% without overlap: T_math = 9 T_comm, shard 1800 (D just above 3598 with ceil(D/2)).
    if not 3598 <= ov["D_90_no_overlap"] <= 3602:
        raise CheckError(f"overlap.D_90_no_overlap {ov['D_90_no_overlap']}, by hand 3598 .. 3602 (0.9 exactly at shard 1800)")
    if case == "overlap":
        equal(ov["chunks"], 4, "overlap.chunks")
        equal(ov["chunks_at_d_star"], 4, "overlap.chunks_at_d_star")
        # Four chunks at D*: g = c = 1e-4; T = g + 3*max + c = 5e-4; 4e-4 / 5e-4 = 80%.
        close(ov["T_overlap_at_d_star_s"], 5e-4, "overlap.T_overlap_at_d_star_s")
        close(ov["efficiency_overlap"], 0.8, "overlap.efficiency_overlap")
        # Compute-bound: T_math / (T_math + T_comm/4) = 0.9 at T_math = 2.25 T_comm: shard 450, D just above 898.
        if not 898 <= ov["D_90_overlap"] <= 902:
            raise CheckError(f"overlap.D_90_overlap {ov['D_90_overlap']}, by hand 898 .. 902")
        # D = 900: shard 450, T_math = 9e-4, g = 2.25e-4, c = 1e-4: T = 4*2.25e-4 + 1e-4 = 1e-3.
        pts = ov["points"]
        equal([p["D"] for p in pts], [400, 900], "overlap.points D")
        close(pts[0]["T_overlap_s"], 5e-4, "overlap.points[400].T_overlap_s")
        close(pts[1]["T_overlap_s"], 1e-3, "overlap.points[900].T_overlap_s")
    else:
        equal(ov["chunks"], "auto", "overlap.chunks")
        # No latency: every chunk is free, so T(K) = T/2 * (1 + 1/K) at D*; within 10% of
        # the best (K = 64: 1.015625 -> 1.1172) the fewest is K = 16 (1.0625; K = 8: 1.125).
        equal(ov["chunks_at_d_star"], 16, "overlap.chunks_at_d_star")
        close(ov["efficiency_overlap"], 1 / 1.0625, "overlap.efficiency_overlap")
        equal(ov["max_chunks"], 64, "overlap.max_chunks")


def main():
    if len(sys.argv) == 3 and sys.argv[2] in ("overlap", "overlap_auto"):
        path, case = sys.argv[1], sys.argv[2]
        try:
            with open(path) as f:
                check_overlap(json.load(f), case)
        except (OSError, ValueError, KeyError, TypeError, CheckError) as e:
            print(f"check_predict_json: {path} ({case}): {type(e).__name__}: {e}")
            return 1
        print(f"check_predict_json: {path} ({case}): every value as computed by hand")
        return 0
    if len(sys.argv) != 3 or sys.argv[2] not in CASES:
        print(__doc__)
        return 2
    path, case = sys.argv[1], sys.argv[2]
    try:
        with open(path) as f:
            doc = json.load(f)
        check(doc, CASES[case])
    except (OSError, ValueError, KeyError, TypeError, CheckError) as e:
        print(f"check_predict_json: {path} ({case}): {type(e).__name__}: {e}")
        return 1
    print(f"check_predict_json: {path} ({case}): every value as computed by hand")
    return 0


if __name__ == "__main__":
    sys.exit(main())
