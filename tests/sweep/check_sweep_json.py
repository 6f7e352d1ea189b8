#!/usr/bin/env python3
"""Checks a `shardroof sweep` JSON record: its structure (the keys the docs
describe) and its internal consistency: D_empirical agrees with its own
points and lies in its interval, which also holds the crossover of every
state the stability record names; the calibrated D_peak follows from T_comm
measured at S (W_eff, C_peak/W_eff); the error budget's book D* follows the
model formula from the reported ceilings; the roofline crossover, solved
again here from C_peak, M and the GEMM's floor, agrees; each point's regime
and roof fraction agree with its times and roofs; the crossing's measured
slope agrees with its two points; with --overlap (K, a list of K, auto)
the overlapped step's time, check and efficiency ((T_step - T_overlap) /
(T_step - max(T_math, T_comm)), null with a reason where that denominator
is below 1% of T_step), each K's pipeline model (the ideal from the
unchunked times, the parts of model - ideal and of measured - model adding
up, the efficiency against the ideal), auto's choice (the fewest chunks
within the margin of the best prediction) and the step-efficiency outlook;
with --D auto the search record, and the CSV has one row per point.
A record of `sweep --sharding fsdp` is checked the same way over its swept
dimension, the whole batch B (settings.swept; the points' "D" field holds
it, every value a multiple of N): the GEMM is (B/N) x D x F with D and F
whole, the exchange a ring AllGather of the D x F weight (no reduction
term), B*/N per rank beside B*; with --overlap prefetch each point's
layers: the check, the two-buffer pipeline's prediction from each layer's
gather and GEMM, its error and the efficiency against the ideal."""
import csv
import json
import math
import sys


def fail(msg):
    print("check_sweep_json: " + msg)
    sys.exit(1)


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def overlap_efficiency(p):
    step = p["t_step_s"]["median"]
    hideable = step - max(p["t_math_s"]["median"], p["t_comm_s"]["median"])
    if not hideable >= 0.01 * step:
        return None
    return (step - p["t_overlap_s"]["median"]) / hideable


def fsdp(st):
    return st.get("sharding") == "fsdp"


def whole(st):
    """The dimension every rank holds whole beside F: B, or D with fsdp."""
    return st["D"] if fsdp(st) else st["B"]


def prefetch_time(gather, gemm):
    """The two-buffer prefetch (model/pipeline.h)."""
    gather_end = gemm_end = gemm_before = 0.0
    for c, g in zip(gather, gemm):
        gather_end = max(gather_end, gemm_before) + c
        gemm_before = gemm_end
        gemm_end = max(gemm_end, gather_end) + g
    return gemm_end


def check_prefetch(p, st):
    pre = p.get("prefetch")
    if st.get("overlap") != "prefetch":
        if pre is not None:
            fail(f"B={p['D']}: prefetch without --overlap prefetch")
        return
    if pre is None:
        fail(f"B={p['D']}: --overlap prefetch but the point lacks prefetch")
    L = pre["layers"]
    if L != st["layers"] or len(pre["gather_alone_s"]) != L or len(pre["gemm_alone_s"]) != L:
        fail(f"B={p['D']}: prefetch layers {L}, settings {st['layers']}, per-layer times of another length")
    if pre["check"]["passed"] is not True:
        fail(f"B={p['D']}: the prefetched layers' check did not pass")
    m = pre["model"]
    tm, tc = p["t_math_s"]["median"], p["t_comm_s"]["median"]
    if not close(m["t_predicted_s"], prefetch_time(pre["gather_alone_s"], pre["gemm_alone_s"]), 1e-9):
        fail(f"B={p['D']}: t_predicted_s is not the two-buffer pipeline of the layers' times")
    if not close(m["t_ideal_s"], L * max(tm, tc) + min(tm, tc), 1e-9) or not close(m["t_no_overlap_s"], L * (tm + tc), 1e-9):
        fail(f"B={p['D']}: t_ideal_s or t_no_overlap_s")
    measured = pre["t_prefetch_s"]["median"]
    if not close(m["predicted_error"], (m["t_predicted_s"] - measured) / measured, 1e-9):
        fail(f"B={p['D']}: predicted_error")
    serial = pre["t_serial_s"]["median"]
    hideable = serial - m["t_ideal_s"]
    e = pre["efficiency"]
    if (hideable >= 0.01 * serial) != (e is not None):
        fail(f"B={p['D']}: prefetch efficiency {e} where the hideable time is {hideable}")
    if e is not None and not close(e, (serial - measured) / hideable, 1e-9):
        fail(f"B={p['D']}: prefetch efficiency {e}")


def overlap_ks(st):
    """--overlap as the record states it: "auto", or the list of K > 1 timed."""
    k = st.get("overlap", 1)
    if k == "prefetch":
        return []
    if k == "auto":
        return "auto"
    ks = k if isinstance(k, list) else [k]
    return [x for x in ks if x > 1]


def pipeline_time(gemm, comm):
    gemm_end = comm_end = 0.0
    for g, c in zip(gemm, comm):
        gemm_end += g
        comm_end = max(gemm_end, comm_end) + c
    return comm_end


