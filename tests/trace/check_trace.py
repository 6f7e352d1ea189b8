#!/usr/bin/env python3
"""Checks a `shardroof coll|sweep --trace` file: Chrome trace-event JSON with
one named process per rank, complete events that nest properly on every
thread, the spans the command promises inside every traced iteration (ring
steps with their send, receive, reduce and wait spans; GEMMs and
collectives in sweep; with --overlap, chunk GEMMs on the main thread and
chunk collectives on the communication thread), and clock offsets that are
small on one host.

usage: check_trace.py FILE RANKS coll|sweep"""
import json
import sys


def fail(msg):
    print("check_trace: " + msg)
    sys.exit(1)


def main():
    path, ranks, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(path) as f:
        doc = json.load(f)
    events = doc.get("traceEvents")
    other = doc.get("otherData")
    if not isinstance(events, list) or not isinstance(other, dict):
        fail("no traceEvents list or otherData object")
    if other.get("command") != mode or other.get("ranks") != ranks:
        fail(f"otherData says command {other.get('command')}, ranks {other.get('ranks')}")
    if other.get("dropped_spans") != 0:
        fail(f"{other.get('dropped_spans')} spans dropped")
    if "last timed iteration" not in other.get("traced", ""):
        fail("otherData.traced does not say what was traced")

    # Clock alignment: rank 0 is the reference; on one host the offsets
    # between monotonic clocks are tiny (a structural bound, not a timing one).
    clock = other["clock"]
    if not isinstance(clock.get("mpi_wtime_is_global"), bool):
        fail("clock.mpi_wtime_is_global missing")
    if [c["rank"] for c in clock["ranks"]] != list(range(ranks)):
        fail("clock.ranks does not list every rank in order")
    for c in clock["ranks"]:
        for when in ("before", "after"):
            o = c[when]
            if abs(o["offset_s"]) >= 1.0:
                fail(f"rank {c['rank']}: clock offset {o['offset_s']} s {when} measuring")
            if not 0 <= o["round_trip_s"] < 1.0:
                fail(f"rank {c['rank']}: round trip {o['round_trip_s']} s {when} measuring")
            if c["rank"] == 0 and (o["offset_s"] != 0 or o["round_trip_s"] != 0):
                fail("rank 0 has a non-zero offset to itself")
            if c["rank"] > 0 and not o["round_trip_s"] > 0:
                fail(f"rank {c['rank']}: no round trip measured")

    process, thread = {}, {}
    spans = {}  # pid -> tid -> [event]
    for e in events:
        for key in ("name", "ph", "pid", "tid"):
            if key not in e:
                fail(f"event lacks {key}: {e}")
        if e["ph"] == "M":
            if e["name"] == "process_name":
                process[e["pid"]] = e["args"]["name"]
            if e["name"] == "thread_name":
                thread[e["tid"]] = e["args"]["name"]
            continue
        if e["ph"] != "X":
            fail(f"unexpected phase {e['ph']}")
        for key in ("ts", "dur", "cat", "args"):
            if key not in e:
                fail(f"complete event lacks {key}: {e}")
        if e["ts"] < 0 or e["dur"] < 0:
            fail(f"negative ts or dur: {e}")
        spans.setdefault(e["pid"], {}).setdefault(e["tid"], []).append(e)
    for r in range(ranks):
        if process.get(r + 1) != f"rank {r}":
            fail(f"pid {r + 1} is not named 'rank {r}': {process.get(r + 1)}")
        if thread.get(r + 1) != f"rank {r}":
            fail(f"tid {r + 1} is not named 'rank {r}': {thread.get(r + 1)}")
        if r + 1 not in spans:
            fail(f"rank {r} has no spans")

    # Nesting on every thread, in whole nanoseconds as Perfetto reads them.
    # Each traced iteration (on the main thread) collects the spans inside
    # it; a communication thread's spans lie within one in time.
    iterations = {}  # pid -> [(iteration event, [descendants])]
    comm_tids = {tid for tid, name in thread.items() if name.endswith(" comm")}
    for pid, threads in spans.items():
        for tid in sorted(threads, key=lambda t: t in comm_tids):
            evs = threads[tid]
            evs.sort(key=lambda e: (round(e["ts"] * 1000), -round(e["dur"] * 1000)))
            stack = []
            current = None
            for e in evs:
                b, d = round(e["ts"] * 1000), round(e["dur"] * 1000)
                while stack and b >= stack[-1][1]:
                    stack.pop()
                if stack and b + d > stack[-1][1]:
                    fail(f"pid {pid} tid {tid}: '{e['name']}' overlaps '{stack[-1][2]}' without nesting")
                if tid in comm_tids:
                    if thread[tid] != f"rank {pid - 1} comm":
                        fail(f"pid {pid}: communication thread {tid} is named '{thread[tid]}'")
                    if not stack:
                        around = [it for it in iterations.get(pid, [])
                                  if round(it[0]["ts"] * 1000) <= b and
                                  b + d <= round(it[0]["ts"] * 1000) + round(it[0]["dur"] * 1000)]
                        if len(around) != 1:
                            fail(f"pid {pid} tid {tid}: '{e['name']}' lies outside every traced iteration")
                        current = around[0]
                    current[1].append(e)
                elif e["cat"] == "iteration":
                    if stack:
                        fail(f"pid {pid}: an iteration nests inside '{stack[-1][2]}'")
                    current = (e, [])
                    iterations.setdefault(pid, []).append(current)
                elif not stack:
                    fail(f"pid {pid} tid {tid}: '{e['name']}' lies outside every traced iteration")
                else:
                    current[1].append(e)
                stack.append((b, b + d, e["name"]))

    settings = other["settings"]
    for r in range(ranks):
        its = iterations.get(r + 1, [])
        if mode == "coll":
            check_coll(r, ranks, settings, its)
        else:
            check_sweep(r, ranks, settings, its)
    print(f"check_trace: ok: {sum(len(v) for v in iterations.values())} traced iterations over {ranks} ranks")


