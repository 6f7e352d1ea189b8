#!/usr/bin/env bash
# How well the default sweep's crossover holds from run to run: runs
# `shardroof sweep` (the default: D = auto) K times on NP local ranks and
# prints, per run, D*_empirical with its 95% interval, the calibrated and
# the book D* with their errors, the error budget and the wall time, then
# the targets:
#  - the calibrated D* within +-10% of D*_empirical in every run,
#  - the calibrated D* inside the 95% interval in at least 4 of 5 runs (80%),
#  - every run within 60 s.
# A benchmark, not a test: run it on a quiet machine (it measures timing).
#
#   scripts/bench-prediction.sh [K] [-- extra sweep flags]
#
# Environment: BIN (default build/src/shardroof), NP (default 2), OUT (a
# directory for the JSON records; default a fresh one under /tmp).
# Exit status: 0 when every run succeeded (whether or not the targets were
# met: the table says), 1 when a run failed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=5
if [[ $# -gt 0 && "$1" != "--" ]]; then runs="$1"; shift; fi
[[ "${1:-}" == "--" ]] && shift
BIN=${BIN:-$here/build/src/shardroof}
NP=${NP:-2}
OUT=${OUT:-$(mktemp -d /tmp/shardroof-bench-prediction.XXXXXX)}
mkdir -p "$OUT"
[[ -x "$BIN" ]] || { echo "bench-prediction: no shardroof at $BIN (set BIN)" >&2; exit 2; }
mpi_flags=(--oversubscribe --mca mpi_yield_when_idle 1)
if [[ "$(id -u)" -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

echo "bench-prediction: $runs runs of \`mpirun -np $NP shardroof sweep $*\`, $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n)" >&2
echo "bench-prediction: before: $(uptime | sed 's/.*load average/load average/')" >&2
failed=0
for ((k = 1; k <= runs; k++)); do
  start=$(date +%s.%N)
  if mpirun -np "$NP" "${mpi_flags[@]}" "$BIN" sweep --force --json "$OUT/run-$k.json" "$@" \
      > "$OUT/run-$k.txt" 2> "$OUT/run-$k.err"; then
    echo "$start $(date +%s.%N)" > "$OUT/run-$k.wall"
  else
    echo "bench-prediction: run $k failed:" >&2
    tail -5 "$OUT/run-$k.err" >&2
    failed=1
  fi
done
echo "bench-prediction: after: $(uptime | sed 's/.*load average/load average/')" >&2

/usr/bin/python3 - "$OUT" "$runs" <<'PY'
import json, os, sys
out, runs = sys.argv[1], int(sys.argv[2])
def f(v, spec):
    return "-" if v is None else format(v, spec)
def pct(v):
    return "-" if v is None else f"{100 * v:+.1f}%"
rows, within, inside, fast, done = [], 0, 0, 0, 0
for k in range(1, runs + 1):
    try:
        doc = json.load(open(os.path.join(out, f"run-{k}.json")))
        t0, t1 = map(float, open(os.path.join(out, f"run-{k}.wall")).read().split())
    except (OSError, ValueError):
        rows.append([str(k)] + ["failed"] + ["-"] * 10)
        continue
    done += 1
    cr = doc["crossover"]
    d, ci, cal, err = cr["D_empirical"], cr["D_empirical_ci"], cr["D_predicted"], cr["rel_error"]
    b = cr.get("budget") or {}
    wall = t1 - t0
    ok_err = err is not None and abs(err) <= 0.10
    ok_in = cal is not None and ci is not None and None not in ci and ci[0] <= cal <= ci[1]
    within += ok_err
    inside += ok_in
    fast += wall <= 60
    search = cr.get("search", {})
    rows.append([str(k), f(d, ".1f"), "-" if not ci else f"[{f(ci[0], '.1f')}, {f(ci[1], '.1f')}]",
                 f(cal, ".1f"), pct(err), "yes" if ok_in else "no", f(cr["D_book"], ".1f"), pct(cr["book_rel_error"]),
                 f"{f(b.get('compute_efficiency'), '.2f')} / {f(b.get('comm_efficiency'), '.2f')} / "
                 f"{f(b.get('residual'), '.2f')}", f"{len(search.get('measurements', []))}, {search.get('stop', '-')}",
                 f"{wall:.1f}"])
head = ["run", "D*", "95% interval", "calibrated", "error", "in interval", "book", "error",
        "budget: compute / comm / residual", "measurements, stop", "wall s"]
widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
print("| " + " | ".join(h.ljust(w) for h, w in zip(head, widths)) + " |")
print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
for r in rows:
    print("| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |")
need_inside = -(-4 * runs // 5)  # 4 of 5, scaled to K runs
print(f"\ntargets: calibrated error within +-10% in every run: {within}/{runs} "
      f"({'met' if within == runs else 'NOT met'}); calibrated D* inside the interval in at least {need_inside} of "
      f"{runs}: {inside}/{runs} ({'met' if inside >= need_inside else 'NOT met'}); every run within 60 s: "
      f"{fast}/{runs} ({'met' if fast == runs else 'NOT met'})")
print(f"records in {out}")
PY
exit $failed