def pipeline_time_beside(gemm, alone, busy, gemm_slowdown):
    """model::pipeline_time_beside: each collective at its time beside busy
    cores while GEMMs run, at its pace alone after the last GEMM ends;
    gemm_slowdown[j]: the GEMM's beside collective j."""
    g = [gemm[0]] + [gemm[k] + (gemm_slowdown[k - 1] - 1) * min(gemm[k], max(busy[k - 1], alone[k - 1]))
                     for k in range(1, len(gemm))]
    gemms_end = sum(g)
    gemm_end = comm_end = 0.0
    for gk, a, b in zip(g, alone, busy):
        gemm_end += gk
        start = max(gemm_end, comm_end)
        b = max(b, a)
        w = max(0.0, gemms_end - start)
        comm_end = start + (b if b <= w else w + (1 - w / b) * a)
    return comm_end


def check_overlap_runs(p, st, n):
    ks = overlap_ks(st)
    runs = p.get("overlap_runs", [])
    if ks == "auto":
        ch = p.get("overlap_choice")
        if ch is None:
            fail(f"D={p['D']}: --overlap auto but no overlap_choice")
        cands = ch["candidates"]
        # auto weighs from a first look at the point, before the rounds that
        # give the point its T_math: K = 1 at that first look's T_math.
        if not cands or cands[0]["chunks"] != 1 or not cands[0]["gemm_s"] > 0:
            fail(f"D={p['D']}: auto's first candidate must be K=1 at a measured T_math: {cands[:1]}")
        best = min(c["t_predicted_s"] for c in cands)
        within = [c["chunks"] for c in cands if c["t_predicted_s"] <= best * (1 + ch["margin"])]
        if ch["chosen"] != min(within):
            fail(f"D={p['D']}: auto chose K={ch['chosen']}, the rule gives {min(within)}")
        for c in cands[1:]:
            if c["chunks"] > st["B"]:
                fail(f"D={p['D']}: auto weighed K={c['chunks']} above B")
        expected = [ch["chosen"]] if ch["chosen"] > 1 else []
    else:
        expected = ks
    if [r["chunks"] for r in runs] != expected:
        fail(f"D={p['D']}: chunked steps {[r['chunks'] for r in runs]}, expected {expected}")
    for r in runs:
        K = r["chunks"]
        what = f"D={p['D']} K={K}"
        for key in ("elements", "gemm_alone_s", "comm_alone_s", "gemm_in_step_s", "comm_in_step_s"):
            if len(r[key]) != K:
                fail(f"{what}: {key} has {len(r[key])} entries")
        if not close(sum(r["elements"]), st["B"] * st["F"], 1e-12):
            fail(f"{what}: the chunks' elements do not add up to B*F")
        if r["check"]["passed"] is not True:
            fail(f"{what}: check did not pass")
        m = r["model"]
        tm, tc = p["t_math_s"]["median"], p["t_comm_s"]["median"]
        total = sum(r["elements"])
        ideal = pipeline_time([tm * e / total for e in r["elements"]], [tc * e / total for e in r["elements"]])
        if not close(ideal, m["t_ideal_s"], 1e-9):
            fail(f"{what}: t_ideal_s {m['t_ideal_s']} != {ideal}")
        if not close(m["t_no_overlap_s"], tm + tc, 1e-9):
            fail(f"{what}: t_no_overlap_s")
        parts = m["parts_s"]
        if not close(m["t_ideal_s"] + parts["thinner_gemms"] + parts["chunk_latency"] + parts["link_model"],
                     m["t_model_s"], 1e-9):
            fail(f"{what}: the model's parts do not add up to t_model - t_ideal")
        measured = r["t_overlap_s"]["median"]
        if not close(m["model_error"], (m["t_model_s"] - measured) / measured, 1e-9):
            fail(f"{what}: model_error")
        if not close(m["predicted_error"], (m["t_predicted_s"] - measured) / measured, 1e-9):
            fail(f"{what}: predicted_error")
        # The prediction: the pipeline of the chunks' GEMMs and collectives
        # timed alone (t_ideal + thinner GEMMs + chunk latency +
        # chunk_collectives), plus a non-negative interference.
        alone = pipeline_time(r["gemm_alone_s"], r["comm_alone_s"])
        if not close(m["t_ideal_s"] + parts["thinner_gemms"] + parts["chunk_latency"] + m["chunk_collectives_s"],
                     alone, 1e-9):
            fail(f"{what}: chunk_collectives_s {m['chunk_collectives_s']}: the pipeline of the chunks alone is {alone}")
        if not close(alone + m["interference_s"], m["t_predicted_s"], 1e-9) or m["interference_s"] < -1e-12:
            fail(f"{what}: t_predicted_s must be the pipeline of the chunks alone plus a non-negative "
                 "interference_s")
        if st["backend"] == "cpu" and "concurrent_step" not in p:
            fail(f"D={p['D']}: --overlap on the CPU but no concurrent_step")
        check_transport_cpu(what, st, p, r, m)
        hideable = tm + tc - m["t_ideal_s"]
        e = r["pipeline_efficiency"]
        if (hideable > 0.01 * (tm + tc)) != (e is not None):
            fail(f"{what}: pipeline_efficiency {e} where the hideable time is {hideable}")
        if e is not None and not close(e, (tm + tc - measured) / hideable, 1e-9):
            fail(f"{what}: pipeline_efficiency {e}")
        g = r["gap"]
        if g is None:
            fail(f"{what}: no gap parts")
        if not close(m["t_model_s"] + sum(g["parts_s"].values()), measured, 1e-9):
            fail(f"{what}: the gap's parts do not add up to t_overlap - t_model")
        if not (g["gemm_slowdown"] > 0 and g["comm_slowdown"] > 0):
            fail(f"{what}: slowdowns must be positive")
    if runs:
        if not close(runs[0]["t_overlap_s"]["median"], p["t_overlap_s"]["median"], 1e-12):
            fail(f"D={p['D']}: t_overlap_s is not the first chunked step's")


