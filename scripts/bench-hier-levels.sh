#!/usr/bin/env bash
# The L-level model against an emulated cluster of more than two levels:
# scripts/emulate-links.sh run --levels (each rank its own namespace on a
# link at R0 to its node's bridge, each node a link at R1 to its group's
# bridge, each group a link at R2 to the top bridge, ...; docs/emulation.md)
# runs `coll --impl hier,ring --ranks-per-node K --levels ...` (AllReduce,
# float), every result exact-checked (its #wrong column must be 0), and
# the table puts each measured time beside the L-level model's
# (`predict --level G:W:A[:O],...`, src/model/topology.h):
#   W_l  the shaped rate of level l's links x the TCP payload share of a
#        frame, (MTU - 52) / (MTU + 14) = 1448/1514 for the veths' MTU 1500
#        (the frame as the emulator's shaper line names it);
#   a_l  measured: the median `link` alpha (ping-pong, 8 B .. 64 KiB) over
#        the rank pairs whose rings meet first at level l, in the same tree;
#   o_l  one link out of each unit: o_0 = 1 (a link per rank), o_l =
#        1/P_(l-1) above (P_(l-1) the ranks of a unit of level l-1);
#   g    0 (the reduction: about 1 ns per float here, a fraction of a
#        percent of these times).
# Goal: the measured median within 10% of the model at 4 and 16 MiB
# (printed, never blocking). Load averages before and after are printed.
#
# Before the collectives, the tree itself: scripts/tcp_ring.py (plain TCP,
# blocking sockets, no MPI) times each ring transfer r -> r + 1 of
# --wire-bytes alone and all N at once, against its wire time (the bytes
# over the payload rate of the slowest level it crosses). Where the
# transfers at once lose more than 10% against the wire, the emulator, not
# the collective, is off the model (the machine's CPUs spend the time in
# the kernel's packet path, or acknowledgements wait behind the other
# direction's data in a deep queue), and the table says so.
#
#   scripts/bench-hier-levels.sh --bin build/src/shardroof [--ranks 8] [--ranks-per-node 2]
#       [--levels 2,2] [--rates 0.4,0.2,0.1] [--sizes "-b 256K -e 16M -f 4"] [--iters 3] [--out DIR]
#       [--queue 10ms] [--congestion cubic|kernel|NAME] [--wire-bytes 1048576] [--check]
#
# --queue: the longest wait in each shaped queue (SHARDROOF_EMULATE_TBF_LATENCY
# of emulate-links.sh; default 10ms here: with 100 ms the two flows that
# cross the top in opposite directions queue each other's acknowledgements
# behind their data and one of them slows, docs/hierarchy.md).
# --congestion: the ranks' TCP congestion control (emulate-links.sh
# --congestion; `kernel`: the kernel's default). Default cubic: the model
# shares a level's link among the flows that cross it and gives a flow the
# whole link once the others are done; with BBR the flow left over keeps
# pacing near its share until its probing finds the rest, which the model
# does not price (hier at 4 MiB: 1.19-1.28 of the model with BBR, 1.04-1.05
# with cubic, docs/hierarchy.md).
#
# --check (the CTest `emulated_levels`, functional only, a few seconds):
# instead of the benchmark, tcp_ring.py moves 64 KiB over every ring
# transfer of the tree, alone and all at once (each must arrive whole), and
# `coll` exact-checks hier and ring AllReduce and
# ReduceScatter (8 B .. 256 KiB) on the emulated tree, and the JSON must
# record the levels (g_0, g_1, ...) and hier's rows. Exit status: 0 every
# run succeeded and every result checked, 1 otherwise, 2 usage, 77 cannot
# run here (as emulate-links.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin=""
ranks=8
per=2
levels="2,2"
rates="0.4,0.2,0.1"
sizes="-b 256K -e 16M -f 4"
iters=3
out=""
check=0
queue="10ms"
congestion="cubic"
wire_bytes=1048576
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --ranks) ranks="$2"; shift 2 ;;
    --ranks-per-node) per="$2"; shift 2 ;;
    --levels) levels="$2"; shift 2 ;;
    --rates) rates="$2"; shift 2 ;;
    --sizes) sizes="$2"; shift 2 ;;
    --iters) iters="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --queue) queue="$2"; shift 2 ;;
    --congestion) congestion="$2"; shift 2 ;;
    --wire-bytes) wire_bytes="$2"; shift 2 ;;
    --check) check=1; shift ;;
    *) echo "unknown argument: $1" >&2; sed -n '2,/^set -euo pipefail/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
