#!/usr/bin/env bash
# The emulator measured against a wire: `link`'s ping-pong over one emulated
# link (2 ranks, scripts/emulate-links.sh) from 4 KiB to 16 MiB, at each
# shaped rate and each tbf burst asked for, and a table of every size's
# one-way time against the wire's alpha + m/W:
#
#   W      the line rate x 0.96 (TCP payload over Ethernet framing on the
#          shaped bytes: scripts/emulate-links.sh), not fitted;
#   alpha  fitted to the sizes below 64 KiB with W fixed (the latency part);
#   ratio  measured / (alpha + m/W) per size: a wire is within 5% at every
#          size; a shaper's head start shows as ratios below 1 at the sizes
#          that fit inside its burst, a knee at the burst.
#
#   sudo scripts/bench-emulator.sh [--rates "0.5 1"] [--bursts "4096 16384 65536 262144"] [--out DIR]
#
# A benchmark, not a test: run it alone on the machine (the load average is
# printed beside the table). Environment: BIN (default build/src/shardroof).
# Exit status: 0 when every run succeeded (whether or not the links were
# within 5%: the table says), 1 when one failed, 2 on bad arguments, 77
# where links cannot be emulated here.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rates="0.5 1"
bursts="4096 16384 65536 262144"
out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rates) rates="$2"; shift 2 ;;
    --bursts) bursts="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "bench-emulator: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done
BIN=${BIN:-$here/build/src/shardroof}
OUT=${out:-$(mktemp -d /tmp/shardroof-bench-emulator.XXXXXX)}
mkdir -p "$OUT"
echo "bench-emulator: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n), kernel $(uname -r), CONFIG_HZ $(grep -s "^CONFIG_HZ=" /boot/config-$(uname -r) | cut -d= -f2 || echo unknown); load $(cut -d' ' -f1-3 /proc/loadavg); records in $OUT" >&2
failed=0
for rate in $rates; do
  for burst in $bursts; do
    tag="${rate}gbit-burst${burst}"
    rc=0
    SHARDROOF_EMULATE_TBF_BURST="$burst" "$here/scripts/emulate-links.sh" run --bin "$BIN" --ranks 2 --rate "$rate" -- \
      link -b 4K -e 16M -f 2 --force --json "$OUT/link-$tag.json" > "$OUT/link-$tag.txt" 2>&1 || rc=$?
    [[ $rc == 77 ]] && { grep SKIPPED "$OUT/link-$tag.txt" >&2; exit 77; }
    [[ $rc == 0 ]] || { echo "bench-emulator: $tag failed (status $rc, $OUT/link-$tag.txt)" >&2; failed=1; }
    echo "bench-emulator: $tag done, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  done
done
python3 - "$OUT" $rates -- $bursts <<'PY' | tee "$OUT/table.txt"
import json, os, sys
out = sys.argv[1]
sep = sys.argv.index("--")
rates, bursts = sys.argv[2:sep], sys.argv[sep + 1:]
rows = []
for rate in rates:
    for burst in bursts:
        path = os.path.join(out, f"link-{rate}gbit-burst{burst}.json")
        if not os.path.exists(path):
            continue
        doc = json.load(open(path))
        pair = doc["pairs"][0]
        W = float(rate) * 1e9 / 8 * 0.96
        times = [(t["bytes"], t["one_way_s"]["median"]) for t in pair["times"]]
        small = [(m, t) for m, t in times if m < 65536]
        alpha = max(0.0, sum(t - m / W for m, t in small) / len(small)) if small else 0.0
        ratios = [(m, t / (alpha + m / W)) for m, t in times]
        worst = max(ratios, key=lambda r: abs(r[1] - 1))
        within = sum(1 for _, r in ratios if abs(r - 1) <= 0.05)
        rows.append((rate, int(burst), alpha, pair.get("W_bytes_per_s"), ratios, worst, within))
sizes = sorted({m for r in rows for m, _ in r[4]})
def size(m):
    return f"{m >> 20}M" if m >= 1 << 20 else f"{m >> 10}K"
print("rate Gbit/s  burst B  alpha us  fit W/line  " + "  ".join(f"{size(m):>5}" for m in sizes) + "  within 5%  worst")
for rate, burst, alpha, fit_w, ratios, worst, within in rows:
    line_w = float(rate) * 1e9 / 8 * 0.96
    by = dict(ratios)
    cells = "  ".join(f"{by[m]:5.2f}" if m in by else "    -" for m in sizes)
    fw = f"{fit_w / line_w:10.3f}" if fit_w else "         -"
    print(f"{rate:>11}  {burst:>7}  {alpha * 1e6:8.1f}  {fw}  {cells}  {within:>3} of {len(ratios):<3}  "
          f"{size(worst[0])} {worst[1]:.2f}")
print("ratio: measured one-way time / (alpha + m / (0.96 x line rate)); alpha from the sizes below 64 KiB")
PY
exit $failed