def check_transport_cpu(what, st, p, r, m):
    """On the CPU the prediction takes each chunk's collective beside busy
    cores and the GEMM's slowdown from the transport's CPU share spread over
    that time (model::cpu_interference_beside), recomputed here from the
    record; the interference measured on the unchunked step is the check
    beside it."""
    if st["backend"] != "cpu":
        return
    t = r.get("transport_cpu")
    if t is None:
        fail(f"{what}: --overlap on the CPU but no transport_cpu")
    for key in ("thread_cores", "process_cores"):
        if not (t[key] >= 0):
            fail(f"{what}: transport_cpu.{key} {t[key]}")
    if not (t["wall_s"] > 0 and t["node_cpus"] >= 1 and t["node_ranks"] >= 1 and t["gemm_threads"] >= 1):
        fail(f"{what}: transport_cpu {t}")
    node = t["node_cores"]
    cores = max(node, t["process_cores"]) if node is not None else t["process_cores"]
    if not close(cores, t["cores"], 1e-12):
        fail(f"{what}: transport_cpu.cores {t['cores']} != {cores}")
    per_rank = t["node_cpus"] / t["node_ranks"]
    used = min(t["gemm_threads"], per_rank)
    spare = max(0.0, per_rank - t["gemm_threads"])

    def gemm_slowdown(stretch):
        # model::cpu_interference_beside: the transport's CPU alone spread
        # over its collective's time beside busy cores.
        transport = cores / max(stretch, 1.0)
        lost = min(max(transport - spare, 0.0), used / 2)
        return used / (used - lost) if transport > 0 else 1.0

    if m["interference_source"] != "cpu":
        fail(f"{what}: interference_source {m['interference_source']} with a transport_cpu record")
    # The collectives: timed beside busy cores, chunk by chunk.
    alone, busy = r["comm_alone_s"], r["comm_busy_s"]
    if len(busy) != len(alone) or not all(b > 0 for b in busy):
        fail(f"{what}: comm_busy_s {busy}: one time per chunk on the CPU")
    if m["comm_slowdown_source"] != "busy cores":
        fail(f"{what}: comm_slowdown_source {m['comm_slowdown_source']} with comm_busy_s")
    slowdown = sum(max(b, a) for a, b in zip(alone, busy)) / sum(alone)
    if not close(m["interference"]["comm_slowdown"], slowdown, 1e-9):
        fail(f"{what}: comm_slowdown {m['interference']['comm_slowdown']}, expected x{slowdown} beside busy cores")
    if not close(m["interference"]["gemm_slowdown"], gemm_slowdown(slowdown), 1e-9):
        fail(f"{what}: interference {m['interference']}, expected the GEMM's x{gemm_slowdown(slowdown)} from the "
             "transport's CPU beside busy cores")
    per_chunk = [gemm_slowdown(b / a) if a > 0 else gemm_slowdown(1.0) for a, b in zip(alone, busy)]
    predicted = pipeline_time_beside(r["gemm_alone_s"], alone, busy, per_chunk)
    if not close(m["t_predicted_s"], predicted, 1e-9):
        fail(f"{what}: t_predicted_s {m['t_predicted_s']}, the pipeline beside busy cores gives {predicted}")
    if m["measured_interference"] is None or m["t_predicted_measured_interference_s"] is None:
        fail(f"{what}: no measured interference beside the CPU's")
    tm, tc, ts = p["t_math_s"]["median"], p["t_comm_s"]["median"], p["t_step_s"]["median"]
    hideable = ts - max(tm, tc)
    if hideable >= 0.01 * ts:
        for key, t_of in (("hidden_share", r["t_overlap_s"]["median"]), ("hidden_share_predicted", m["t_predicted_s"])):
            if m[key] is None or not close(m[key], (ts - t_of) / hideable, 1e-9):
                fail(f"{what}: {key} {m[key]}")
    if m["bound"] not in ("collective", "gemm") or m["limit"] not in ("", "cpu", "per-chunk collectives",
                                                                      "thinner GEMMs"):
        fail(f"{what}: bound {m['bound']}, limit {m['limit']}")


def check_outlook(doc, st, n):
    o = doc["crossover"].get("overlap_outlook")
    # Without a link (one rank, or a ring probe whose fit found no W) there is no book model.
    if n < 2 or not doc["ceilings"].get("W_bytes_per_s"):
        return
    if o is None:
        fail("--overlap on two or more ranks but no crossover.overlap_outlook")
    if not (0 < o["efficiency_no_overlap"] <= 1 and 0 < o["efficiency_overlap"] <= 1):
        fail(f"overlap_outlook efficiencies out of (0, 1]: {o}")
    if o["D_target_no_overlap"] is not None and o["D_target_no_overlap"] < o["d_star"]:
        fail(f"overlap_outlook: 90% without overlap below D*: {o}")
    if overlap_ks(st) == "auto":
        # auto weighs K = 1 too, so it never needs a larger D than no overlap.
        if o["D_target_no_overlap"] is not None and o["D_target_overlap"] is not None \
                and o["D_target_overlap"] > o["D_target_no_overlap"] * (1 + 1e-9):
            fail(f"overlap_outlook: auto overlap needs a larger D for 90% than no overlap: {o}")
    else:
        # A fixed K (the list's first) may need a larger D than no overlap: each
        # chunk reads all of Y on the memory roof and pays the link's alpha.
        k = st["overlap"][0] if isinstance(st["overlap"], list) else st["overlap"]
        if o["chunks_at_d_star"] != k or (o["D_target_overlap"] is not None and o["chunks_at_D_target"] != k):
            fail(f"overlap_outlook: --overlap {st['overlap']} but the outlook chunks otherwise: {o}")


