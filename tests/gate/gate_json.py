#!/usr/bin/env python3
"""The gates' test helper, on a `shardroof --json` record.

  gate_json.py improve IN OUT   writes IN with every result a million times
                                better (rates x1e6, times /1e6): a baseline
                                no real run can reach
  gate_json.py check FILE passed|failed [WHAT]
                                FILE's "gate" has that verdict and the exit
                                status that goes with it (0, 6); with WHAT,
                                a failed check's "what" contains it
  gate_json.py loaded FILE      FILE is a `link` record of a loaded pattern
                                and each W check judged its pair's W under
                                the pattern (W_bytes_per_s), not its idle W
"""
import json
import sys

RATES = {"busbw_GBps", "algbw_GBps", "W_bytes_per_s", "W_GBps", "flops_per_s", "node_flops_per_s",
         "copy_bytes_per_s", "triad_bytes_per_s", "node_copy_bytes_per_s", "node_triad_bytes_per_s",
         "min_rank_triad_bytes_per_s"}
TIMES = {"t_math_s", "t_comm_s", "t_step_s"}


def improve(node):
    if isinstance(node, list):
        return [improve(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key in RATES and isinstance(value, (int, float)):
            out[key] = value * 1e6
        elif key in TIMES and isinstance(value, dict):
            out[key] = {k: v / 1e6 if isinstance(v, (int, float)) else v for k, v in value.items()}
        elif key == "s_per_element" and isinstance(value, (int, float)):
            out[key] = value / 1e6
        else:
            out[key] = improve(value)
    return out


def check(path, verdict, what=None):
    with open(path) as f:
        gate = json.load(f).get("gate")
    if gate is None:
        sys.exit(f"{path}: no \"gate\" record")
    failed = [c for c in gate["checks"] if not c["passed"]]
    want_pass = verdict == "passed"
    problems = []
    if gate["passed"] != want_pass:
        problems.append(f"passed is {gate['passed']}")
    if gate["exit_status"] != (0 if want_pass else 6):
        problems.append(f"exit_status is {gate['exit_status']}")
    if want_pass and (failed or gate["problems"]):
        problems.append(f"{len(failed)} failed checks and problems {gate['problems']}")
    if not gate["checks"]:
        problems.append("no checks")
    if gate["failed"] != len(failed) + len(gate["problems"]):
        problems.append(f"failed is {gate['failed']}, {len(failed)} checks failed")
    if what is not None and not any(what in c["what"] for c in failed):
        problems.append(f"no failed check of '{what}'")
    for c in failed:
        if not c["worse_by_percent"] > 0:
            problems.append(f"failed check {c['what']} is worse by {c['worse_by_percent']}%")
    if problems:
        sys.exit(f"{path}: " + "; ".join(problems))
    print(f"{path}: gate {verdict}, {len(gate['checks'])} checks, {len(failed)} failed")


def loaded(path):
    with open(path) as f:
        doc = json.load(f)
    if doc.get("pattern") in (None, "pingpong"):
        sys.exit(f"{path}: pattern {doc.get('pattern')}, not a loaded one")
    under_load = {f"pair {p['src']}-{p['dst']}": p for p in doc["pairs"]}
    checks = doc["gate"]["checks"]
    problems = []
    for c in checks:
        p = under_load.get(c["what"])
        # A pair whose fit failed has W null; the gate judges it as 0.
        if p is None or c["measured"] != (p["W_bytes_per_s"] or 0):
            problems.append(f"{c['what']}: measured {c['measured']}, W under load "
                            f"{p and p['W_bytes_per_s']}, idle W {p and p.get('idle_W_bytes_per_s')}")
    if not checks or problems:
        sys.exit(f"{path}: " + ("; ".join(problems) or "no checks"))
    print(f"{path}: {len(checks)} checks of W under {doc['pattern']}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "improve":
        with open(sys.argv[2]) as f:
            doc = json.load(f)
        with open(sys.argv[3], "w") as f:
            json.dump(improve(doc), f)
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "check":
        check(*sys.argv[2:])
    elif len(sys.argv) == 3 and sys.argv[1] == "loaded":
        loaded(sys.argv[2])
    else:
        sys.exit(__doc__)
