#!/usr/bin/env bash
# How long `coll` and `sweep` take after their last measurement (the
# stability tests, the bootstrap intervals, the report and the files)
# beside the time they measured, one launch per case, and whether it stays
# within the goal: at most a tenth of the measuring time, or 2 s where that
# is larger. Every case writes --json (the files are part of what follows).
#
# Cases: coll at its defaults (2 ranks, 8 B - 8 MiB); coll on 1 rank, the
# sizes 8 B - 1 KiB x4 with --impl all and 8 B - 64 KiB x2 (short rounds:
# the most rounds and samples a span can hold); sweep at its defaults (2
# ranks, --D auto); sweep with a small shape (B = F = 64: fast rounds, the
# most of them) and on 1 rank over 16 values of D. With --long, also coll
# on 1 rank over a 100 s span and sweep with --budget-s 600 --min-span-s 300
# (the longest budgets the checks cover; about 13 minutes more).
#
# "measured" is the time the command itself prints when it ends its
# measurements ("coll: N rounds measured in X s; analysing", "sweep:
# measured in X s; analysing"); "after" is from the moment that line
# arrives until the launcher returns, so it also holds MPI's finalization.
# The launches run one after the other; the load average is printed before
# and after. Timings are the machine's: run it on a quiet one.
#
#   scripts/bench-analysis.sh [--long] [build-dir]
#
# Environment: OUT (directory for the records and logs, default a temporary
# one), MPIRUN_FLAGS (default: oversubscribe, yield when idle), CASES (the
# names of the cases to run, space-separated; default all).
# Exit status: 0 when every case is within the goal, 1 when one is not, 2
# when the build is missing.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
long=0
if [ "${1:-}" = --long ]; then
  long=1
  shift
fi
build=${1:-${BUILD_DIR:-$here/build}}
bin=$build/src/shardroof
if [ ! -x "$bin" ]; then
  echo "bench-analysis: $bin not found; build first (scripts/quickstart.sh build)" >&2
  exit 2
fi
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
read -r -a mpi_flags <<<"${MPIRUN_FLAGS:---oversubscribe --mca mpi_yield_when_idle 1}"

cases=(
  "coll-defaults|2|coll"
  "coll-1rank-issue|1|coll --impl all -b 8 -e 1K -f 4"
  "coll-1rank-many|1|coll --impl all -b 8 -e 64K -f 2"
  "sweep-defaults|2|sweep"
  "sweep-small-shape|2|sweep --B 64 --F 64"
  "sweep-1rank-many|1|sweep --B 64 --F 64 --D 1:32768:x2"
)
if [ "$long" = 1 ]; then
  cases+=(
    "coll-1rank-long|1|coll --impl all -b 8 -e 64K -f 2 --min-span-s 100"
    "sweep-long|2|sweep --budget-s 600 --min-span-s 300"
  )
fi

now() { date +%s.%N; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

echo "bench-analysis: load average before: $(load)" >&2
table=$out/table.txt
printf '%-20s %5s %10s %9s %7s %8s  %s\n' case ranks measured after ratio limit verdict >"$table"
failed=0
for c in "${cases[@]}"; do
  IFS='|' read -r name np args <<<"$c"
  if [ -n "${CASES:-}" ] && [[ " $CASES " != *" $name "* ]]; then continue; fi
  read -r -a argv <<<"$args"
  log=$out/$name.err
  echo "bench-analysis: $name: mpirun -np $np shardroof ${args} --json $out/$name.json" >&2
  # Each line of the command's stderr with the moment it arrived.
  rc=0
  mpirun -np "$np" "${mpi_flags[@]}" "$bin" "${argv[@]}" --force --json "$out/$name.json" \
    >"$out/$name.out" 2> >(while IFS= read -r line; do printf '%s %s\n' "$(now)" "$line"; done >"$log") || rc=$?
  end=$(now)
  wait  # the timestamping of stderr has written its last line
  line=$(grep -E ' (coll|sweep): .*measured in [0-9.]+ s; analysing$' "$log" | tail -n 1 || true)
  if [ "$rc" != 0 ] || [ -z "$line" ]; then
    printf '%-20s %5s %10s %9s %7s %8s  %s\n' "$name" "$np" - - - - "FAILED (exit $rc; $log)" >>"$table"
    failed=1
    continue
  fi
  at=${line%% *}
  measured=$(sed -E 's/.*measured in ([0-9.]+) s; analysing$/\1/' <<<"$line")
  read -r after ratio limit verdict < <(awk -v at="$at" -v end="$end" -v m="$measured" 'BEGIN {
      after = end - at; limit = (0.1 * m > 2) ? 0.1 * m : 2
      printf "%.2f %.3f %.1f %s\n", after, (m > 0 ? after / m : 0), limit, (after <= limit ? "ok" : "OVER") }')
  printf '%-20s %5s %9ss %8ss %7s %7ss  %s\n' "$name" "$np" "$measured" "$after" "$ratio" "$limit" "$verdict" >>"$table"
  [ "$verdict" = ok ] || failed=1
done
echo "bench-analysis: load average after: $(load)" >&2
cat "$table"
echo "bench-analysis: records and logs in $out" >&2
exit "$failed"