def check_overlap(p, k, st=None, n=2):
    # auto may choose no chunks at a point: then it has no chunked step.
    if k == 1 or (st is not None and overlap_ks(st) == "auto" and not p.get("overlap_runs")):
        # fsdp's prefetch puts its layers' check in overlap_check.
        keys = ("t_overlap_s", "overlap_efficiency") if st and st.get("overlap") == "prefetch" else \
            ("t_overlap_s", "overlap_efficiency", "overlap_check")
        for key in keys:
            if key in p:
                fail(f"D={p['D']}: {key} without --overlap")
        return
    for key in ("t_overlap_s", "overlap_efficiency", "overlap_check"):
        if key not in p:
            fail(f"D={p['D']}: --overlap {k} but the point lacks {key}")
    s = p["t_overlap_s"]
    if not (0 < s["min"] <= s["median"] <= s["max"]):
        fail(f"D={p['D']}: t_overlap_s not ordered min <= median <= max: {s}")
    if p["overlap_check"]["passed"] is not True:
        fail(f"D={p['D']}: the overlapped step's check did not pass: {p['overlap_check']}")
    mine = overlap_efficiency(p)
    if mine is None:
        if p["overlap_efficiency"] is not None or not p.get("overlap_efficiency_undefined"):
            fail(f"D={p['D']}: efficiency should be undefined (null, with a reason): {p['overlap_efficiency']}")
    elif p["overlap_efficiency"] is None or not close(mine, p["overlap_efficiency"], 1e-9):
        fail(f"D={p['D']}: overlap_efficiency {p['overlap_efficiency']} != {mine} from the times")


def check_ranks(p, n):
    """Each rank's summary per measurement, and the named straggler."""
    ranks = p.get("ranks")
    if not isinstance(ranks, list) or [r.get("rank") for r in ranks] != list(range(n)):
        fail(f"D={p['D']}: ranks needs one summary per rank, in rank order")
    for r in ranks:
        for t in ("t_math_s", "t_comm_s", "t_step_s") + (("t_overlap_s",) if "t_overlap_s" in p else ()):
            for q in ("time_s", "skew_s", "finish_s"):
                v = r.get(t, {}).get(q, {})
                if not (0 <= v.get("p50", -1) <= v.get("p95", -1) <= v.get("p99", -1)):
                    fail(f"D={p['D']}: ranks[{r['rank']}].{t}.{q} not 0 <= p50 <= p95 <= p99: {v}")
    s = p.get("straggler", "missing")
    if s is not None and not (isinstance(s, dict) and 0 <= s.get("rank", -1) < n and s.get("slower", 0) > 0.10
                              and s.get("measurement") in ("t_math", "t_comm", "t_step", "t_overlap")):
        fail(f"D={p['D']}: straggler neither null nor a rank over 10% slower in a measurement: {s}")


def check_regime(p, n, doc):
    """The point's bound: communication where T_comm > T_math (more than one
    rank), else the largest roof (the floor named by its cause); the roof
    fraction is that roof's time over the measured time."""
    tm, tc = p["t_math_s"]["median"], p["t_comm_s"]["median"]
    roofs = p.get("roofs")
    if roofs is None or "roof_fraction" not in p or p.get("regime") != p["bound"]:
        fail(f"D={p['D']}: the regime, its roofs and fraction are missing")
    if n > 1 and tc > tm:
        if p["bound"] != "communication":
            fail(f"D={p['D']}: bound {p['bound']} but T_comm > T_math")
        t_book = doc["ceilings"]["t_comm_book_s"]
        if not close(p["roof_fraction"], t_book / tc, 1e-9):
            fail(f"D={p['D']}: communication roof fraction {p['roof_fraction']} != {t_book / tc}")
        return
    c, m, fl = roofs["compute_s"], roofs["memory_s"], roofs["floor_s"]
    if c >= m and c >= fl:
        expect, t = "compute", c
    elif m >= fl:
        expect, t = "memory", m
    else:
        expect, t = roofs["floor_cause"], fl
    if p["bound"] != expect:
        fail(f"D={p['D']}: bound {p['bound']} but the roofs {roofs} say {expect}")
    if not close(p["roof_fraction"], t / tm, 1e-9):
        fail(f"D={p['D']}: roof fraction {p['roof_fraction']} != {t / tm}")
    ce = doc["ceilings"]
    st = doc["settings"]
    shard = max(math.ceil(p["D"] / n), 1)
    W = whole(st)
    want_c = 2 * W * shard * st["F"] / ce["C_flops_per_s"]
    want_m = st["bytes_per_element"] * (W * shard + shard * st["F"] + W * st["F"]) / ce["M_bytes_per_s"]
    if not (close(c, want_c, 1e-9) and close(m, want_m, 1e-9) and close(fl, ce["floor"]["time_s"], 1e-9)):
        fail(f"D={p['D']}: roofs {roofs} are not C_peak's {want_c}, M's {want_m} and the floor's")


