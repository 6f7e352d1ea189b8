#!/usr/bin/env bash
# The emulator against a wire: one emulated link (2 ranks,
# scripts/emulate-links.sh), 4 KiB to 16 MiB in steps of 2, at each rate and
# with each shaper, timed twice: Open MPI's ping-pong (`shardroof link`) and
# a plain TCP ping-pong on the same link (scripts/tcp_pingpong.py: blocking
# sockets, no MPI: the link and the kernel's TCP alone). Per size, the
# median one-way time against a wire's  alpha + m / W:
#
#   W      not fitted: the shaped rate times TCP's payload share of a frame,
#          (MTU - 52) / (MTU + 14) (IPv4 and TCP headers with timestamps
#          against the bytes tc counts: 1448 / 1514 = 0.956 for MTU 1500);
#   alpha  fitted with W fixed, least squares in relative error (so the
#          small sizes, where alpha is most of the time, weigh the most);
#   ratio  measured / (alpha + m / W): a wire is within 5% at every size; a
#          shaper's head start shows as ratios below 1 up to its burst and a
#          knee there.
# Each table also gives a free fit (alpha and W both fitted, relative
# error) as W_fit / W.
#
#   sudo scripts/bench-emulator.sh --bin build/src/shardroof [--rates "0.5 1"]
#        [--shapers "netem tbf htb tbf@262144"] [--iters 10] [--out DIR]
#
# A shaper is netem, tbf or htb as emulate-links.sh --shaper sets it up
# (its parameters are printed), or tbf@BYTES: tbf with that burst
# (SHARDROOF_EMULATE_TBF_BURST; tbf@262144 is the burst these links had
# before: max(256 KiB, rate x 1 ms)). A shaper this kernel lacks is named
# and skipped. About 30 s per shaper and rate with the defaults (10
# iterations and 2 warm-up round trips per size, twice; the 16 MiB round
# trip alone takes 0.56 s at 0.5 Gbit/s). A benchmark, not a test: run it
# alone; the load average is printed beside every table and the date,
# kernel, HZ, timer resolution and congestion control above them. The
# tables go to stdout and DIR/table.txt, each run's record and console to
# DIR. Exit status: 0 every run that could run succeeded, 1 one failed,
# 2 usage, 77 no shaper could run here.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
usage() { sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
bin=""
rates="0.5 1"
shapers="netem tbf htb tbf@262144"
iters=10
out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --rates) rates="$2"; shift 2 ;;
    --shapers) shapers="$2"; shift 2 ;;
    --iters) iters="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) usage ;;
    *) echo "unknown argument: $1" >&2; usage ;;
  esac
done
[[ -n "$bin" && -x "$bin" ]] || { echo "--bin: no shardroof executable at '$bin'" >&2; exit 2; }
[[ "$iters" =~ ^[1-9][0-9]*$ ]] || { echo "--iters: a positive integer, got '$iters'" >&2; exit 2; }
for s in $shapers; do
  [[ "$s" =~ ^(netem|tbf|htb|tbf@[1-9][0-9]*)$ ]] || { echo "--shapers: netem, tbf, htb or tbf@BYTES, got '$s'" >&2; exit 2; }
done
python="$(command -v /usr/bin/python3 || command -v python3 || true)"
[[ -n "$python" ]] || { echo "SKIPPED: python3 not found" >&2; exit 77; }
out="${out:-$(mktemp -d /tmp/shardroof-bench-emulator.XXXXXX)}"
mkdir -p "$out"
rm -f "$out"/*.json "$out"/*.txt "$out"/runs.tsv
load() { cut -d' ' -f1-3 /proc/loadavg; }
hz="$(zcat /proc/config.gz 2>/dev/null | sed -n 's/^CONFIG_HZ=//p' || true)"
[[ -n "$hz" ]] || hz="$(sed -n 's/^CONFIG_HZ=//p' "/boot/config-$(uname -r)" 2>/dev/null || true)"
{
  echo "# the emulator against a wire: link ping-pong, 2 ranks on one emulated link; $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "# $(nproc) CPUs ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)), kernel $(uname -r), HZ ${hz:-unknown}," \
    "timer resolution $(awk '/\.resolution:/ { print $2 " ns"; exit }' /proc/timer_list 2>/dev/null || echo unknown)," \
    "congestion control $(sysctl -n net.ipv4.tcp_congestion_control 2>/dev/null || echo unknown)"
  echo "# link -b 4K -e 16M -f 2 -n $iters -w 2 and tcp_pingpong.py --iters $iters --warmup 2 (medians of $iters round trips / 2 per size)"
} > "$out/header.txt"
failed=0
ran=0
sizes="$(python3 -c 'print(",".join(str(4096 << i) for i in range(13)))')"
for shaper in $shapers; do
  for rate in $rates; do
    tag="${shaper/@/-burst}-${rate}gbit"
    env_burst=()
    kind="$shaper"
    if [[ "$shaper" == tbf@* ]]; then kind=tbf; env_burst=(SHARDROOF_EMULATE_TBF_BURST="${shaper#tbf@}"); fi
    skipped=0
    # The same link twice: Open MPI's ping-pong (`link`), then a plain TCP one.
    for probe in link tcp; do
      before="$(load)"
      rc=0
      if [[ $probe == link ]]; then
        env "${env_burst[@]}" "$repo/scripts/emulate-links.sh" run --bin "$bin" --ranks 2 --rate "$rate" --shaper "$kind" -- \
          link -b 4K -e 16M -f 2 -n "$iters" -w 2 --force --json "$out/$probe-$tag.json" > "$out/$probe-$tag.txt" 2>&1 || rc=$?
      else
        env "${env_burst[@]}" "$repo/scripts/emulate-links.sh" run --bin "$repo/scripts/tcp_pingpong.py" --ranks 2 \
          --rate "$rate" --shaper "$kind" -- --sizes "$sizes" --iters "$iters" --warmup 2 --json "$out/$probe-$tag.json" \
          > "$out/$probe-$tag.txt" 2>&1 || rc=$?
      fi
      after="$(load)"
      if [[ $rc == 77 ]]; then
        echo "bench-emulator: $shaper at $rate Gbit/s: $(grep -m1 SKIPPED "$out/$probe-$tag.txt" || echo skipped)" >&2
        skipped=1
        break
      fi
      if [[ $rc != 0 ]]; then
        cat "$out/$probe-$tag.txt" >&2
        echo "FAILED: $probe, $shaper at $rate Gbit/s exited $rc" >&2
        failed=1
        continue
      fi
      ran=1
      words="$(sed -n 's/.*(shaper: \(.*\)).*/\1/p' "$out/$probe-$tag.txt" | head -1)"
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$shaper" "$rate" "$probe" "$out/$probe-$tag.json" "$before" "$after" "$words" \
        >> "$out/runs.tsv"
      echo "bench-emulator: $probe, $shaper at $rate Gbit/s done, load average $after" >&2
    done
    [[ $skipped == 1 ]] && break
  done
