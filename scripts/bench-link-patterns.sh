#!/usr/bin/env bash
# `shardroof link` in every pattern (pingpong, bidir, shift, ring) on each
# rank count, and a table of W idle against W under the pattern: per
# pattern, the median over its pairs (transfers) of the ping-pong W of the
# same pairs measured first in the run, of W under the pattern, and of
# their ratio, with its range. Run it on a quiet machine; print `uptime`
# beside the table.
#
#   scripts/bench-link-patterns.sh [build-dir] [out-dir]
#
# Environment: RANKS (default "2 4"), LINK_ARGS (default "-b 8 -e 8M -f 4
# -n 10 -w 2"), MPIRUN (default: mpirun with --oversubscribe
# --mca mpi_yield_when_idle 1).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-${BUILD_DIR:-$here/build}}
out=${2:-$(mktemp -d -t shardroof-bench-link.XXXXXX)}
bin=$build/src/shardroof
[ -x "$bin" ] || { echo "bench-link-patterns: $bin not found; build first" >&2; exit 2; }
read -r -a mpirun <<< "${MPIRUN:-mpirun --oversubscribe --mca mpi_yield_when_idle 1}"
read -r -a link_args <<< "${LINK_ARGS:--b 8 -e 8M -f 4 -n 10 -w 2}"
mkdir -p "$out"
for n in ${RANKS:-2 4}; do
  for pattern in pingpong bidir shift ring; do
    "${mpirun[@]}" -np "$n" "$bin" link --pattern "$pattern" "${link_args[@]}" --force \
      --json "$out/link-$pattern-np$n.json" > "$out/link-$pattern-np$n.txt" 2>&1 \
      || { cat "$out/link-$pattern-np$n.txt" >&2; exit 1; }
  done
done

/usr/bin/python3 - "$out" ${RANKS:-2 4} <<'PY'
import json, os, statistics, sys

out, ranks = sys.argv[1], [int(r) for r in sys.argv[2:]]
def med(v):
    return statistics.median(v) if v else float("nan")
print("# W per pair in GB/s (fit of t(n) = alpha + n/W): median over the pattern's pairs; idle = the same pairs'")
print("# ping-pong, measured first in the run; load/idle: median (min .. max) over pairs of W / idle W")
print(f"{'ranks':>5} {'pattern':<9} {'pairs':>5} {'idle W':>8} {'W':>8} {'load/idle':>24} {'alpha us':>9}")
for n in ranks:
    for pattern in ("pingpong", "bidir", "shift", "ring"):
        doc = json.load(open(os.path.join(out, f"link-{pattern}-np{n}.json")))
        pairs = [p for p in doc["pairs"] if p["W_bytes_per_s"]]
        w = med([p["W_bytes_per_s"] / 1e9 for p in pairs])
        alpha = med([p["alpha_s"] * 1e6 for p in pairs])
        if pattern == "pingpong":
            idle, ratio = w, "-"
        else:
            idle = med([p["idle_W_bytes_per_s"] / 1e9 for p in pairs if p.get("idle_W_bytes_per_s")])
            r = [p["W_loaded_over_idle"] for p in pairs if p.get("W_loaded_over_idle")]
            ratio = f"{med(r):.2f} ({min(r):.2f} .. {max(r):.2f})" if r else "n/a"
        print(f"{n:>5} {pattern:<9} {len(doc['pairs']):>5} {idle:>8.2f} {w:>8.2f} {ratio:>24} {alpha:>9.2f}")
print(f"# records: {out}")
PY
