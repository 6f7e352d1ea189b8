#!/usr/bin/env bash
# Calibrates SimGrid's network model against the emulated links of
# scripts/emulate-links.sh, and checks the calibration against `coll` over
# the same links (docs/simulation.md, "Calibration").
#
#   sudo scripts/calibrate-simulation.sh [--bin build/src/shardroof] [--smpi-bin build-smpi/src/shardroof]
#        [--rates "0.5 1"] [--iters 20] [--out DIR] [--write configs/simulation/calibration.toml]
#        [--phases "measure fit validate"] [--quick]
#        [--queue 10ms] [--congestion cubic|kernel|NAME] [--tcp-put off|on]
#
# Phases (all three by default; each reads what the one before left in --out):
#  measure   over emulated links (root, network namespaces, tbf; the ordinary
#            build): `link` ping-pong between 2 ranks on their own shaped
#            links at each rate, and between 2 ranks of one emulated node
#            (loopback TCP); then `coll` (ring, pairwise, direct, native
#            AllReduce and ReduceScatter on 2 ranks; hier, ring and native on
#            2 nodes x 2 ranks) at 256 KiB, 1 MiB and 4 MiB, the measurements
#            the simulation is checked against.
#  fit       SimGrid's documented calibration of SMPI: the one-way ping-pong
#            time t(m) of each message size, fitted piecewise (segments
#            split where the emulated links change regime: the eager limit
#            and the tbf burst) as t = L * lat-factor(m) + m / (R * bw-factor(m)),
#            with L the smallest message's time and R the shaped rate; the
#            factors are the rates' mean. The loopback link is fitted with the
#            same factors. Writes --write (a TOML file simulate.sh reads with
#            --rate), with the date, the machine, its load and this command.
#  validate  the same `coll` runs simulated (scripts/simulate.sh --rate R,
#            compute benchmarked) and a table: simulated / emulated median
#            time per collective, implementation, size and placement;
#            the goal is within 10% (reported, never blocking).
#
# The links and the transport as scripts/bench-coll-model.sh has them (the
# emulator's and Open MPI's terms that neither the cost model nor SimGrid's
# network model prices, docs/emulation.md): --queue the longest wait in each
# shaped queue (default 10ms), --congestion the ranks' TCP congestion control
# (default cubic; `kernel`: the kernel's), --tcp-put Open MPI's TCP transport
# with or without put (default off). Choose --rates the links carry on this
# machine beside 4 ranks (on a 2-vCPU VM 0.1 Gbit/s: docs/simulation.md).
#
# The emulated measurements need a quiet machine: run it alone. --quick
# runs one rate, 5 iterations, one size (a check that the script works, not
# a calibration). Exit status: 0 done, 1 a run failed, 2 usage, 77 cannot
# emulate here (not root, no namespaces or tbf).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
usage() { sed -n '2,/^set -euo pipefail/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 2; }
# The command as the calibration file records it (without --out: a scratch folder).
invocation="scripts/calibrate-simulation.sh"
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  if [[ ${args[i]} == --out ]]; then i=$((i + 1)); continue; fi
  invocation+=" ${args[i]}"
done
bin="$repo/build/src/shardroof"
smpi_bin="$repo/build-smpi/src/shardroof"
rates="0.5 1"
iters=20
out=""
write="$repo/configs/simulation/calibration.toml"
phases="measure fit validate"
quick=0
queue="10ms"
congestion="cubic"
tcp_put="off"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --smpi-bin) smpi_bin="$2"; shift 2 ;;
    --rates) rates="$2"; shift 2 ;;
    --iters) iters="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --write) write="$2"; shift 2 ;;
    --phases) phases="$2"; shift 2 ;;
    --quick) quick=1; shift ;;
    --queue) queue="$2"; shift 2 ;;
    --congestion) congestion="$2"; shift 2 ;;
    --tcp-put) tcp_put="$2"; shift 2 ;;
    -h|--help) usage ;;
    *) echo "unknown argument: $1" >&2; usage ;;
  esac
done
. "$repo/scripts/link_options.sh"
export_link_options "$queue" "$congestion" "$tcp_put"
sizes=(-b 256K -e 4M -f 4)
if [[ $quick == 1 ]]; then
  rates="${rates%% *}"; iters=5; sizes=(-b 1M -e 1M)
