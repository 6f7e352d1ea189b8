#!/usr/bin/env bash
# `link --expect-W` over emulated links (scripts/emulate-links.sh): 3 ranks,
# each its own emulated host, rank 2's link shaped to a quarter of the
# others'. The expectation is half the configured rate: the other pairs
# reach about 0.96 of it (TCP payload through tbf), the pairs of rank 2 at
# most a quarter, each a factor of about two from the expectation. Checked
# (blocking): exit status 6, the pairs of rank 2 and only they fell short,
# each named with its ranks on the report and in the record's "gate".
#
#   tests/emulation/check_gate_slow_host.sh <shardroof> <out dir>
#
# About 5 s. Exit 77 where emulation cannot run here.
set -euo pipefail
bin="$1"
out="$2"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ranks=3
slow=2
rate=1         # Gbit/s, every rank but the slow one
slow_rate=0.25 # the slow rank's link, both directions
expect=$(awk -v g="$rate" 'BEGIN { printf "%.0fB/s", 0.5 * g * 1e9 / 8 }') # bytes/s, unit written out
mkdir -p "$out"
json="$out/link-gate-slow-host.json"
txt="$out/link-gate-slow-host.txt"
rm -f "$json"
rc=0
"$repo/scripts/emulate-links.sh" run --bin "$bin" --ranks "$ranks" --rate "$rate" --slow-rank "$slow:$slow_rate" \
  -- link -b 512K -e 2M -f 2 -n 3 -w 1 --expect-W "$expect" --force --json "$json" >"$txt" 2>&1 || rc=$?
cat "$txt"
[[ $rc == 77 ]] && exit 77
[[ $rc == 6 ]] || { echo "FAILED: link --expect-W $expect exited $rc, expected 6 (a shortfall)"; exit 1; }
for pair in "0-$slow" "1-$slow"; do
  grep -q "^# gate: SHORT: pair $pair W .* expected at least" "$txt" || { echo "FAILED: no shortfall of pair $pair"; exit 1; }
done
grep -q "^shardroof: gate failed: 2 of 3 checks fell short" "$txt" || { echo "FAILED: no 'gate failed' line"; exit 1; }
python3 - "$json" "$slow" "${expect%B/s}" <<'PY'
import json, sys
path, slow, expect = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
gate = json.load(open(path))["gate"]
bad = []
if gate["exit_status"] != 6 or gate["passed"]:
    bad.append(f"verdict passed={gate['passed']} exit_status={gate['exit_status']}")
for c in gate["checks"]:
    ranks = {int(r) for r in c["what"].split()[1].split("-")}
    touches = slow in ranks
    if c["passed"] == touches:
        bad.append(f"{c['what']}: passed={c['passed']} (measured {c['measured']:.3g} B/s, expected >= {expect:.3g})")
    if not c["passed"] and f"ranks {min(ranks)} and {max(ranks)}" not in c["where"]:
        bad.append(f"{c['what']}: where '{c['where']}' does not name its ranks")
if len(gate["checks"]) != 3:
    bad.append(f"{len(gate['checks'])} checks, expected 3 pairs")
if bad:
    sys.exit("FAILED: " + "; ".join(bad))
print(f"ok: the {sum(not c['passed'] for c in gate['checks'])} pairs of rank {slow} fell short of "
      f"{expect / 1e6:g} MB/s, the other passed; exit status 6")
PY
