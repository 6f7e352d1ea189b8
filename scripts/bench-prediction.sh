#!/usr/bin/env bash
# Do the numbers reproduce between launches? Runs K launches of the default
# `shardroof sweep` (D = auto) and of `shardroof coll` (the ring at 1, 4
# and 16 MiB by default), one launch of each per slot, the slots spaced
# --spacing-s seconds apart (by default the K launches spread over at least
# ten minutes: one launch is one sample of the machine's state), and prints:
#
#  sweep, per launch: D* and its 95% interval, the stability verdict (T_comm
#    and T_math over the run), the book D* (the prediction) and its error,
#    the roofline D*, how the search stopped, the wall time and the load;
#    then the targets:
#     - coverage: launches whose interval holds the median D* of all
#       launches (an interval that also holds every launch's D*, the whole
#       range, counts as a miss: it says nothing), at least 8 of 10;
#     - launches that called themselves stable: none more than 25% from the
#       median of the stable ones, and the largest ratio between them;
#     - the book D* within 25% of the measured one in at least 8 of 10.
#  coll, per size and launch: the row's median time with its 95% interval
#    (a bootstrap over the launch's rounds) and its verdict; then the same
#    coverage per size.
#
# A benchmark, not a test: run it alone on the machine (it prints the load
# average beside every launch).
#
#   scripts/bench-prediction.sh [--launches K] [--spacing-s S] [--sizes 1M,4M,16M] [--out DIR] [-- sweep flags]
#
# Environment: BIN (default build/src/shardroof), NP (default 2).
# Exit status: 0 when every launch succeeded (whether or not the targets
# were met: the tables say), 1 when one failed, 2 on bad arguments.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
launches=10
spacing=""
sizes="1M,4M,16M"
out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --launches) launches="$2"; shift 2 ;;
    --spacing-s) spacing="$2"; shift 2 ;;
    --sizes) sizes="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "bench-prediction: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done
