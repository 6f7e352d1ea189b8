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
#  Across launches, through `shardroof combine`:
#   - --calibrate N: first N launches of each, with the settings of the
#     launches judged (a prediction is for the next launch of the same
#     settings: shorter calibration launches read D* about 25% higher here),
#     combined into a prediction, its launches spread over the same span
#     as the judged ones (--calibrate-spacing-s S apart; by default the
#     judged launches' span over N-1: a prediction made from launches
#     run back to back saw minutes of the machine and was judged over ten,
#     and missed where the machine drifted between them); --calibrate-budget-s S gives the
#     calibration sweeps --budget-s S (what scripts/quickstart.sh main runs
#     with 20) instead; or --prediction FILE and
#     --coll-prediction FILE, combine records made before. Then: how many
#     of the K launches land inside the prediction interval for the next
#     launch (at least 8 of 10; an interval that holds every launch and is
#     wider than 2x counts as a miss);
#   - judged in its state: every sweep launch runs with --history (FILE,
#     or the prediction), so its own ceilings' levels place it in one of
#     the prediction's states (the collective's time at S, the ring probe's
#     W, the GEMM's rate); the table says how often a state was identified
#     and how often D* landed inside its state's interval. coll: each
#     row's time placed among that row's states the same way (the rule of
#     launches/states.h: within max(material ratio, z x sqrt(the launch's
#     noise^2 + the state's spread^2)), the nearest state), per size;
#   - --history FILE: every sweep launch runs with it, and the table says
#     how often launch k's interval for the next launch holds launch k+1's
#     D* (at least 8 of 10);
#   - the K launches combined (the combined tables), and the book's
#     interval judged on combined answers: every three consecutive launches
#     combined, how often the book's interval holds their D* (at least 8
#     of 10: 12 launches give 10 such answers), and the input that widens
#     the book's interval most.
#
# --emulate RATE runs every launch (calibration and judged) over emulated
# links of RATE Gbit/s instead of the machine's own:
# `scripts/emulate-links.sh run --ranks NP --rate RATE` (needs root; its
# shaper as SHARDROOF_EMULATE_SHAPER says, its slack measured afresh in
# each launch, as a launch on a cluster meets its links as they are).
# Between ranks of one node, where T_comm at S lies near the GEMM's floor,
# D* is ill-conditioned (the sweep says so): emulated links show whether
# the states and their predictions hold where the link, not the floor,
# sets D*.
#
# A benchmark, not a test: run it alone on the machine (it prints the load
# average beside every launch).
#
#   scripts/bench-prediction.sh [--launches K] [--spacing-s S] [--sizes 1M,4M,16M] [--out DIR]
#       [--calibrate N] [--calibrate-spacing-s S] [--calibrate-budget-s S] [--prediction FILE]
#       [--coll-prediction FILE] [--history FILE] [--emulate RATE]
#       [-- sweep flags]
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
calibrate=0
calibrate_budget=""
calibrate_spacing=""
prediction=""
coll_prediction=""
history=""
emulate=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --calibrate) calibrate="$2"; shift 2 ;;
    --calibrate-budget-s) calibrate_budget="$2"; shift 2 ;;
    --calibrate-spacing-s) calibrate_spacing="$2"; shift 2 ;;
    --prediction) prediction="$2"; shift 2 ;;
    --coll-prediction) coll_prediction="$2"; shift 2 ;;
    --history) history="$2"; shift 2 ;;
    --emulate) emulate="$2"; shift 2 ;;
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
[[ -z "$emulate" || "$emulate" =~ ^[0-9]*\.?[0-9]+$ ]] || { echo "bench-prediction: --emulate needs a rate in Gbit/s, got '$emulate'" >&2; exit 2; }
# launch <shardroof args...>: one launch on NP ranks, on this machine's
# links or over emulated ones.
launch() {
  if [[ -n "$emulate" ]]; then
    "$here/scripts/emulate-links.sh" run --bin "$BIN" --ranks "$NP" --rate "$emulate" -- "$@"
  else
    mpirun -np "$NP" "${mpi_flags[@]}" "$BIN" "$@"
  fi
}
links="this machine's links"
[[ -n "$emulate" ]] && links="emulated links of $emulate Gbit/s (scripts/emulate-links.sh)"
IFS=, read -r -a size_list <<< "$sizes"
min_size=${size_list[0]}
max_size=${size_list[${#size_list[@]}-1]}

[[ "$calibrate" =~ ^[0-9]+$ && ( "$calibrate" == 0 || "$calibrate" -ge 2 ) ]] || { echo "bench-prediction: --calibrate needs 0 or 2 and more" >&2; exit 2; }
for f in "$prediction" "$coll_prediction" "$history"; do
  [[ -z "$f" || -r "$f" ]] || { echo "bench-prediction: cannot read '$f'" >&2; exit 2; }
done
history_flags=()
[[ -n "$history" ]] && history_flags=(--history "$history")

# Calibration: N shorter launches of the sweep and N of coll, combined
# into the predictions the K launches are judged against.
if (( calibrate > 0 )); then
  # The judged launches' span, over the calibration's N-1 gaps.
  [[ -n "$calibrate_spacing" ]] || calibrate_spacing=$(( spacing * (launches - 1) / (calibrate - 1) ))
  [[ "$calibrate_spacing" =~ ^[0-9]+$ ]] || { echo "bench-prediction: --calibrate-spacing-s needs whole seconds" >&2; exit 2; }
  cal_flags=()
  [[ -n "$calibrate_budget" ]] && cal_flags=(--budget-s "$calibrate_budget" --min-span-s "$(( calibrate_budget * 2 / 5 ))")
  echo "bench-prediction: calibration: $calibrate launches of sweep${cal_flags[*]+ ${cal_flags[*]}} and of coll, one of each every $calibrate_spacing s, then combine, over $links ($(date -u '+%H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  cal_sweeps=() cal_colls=()
  c0=$(date +%s)
  for ((k = 1; k <= calibrate; k++)); do
    slot=$(( c0 + (k - 1) * calibrate_spacing ))
    now=$(date +%s)
    (( slot > now )) && sleep $(( slot - now ))
    echo "$(date +%s.%N) $(cut -d' ' -f1-3 /proc/loadavg)" > "$OUT/cal-$k.start"
    launch sweep --force --json "$OUT/cal-sweep-$k.json" \
      ${cal_flags[@]+"${cal_flags[@]}"} "$@" \
      > "$OUT/cal-sweep-$k.txt" 2> "$OUT/cal-sweep-$k.err" || { echo "bench-prediction: calibration sweep $k failed" >&2; exit 1; }
    launch coll --force --impl ring --json "$OUT/cal-coll-$k.json" \
      -b "$min_size" -e "$max_size" -f 4 > "$OUT/cal-coll-$k.txt" 2> "$OUT/cal-coll-$k.err" \
      || { echo "bench-prediction: calibration coll $k failed" >&2; exit 1; }
    cal_sweeps+=("$OUT/cal-sweep-$k.json")
    cal_colls+=("$OUT/cal-coll-$k.json")
  done
  "$BIN" combine "${cal_sweeps[@]}" --force --json "$OUT/prediction-sweep.json" > "$OUT/prediction-sweep.txt"
  "$BIN" combine "${cal_colls[@]}" --force --json "$OUT/prediction-coll.json" > "$OUT/prediction-coll.txt"
  prediction="$OUT/prediction-sweep.json"
  coll_prediction="$OUT/prediction-coll.json"
fi
# Each launch places itself in the prediction's states by its own levels.
# A prediction with no D* (its launches located no crossover: combine's
# "D": null) still has states, which predict no crossover; one made
# before states has nothing for a launch to expect: the launches run
# without it.
if [[ -z "$history" && -n "$prediction" ]]; then
  if /usr/bin/python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); sys.exit(0 if j.get("D") or j.get("states") else 1)' "$prediction"; then
    history_flags=(--history "$prediction")
  else
    echo "bench-prediction: $prediction has neither D* nor states: the launches run without --history" >&2
  fi
fi

echo "bench-prediction: $launches launches of \`mpirun -np $NP shardroof sweep $*\` and \`coll --impl ring -b $min_size -e $max_size\`, one of each every $spacing s, over $links, $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n); records in $OUT" >&2
failed=0
t0=$(date +%s)
for ((k = 1; k <= launches; k++)); do
  slot=$(( t0 + (k - 1) * spacing ))
  now=$(date +%s)
  (( slot > now )) && sleep $(( slot - now ))
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  start=$(date +%s.%N)
  if launch sweep --force --json "$OUT/sweep-$k.json" ${history_flags[@]+"${history_flags[@]}"} "$@" \
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
  if launch coll --force --impl ring --json "$OUT/coll-$k.json" \
      -b "$min_size" -e "$max_size" -f 4 > "$OUT/coll-$k.txt" 2> "$OUT/coll-$k.err"; then
    echo "$start $(date +%s.%N) $load" > "$OUT/coll-$k.wall"
  else
    echo "bench-prediction: coll launch $k failed:" >&2
    tail -5 "$OUT/coll-$k.err" >&2
    failed=1
  fi
  echo "bench-prediction: launch $k of $launches done ($(date -u '+%H:%M:%S UTC'), load $load)" >&2
done

# Across launches: the K launches combined, and every three consecutive
# sweep launches combined (the book's interval judged on each).
ok_sweeps=() ok_colls=()
for ((k = 1; k <= launches; k++)); do
  [[ -s "$OUT/sweep-$k.json" ]] && ok_sweeps+=("$OUT/sweep-$k.json")
  [[ -s "$OUT/coll-$k.json" ]] && ok_colls+=("$OUT/coll-$k.json")
done
(( ${#ok_sweeps[@]} >= 2 )) && "$BIN" combine "${ok_sweeps[@]}" --force --json "$OUT/combined-sweep.json" \
  > "$OUT/combined-sweep.txt" 2>&1 || true
(( ${#ok_colls[@]} >= 2 )) && "$BIN" combine "${ok_colls[@]}" --force --json "$OUT/combined-coll.json" \
  > "$OUT/combined-coll.txt" 2>&1 || true
for ((k = 1; k + 2 <= launches; k++)); do
  "$BIN" combine "$OUT/sweep-$k.json" "$OUT/sweep-$((k + 1)).json" "$OUT/sweep-$((k + 2)).json" --force \
    --json "$OUT/triple-$k.json" > "$OUT/triple-$k.txt" 2>&1 || true
done

/usr/bin/python3 - "$OUT" "$launches" "$prediction" "$coll_prediction" "$history" <<'PY'
import json, os, statistics, sys, time
out, launches = sys.argv[1], int(sys.argv[2])
prediction, coll_prediction, history = sys.argv[3], sys.argv[4], sys.argv[5]


def read(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None


def inside(v, lo, hi):
    hi = float("inf") if hi is None else hi
    return v is not None and lo is not None and lo <= v <= hi


def judged(values, lo, hi):
    """Launches inside [lo, hi]; an interval holding every launch and wider
    than 2x counts as a miss (it says nothing)."""
    vals = [v for v in values if v is not None]
    hits = sum(1 for v in vals if inside(v, lo, hi))
    hi_f = float("inf") if hi is None else hi
    useless = vals and hits == len(vals) and (lo <= 0 or hi_f / lo > 2)
    return (0 if useless else hits), len(vals), useless


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

pred = read(prediction) if prediction else None
if pred and pred.get("of") == "sweep" and not pred.get("D"):
    none = pred.get("without_crossover") or {}
    located = sum(1 for d in Ds if d is not None and d > 0)
    print(f"\nprediction ({prediction}): no D* combined: {none.get('launches', '?')} of {none.get('of', '?')} "
          f"launches located no crossover; of the {sum(1 for d in Ds if d is not None)} judged launches {located} "
          f"located one (each judged in its state below)")
elif pred and pred.get("of") == "sweep":
    lo, hi = pred["D"]["prediction_interval"]
    hits, n, useless = judged(Ds, lo, hi)
    print(f"\nprediction ({prediction}: {pred['D']['launches']} launches combined, D* {pred['D']['median']:.1f}): "
          f"{hits} of {n} launches inside its interval for the next launch [{f(lo)}, {f(hi)}]"
          f"{' (it holds every launch and is wider than 2x: counted as a miss)' if useless else ''}; target at least 8 of 10")
# Judged in its state: the state each launch's own levels placed it in
# (crossover.history_state, from --history), and whether its D* landed
# inside that state's interval.
identified = judged_launches = 0
judged_by = None
by_state = {}  # state -> [(D, expected low, expected high)]
none_states = {}  # a state that predicts no crossover -> [whether the launch located none]
for k in range(1, launches + 1):
    doc, *_ = load("sweep", k)
    hs = ((doc or {}).get("crossover") or {}).get("history_state")
    if not hs or not hs.get("has_states"):
        continue
    judged_launches += 1
    judged_by = hs.get("path")
    # The part the launch spent most of its samples in stands for it.
    main = max(hs.get("parts") or [], key=lambda p: p.get("share", 0), default=None)
    if main is None or main.get("state") is None:
        continue
    identified += 1
    if main.get("no_crossover_expected"):
        none_states.setdefault(main["state"], []).append(bool(main.get("inside")))
    else:
        by_state.setdefault(main["state"], []).append((main.get("D"), *main["expected"]))


def judged_in_states(by_state):
    """Launches inside their state's interval; a state's interval that
    holds every launch placed in it and is wider than 2x counts as misses,
    as judged() does."""
    hits = 0
    for placed in by_state.values():
        h, n, useless = judged([d for d, _, _ in placed], placed[0][1], placed[0][2])
        hits += h
    return hits


if judged_launches:
    in_none = sum(sum(v) for v in none_states.values())
    n_none = sum(len(v) for v in none_states.values())
    n_d = identified - n_none
    print(f"judged in its state ({judged_by}): a state identified for {identified} of {judged_launches} launches by "
          f"their own levels; landed where its state said in {judged_in_states(by_state) + in_none} of {identified}: "
          f"D* inside its state's interval in {judged_in_states(by_state)} of {n_d} (a state's interval wider than 2x "
          f"that holds all its launches counts as a miss), no crossover where its state predicts none in {in_none} "
          f"of {n_none}")
    for name, placed in sorted(by_state.items()):
        lo, hi = placed[0][1], placed[0][2]
        print(f"  state {name}: {len(placed)} launches, D* expected within [{f(lo)}, {f(hi)}]"
              f"{'' if lo is None or not hi or lo <= 0 else f' ({hi / lo:.2f}x wide)'}")
    for name, placed in sorted(none_states.items()):
        print(f"  state {name}: {len(placed)} launches, no crossover expected; {sum(placed)} located none")
if history:
    pairs = hits = 0
    for k in range(1, launches):
        doc, *_ = load("sweep", k)
        if doc is None or Ds[k] is None:
            continue
        ci = doc["crossover"].get("D_next_launch_ci")
        if not ci:
            continue
        pairs += 1
        hits += inside(Ds[k], ci[0], ci[1])
    print(f"--history {history}: launch k's interval for the next launch holds launch k+1's D* in {hits} of {pairs} "
          f"pairs (target at least 8 of 10)")
book_in = sum(1 for k in range(1, launches + 1)
              if (load("sweep", k)[0] or {}).get("crossover", {}).get("book_holds_measured") is True)
print(f"book interval (each launch's, its inputs drawn again over its rounds) holds that launch's D*: {book_in} of "
      f"{sum(1 for d in Ds if d is not None)}")
triples = [read(os.path.join(out, f"triple-{k}.json")) for k in range(1, launches - 1)]
triples = [t for t in triples if t and t.get("book") is not None]
if triples:
    holds = sum(1 for t in triples if t.get("book_holds_measured"))
    print(f"book interval across launches (every three consecutive launches combined): holds their combined D* in "
          f"{holds} of {len(triples)} (target at least 8 of 10)")
    for k, t in enumerate(triples, 1):
        if not t.get("book_holds_measured"):
            b, d = t["book"], t["D"]["median"]
            print(f"  launches {k}-{k + 2}: book [{f(b['ci'][0])}, {f(b['ci'][1])}] vs D* {f(d)} "
                  f"({100 * (b['median'] - d) / d:+.0f}%)")
widest = {}
for k in range(1, launches + 1):
    doc = load("sweep", k)[0]
    w = (doc or {}).get("crossover", {}).get("D_book_ci_widths") or []
    if w:
        widest[w[0]["input"]] = widest.get(w[0]["input"], 0) + 1
if widest:
    print("the input that widens the book's interval most, by launch: " +
          ", ".join(f"{name} ({n})" for name, n in sorted(widest.items(), key=lambda x: -x[1])))
comb = read(os.path.join(out, "combined-sweep.json"))
if comb:
    print("\n## the launches combined (shardroof combine)\n```")
    print(open(os.path.join(out, "combined-sweep.txt")).read().rstrip())
    print("```")

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
cpred = read(coll_prediction) if coll_prediction else None


def place(value, noise, states):
    """The state whose row_time level lies within the gap that says two
    states (launches/states.h: max(log material ratio, z sqrt(noise^2 +
    spread^2))), the nearest in units of that gap; None: not seen before."""
    import math
    best = None
    for s in states.get("list", []):
        for lv in s.get("levels", []):
            if lv.get("quantity") != "row_time" or not lv.get("median"):
                continue
            gap = max(math.log(states["material_ratio"]), states["z"] * math.hypot(noise, lv["spread_sd_log"]))
            d = abs(math.log(value) - math.log(lv["median"] * 1e6)) / gap
            if d <= 1 and (best is None or d < best[0]):
                best = (d, s)
    return None if best is None else best[1]


if cpred and cpred.get("of") == "coll":
    for r in cpred["rows"]:
        st = r.get("states")
        if r["impl"] != "ring" or r["in_place"] or r["bytes"] not in rows or not st:
            continue
        b, found, n = r["bytes"], 0, 0
        placed_in = {}
        for k in range(1, launches + 1):
            doc = load("coll", k)[0]
            row = next((x for x in (doc or {}).get("results", []) if x["impl"] == "ring" and not x["in_place"]
                        and x["bytes"] == b), None)
            if row is None or not row["time_us"]["median"]:
                continue
            n += 1
            s = place(row["time_us"]["median"], (row.get("stability") or {}).get("noise_sd_log", 0.0), st)
            if s is None:
                continue
            found += 1
            placed_in.setdefault(s["name"], []).append((row["time_us"]["median"], *s["prediction_interval"]))
        print(f"coll {b // 1048576} MiB judged in its state: a state identified for {found} of {n} launches; the time "
              f"inside its state's interval in {judged_in_states(placed_in)} of {found}")
if cpred and cpred.get("of") == "coll":
    for r in cpred["rows"]:
        if r["impl"] != "ring" or r["in_place"] or r["bytes"] not in rows:
            continue
        b = r["bytes"]
        vals = [rows[b].get(k, (None, None, None))[0] for k in range(1, launches + 1)]
        lo, hi = r["time_us"]["prediction_interval"]
        hits, n, useless = judged(vals, lo, hi)
        print(f"coll {b // 1048576} MiB: {hits} of {n} launches inside the prediction [{f(lo)}, {f(hi)}] us from "
              f"{coll_prediction}{' (holds every launch, wider than 2x: a miss)' if useless else ''}")
if read(os.path.join(out, "combined-coll.json")):
    print("\n## coll launches combined (shardroof combine)\n```")
    print(open(os.path.join(out, "combined-coll.txt")).read().rstrip())
    print("```")
PY
exit "$failed"