def arg(e, key):
    if key not in e["args"]:
        fail(f"'{e['name']}' lacks args.{key}: {e}")
    return e["args"][key]


def check_ring(r, ranks, collective, inner, where, calls=1):
    """The ring's steps (once per collective call), each with a send,
    receives, reductions (when it reduces) and waits, carrying their step
    index and bytes."""
    phases = {"all_reduce": ["reduce-scatter", "all-gather"], "reduce_scatter": ["reduce-scatter"],
              "all_gather": ["all-gather"]}[collective]
    names = {e["name"] for e in inner}
    for phase in phases:
        for k in range(ranks - 1):
            steps = [e for e in inner if e["name"] == f"{phase} step {k}"]
            if len(steps) != calls:
                fail(f"rank {r}, {where}: {len(steps)} spans '{phase} step {k}', expected {calls}")
            for s in steps:
                if arg(s, "step") != k or arg(s, "bytes_sent") < 0 or arg(s, "to") != (r + 1) % ranks:
                    fail(f"rank {r}, {where}: bad args of '{phase} step {k}': {s['args']}")
    need = {"send", "recv", "wait send"} | ({"reduce"} if collective != "all_gather" else set())
    if ranks > 1 and not need <= names:
        fail(f"rank {r}, {where}: missing {sorted(need - names)} among {sorted(names)}")
    for e in inner:
        if e["name"] in ("send", "recv", "reduce", "wait send"):
            arg(e, "step")
            if arg(e, "bytes") < 0:
                fail(f"rank {r}, {where}: negative bytes in {e}")


def check_coll(r, ranks, settings, its):
    impls = settings["impl"].split(",") if settings["impl"] != "all" else ["auto", "ring", "native"]
    expected = len(settings["sizes"]) * len(impls) * 2
    if len(its) != expected:
        fail(f"rank {r}: {len(its)} traced iterations, expected {expected} (sizes x impls x placements)")
    for it, inner in its:
        a = it["args"]
        where = it["name"]
        if a.get("iteration") != settings["iters"] or a.get("iterations") != settings["iters"]:
            fail(f"rank {r}, {where}: traced iteration {a.get('iteration')} of {a.get('iterations')}, "
                 f"expected the last of {settings['iters']}")
        calls = [e for e in inner if e["cat"] == "collective"]
        if len(calls) != 1 or calls[0]["name"] != settings["collective"]:
            fail(f"rank {r}, {where}: expected one '{settings['collective']}' collective span")
        if a["algorithm"].startswith("ring/"):
            check_ring(r, ranks, settings["collective"], inner, where)
        elif a["algorithm"].startswith(("pairwise/", "auto:pairwise/", "direct/", "auto:direct/")):
            # A rank whose ReduceScatter block is empty receives nothing.
            es = {"float": 4, "double": 8, "bfloat16": 2, "half": 2, "int32": 4}[settings["datatype"]]
            count = a["bytes"] // es
            mine = count // ranks + (1 if r < count % ranks else 0)
            need = {"send", "wait send"} | ({"recv"} if settings["collective"] != "reduce_scatter" or mine else set())
            names = {e["name"] for e in inner}
            if ranks > 1 and count > 0 and not need <= names:
                fail(f"rank {r}, {where}: missing {sorted(need - names)} among {sorted(names)}")


