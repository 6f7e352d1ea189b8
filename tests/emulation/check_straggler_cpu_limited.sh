#!/usr/bin/env bash
# `sweep` over emulated links (scripts/emulate-links.sh, 3 ranks on 1 Gbit/s
# links) with rank 1 held to 0.15 of a CPU (--cpu-limit, a cgroup cpu
# quota): rank 1 must be the straggler named, on the console and in the
# point's "straggler" record. In T_math each rank computes alone, so the
# limited rank's several-fold longer time does not depend on the links.
# Blocking.
#
#   tests/emulation/check_straggler_cpu_limited.sh <shardroof> <out dir>
#
# About 5 s. Exit 77 where emulation or a cgroup cpu quota cannot be set up.
set -euo pipefail
bin="$1"
out="$2"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ranks=3
limited=1
share=0.15
mkdir -p "$out"
json="$out/sweep-cpu-limited.json"
txt="$out/sweep-cpu-limited.txt"
rm -f "$json"
rc=0
"$repo/scripts/emulate-links.sh" run --bin "$bin" --ranks "$ranks" --rate 1 --cpu-limit "$limited:$share" \
  -- sweep -v --D 4096 --B 512 --F 512 --iters 5 --warmup 1 --force --json "$json" >"$txt" 2>&1 || rc=$?
cat "$txt"
[[ $rc == 77 ]] && exit 77
[[ $rc == 0 ]] || { echo "FAILED: sweep exited $rc"; exit 1; }
named=$(grep '^# straggler at' "$txt" || true)
[[ -n "$named" ]] || { echo "FAILED: no straggler named; rank $limited ran on $share of a CPU"; exit 1; }
if grep '^# straggler at' "$txt" | grep -qv ": rank $limited "; then
  echo "FAILED: a rank other than the limited rank $limited was named"
  exit 1
fi
python3 - "$json" "$limited" <<'PY'
import json, sys
path, limited = sys.argv[1], int(sys.argv[2])
points = json.load(open(path))["points"]
bad = [f"D={p['D']}: straggler {p.get('straggler')}" for p in points
       if not p.get("straggler") or p["straggler"]["rank"] != limited]
if not points or bad:
    sys.exit("FAILED: the record does not name rank %d: %s" % (limited, "; ".join(bad) or "no points"))
print(f"ok: rank {limited} named as the straggler at every D, on the console and in the record")
PY
