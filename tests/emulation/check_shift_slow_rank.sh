#!/usr/bin/env bash
# `link --pattern shift` over emulated links (scripts/emulate-links.sh) with
# one rank's link shaped slower than the others': the transfers to and from
# that rank must be the slow ones in the shift matrix.
#
#   tests/emulation/check_shift_slow_rank.sh <shardroof> <out dir>
#
# Functional (blocking): link succeeds, every transfer has a fit and its
# bytes check, each has an idle reference and a loaded/idle ratio. Timing
# (printed, not blocking until it held in 10 quiet runs and 3 under a
# parallel build): every transfer that touches the slow rank is slower than
# every transfer that does not. Exit 77 where emulation cannot run here.
set -euo pipefail
bin="$1"
out="$2"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ranks=3
slow=2
rate=1         # Gbit/s, every rank but the slow one
slow_rate=0.25 # the slow rank's link, both directions
mkdir -p "$out"
json="$out/link-shift-slow-rank.json"
rm -f "$json"
rc=0
"$repo/scripts/emulate-links.sh" run --bin "$bin" --ranks "$ranks" --rate "$rate" --slow-rank "$slow:$slow_rate" \
  -- link --pattern shift -b 512K -e 2M -f 2 -n 3 -w 1 --force --json "$json" > "$out/link-shift-slow-rank.txt" 2>&1 \
  || rc=$?
cat "$out/link-shift-slow-rank.txt"
[[ $rc == 77 ]] && exit 77
[[ $rc == 0 ]] || { echo "FAILED: link --pattern shift exited $rc"; exit 1; }
python3 - "$json" "$ranks" "$slow" "${SHARDROOF_EMULATE_SLOW_RANK_BLOCKING:-0}" <<'PY'
import json, sys
path, ranks, slow, blocking = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
doc = json.load(open(path))
bad = []
pairs = doc["pairs"]
if doc.get("pattern") != "shift":
    bad.append(f"pattern {doc.get('pattern')}")
if len(pairs) != ranks * (ranks - 1):
    bad.append(f"{len(pairs)} transfers, expected {ranks * (ranks - 1)}")
for p in pairs:
    if not p.get("W_bytes_per_s") or p.get("wrong") != 0 or not p.get("W_loaded_over_idle"):
        bad.append(f"transfer {p['src']}->{p['dst']}: W {p.get('W_bytes_per_s')}, wrong {p.get('wrong')}, "
                   f"ratio {p.get('W_loaded_over_idle')}")
if bad:
    print("FAILED: " + "; ".join(bad))
    sys.exit(1)
touching = [p for p in pairs if slow in (p["src"], p["dst"])]
others = [p for p in pairs if slow not in (p["src"], p["dst"])]
slowest_other = min(p["W_bytes_per_s"] for p in others)
fastest_touching = max(p["W_bytes_per_s"] for p in touching)
held = fastest_touching < slowest_other
print(f"shift matrix: transfers touching rank {slow}: W <= {fastest_touching / 1e6:.1f} MB/s; "
      f"the others: W >= {slowest_other / 1e6:.1f} MB/s -> slow rank "
      f"{'found' if held else 'NOT found'} ({'blocking' if blocking else 'reported, not blocking'})")
sys.exit(1 if blocking and not held else 0)
PY