def check_sweep(r, ranks, settings, its):
    by_name = {}
    for it, inner in its:
        by_name.setdefault(it["name"], []).append((it, inner))
    for d in settings["D"]:
        for what in ("T_math", "T_comm", "T_step"):
            got = by_name.get(f"{what} D={d}", [])
            if len(got) != 1:
                fail(f"rank {r}: {len(got)} traced iterations '{what} D={d}'")
            it, inner = got[0]
            if it["args"].get("D") != d or it["args"].get("iteration") != settings["iters"]:
                fail(f"rank {r}: bad args of '{what} D={d}': {it['args']}")
            gemms = [e for e in inner if e["name"] == "gemm"]
            calls = [e for e in inner if e["cat"] == "collective"]
            want_gemm = what in ("T_math", "T_step")
            want_call = what in ("T_comm", "T_step")
            if len(gemms) != (1 if want_gemm else 0) or len(calls) != (1 if want_call else 0):
                fail(f"rank {r}, {what} D={d}: {len(gemms)} gemm and {len(calls)} collective spans")
            for g in gemms:
                if arg(g, "m") != settings["B"] or arg(g, "n") != settings["F"] or arg(g, "k") < 0:
                    fail(f"rank {r}, {what} D={d}: gemm args {g['args']}")
            if want_call and settings["impl"] == "ring":
                check_ring(r, ranks, settings["collective"], inner, f"{what} D={d}")
            if what == "T_step" and gemms[0]["ts"] + gemms[0]["dur"] > calls[0]["ts"] + 1e-3:
                fail(f"rank {r}, T_step D={d}: the collective starts before the GEMM ends")
        if settings.get("overlap", 1) > 1:
            check_overlap(r, ranks, settings, d, by_name)


def check_overlap(r, ranks, settings, d, by_name):
    """K chunk GEMMs and a wait on the main thread; on the communication
    thread, per chunk a wait for its GEMM and its collective, which starts
    after that GEMM ended."""
    K = settings["overlap"]
    name = f"T_overlap D={d}, {K} chunks"
    got = by_name.get(name, [])
    if len(got) != 1:
        fail(f"rank {r}: {len(got)} traced iterations '{name}'")
    it, inner = got[0]
    if it["args"].get("chunks") != K:
        fail(f"rank {r}, {name}: args.chunks {it['args'].get('chunks')}")
    main_tid, comm_tid = r + 1, ranks + r + 1
    for k in range(K):
        gemm = [e for e in inner if e["name"] == f"gemm chunk {k}" and e["tid"] == main_tid]
        wait = [e for e in inner if e["name"] == f"wait gemm chunk {k}" and e["tid"] == comm_tid]
        call = [e for e in inner if e["name"] == f"{settings['collective']} chunk {k}" and e["tid"] == comm_tid]
        if len(gemm) != 1 or len(wait) != 1 or len(call) != 1:
            fail(f"rank {r}, {name}, chunk {k}: {len(gemm)} GEMM, {len(wait)} wait and {len(call)} collective spans "
                 "on the expected threads")
        if call[0]["ts"] + 1e-3 < gemm[0]["ts"] + gemm[0]["dur"] and settings["backend"] == "cpu":
            fail(f"rank {r}, {name}: chunk {k}'s collective starts before its GEMM ends")
    if not [e for e in inner if e["name"] == "wait comm" and e["tid"] == main_tid]:
        fail(f"rank {r}, {name}: no 'wait comm' span on the main thread")
    if settings["impl"] == "ring":
        check_ring(r, ranks, settings["collective"], [e for e in inner if e["tid"] == comm_tid], name, calls=K)


if __name__ == "__main__":
    main()
