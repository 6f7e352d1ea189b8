#!/usr/bin/env python3
"""Checks that a results file left by a stopped, killed or finished run is a
complete record of what it finished (the reliability scripts call it).

usage:
  check_records.py coll  FILE INTERRUPTED [SIZES]
  check_records.py link  FILE INTERRUPTED [PAIRS]
  check_records.py peak  FILE INTERRUPTED [DATATYPES]
  check_records.py sweep JSON CSV INTERRUPTED [POINTS]

INTERRUPTED: the signal the file must be marked with ("SIGTERM", "SIGINT"),
or "" for a file that must not claim an interruption it did not see (a
killed run, a finished one). The count, when given, is how many whole
sizes / pairs / datatypes / points the file must hold.

Every failure raises CheckError (never `assert`, which `python -O` drops)
and ends the script with status 1 and one line saying what is wrong."""
import csv
import json
import sys


class CheckError(Exception):
    pass


def require(ok, message):
    if not ok:
        raise CheckError(message)


def load(path):
    with open(path) as f:
        return json.load(f)


def check_count(what, got, want):
    if want is not None:
        require(got == int(want), f"{got} {what}, expected {want}")


def check_coll(path, interrupted, sizes_wanted=None):
    doc = load(path)
    rows = doc["results"]
    require(rows, "no results")
    sizes = sorted({r["bytes"] for r in rows})
    impls = {r["impl"] for r in rows}
    for s in sizes:  # every size that reached the file is whole: every impl, out of and in place
        n = sum(1 for r in rows if r["bytes"] == s)
        require(n == 2 * len(impls), f"size {s}: {n} records, expected {2 * len(impls)}")
    for r in rows:
        require(r["time_us"]["median"] > 0 and r["wrong"] == 0, f"a bad record: {r}")
    require(doc["settings"]["sizes"][:len(sizes)] == sizes, "the sizes are not the first ones of the settings")
    if interrupted:
        require(doc.get("interrupted") == interrupted, f"interrupted: {doc.get('interrupted')!r}, expected {interrupted!r}")
    check_count("sizes", len(sizes), sizes_wanted)
    return f"{path}: {len(sizes)} whole sizes, {len(rows)} records"


def check_link(path, interrupted, pairs_wanted=None):
    doc = load(path)
    pairs = doc["pairs"]
    require(pairs, "no pairs")
    sizes = doc["settings"]["sizes"]
    seen = set()
    for p in pairs:  # every pair that reached the file is whole
        key = (p["src"], p["dst"])
        require(key not in seen and p["src"] < p["dst"] < 3, f"pair {key} repeated or out of range")
        seen.add(key)
        require([t["bytes"] for t in p["times"]] == sizes, f"pair {key}: not every size")
        require(all(t["one_way_s"]["median"] > 0 for t in p["times"]), f"pair {key}: a time is not positive")
        require(p["wrong"] == 0, f"pair {key}: {p['wrong']} wrong")
    if interrupted:
        require(doc.get("interrupted") == interrupted, f"interrupted: {doc.get('interrupted')!r}, expected {interrupted!r}")
    else:
        require("interrupted" not in doc, f"marked interrupted ({doc.get('interrupted')!r}) by a run that was not")
    check_count("pairs", len(pairs), pairs_wanted)
    return f"{path}: {len(pairs)} whole pairs"


def check_peak(path, interrupted, datatypes_wanted=None):
    doc = load(path)
    nodes = doc["nodes"]
    require(len(nodes) == 1 and nodes[0]["ranks"] == 2, f"nodes: {nodes}")
    gemm = nodes[0]["gemm"]
    require(gemm and all(g["flops_per_s"] > 0 and g["thin"] for g in gemm), f"gemm records: {gemm}")
    if interrupted:
        require(doc.get("interrupted") == interrupted and doc["complete"] is False,
                f"interrupted: {doc.get('interrupted')!r}, complete: {doc.get('complete')!r}")
        require("memory" not in nodes[0], "memory bandwidth measured after the signal")
    else:
        require("interrupted" not in doc and doc["complete"] is True, "not marked complete")
        require(nodes[0]["memory"]["triad_bytes_per_s"] > 0, "no triad bandwidth")
    check_count("datatypes", len(gemm), datatypes_wanted)
    return f"{path}: {len(gemm)} datatypes"


def check_sweep(jpath, cpath, interrupted, points_wanted=None):
    doc = load(jpath)
    with open(cpath) as f:
        rows = list(csv.DictReader(f))
    points = doc["points"]
    Ds = doc["settings"]["D"]
    require([p["D"] for p in points] == Ds[:len(points)], "points out of order")
    for p in points:  # every point that reached the file is whole
        for t in ("t_math_s", "t_comm_s", "t_step_s"):
            require(0 < p[t]["min"] <= p[t]["median"] <= p[t]["max"], f"D={p['D']}: {t} {p[t]}")
        require(p["check"]["passed"] is True, f"D={p['D']}: check {p['check']}")
    require(doc["complete"] == (len(points) == len(Ds)), f"complete: {doc['complete']!r}")
    # The CSV is replaced right after the JSON: a kill between the two leaves
    # it one point behind, never ahead.
    require([int(r["D"]) for r in rows] == Ds[:len(rows)], "CSV rows out of order")
    if interrupted:
        require(doc.get("interrupted") == interrupted, f"interrupted: {doc.get('interrupted')!r}, expected {interrupted!r}")
        require(len(rows) == len(points), f"{len(rows)} CSV rows, {len(points)} JSON points")
    else:
        require("interrupted" not in doc, f"marked interrupted ({doc.get('interrupted')!r}) by a run that was not")
        require(len(points) - 1 <= len(rows) <= len(points), f"{len(rows)} CSV rows, {len(points)} JSON points")
    check_count("points", len(points), points_wanted)
    return f"{jpath}: {len(points)} of {len(Ds)} points, {cpath}: {len(rows)} rows"


CHECKS = {"coll": (check_coll, 2), "link": (check_link, 2), "peak": (check_peak, 2), "sweep": (check_sweep, 3)}


def main(argv):
    if len(argv) < 2 or argv[1] not in CHECKS:
        print(__doc__)
        return 2
    check, fixed = CHECKS[argv[1]]
    args = argv[2:]
    if not fixed <= len(args) <= fixed + 1:
        print(__doc__)
        return 2
    try:
        print(check(*args))
    except (OSError, ValueError, KeyError, TypeError, IndexError, CheckError) as e:
        print(f"check_records {argv[1]}: {' '.join(args)}: {type(e).__name__}: {e}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
