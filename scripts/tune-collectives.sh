#!/usr/bin/env bash
# Measure auto's tuning table over several launches and write it.
#
# With more ranks than cores, which ranks share a core and how much cache
# and memory bandwidth the node leaves them change from launch to launch,
# and so does which implementation is fastest at a size. One launch's table
# follows that launch; this script runs LAUNCHES launches per rank count
# (each `coll --tune-to` over small sizes with many iterations and large
# ones with few, its records kept as JSON), the launches taking turns over
# the rank counts so that they spread over time, and then writes the table
# with `coll --tune-to TABLE --tune-from ...`: each size takes the
# implementation whose worst loss over the launches is least.
#
#   scripts/tune-collectives.sh [build-dir]
#
# Environment: RANKS (default "2 3 4"), LAUNCHES (default 3, at least 2),
# COLLECTIVES (default all_reduce,reduce_scatter; "all" for every
# collective), TABLE (default tuning.toml; its rules for other rank
# counts, collectives and sizes are kept), OUT (directory for the records,
# default a temporary one), SMALL_ITERS / LARGE_ITERS (default 3000 / 16),
# MAXBYTES (largest size, default 256M),
# MPIRUN_FLAGS (default: oversubscribe, yield when idle).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-${BUILD_DIR:-$here/build}}
bin=$build/src/shardroof
if [ ! -x "$bin" ]; then
  echo "tune-collectives: $bin not found; build first (scripts/quickstart.sh build)" >&2
  exit 2
fi
RANKS=${RANKS:-"2 3 4"}
LAUNCHES=${LAUNCHES:-3}
COLLECTIVES=${COLLECTIVES:-all_reduce,reduce_scatter}
TABLE=${TABLE:-tuning.toml}
SMALL_ITERS=${SMALL_ITERS:-3000}
LARGE_ITERS=${LARGE_ITERS:-16}
MAXBYTES=${MAXBYTES:-256M}
OUT=${OUT:-$(mktemp -d -t shardroof-tune.XXXXXX)}
if ! [[ "$LAUNCHES" =~ ^[0-9]+$ ]] || [ "$LAUNCHES" -lt 2 ]; then
  echo "tune-collectives: LAUNCHES must be 2 or more (got '$LAUNCHES')" >&2
  exit 2
fi
mkdir -p "$OUT"
read -r -a mpi_flags <<< "${MPIRUN_FLAGS:---oversubscribe --mca mpi_yield_when_idle 1}"
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

for launch in $(seq "$LAUNCHES"); do
  for np in $RANKS; do
    for range in small large; do
      if [ "$range" = small ]; then sizes=(-b 8 -e 64K -n "$SMALL_ITERS" -w 100); else sizes=(-b 128K -e "$MAXBYTES" -n "$LARGE_ITERS" -w 3); fi
      json="$OUT/launch$launch-np$np-$range.json"
      echo "tune-collectives: launch $launch of $LAUNCHES, $np ranks, $range sizes -> $json ($(cut -d' ' -f1-3 /proc/loadavg))" >&2
      # The launch's own table is not used: the records are.
      mpirun -np "$np" "${mpi_flags[@]}" "$bin" coll --tune-to "$OUT/launch$launch-np$np.toml" --force \
        --collective "$COLLECTIVES" -f 2 "${sizes[@]}" --json "$json" > "$OUT/launch$launch-np$np-$range.txt"
    done
  done
done
for np in $RANKS; do
  docs=$(ls "$OUT"/launch*-np"$np"-*.json | paste -sd, -)
  "$bin" coll --tune-to "$TABLE" --tune-from "$docs"
done
echo "tune-collectives: $TABLE (records in $OUT)" >&2
