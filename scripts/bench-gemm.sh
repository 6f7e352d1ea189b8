#!/usr/bin/env bash
# The local GEMM as `sweep` times it (the CPU backend's prepared GEMM) against
# a bare OpenBLAS call on the same shapes, and the ratio of the two.
# Google Benchmark runs both with its repetitions randomly interleaved, so
# machine load falls on both alike; the ratio is of median FLOP/s over the
# repetitions (>= 0.95 means the backend adds nothing that matters).
#
#   scripts/bench-gemm.sh [build-dir]
#
# The build must have benchmarks (cmake -DSHARDROOF_BUILD_BENCHMARKS=ON).
# Environment: REPETITIONS (default 7), MIN_TIME (seconds per run, default 0.2).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-${BUILD_DIR:-$here/build}}
bin=$build/benchmarks/bench_gemm
if [ ! -x "$bin" ]; then
  echo "bench-gemm: $bin not found; configure with -DSHARDROOF_BUILD_BENCHMARKS=ON and build" >&2
  exit 2
fi
json=$(mktemp -t shardroof-bench-gemm.XXXXXX.json)
trap 'rm -f "$json"' EXIT
"$bin" --benchmark_repetitions="${REPETITIONS:-7}" --benchmark_enable_random_interleaving=true \
  --benchmark_min_time="${MIN_TIME:-0.2}" --benchmark_report_aggregates_only=true \
  --benchmark_out="$json" --benchmark_out_format=json >/dev/null

/usr/bin/python3 - "$json" <<'PY'
import json, sys

doc = json.load(open(sys.argv[1]))
median = {}
for b in doc["benchmarks"]:
    if b.get("aggregate_name") != "median":
        continue
    kind, dtype, m, k = b["run_name"].replace("BM_", "").split("/")
    median[(dtype, int(m), int(k), kind)] = b["FLOP/s"]
print("# GEMM FLOP/s, median over repetitions (randomly interleaved)")
print(f"{'type':<7} {'B=F':>5} {'D/N':>5} {'bare OpenBLAS':>14} {'sweep GEMM':>12} {'ratio':>6}")
for (dtype, m, k, kind) in sorted(median):
    if kind != "BareBlas" or (dtype, m, k, "SweepGemm") not in median:
        continue
    bare, ours = median[(dtype, m, k, "BareBlas")], median[(dtype, m, k, "SweepGemm")]
    print(f"{dtype:<7} {m:>5} {k:>5} {bare / 1e9:>10.2f} GF/s {ours / 1e9:>7.2f} GF/s {ours / bare:>6.3f}")
PY
