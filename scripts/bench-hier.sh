#!/usr/bin/env bash
# The two-level model against emulated nodes: 2 nodes x 2 ranks
# (scripts/emulate-links.sh run --ranks 4 --ranks-per-node 2: the ranks of
# a node share a network namespace and reach each other over loopback TCP;
# the two nodes are joined through a bridge by tbf-shaped veth links), at
# each inter-node rate a `sweep --ranks-per-node 2` (D = auto) of the flat
# ring, hier and native. The table puts each measured D* beside its
# two-level prediction from the same run's probes (hier's for hier, the
# flat ring's for ring and native: Open MPI's AllReduce of large messages
# is a flat ring too), with the GEMM's rate at each D; goal: within 15%.
#
#   scripts/bench-hier.sh --bin build/src/shardroof [--rates "0.5 1"] [--impls "ring hier native"]
#                         [--budget-s 40] [--out DIR] [--check]
#
# --check (the CTest `emulated_nodes`): first `coll` exact-checks hier
# AllReduce and ReduceScatter against ring and native across the emulated
# nodes and the JSON must record the grouping (blocking); then the sweeps
# run (default here: one rate, ring and hier, 12 s each) and their table is
# printed, its 15% bound reported, never blocking. Exit status: 0 pass, 1 a
# functional check failed, 77 cannot run here (as emulate-links.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin=""
rates=""
impls=""
budget=""
out=""
check=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --rates) rates="$2"; shift 2 ;;
    --impls) impls="$2"; shift 2 ;;
    --budget-s) budget="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --check) check=1; shift ;;
    *) echo "unknown argument: $1" >&2; sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
[[ -n "$bin" ]] || { echo "--bin: the shardroof executable" >&2; exit 2; }
if [[ $check == 1 ]]; then
  rates="${rates:-1}"; impls="${impls:-ring hier}"; budget="${budget:-12}"
else
  rates="${rates:-0.5 1}"; impls="${impls:-ring hier native}"; budget="${budget:-40}"