def roofline_crossover(doc, n, t_comm):
    """The roof model's crossing, solved again (model/regimes.h)."""
    ce, st = doc["ceilings"], doc["settings"]
    B, F, s = whole(st), st["F"], st["bytes_per_element"]
    C, M, fl = ce["C_flops_per_s"], ce["M_bytes_per_s"], ce["floor"]["time_s"]
    floor = max(fl, 2 * B * F / C, s * (B + F + B * F) / M)
    if t_comm <= floor:
        return None, floor
    shard_c = t_comm * C / (2 * B * F)
    shard_m = (t_comm * M / s - B * F) / (B + F)
    return n * min(shard_c, shard_m), floor


def crossing_of_level(D, tm, level, first_is_floor):
    """sweep/fit.h's crossing_of_level: (D, extrapolated, below_floor)."""
    i = 0
    while i < len(D) and tm[i] < level:
        i += 1
    if i == 0:
        return (None, False, True) if first_is_floor else (D[0] * level / tm[0], True, False)
    if i == len(D):
        return D[-1] * level / tm[-1], True, False
    r0, r1 = math.log(tm[i - 1] / level), math.log(tm[i] / level)
    frac = r0 / (r0 - r1) if r1 != r0 else 0.5
    return math.exp(math.log(D[i - 1]) + frac * (math.log(D[i]) - math.log(D[i - 1]))), False, False


def ring_terms(n, nbytes, elems, a, W, g, kind):
    if n <= 1:
        return 0.0
    steps, passes, reduce = {"all_reduce": (2, 2, 1), "reduce_scatter": (1, 1, 1)}[kind]
    f = (n - 1) / n
    return steps * (n - 1) * a + passes * f * nbytes / W + reduce * f * elems * g


def check_levels(doc, st, pts):
    """Past two levels: D* per level (sweep/levels.h), solved again from its own rows."""
    sizes = doc["topology"].get("levels") or []
    lv = doc.get("levels")
    if len(sizes) <= 2 or fsdp(st):
        if lv is not None:
            fail(f"a levels block with levels {sizes}")
        return
    if lv is None or lv["sizes"] != sizes:
        fail(f"levels {sizes} but the record's levels block is {lv and lv['sizes']}")
    want = [l for l in range(len(sizes)) if sizes[l] > 1]
    if [r["level"] for r in lv["levels"]] != want:
        fail(f"levels rows {[r['level'] for r in lv['levels']]}, not the levels that move data {want}")
    B, F, s, kind = whole(st), st["F"], st["bytes_per_element"], st["collective"]
    g = doc["ceilings"].get("g_s_per_element", 0.0)
    shard = [p["shard"] for p in pts]
    tm = [p["t_math_s"]["median"] for p in pts]
    first_is_floor = bool(shard) and shard[0] <= 1
    hier_model, below = 0.0, 1
    for r in lv["levels"]:
        l = r["level"]
        P = math.prod(sizes[:l + 1])
        below = math.prod(sizes[:l])
        what = f"levels: level {l}"
        if r["ranks"] != P or r["group_size"] != sizes[l]:
            fail(f"{what}: ranks {r['ranks']} group_size {r['group_size']}, not {P} and {sizes[l]}")
        if r["wrong"] != 0:
            fail(f"{what}: {r['wrong']} wrong elements")
        samples = r["t_ring_samples_s"]
        if not samples or not (min(samples) <= r["t_ring_s"] <= max(samples)):
            fail(f"{what}: t_ring_s {r['t_ring_s']} outside its samples")
        if r["t_hier_samples_s"] is None and not close(r["t_hier_s"], r["t_ring_s"], 1e-12):
            fail(f"{what}: no hier measured (nothing below moves data) but t_hier_s is not the ring's")
        span = r["span_link"]
        if span is not None:
            t = ring_terms(P, B * F * s, B * F, span["alpha_s"], span["W_bytes_per_s"], g, kind)
            if not close(t, r["t_ring_model_s"], 1e-9):
                fail(f"{what}: t_ring_model_s {r['t_ring_model_s']} != {t} from the span probe")
        elif r["t_ring_model_s"] is not None:
            fail(f"{what}: a ring model without a span link")
        phase = r["phase_link"]
        if phase is None or hier_model is None:
            hier_model = None
            if r["t_hier_model_s"] is not None:
                fail(f"{what}: a hier model without every level's link")
        else:
            hier_model += ring_terms(sizes[l], B * F * s / below, B * F / below, phase["alpha_s"],
                                     phase["W_bytes_per_s"], g, kind)
            if not close(hier_model, r["t_hier_model_s"], 1e-9):
                fail(f"{what}: t_hier_model_s {r['t_hier_model_s']} != {hier_model} summed over the levels")
        D = [x * P for x in shard]
        for key, t in (("D_ring", r["t_ring_s"]), ("D_hier", r["t_hier_s"]), ("D_ring_model", r["t_ring_model_s"]),
                       ("D_hier_model", r["t_hier_model_s"])):
            got = r[key]
            if t is None or not t > 0:
                if got["D"] is not None:
                    fail(f"{what}: {key} without a T_comm")
                continue
            d, ext, floor = crossing_of_level(D, tm, t, first_is_floor)
            if got["below_floor"] != floor or got["extrapolated"] != ext or \
                    (d is None) != (got["D"] is None) or (d is not None and not close(d, got["D"], 1e-9)):
                fail(f"{what}: {key} {got} != {(d, ext, floor)} from the T_math curve at {t}")