[[ "$launches" =~ ^[0-9]+$ && "$launches" -ge 2 ]] || { echo "bench-prediction: --launches needs 2 or more" >&2; exit 2; }
# Ten minutes from the first start to the last by default.
[[ -n "$spacing" ]] || spacing=$(( (600 + launches - 2) / (launches - 1) ))
[[ "$spacing" =~ ^[0-9]+$ ]] || { echo "bench-prediction: --spacing-s needs whole seconds" >&2; exit 2; }
BIN=${BIN:-$here/build/src/shardroof}
NP=${NP:-2}
OUT=${out:-$(mktemp -d /tmp/shardroof-bench-prediction.XXXXXX)}
mkdir -p "$OUT"
[[ -x "$BIN" ]] || { echo "bench-prediction: no shardroof at $BIN (set BIN)" >&2; exit 2; }
mpi_flags=(--oversubscribe --mca mpi_yield_when_idle 1)
if [[ "$(id -u)" -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
IFS=, read -r -a size_list <<< "$sizes"
min_size=${size_list[0]}
max_size=${size_list[${#size_list[@]}-1]}

echo "bench-prediction: $launches launches of \`mpirun -np $NP shardroof sweep $*\` and \`coll --impl ring -b $min_size -e $max_size\`, one of each every $spacing s, $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n); records in $OUT" >&2
failed=0
t0=$(date +%s)
for ((k = 1; k <= launches; k++)); do
  slot=$(( t0 + (k - 1) * spacing ))
  now=$(date +%s)
  (( slot > now )) && sleep $(( slot - now ))
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  start=$(date +%s.%N)
  if mpirun -np "$NP" "${mpi_flags[@]}" "$BIN" sweep --force --json "$OUT/sweep-$k.json" "$@" \
      > "$OUT/sweep-$k.txt" 2> "$OUT/sweep-$k.err"; then
    echo "$start $(date +%s.%N) $load" > "$OUT/sweep-$k.wall"
  else
    echo "bench-prediction: sweep launch $k failed:" >&2
    tail -5 "$OUT/sweep-$k.err" >&2
    failed=1
  fi
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  start=$(date +%s.%N)
  # The sizes as given: -f large enough that only they are measured.
  if mpirun -np "$NP" "${mpi_flags[@]}" "$BIN" coll --force --impl ring --json "$OUT/coll-$k.json" \
      -b "$min_size" -e "$max_size" -f 4 > "$OUT/coll-$k.txt" 2> "$OUT/coll-$k.err"; then
    echo "$start $(date +%s.%N) $load" > "$OUT/coll-$k.wall"
  else
    echo "bench-prediction: coll launch $k failed:" >&2
    tail -5 "$OUT/coll-$k.err" >&2
    failed=1
  fi
  echo "bench-prediction: launch $k of $launches done ($(date -u '+%H:%M:%S UTC'), load $load)" >&2
done

/usr/bin/python3 - "$OUT" "$launches" <<'PY'
import json, os, statistics, sys, time
out, launches = sys.argv[1], int(sys.argv[2])


def f(v, spec=".1f"):
    return "-" if v is None else format(v, spec)


def load(kind, k):
    try:
        doc = json.load(open(os.path.join(out, f"{kind}-{k}.json")))
        t0, t1, *la = open(os.path.join(out, f"{kind}-{k}.wall")).read().split()
        return doc, float(t0), float(t1), " ".join(la)
    except (OSError, ValueError):
        return None, None, None, None


def coverage(values, intervals):
    """Launches whose interval holds the median of all launches' values,
    an interval holding every value (the whole range) counting as a miss."""
    vals = [v for v in values if v is not None]
    if not vals:
        return 0, 0, None
    med = statistics.median(vals)
    lo_all, hi_all = min(vals), max(vals)
    hits = 0
    for v, ci in zip(values, intervals):
        if v is None or ci is None:
            continue
        lo = ci[0] if ci[0] is not None else 0.0
        hi = ci[1] if ci[1] is not None else float("inf")
        whole = lo <= lo_all and hi >= hi_all and hi_all > lo_all
        hits += lo <= med <= hi and not whole
    return hits, len(vals), med


print("\n## sweep (D = auto), one launch per slot")
print("| launch | start (UTC) | load | D* | 95% interval | stability | book D* | error | roofline D* | stop | wall s |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
Ds, cis, stable, books = [], [], [], []
for k in range(1, launches + 1):
    doc, t0, t1, la = load("sweep", k)
    if doc is None:
        print(f"| {k} | failed | | | | | | | | | |")
        Ds.append(None); cis.append(None); stable.append(False); books.append(None)
        continue
    cr, st = doc["crossover"], doc.get("stability") or {}
    d, ci = cr["D_empirical"], cr["D_empirical_ci"]
    verdict = st.get("verdict", "-")
    parts = [f"{q} {st[q]['verdict']}" + (f" {st[q]['max_ratio']:.1f}x" if st[q]["verdict"] == "unstable" else "")
             for q in ("t_comm", "t_math") if q in st]
    roof = cr.get("D_roofline") or {}
    nc = cr.get("no_crossover")
    shown = "none (below the floor)" if nc else f(d)
    # No crossover counts as D* = 0 (below every D), with the interval
    # from 0 to the largest state's crossing where a state has one.
    if nc:
        d, ci = 0.0, [0.0, (ci or [None, 0.0])[1] or 0.0]
    Ds.append(d)
    cis.append(ci if d is not None else None)
    stable.append(verdict == "stable" and d is not None)
    books.append((cr.get("D_book"), cr.get("book_rel_error")))
    search = cr.get("search", {})
    print(f"| {k} | {time.strftime('%H:%M:%S', time.gmtime(t0))} | {la} | {shown} | "
          f"{'-' if not ci else '[' + f(ci[0]) + ', ' + f(ci[1]) + ']'} | {verdict}: {', '.join(parts)} | "
          f"{f(cr.get('D_book'))} | {f(None if cr.get('book_rel_error') is None else 100 * cr['book_rel_error'], '+.1f')}% | "
          f"{f(roof.get('D'))} {roof.get('roof') or roof.get('kind', '')} | {search.get('stop', '-')} | {t1 - t0:.0f} |")
hits, n, med = coverage(Ds, cis)
print(f"\ncoverage: {hits} of {n} launches' intervals hold the median D* of all launches ({f(med)}), an interval "
      f"holding the whole range [{f(min((d for d in Ds if d is not None), default=None))}, "
      f"{f(max((d for d in Ds if d is not None), default=None))}] counting as a miss; target at least 8 of 10")
sd = [d for d, s in zip(Ds, stable) if s and d > 0]
if sd:
    m = statistics.median(sd)
    worst = max(abs(d - m) / m for d in sd)
    print(f"stable launches: {len(sd)}; the largest ratio between their D*s {max(sd) / min(sd):.2f}; the furthest "
          f"{100 * worst:.0f}% from their median {m:.1f} (target: none more than 25%)")
else:
    print("stable launches: none")
within = sum(1 for b, e in books if e is not None and abs(e) <= 0.25)
print(f"book D* within 25% of the measured D*: {within} of {sum(1 for d in Ds if d is not None)} launches "
      f"(target at least 8 of 10)")

print("\n## coll (ring, out of place), one launch per slot: median time us [95% interval], verdict")
rows = {}
for k in range(1, launches + 1):
    doc, t0, t1, la = load("coll", k)
    if doc is None:
        continue
    for r in doc["results"]:
        if r["impl"] != "ring" or r["in_place"]:
            continue
        rows.setdefault(r["bytes"], {})[k] = (r["time_us"]["median"], r.get("time_us_ci95"),
                                             (r.get("stability") or {}).get("verdict", "-"))
sizes = sorted(rows)
print("| launch | " + " | ".join(f"{b // 1048576} MiB" if b >= 1048576 else f"{b} B" for b in sizes) + " |")
print("|---|" + "---|" * len(sizes))
for k in range(1, launches + 1):
    cells = []
    for b in sizes:
        v = rows[b].get(k)
        cells.append("-" if v is None else f"{v[0]:.1f} [{v[1][0]:.1f}, {v[1][1]:.1f}] {v[2]}")
    print(f"| {k} | " + " | ".join(cells) + " |")
for b in sizes:
    vals = [rows[b].get(k, (None, None, None))[0] for k in range(1, launches + 1)]
    ints = [rows[b].get(k, (None, None, None))[1] for k in range(1, launches + 1)]
    hits, n, med = coverage(vals, ints)
    good = [v for v in vals if v is not None]
    print(f"coll {b // 1048576} MiB: coverage {hits} of {n} (median of launches {f(med)} us; launches "
          f"{f(min(good, default=None))} .. {f(max(good, default=None))} us)")
PY
exit "$failed"