fi
out="${out:-$(mktemp -d /tmp/shardroof-calibrate.XXXXXX)}"
mkdir -p "$out/emulated" "$out/simulated"
python="$(command -v python3)"
has() { [[ " $phases " == *" $1 "* ]]; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "calibrate-simulation: output in $out; load average $(load) at the start ($(date -u +%FT%TZ))" >&2
# The load when the measurements began, for the calibration file's header.
if has measure || [[ ! -f "$out/load-at-start" ]]; then load > "$out/load-at-start"; fi

# Every coll of the check: (name, ranks, ranks per node, collective, impls).
configs=(
  "2r-ar 2 1 all_reduce ring,pairwise,direct,native"
  "2r-rs 2 1 reduce_scatter ring,pairwise,direct,native"
  "2x2-ar 4 2 all_reduce hier,ring,native"
  "2x2-rs 4 2 reduce_scatter hier,ring,native"
)
coll_args=("${sizes[@]}" -n "$iters" -w 2 --rounds 1 --min-span-s 0 --model off --force)

if has measure; then
  [[ -x "$bin" ]] || { echo "--bin: no shardroof at $bin (the ordinary build)" >&2; exit 2; }
  emulate() { "$repo/scripts/emulate-links.sh" run --bin "$bin" "$@"; }
  for rate in $rates; do
    rc=0
    emulate --ranks 2 --rate "$rate" -- link -b 8 -e 8M -f 2 -n "$iters" -w 2 --force \
      --json "$out/emulated/link-$rate.json" > "$out/emulated/link-$rate.txt" 2>&1 || rc=$?
    [[ $rc == 77 ]] && { cat "$out/emulated/link-$rate.txt" >&2; exit 77; }
    [[ $rc == 0 ]] || { cat "$out/emulated/link-$rate.txt" >&2; echo "FAILED: emulated link at $rate Gbit/s" >&2; exit 1; }
  done
  first="${rates%% *}"
  emulate --ranks 2 --ranks-per-node 2 --rate "$first" -- link -b 8 -e 8M -f 2 -n "$iters" -w 2 --force \
    --json "$out/emulated/loopback.json" > "$out/emulated/loopback.txt" 2>&1 ||
    { cat "$out/emulated/loopback.txt" >&2; echo "FAILED: emulated loopback" >&2; exit 1; }
  for rate in $rates; do
    for c in "${configs[@]}"; do
      read -r name n per collective impls <<< "$c"
      extra=()
      [[ $per -gt 1 ]] && extra=(--ranks-per-node "$per")
      emulate --ranks "$n" --ranks-per-node "$per" --rate "$rate" -- coll --collective "$collective" --impl "$impls" \
        "${extra[@]}" "${coll_args[@]}" --json "$out/emulated/coll-$name-$rate.json" \
        > "$out/emulated/coll-$name-$rate.txt" 2>&1 ||
        { cat "$out/emulated/coll-$name-$rate.txt" >&2; echo "FAILED: emulated coll $name at $rate" >&2; exit 1; }
    done
  done
  echo "calibrate-simulation: measured; load average $(load)" >&2
fi

if has fit; then
  mkdir -p "$(dirname "$write")"
  "$python" "$repo/scripts/simulation_calibration.py" fit --dir "$out/emulated" --rates "$rates" --write "$write" \
    --command "$invocation" --load "$(cat "$out/load-at-start" 2>/dev/null || echo unknown)"
  echo "calibrate-simulation: wrote $write" >&2
fi

if has validate; then
  [[ -f "$smpi_bin" ]] || { echo "--smpi-bin: no simulated shardroof at $smpi_bin" >&2; exit 2; }
  for rate in $rates; do
    for c in "${configs[@]}"; do
      read -r name n per collective impls <<< "$c"
      extra=()
      [[ $per -gt 1 ]] && extra=(--ranks-per-node "$per")
      "$repo/scripts/simulate.sh" --bin "$smpi_bin" --ranks "$n" --ranks-per-node "$per" --rate "$rate" \
        --calibration "$write" -- coll --collective "$collective" --impl "$impls" "${extra[@]}" "${coll_args[@]}" \
        --json "$out/simulated/coll-$name-$rate.json" > "$out/simulated/coll-$name-$rate.txt" 2>&1 ||
        { cat "$out/simulated/coll-$name-$rate.txt" >&2; echo "FAILED: simulated coll $name at $rate" >&2; exit 1; }
    done
  done
  "$python" "$repo/scripts/simulation_calibration.py" compare --emulated "$out/emulated" \
    --simulated "$out/simulated" --rates "$rates" | tee "$out/table.txt"
fi