def check_stability(doc, cr):
    stab = doc.get("stability")
    if stab is None:
        fail("no stability record")
    for key in ("t_comm", "t_math", "gemm"):
        s = stab[key]
        if s["verdict"] not in ("too_few", "stable", "drift", "unstable"):
            fail(f"stability.{key}.verdict {s['verdict']}")
        if sum(l["samples"] for l in s["levels"]) != s["samples"]:
            fail(f"stability.{key}: the levels' samples do not add up to {s['samples']}")
        begins = [l["begin_s"] for l in s["levels"]]
        if begins != sorted(begins):
            fail(f"stability.{key}: levels not in time order")
        if s["verdict"] == "unstable" and len(s["levels"]) < 2:
            fail(f"stability.{key}: unstable with one level")
        if s["verdict"] in ("stable", "too_few") and len(s["levels"]) != 1:
            fail(f"stability.{key}: {s['verdict']} with {len(s['levels'])} levels")
    ci = cr["D_empirical_ci"]
    if cr["D_empirical"] is not None and ci is not None:
        for x in stab["crossover_per_state"]:
            if x["D"] is not None and ((ci[0] is not None and x["D"] < ci[0] * (1 - 1e-9)) or
                                       (ci[1] is not None and x["D"] > ci[1] * (1 + 1e-9))):
                fail(f"the interval {ci} does not hold the crossover {x['D']} of a state")
            if x["below_floor"] and ci[0] is not None:
                fail(f"a state has no crossover but the interval {ci} is bounded below")


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
    for key in ("C_flops_per_s", "W_bytes_per_s", "alpha_s", "t_comm_measured_s", "t_comm_book_s",
                "W_eff_bytes_per_s"):
        if not isinstance(ce.get(key), (int, float)):
            fail(f"ceilings.{key} missing or not a number")
    pts = doc["points"]
    # The swept values: D, or the whole batch B with fsdp.
    xname = st.get("swept", "D")
    if xname != ("B" if fsdp(st) else "D"):
        fail(f"settings.swept {xname} for sharding {st.get('sharding')}")
    swept = st[xname]
    auto = swept == "auto"
    if auto:
        search = doc["crossover"].get("search")
        if not search or not search.get("measurements"):
            fail("--D auto without a search record")
        if search["stop"] == "measuring" or not doc["complete"]:
            fail(f"the search did not finish: {search['stop']}")
        measured = sorted({m["D"] for m in search["measurements"]} |
                          {m["D2"] for m in search["measurements"] if m.get("D2")})
        if measured != [p["D"] for p in pts]:
            fail(f"points {[p['D'] for p in pts]} are not the D the search measured {measured}")
        for p in pts:
            n_iters = sum(m["iterations"] for m in search["measurements"] if p["D"] in (m["D"], m.get("D2")))
            if p["iterations"] != n_iters:
                fail(f"D={p['D']}: {p['iterations']} iterations, the search ran {n_iters}")
    elif len(pts) != len(swept):
        fail(f"{len(pts)} points for {len(swept)} values of {xname}")
    if fsdp(st) and any(p["D"] % n for p in pts):
        fail(f"a batch that does not split over {n} ranks: {[p['D'] for p in pts]}")
    if [p["D"] for p in pts] != sorted({p["D"] for p in pts}):
        fail("points are not in ascending, distinct D")
    for p in pts:
        for key in ("D", "t_math_s", "t_comm_s", "t_step_s", "flops_per_s", "intensity", "bound", "check"):
            if key not in p:
                fail(f"point lacks {key}")
        for t in ("t_math_s", "t_comm_s", "t_step_s"):
            s = p[t]
            if not (0 < s["min"] <= s["median"] <= s["max"]):
                fail(f"D={p['D']}: {t} not ordered min <= median <= max: {s}")
        check_regime(p, n, doc)
        if p["check"]["passed"] is not True:
            fail(f"D={p['D']}: check did not pass: {p['check']}")
        shard = math.ceil(p["D"] / n)
        flops = 2 * whole(st) * shard * st["F"] / p["t_math_s"]["median"]
        if not close(flops, p["flops_per_s"], 1e-9):
            fail(f"D={p['D']}: flops_per_s {p['flops_per_s']} != {flops}")
        ks = overlap_ks(st)
        check_overlap(p, 1 if ks == [] else ks, st, n)
        if ks:
            check_overlap_runs(p, st, n)
        check_prefetch(p, st)
        check_ranks(p, n)
        s_bytes = st["bytes_per_element"]
        factor = 1 if st["collective"] == "all_reduce" else 2
        if n > 1 and not close(p["intensity"], factor * p["D"] / ((n - 1) * s_bytes)):
            fail(f"D={p['D']}: intensity {p['intensity']}")

    cr = doc["crossover"]
    for key in ("D_empirical", "D_empirical_ci", "D_predicted", "rel_error", "D_book", "book_rel_error", "D_peak",
                "budget", "kind", "crossings"):
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
        states_cross = any(x["D"] is not None for x in (doc.get("stability") or {}).get("crossover_per_state", []))
        if cr["D_empirical"] is not None or (cr["D_empirical_ci"] is not None and
                                             not (cr.get("no_crossover") and states_cross)):
            fail("D_empirical or its interval reported but the points do not bracket a crossing")
        if n > 1 and len(pts) > 0 and cr["kind"] not in ("above_range", "below_range", "only_downward", "tied"):
            fail(f"not bracketed, but kind {cr['kind']}")
        if cr["kind"] in ("above_range", "below_range") and cr.get("extend") not in ("up", "down"):
            fail("not bracketed, but no direction to extend")
    else:
        if cr["D_empirical"] is None or not close(mine, cr["D_empirical"], 1e-9):
            fail(f"D_empirical {cr['D_empirical']} != {mine} from the points")
        if not (D[0] <= cr["D_empirical"] <= D[-1]):
            fail("D_empirical outside the swept range")
        lo, hi = cr["D_empirical_ci"]
        if (lo is not None and lo > cr["D_empirical"] * (1 + 1e-9)) or (hi is not None and hi < cr["D_empirical"] * (1 - 1e-9)):
            fail(f"D_empirical {cr['D_empirical']} outside its interval {cr['D_empirical_ci']}")
        # The launch's bootstrap distribution (what `combine` draws from):
        # 101 ascending percentiles (null: +infinity), around D*.
        reps = cr.get("D_empirical_replicates")
        if not isinstance(reps, list) or len(reps) != 101:
            fail("D_empirical_replicates: not the 101 percentiles of the bootstrap")
        vals = [float("inf") if r is None else r for r in reps]
        if vals != sorted(vals):
            fail("D_empirical_replicates not ascending")
        if "within this launch" not in cr.get("D_empirical_ci_covers", ""):
            fail("D_empirical_ci_covers does not say the interval is within this launch")
        b = cr.get("D_book_ci")
        if cr.get("D_book") is not None and b is not None:
            if b[0] > cr["D_book"] * (1 + 1e-9) or (b[1] is not None and b[1] < cr["D_book"] * (1 - 1e-9)):
                fail(f"D_book {cr['D_book']} outside its interval {b}")
            widths = cr.get("D_book_ci_widths") or []
            if not widths or any(w["high_over_low"] < 1 for w in widths):
                fail("D_book_ci_widths: no input, or a width below 1")
            if widths != sorted(widths, key=lambda w: -w["high_over_low"]):
                fail("D_book_ci_widths: not the widest first")
            if cr.get("book_holds_measured") != (b[0] <= cr["D_empirical"] <= (float("inf") if b[1] is None else b[1])):
                fail("book_holds_measured disagrees with D_book_ci and D_empirical")
    if n > 1:
        check_stability(doc, cr)
    if len(cr["crossings"]) != cr["sign_changes"]:
        fail("sign_changes does not count the crossings")
    s_bytes, B, F = st["bytes_per_element"], whole(st), st["F"]
    ar = st["collective"] == "all_reduce"
    gathers = st["collective"] == "all_gather"
    if fsdp(st) != gathers:
        fail(f"sharding {st.get('sharding')} with collective {st['collective']}")
    if cr.get("swept") != xname or cr.get("sharding", "contracting") != st.get("sharding", "contracting"):
        fail(f"crossover.swept {cr.get('swept')} or sharding {cr.get('sharding')} disagree with the settings")
    if gathers:
        per = cr.get("per_rank") or {}
        for key in ("B_empirical", "B_book"):
            full = cr[key.replace("B_", "D_")]
            if (full is None) != (per.get(key) is None) or (full is not None and not close(per[key], full / n, 1e-9)):
                fail(f"crossover.per_rank.{key} {per.get(key)} is not {xname}*/N")
    if n > 1:
        # Calibrated: W_eff from T_comm at S with everything in the bandwidth term.
        factor = (2 if ar else 1) * (n - 1) / n
        w_eff = factor * B * F * s_bytes / ce["t_comm_measured_s"]
        if not close(w_eff, ce["W_eff_bytes_per_s"], 1e-9):
            fail(f"W_eff {ce['W_eff_bytes_per_s']} != {w_eff} from T_comm(S)")
        ci = ce["C_flops_per_s"] / w_eff
        if not close(ci, cr["critical_intensity"], 1e-9):
            fail(f"critical_intensity {cr['critical_intensity']} != C_peak/W_eff {ci}")
        d_peak = (n - 1) * s_bytes * ci / (1 if ar else 2)
        if cr["D_peak"] is None or not close(d_peak, cr["D_peak"], 1e-9):
            fail(f"D_peak {cr['D_peak']} != (N-1)*s*C_peak/W_eff {d_peak}")
        # Book: T_comm and D* from the link's W, alpha and g (docs/model.md).
        C, W, a = ce["C_flops_per_s"], ce["W_bytes_per_s"], ce["alpha_s"]
        # A gather reduces nothing: no g term.
        g = 0.0 if gathers else ce.get("g_s_per_element", 0.0)
        hops = 2 * (n - 1) if ar else n - 1
        # No W when the ring probe's times did not grow with the size (noise on a fast link).
        t_book = hops * a + (hops / n * B * F * s_bytes / W if W > 0 else 0) + (n - 1) / n * B * F * g
        if not close(t_book, ce["t_comm_book_s"], 1e-9):
            fail(f"t_comm_book_s {ce['t_comm_book_s']} != {t_book}")
        bw = (n - 1) * s_bytes * C / W if W > 0 else 0
        if ar:
            d_book = bw + n * (n - 1) * a * C / (B * F) + (n - 1) * g * C / 2
        else:
            d_book = bw / 2 + n * (n - 1) * a * C / (2 * B * F) + (n - 1) * g * C / 2
        b = cr["budget"]
        if cr["D_empirical"] is not None and W > 0:
            if b is None:
                fail("a bracketed crossing and a link W without an error budget")
            if not close(d_book, b["D_book_peak"], 1e-9):
                fail(f"budget.D_book_peak {b['D_book_peak']} != {d_book} from the ceilings")
            if not close(b["comm_efficiency"], t_book / ce["t_comm_measured_s"], 1e-9):
                fail(f"budget.comm_efficiency {b['comm_efficiency']}")
            if not close(b["compute_efficiency"], b["C_at_D_empirical"] / C, 1e-9):
                fail(f"budget.compute_efficiency {b['compute_efficiency']}")
        # The roofline crossover, solved again from C_peak, M and the floor.
        for key, t in (("D_roofline", t_book), ("roofline_measured_t_comm", ce["t_comm_measured_s"])):
            x = cr.get(key)
            if not t > 0:
                # No book T_comm (no W and no alpha from a noisy ring probe): no model to solve.
                if x is not None:
                    fail(f"crossover.{key}: T_comm {t} but a roofline crossover {x}")
                continue
            if x is None:
                fail(f"crossover.{key} missing")
            want, floor = roofline_crossover(doc, n, t)
            if not close(x["floor_s"], floor, 1e-9):
                fail(f"crossover.{key}.floor_s {x['floor_s']} != {floor}")
            if want is None:
                if x["kind"] != "below_floor" or x["D"] is not None:
                    fail(f"crossover.{key}: T_comm {t} below the floor {floor} but {x}")
            elif x["kind"] not in ("crossing", "above_range") or not close(x["D"], want, 1e-9):
                fail(f"crossover.{key}.D {x['D']} != {want}")
        if cr["D_empirical"] is not None:
            cond = cr["conditioning"]
            i = next(i for i in range(len(D) - 1) if D[i] < cr["D_empirical"] <= D[i + 1] or
                     (D[i] <= cr["D_empirical"] < D[i + 1]))
            slope = math.log(tm[i + 1] / tm[i]) / math.log(D[i + 1] / D[i])
            if cond is None or not close(cond["measured"]["slope"], slope, 1e-9):
                fail(f"conditioning.measured.slope {cond and cond['measured']['slope']} != {slope}")
            if cond["measured"]["ill_conditioned"] != (slope < 0.5):
                fail(f"conditioning.measured.ill_conditioned disagrees with the slope {slope}")
    for key, err in (("D_predicted", "rel_error"), ("D_book", "book_rel_error")):
        if cr["D_empirical"] is not None and cr[key] is not None:
            rel = (cr[key] - cr["D_empirical"]) / cr["D_empirical"]
            if not close(rel, cr[err], 1e-9):
                fail(f"{err} {cr[err]} != {rel}")
    if len(sys.argv) > 2:
        with open(sys.argv[2]) as f:
            rows = list(csv.DictReader(f))
        if len(rows) != len(pts):
            fail(f"CSV has {len(rows)} rows for {len(pts)} points")
        for row, p in zip(rows, pts):
            if int(row[xname]) != p["D"] or row["bound"] != p["bound"]:
                fail(f"CSV row {row[xname]} disagrees with the JSON")
            if st.get("overlap") == "prefetch" and \
                    not close(float(row["t_prefetch_median_s"]), p["prefetch"]["t_prefetch_s"]["median"], 1e-6):
                fail(f"CSV row {row[xname]}: t_prefetch_median_s disagrees with the JSON")
            if overlap_ks(st) and row["t_overlap_median_s"] == "":
                if p.get("t_overlap_s") is not None:
                    fail(f"CSV row {row['D']}: no t_overlap_median_s where the JSON has one")
            elif overlap_ks(st):
                if not close(float(row["t_overlap_median_s"]), p["t_overlap_s"]["median"], 1e-6):
                    fail(f"CSV row {row['D']}: t_overlap_median_s disagrees with the JSON")
                e = p["overlap_efficiency"]
                if (row["overlap_efficiency"] == "") != (e is None):
                    fail(f"CSV row {row['D']}: overlap_efficiency '{row['overlap_efficiency']}' vs JSON {e}")
                if e is not None and not close(float(row["overlap_efficiency"]), e, 1e-5):
                    fail(f"CSV row {row['D']}: overlap_efficiency disagrees with the JSON")
                if row["overlap_check"] != "ok":
                    fail(f"CSV row {row['D']}: overlap_check {row['overlap_check']}")
            elif "t_overlap_median_s" in row:
                fail("CSV has overlap columns without --overlap")
    ks = overlap_ks(st)
    k = "auto's" if ks == "auto" else ",".join(str(x) for x in ks)
    if ks and f"overlap in {k} chunks" not in doc["summary"]:
        fail("--overlap but the summary does not speak of it")
    if ks:
        check_outlook(doc, st, n)
    check_levels(doc, st, pts)
    print(f"check_sweep_json: ok ({st.get('sharding', 'contracting')}, {len(pts)} points, {xname}_empirical = "
          f"{cr['D_empirical']} {cr['D_empirical_ci']}, "
          f"D_predicted = {cr['D_predicted']}, D_book = {cr['D_book']}"
          + (f", overlap in {k} chunks" if ks else "") + ")")


if __name__ == "__main__":
    main()