fi
out="${out:-$(mktemp -d /tmp/shardroof-bench-hier.XXXXXX)}"
mkdir -p "$out"
rm -f "$out"/*.json "$out"/*.txt
python="$(command -v /usr/bin/python3 || command -v python3 || true)"
[[ -n "$python" ]] || { echo "SKIPPED: python3 not found" >&2; exit 77; }
emulate() { "$here/emulate-links.sh" run --bin "$bin" --ranks 4 --ranks-per-node 2 "$@"; }

failures=0
if [[ $check == 1 ]]; then
  first="${rates%% *}"
  for coll in all_reduce reduce_scatter; do
    rc=0
    emulate --rate "$first" -- coll --collective "$coll" --impl ring,hier,native --ranks-per-node 2 -b 8 -e 1M \
      -f 32 -n 3 -w 1 --force --json "$out/coll-$coll.json" > "$out/coll-$coll.txt" 2>&1 || rc=$?
    [[ $rc == 77 ]] && { cat "$out/coll-$coll.txt" >&2; exit 77; }
    if [[ $rc != 0 ]]; then cat "$out/coll-$coll.txt" >&2; echo "FAILED: coll $coll exited $rc" >&2; failures=1; continue; fi
    "$python" - "$out/coll-$coll.json" <<'PY' || failures=1
import json, sys
doc = json.load(open(sys.argv[1]))
bad = []
t = doc.get("topology") or {}
if t.get("nodes") != 2 or t.get("ranks_per_node") != 2 or t.get("node_of_rank") != [0, 0, 1, 1]:
    bad.append(f"grouping recorded as {t}")
if len(t.get("node_list", [])) != 2 or len(t.get("host_of_rank", [])) != 4:
    bad.append("the host names of the nodes are missing")
hier = [r for r in doc["results"] if r["impl"] == "hier"]
if not hier:
    bad.append("hier did not run")
for r in doc["results"]:
    if r.get("wrong") != 0:
        bad.append(f"{r['impl']} {r['bytes']} B: {r.get('wrong')} wrong elements")
for b in bad:
    print(f"FAILED: {sys.argv[1]}: {b}", file=sys.stderr)
print(f"{sys.argv[1]}: {len(doc['results'])} rows checked, hier on {len(hier)}, grouping {t.get('node_of_rank')}",
      file=sys.stderr)
sys.exit(1 if bad else 0)
PY
  done
fi

for rate in $rates; do
  for impl in $impls; do
    tag="${impl}-${rate}gbit"
    echo "bench-hier: 2 nodes x 2 ranks, ${rate} Gbit/s between nodes: sweep --impl $impl --budget-s $budget" >&2
    rc=0
    emulate --rate "$rate" -- sweep --ranks-per-node 2 --impl "$impl" --budget-s "$budget" --force \
      --json "$out/sweep-$tag.json" > "$out/sweep-$tag.txt" 2>&1 || rc=$?
    [[ $rc == 77 ]] && { cat "$out/sweep-$tag.txt" >&2; exit 77; }
    if [[ $rc != 0 ]]; then cat "$out/sweep-$tag.txt" >&2; echo "FAILED: sweep $tag exited $rc" >&2; failures=1; fi
  done
done

# The table: measured D* beside its two-level prediction.
"$python" - "$out" "$rates" "$impls" <<'PY' | tee "$out/table.txt"
import json, os, sys
out, rates, impls = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
def f(v, fmt):
    return "-" if v is None else format(v, fmt)
cols = ["Gbit/s", "impl", "D* measured", "95% interval", "predicted", "err", "within 15%", "T_comm(S) ms",
        "model ring ms", "model hier ms", "W_intra MB/s", "W_inter MB/s", "R", "W_o/R MB/s", "W_ring MB/s",
        "expects"]
rows = [cols]
for rate in rates:
    for impl in impls:
        path = os.path.join(out, f"sweep-{impl}-{rate}gbit.json")
        try:
            doc = json.load(open(path))
        except (OSError, ValueError):
            rows.append([rate, impl, "no record"] + ["-"] * (len(cols) - 3))
            continue
        cr, ce, two = doc["crossover"], doc["ceilings"], doc.get("two_level") or {}
        d = cr.get("D_empirical")
        ci = cr.get("D_empirical_ci")
        p = two.get("D_star_hier_at_measured_C" if impl == "hier" else "D_star_ring_at_measured_C")
        err = (p - d) / d if d and p else None
        mb = lambda k: (two.get(k) or {}).get("bytes_per_s")
        rows.append([rate, impl, f(d, ".0f"), "-" if not ci or None in ci else f"[{ci[0]:.0f}, {ci[1]:.0f}]", f(p, ".0f"),
                     "-" if err is None else f"{100 * err:+.1f}%",
                     "-" if err is None else ("yes" if abs(err) <= 0.15 else "no"),
                     f(ce.get("t_comm_measured_s") and ce["t_comm_measured_s"] * 1e3, ".1f"),
                     f(two.get("T_comm_ring_s") and two["T_comm_ring_s"] * 1e3, ".1f"),
                     f(two.get("T_comm_hier_s") and two["T_comm_hier_s"] * 1e3, ".1f"),
                     f(mb("intra") and mb("intra") / 1e6, ".0f"), f(mb("inter") and mb("inter") / 1e6, ".0f"),
                     two.get("ranks_per_inter_link", "-"),
                     f(two.get("inter_flow_bytes_per_s") and two["inter_flow_bytes_per_s"] / 1e6, ".0f"),
                     f(mb("flat_link") and mb("flat_link") / 1e6, ".0f"), two.get("faster", "-")])
widths = [max(len(str(r[i])) for r in rows) for i in range(len(cols))]
for r in rows:
    print("  ".join(str(c).rjust(w) for c, w in zip(r, widths)))
print("bench-hier: predicted = the two-level D* of the run's own probes with the GEMM's rate at each D "
      "(hier: hier's; ring and native: the flat ring's). W_inter: one flow across the nodes (the fastest "
      "cross-node ring alone, or the whole ring's probe); R: the "
      "ranks sharing a link out of a node, from what each ring gets with all running at once; W_o/R: what each "
      "cross-node ring of hier gets. The 15% bound is reported, not blocking.")
PY
echo "bench-hier: records in $out" >&2
exit $failures
