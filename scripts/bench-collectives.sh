#!/usr/bin/env bash
# Benchmark shardroof's own collectives against the MPI library's, and print
# the ratios: for each rank count, `shardroof coll` runs all_reduce and
# reduce_scatter over small (8 B - 8 KiB) and large (1 - 64 MiB) sizes with
# every implementation side by side (they alternate size by size inside one
# run, so machine load hits both alike). Then, per implementation:
#   large sizes: median over sizes and placements of busbw(ours)/busbw(native)
#                (> 1: ours is faster)
#   small sizes: median over sizes and placements of time(ours)/time(native)
#                (< 1: ours is faster)
#
#   scripts/bench-collectives.sh [build-dir]
#
# Environment: RANKS (default "2 3 4"), IMPL (the --impl list, default all),
# DATATYPE (default float), SMALL_ITERS / LARGE_ITERS (timed iterations,
# default 200 / 10), OUT (directory for the JSON records, default a
# temporary one), MPIRUN_FLAGS (default: oversubscribe, yield when idle).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-${BUILD_DIR:-$here/build}}
bin=$build/src/shardroof
if [ ! -x "$bin" ]; then
  echo "bench-collectives: $bin not found; build first (scripts/quickstart.sh build)" >&2
  exit 2
fi
RANKS=${RANKS:-"2 3 4"}
IMPL=${IMPL:-all}
DATATYPE=${DATATYPE:-float}
SMALL_ITERS=${SMALL_ITERS:-200}
LARGE_ITERS=${LARGE_ITERS:-10}
OUT=${OUT:-$(mktemp -d -t shardroof-bench.XXXXXX)}
mkdir -p "$OUT"
read -r -a mpi_flags <<< "${MPIRUN_FLAGS:---oversubscribe --mca mpi_yield_when_idle 1}"
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

run() {  # run NP COLLECTIVE RANGE ARGS...
  local np=$1 coll=$2 range=$3
  shift 3
  local json="$OUT/np$np-$coll-$range.json"
  echo "bench-collectives: $np ranks, $coll, $range sizes -> $json" >&2
  mpirun -np "$np" "${mpi_flags[@]}" "$bin" coll --collective "$coll" --impl "$IMPL" \
    --datatype "$DATATYPE" --json "$json" "$@" > "$OUT/np$np-$coll-$range.txt"
}

for np in $RANKS; do
  for coll in all_reduce reduce_scatter; do
    run "$np" "$coll" small -b 8 -e 8K -f 4 -n "$SMALL_ITERS" -w 20
    run "$np" "$coll" large -b 1M -e 64M -f 2 -n "$LARGE_ITERS" -w 3
  done
done

/usr/bin/python3 - "$OUT" <<'EOF'
import json, pathlib, statistics, sys

out = pathlib.Path(sys.argv[1])
rows = []
for path in sorted(out.glob("np*-*-*.json")):
    doc = json.loads(path.read_text())
    rng = path.stem.rsplit("-", 1)[1]
    by_key = {}
    for r in doc["results"]:
        by_key.setdefault((r["bytes"], r["in_place"]), {})[r["impl"]] = r
    impls = sorted({i for v in by_key.values() for i in v if i != "native"})
    for impl in impls:
        ratios, algos = [], set()
        for (size, in_place), recs in sorted(by_key.items()):
            if impl not in recs or "native" not in recs:
                continue
            ours, native = recs[impl], recs["native"]
            algos.add(ours["algorithm"])
            if rng == "large":
                if native["busbw_GBps"] > 0:
                    ratios.append(ours["busbw_GBps"] / native["busbw_GBps"])
            elif native["time_us"]["median"] > 0:
                ratios.append(ours["time_us"]["median"] / native["time_us"]["median"])
        if ratios:
            rows.append((doc["ranks"], doc["settings"]["collective"], rng, impl,
                         statistics.median(ratios), min(ratios), max(ratios), len(ratios),
                         ",".join(sorted(algos))))

print(f"# ratios vs native ({out})")
print("# large: busbw(impl)/busbw(native), higher is better; "
      "small: time(impl)/time(native), lower is better")
print("# median (min, max) over sizes x {out-of-place, in-place}")
print(f"{'ranks':>5} {'collective':<15} {'range':<6} {'impl':<8} {'metric':<11} "
      f"{'median':>7} {'min':>7} {'max':>7} {'n':>3}  algorithms")
for np_, coll, rng, impl, med, lo, hi, n, algos in sorted(rows):
    metric = "busbw ratio" if rng == "large" else "time ratio"
    print(f"{np_:>5} {coll:<15} {rng:<6} {impl:<8} {metric:<11} "
          f"{med:>7.3f} {lo:>7.3f} {hi:>7.3f} {n:>3}  {algos}")
EOF