[[ -n "$bin" && -x "$bin" ]] || { echo "--bin: the shardroof executable" >&2; exit 2; }
[[ "$iters" =~ ^[1-9][0-9]*$ ]] || { echo "--iters: a whole number from 1, got '$iters'" >&2; exit 2; }
[[ "$queue" =~ ^[1-9][0-9]*ms$ ]] || { echo "--queue: a time in ms, e.g. 10ms, got '$queue'" >&2; exit 2; }
[[ "$wire_bytes" =~ ^[1-9][0-9]*$ ]] || { echo "--wire-bytes: a whole number of bytes, got '$wire_bytes'" >&2; exit 2; }
export SHARDROOF_EMULATE_TBF_LATENCY="$queue"
python="$(command -v /usr/bin/python3 || command -v python3 || true)"
[[ -n "$python" ]] || { echo "SKIPPED: python3 not found" >&2; exit 77; }
out="${out:-$(mktemp -d /tmp/shardroof-bench-hier-levels.XXXXXX)}"
mkdir -p "$out"
rm -f "$out"/*.json "$out"/*.txt
# emulate [--bin B] -- <args>: one run on the emulated tree (shardroof unless --bin).
emulate() {
  local exe="$bin"
  [[ "$1" == --bin ]] && { exe="$2"; shift 2; }
  "$here/emulate-links.sh" run --bin "$exe" --ranks "$ranks" --ranks-per-node "$per" --levels "$levels" \
    --rates "$rates" "$@"
}
# run <name> <shardroof args...>: one emulated run, its console in <name>.txt.
run() {
  local name="$1" rc=0
  shift
  emulate -- "$@" --force --json "$out/$name.json" > "$out/$name.txt" 2>&1 || rc=$?
  [[ $rc == 77 ]] && { cat "$out/$name.txt" >&2; exit 77; }
  if [[ $rc != 0 ]]; then cat "$out/$name.txt" >&2; echo "FAILED: $name exited $rc" >&2; return 1; fi
}

# wire <iters> <warm-up> <bytes>: the tree without MPI (tcp_ring.py), its
# record in wire.json; every transfer must arrive, alone and all at once.
wire() {
  local rc=0
  emulate --bin "$here/tcp_ring.py" -- --sizes "$3" --iters "$1" --warmup "$2" --json "$out/wire.json" \
    > "$out/wire.txt" 2>&1 || rc=$?
  [[ $rc == 77 ]] && { cat "$out/wire.txt" >&2; exit 77; }
  [[ $rc == 0 ]] || { cat "$out/wire.txt" >&2; echo "FAILED: tcp_ring.py exited $rc" >&2; return 1; }
  "$python" - "$out/wire.json" "$ranks" <<'PY'
import json, sys
doc, n = json.load(open(sys.argv[1])), int(sys.argv[2])
bad = [f"{e['bytes']} B: {what} has {len(e[what])} of {n} transfers"
       for e in doc["sizes"] for what in ("alone", "all") if len(e[what]) != n or min(e[what].values()) <= 0]
for b in bad or ([] if doc["sizes"] else ["no sizes"]):
    print(f"FAILED: {sys.argv[1]}: {b}", file=sys.stderr)
sys.exit(1 if bad or not doc["sizes"] else 0)
PY
}

if [[ $check == 1 ]]; then
  failures=0
  wire 1 0 65536 || failures=1
  for coll in all_reduce reduce_scatter; do
    run "check-$coll" coll --collective "$coll" --impl hier,ring --ranks-per-node "$per" --levels "$levels" \
      -b 8 -e 256K -f 8 -n 2 -w 1 --rounds 1 --min-span-s 0 || { failures=1; continue; }
    "$python" - "$out/check-$coll.json" "$per,$levels" <<'PY' || failures=1
import json, sys
doc = json.load(open(sys.argv[1]))
want = [int(g) for g in sys.argv[2].split(",")]
bad = []
t = doc.get("topology") or {}
if t.get("levels") != want:
    bad.append(f"levels recorded as {t.get('levels')}, not {want}")
hier = [r for r in doc["results"] if r["impl"] == "hier"]
if not hier:
    bad.append("hier did not run")
for r in doc["results"]:
    if r.get("wrong") != 0:
        bad.append(f"{r['impl']} {r['bytes']} B: {r.get('wrong')} wrong elements")
for b in bad:
    print(f"FAILED: {sys.argv[1]}: {b}", file=sys.stderr)
print(f"{sys.argv[1]}: {len(doc['results'])} rows checked, hier on {len(hier)}, levels {t.get('levels')}",
      file=sys.stderr)
sys.exit(1 if bad else 0)
PY
  done
  exit $failures
fi

# The benchmark's congestion control (the functional --check above keeps the kernel's).
[[ "$congestion" == kernel ]] && congestion=""
export SHARDROOF_EMULATE_CONGESTION="$congestion"
load_before="$(uptime)"
start="$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "bench-hier-levels: $ranks ranks, $per per node, levels $levels above the node, rates $rates Gbit/s" \
  "(innermost first); $start; load: ${load_before##*load average: }" >&2
failures=0
wire 3 1 "$wire_bytes" || exit 1
run link link -b 8 -e 64K -n 5 -w 1 || failures=1
# shellcheck disable=SC2086  # --sizes is a list of flags
run coll coll --impl hier,ring --ranks-per-node "$per" --levels "$levels" $sizes -n "$iters" -w 1 \
  --rounds 1 --min-span-s 0 || failures=1
load_after="$(uptime)"
[[ $failures == 0 ]] || exit 1

# The model's levels from the shaped rates and the measured alphas, then
# predict per size; the table.
"$python" - "$out" "$bin" "$ranks" "$per" "$levels" "$rates" "$start" "$load_before" "$load_after" "$here" \
  <<'PY' | tee "$out/table.txt"
import json, math, os, statistics, subprocess, sys
out, bin_, ranks, per, levels, rates, start, load_before, load_after, here = sys.argv[1:]
sys.path.insert(0, here)
from tcp_ring import cpu_text, payload_share
ranks, per = int(ranks), int(per)
sizes = [per] + [int(g) for g in levels.split(",")]
gbits = [float(r) for r in rates.split(",")]
payload = payload_share(open(os.path.join(out, "coll.txt")).read())
# unit[l](r): the index of rank r's unit of level l (0: its node).
span = [math.prod(sizes[: l + 1]) for l in range(len(sizes))]
def level_of(a, b):
    return next(l for l in range(len(sizes)) if a // span[l] == b // span[l])
link = json.load(open(os.path.join(out, "link.json")))
bad = [f"link {p['src']}-{p['dst']}: {p['wrong']} wrong bytes" for p in link["pairs"] if p.get("wrong")]
alphas = {l: [] for l in range(len(sizes))}
for p in link["pairs"]:
    alphas[level_of(p["src"], p["dst"])].append(p["alpha_s"])
a = [statistics.median(alphas[l]) if alphas[l] else 0.0 for l in range(len(sizes))]
W = [g * 1e9 / 8 * payload for g in gbits]
o = [1.0] + [1.0 / span[l - 1] for l in range(1, len(sizes))]
spec = ",".join(f"{sizes[l]}:{W[l]:.6g}:{a[l]:.6g}" + (f":{o[l]:.6g}" if o[l] != 1 else "") for l in range(len(sizes)))
print(f"# {ranks} ranks as {' x '.join(map(str, sizes))} (ranks per node first); started {start}")
print(f"# load before: {load_before.strip()}")
print(f"# load after:  {load_after.strip()}")
for l in range(len(sizes)):
    print(f"# level {l}: g = {sizes[l]}, {gbits[l]:g} Gbit/s shaped -> W = {W[l] / 1e6:.2f} MB/s, o = {o[l]:.3g}, "
          f"alpha = {a[l] * 1e6:.1f} us (median of {len(alphas[l])} link pairs)")
for line in open(os.path.join(out, "coll.txt")):
    if line.startswith("emulate-links:"):
        print("# " + line.strip())
# The tree without MPI: each ring transfer against its wire time.
wire = json.load(open(os.path.join(out, "wire.json")))
worst = 0.0
for e in wire["sizes"]:
    print(f"# the tree without MPI (scripts/tcp_ring.py, {e['bytes']} B per transfer, median of {wire['iters']}; "
          "wire: the bytes at the payload rate of the slowest level crossed):")
    for pair, alone in e["alone"].items():
        src, dst = (int(x) for x in pair.split("->"))
        lvl = level_of(src, dst)
        t_wire = e["bytes"] / min(W[: lvl + 1])
        together = e["all"][pair]
        worst = max(worst, together / t_wire)
        print(f"#   {pair} (level {lvl}): wire {t_wire * 1e3:.1f} ms, alone {alone / t_wire:.3f}x, "
              f"all {len(e['all'])} at once {together / t_wire:.3f}x")
    print(f"#   the machine's CPU while all ran: {cpu_text(e['all_cpu_share'])}")
verdict = "yes" if worst <= 1.10 else "NO: the emulated tree itself is off the wire, so it cannot judge the model's 10%"
print(f"# the emulator within 10% of a wire with every transfer at once: {verdict} (worst {worst:.3f}x)")
print(f"# model: predict --level {spec} --datatype float --collective all_reduce")
coll = json.load(open(os.path.join(out, "coll.json")))
cache = {}
def model(nbytes):
    if nbytes not in cache:
        elems = nbytes // 4
        B = 2 ** (int(math.log2(elems)) // 2)
        F = elems // B
        assert B * F == elems, nbytes
        path = os.path.join(out, f"predict-{nbytes}.json")
        subprocess.run([bin_, "predict", "--flops", "1e12", "--level", spec, "--datatype", "float", "--collective",
                        "all_reduce", "--B", str(B), "--F", str(F), "--json", path], check=True,
                       stdout=subprocess.DEVNULL)
        top = json.load(open(path))["levels"][-1]
        cache[nbytes] = (top["T_comm_hier_s"], top["T_comm_ring_s"])
    return cache[nbytes]
rows = [["size", "impl", "placement", "measured ms", "(min, max)", "model ms", "measured/model", "within 10%",
         "#wrong"]]
for r in coll["results"]:
    if r.get("wrong") != 0:
        bad.append(f"coll {r['impl']} {r['bytes']} B: {r.get('wrong')} wrong elements")
    hier, ring = model(r["bytes"])
    m = hier if r["impl"] == "hier" else ring
    t = r["time_us"]
    ratio = t["median"] * 1e-6 / m
    size = r["bytes"]
    label = f"{size >> 20} MiB" if size >= 1 << 20 else f"{size >> 10} KiB"
    rows.append([label, r["impl"], "in-place" if r["in_place"] else "out-of-place", f"{t['median'] / 1e3:.1f}",
                 f"({t['min'] / 1e3:.1f}, {t['max'] / 1e3:.1f})", f"{m * 1e3:.1f}", f"{ratio:.3f}",
                 "yes" if abs(ratio - 1) <= 0.10 else "no", str(r.get("wrong"))])
widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
for row in rows:
    print("  ".join(c.rjust(w) for c, w in zip(row, widths)))
print(f"# measured: coll's median over {coll['settings'].get('iters', '?')} iterations of the max over ranks "
      "(one round); model: T_comm of predict's last level (the whole cluster), hier's for hier, the flat ring's for ring")
for b in bad:
    print("FAILED: " + b)
sys.exit(1 if bad else 0)
PY
echo "bench-hier-levels: records in $out" >&2
