#!/usr/bin/env bash
# The emulated-link acceptance as a benchmark: runs `scripts/emulate-links.sh
# test` K times (default 10) with no timing bound blocking, and prints each
# run's table and, per bound, in how many runs it held. A bound may be
# blocking in CI only if it held in every one of 10 consecutive runs on a
# quiet machine and 3 while a parallel build loaded it (run this with
# nothing else on the machine; with LOAD_BUILD_DIR set, a `make -j2` of that
# configured build directory, from clean, runs beside each run and is
# stopped after it).
#
#   scripts/bench-emulation.sh --bin build/src/shardroof [--runs K] [--out DIR] [-- emulate-links.sh test flags]
#
# Needs what emulate-links.sh needs (root, iproute2). Exit status: 0 when
# every run's functional checks held, 1 otherwise.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin=""
runs=10
out=""
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "unknown argument: $1" >&2; sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
[[ -n "$bin" ]] || { echo "--bin: the shardroof executable" >&2; exit 2; }
out="${out:-$(mktemp -d /tmp/shardroof-bench-emulation.XXXXXX)}"
mkdir -p "$out"
load_pid=""
stop_load() {
  [[ -n "$load_pid" ]] || return 0
  kill -- "-$load_pid" 2>/dev/null || true
  wait "$load_pid" 2>/dev/null || true
  load_pid=""
}
trap stop_load EXIT
failed=0
for ((k = 1; k <= runs; k++)); do
  if [[ -n "${LOAD_BUILD_DIR:-}" ]]; then
    # A process group of its own, so that stopping it stops the compilers.
    setsid bash -c "make -C '$LOAD_BUILD_DIR' clean >/dev/null 2>&1; CCACHE_DISABLE=1 make -C '$LOAD_BUILD_DIR' -j2 >/dev/null 2>&1" &
    load_pid=$!
    sleep 5
  fi
  echo "bench-emulation: run $k/$runs ($(uptime | sed 's/.*load average/load average/'))" >&2
  start=$SECONDS
  SHARDROOF_EMULATE_BLOCKING="" "$here/emulate-links.sh" test --bin "$bin" --out "$out/run-$k" "${extra[@]}" \
    > "$out/run-$k.log" 2>&1 || failed=1
  echo "bench-emulation: run $k took $((SECONDS - start)) s" >&2
  stop_load
  cat "$out/run-$k/summary.txt" 2>/dev/null || tail -20 "$out/run-$k.log"
done
/usr/bin/python3 - "$out" "$runs" <<'PY'
import json, os, sys
out, runs = sys.argv[1], int(sys.argv[2])
held = {}
for k in range(1, runs + 1):
    path = os.path.join(out, f"run-{k}", "judged.jsonl")
    if not os.path.exists(path):
        continue
    rows = [json.loads(l) for l in open(path)]
    for r in rows:
        for bound, ok in r["bounds"].items():
            key = (bound, f"{r['ranks']}:{r['rate_gbit']:g}")
            held.setdefault(key, []).append("ok" if ok else "FAIL")
print(f"\nbench-emulation: {runs} runs; per bound and configuration, the runs in which it held")
for (bound, cfg), v in sorted(held.items()):
    print(f"  {bound:<11} {cfg:<7} {v.count('ok')}/{len(v)}  {' '.join(v)}")
PY
exit $failed