done
[[ $ran == 1 ]] || { echo "SKIPPED: no shaper could run here" >&2; exit 77; }
"$python" - "$out/runs.tsv" "$out/header.txt" <<'PY' | tee "$out/table.txt"
import json, re, sys

runs, header = sys.argv[1], sys.argv[2]
print(open(header).read(), end="")
print("# W = rate x (MTU - 52) / (MTU + 14), not fitted; alpha fitted with W fixed (least squares in relative")
print("# error); ratio = measured / (alpha + m / W), 'ok' within 5%. link: Open MPI's ping-pong (shardroof link);")
print("# tcp: a plain TCP ping-pong on the same link (scripts/tcp_pingpong.py: blocking sockets, no MPI).")


def size(m):
    return f"{m >> 20}Mi" if m >= 1 << 20 else f"{m >> 10}Ki"


def fit(pts, W):
    alpha = sum((t - m / W) / t ** 2 for m, t in pts) / sum(1 / t ** 2 for _, t in pts)
    # The free fit of both: least squares of (t - a - b m) / t.
    s11 = sum(1 / t ** 2 for m, t in pts); s12 = sum(m / t ** 2 for m, t in pts)
    s22 = sum(m * m / t ** 2 for m, t in pts); r1 = sum(1 / t for m, t in pts); r2 = sum(m / t for m, t in pts)
    b = (s11 * r2 - s12 * r1) / (s11 * s22 - s12 * s12)
    return alpha, (1 / b if b > 0 else float("nan"))


groups = {}
for line in open(runs):
    shaper, rate, probe, path, before, after, words = line.rstrip("\n").split("\t")
    groups.setdefault((shaper, rate), {})[probe] = (path, before, after, words)
summary = []
for (shaper, rate), probes in groups.items():
    words = next(iter(probes.values()))[3]
    frame = int(re.search(r"frames? of (\d+) B", words).group(1))
    W = float(rate) * 1e9 / 8 * (frame - 14 - 52) / frame
    print(f"\n# {shaper} at {rate} Gbit/s: {words}")
    print(f"# W = {W / 1e6:.2f} MB/s")
    cols = {}
    for probe in ("tcp", "link"):
        if probe not in probes:
            continue
        path, before, after, _ = probes[probe]
        pts = [(t["bytes"], t["one_way_s"]["median"]) for t in json.load(open(path))["pairs"][0]["times"]]
        alpha, W_free = fit(pts, W)
        cols[probe] = {m: (t, t / (alpha + m / W)) for m, t in pts}
        within = sum(1 for _, r in cols[probe].values() if abs(r - 1) <= 0.05)
        worst = max(cols[probe].items(), key=lambda kv: abs(kv[1][1] - 1))
        print(f"# {probe}: alpha = {alpha * 1e6:.1f} us, free fit W_fit/W = {W_free / W:.3f};"
              f" load average {before} before, {after} after")
        summary.append((shaper, rate, probe, within, len(pts), f"{size(worst[0])} {worst[1][1]:.3f}", alpha, W_free / W,
                        after))
    head = f"{'size':>6}"
    for probe in cols:
        head += f" {probe + ' us':>11} {'ratio':>6} {'':4}"
    print(head)
    for m in sorted({m for c in cols.values() for m in c}):
        row = f"{size(m):>6}"
        for probe, c in cols.items():
            t, r = c.get(m, (float("nan"), float("nan")))
            row += f" {t * 1e6:11.1f} {r:6.3f} {'ok' if abs(r - 1) <= 0.05 else 'MISS':4}"
        print(row)
print("\n# summary: sizes within 5% of alpha + m/W; the worst size and its ratio; alpha; the free fit's W")
print(f"{'shaper':>12} {'Gbit/s':>6} {'probe':>5} {'within 5%':>10} {'worst':>13} {'alpha us':>9} {'W_fit/W':>8}  load after")
for shaper, rate, probe, ok, n, worst, alpha, wf, after in summary:
    print(f"{shaper:>12} {rate:>6} {probe:>5} {f'{ok} of {n}':>10} {worst:>13} {alpha * 1e6:9.1f} {wf:8.3f}  {after}")
PY
exit $failed
