#!/usr/bin/env bash
# The BLAS kernel each library runs, and what it reaches: C_peak of the
# main job (`mpirun -np 2 shardroof sweep`) as a share of the core's FMA
# peak, per library and per way the kernel was chosen:
#
#   auto     the default: shardroof runs the CPU's kernel where the
#            library's own is below it
#   by hand  the kernel auto ran, set in every rank's environment by hand
#            (OPENBLAS_CORETYPE, BLIS_ARCH_TYPE), as a user would
#   keep     the library's own choice (--blas-kernel keep)
#
# Launches are interleaved (round r runs every library and mode once, in an
# order drawn for the round), so a drifting machine meets all of them alike;
# each cell is the median (min-max) over its launches. The goal: auto's
# C_peak within 10% of by hand's.
#
#   scripts/bench-blas.sh [--bin build/src/shardroof] [--blis-bin build-blis/src/shardroof]
#                         [--rounds 3] [--out DIR]
#
# Run it alone on the machine: the load average is printed before and after.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/src/shardroof
blis_bin=""
rounds=3
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --blis-bin) blis_bin=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-blas: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$bin" ] || { echo "bench-blas: no program at $bin (build first, or --bin)" >&2; exit 2; }
[ -z "$blis_bin" ] || [ -x "$blis_bin" ] || { echo "bench-blas: no program at $blis_bin" >&2; exit 2; }
out=${out:-$(mktemp -d /tmp/bench-blas.XXXXXX)}
mkdir -p "$out"
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
unset OPENBLAS_CORETYPE BLIS_ARCH_TYPE
mpi=(mpirun -np 2 --mca mpi_yield_when_idle 1)
sweep=(sweep --D 1024 --iters 5 --check 1)

libraries=(openblas)
[ -n "$blis_bin" ] && libraries+=(blis)
binary_of() { if [ "$1" = blis ]; then echo "$blis_bin"; else echo "$bin"; fi; }
variable_of() { if [ "$1" = blis ]; then echo BLIS_ARCH_TYPE; else echo OPENBLAS_CORETYPE; fi; }

# The kernel auto runs: the value by hand sets.
declare -A chosen
for lib in "${libraries[@]}"; do
  "$(binary_of "$lib")" --version >/dev/null
  chosen[$lib]=$("${mpi[@]}" "$(binary_of "$lib")" "${sweep[@]}" --json "$out/$lib-probe.json" >/dev/null 2>&1 &&
                 python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["environment"]["blas"]["kernel"])' \
                   "$out/$lib-probe.json")
done

echo "bench-blas: load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for ((r = 1; r <= rounds; r++)); do
  cases=()
  for lib in "${libraries[@]}"; do for mode in auto by_hand keep; do cases+=("$lib:$mode"); done; done
  mapfile -t cases < <(printf '%s\n' "${cases[@]}" | shuf)
  for c in "${cases[@]}"; do
    lib=${c%%:*}; mode=${c#*:}
    b=$(binary_of "$lib")
    f="$out/$lib-$mode-$r.json"
    case "$mode" in
      auto) "${mpi[@]}" "$b" "${sweep[@]}" --json "$f" >/dev/null 2>&1 ;;
      by_hand) env "$(variable_of "$lib")=${chosen[$lib]}" "${mpi[@]}" -x "$(variable_of "$lib")" "$b" "${sweep[@]}" \
                 --json "$f" >/dev/null 2>&1 ;;
      keep) "${mpi[@]}" "$b" "${sweep[@]}" --blas-kernel keep --json "$f" >/dev/null 2>&1 ;;
    esac
    echo "bench-blas: round $r: $lib $mode done" >&2
  done
done
echo "bench-blas: load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

python3 - "$out" "$rounds" "${libraries[@]}" <<'EOF'
import json, statistics, sys
out, rounds, libs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]

def find(doc, key):
    if isinstance(doc, dict):
        if key in doc: return doc[key]
        for v in doc.values():
            got = find(v, key)
            if got is not None: return got
    elif isinstance(doc, list):
        for v in doc:
            got = find(v, key)
            if got is not None: return got
    return None

rows = {}
print(f"{'library':<10} {'mode':<8} {'kernel':<12} {'set by':<13} {'C_peak GFLOP/s/rank':>22} {'x FMA peak':>11}  FMA peak")
for lib in libs:
    for mode in ("auto", "by_hand", "keep"):
        cs, shares, kernel, by, peak = [], [], "?", "?", ""
        for r in range(1, rounds + 1):
            doc = json.load(open(f"{out}/{lib}-{mode}-{r}.json"))
            blas = doc["environment"]["blas"]
            kernel, by = blas["kernel"], blas["kernel_set_by"]
            cs.append(find(doc, "C_flops_per_s") / 1e9)
            hp = find(doc, "hardware_peak")
            if hp:
                shares.append(cs[-1] * 1e9 / hp["flops_per_s_per_rank"])
                peak = f'{hp["flops_per_s_per_rank"] / 1e9:.1f} GFLOP/s ({hp["formula"]})'
        rows[(lib, mode)] = statistics.median(cs)
        c = f"{statistics.median(cs):.1f} ({min(cs):.1f}-{max(cs):.1f})"
        s = f"{statistics.median(shares):.2f}" if shares else "-"
        print(f"{blas['library']:<10} {mode:<8} {kernel:<12} {by:<13} {c:>22} {s:>11}  {peak}")
print("median (min-max) over the launches; C_peak per rank, 2 ranks at once; x FMA peak: the share of the core's peak")
for lib in libs:
    ratio = rows[(lib, "auto")] / rows[(lib, "by_hand")]
    print(f"{lib}: auto / by hand = {ratio:.3f} ({'within' if abs(ratio - 1) <= 0.10 else 'NOT within'} 10%)")
EOF
