#!/usr/bin/env bash
# One prepared check of the CUDA backend on a single-GPU machine (written for
# an H200 with nvcc 13, cuBLAS, NCCL from the nvidia-nccl-cu13 Python package
# and possibly no MPI library). In under 5 minutes it
#   1. finds the GPU, CUDA, NCCL and an MPI runtime (system, carried, or none),
#   2. builds shardroof (or takes a carried build),
#   3. runs the GPU tests,
#   4. runs `coll` over NCCL on 1 rank (and over MPI with device buffers on
#      2 ranks sharing the GPU when a launcher exists; NCCL refuses that),
#   5. runs `peak --backend cuda` (cuBLAS bfloat16, 8192^3),
#   6. runs `sweep --backend cuda` on 1 rank with the hybrid model (measured
#      GPU compute, the H200 preset's NVLink),
# and prints a short table last. Results go to $OUT (or results/device-check-<time>).
#
# Environment (all optional):
#   BUILD_DIR     a build to use; built here when it has no src/shardroof (default build-device)
#   OUT           folder for logs and JSON results
#   NCCL_HOME     NCCL with include/nccl.h and lib/libnccl.so* (default: the Python package)
#   MPI_RUNTIME   a carried Open MPI: Debian packages unpacked with `dpkg -x DEB $MPI_RUNTIME`
#                 (openmpi-bin, libopenmpi3, and their libraries: hwloc, event, pmix, ...)
#   RUNTIME_LIBS  a folder of shared libraries a carried build needs (OpenBLAS, fmt, ...)
#   BUDGET_S      seconds for the whole check (default 280)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
start_s=$(date +%s)
BUDGET_S=${BUDGET_S:-280}
BUILD_DIR=${BUILD_DIR:-build-device}
OUT=${OUT:-results/device-check-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

say() { echo "device-check: $*" >&2; }
die() { say "ERROR: $*"; exit 1; }
left() { echo $(( BUDGET_S - ($(date +%s) - start_s) )); }

declare -a summary=()
# step NAME LIMIT_S CMD...: runs CMD with a time limit, logs to $OUT/NAME.log,
# records ok/FAILED/TIMEOUT/SKIPPED; never stops the script.
step() {
  local name=$1 limit=$2
  shift 2
  local budget
  budget=$(left)
  if [ "$budget" -lt 15 ]; then
    summary+=("$name|SKIPPED (time budget spent)")
    return 0
  fi
  [ "$limit" -gt "$budget" ] && limit=$budget
  say "$name (limit ${limit}s): $*"
  local t0 rc=0
  t0=$(date +%s)
  timeout --kill-after=10 "$limit" "$@" >"$OUT/$name.log" 2>&1 || rc=$?
  local dt=$(( $(date +%s) - t0 ))
  case $rc in
    0) summary+=("$name|ok (${dt}s)") ;;
    124|137) summary+=("$name|TIMEOUT after ${limit}s (see $name.log)") ;;
    *) summary+=("$name|FAILED rc=$rc (${dt}s; see $name.log)")
       { grep -m 3 -E 'error|FAIL|Failure' "$OUT/$name.log" || tail -n 5 "$OUT/$name.log"; } | sed 's/^/    /' >&2 ;;
  esac
  return 0
}

print_steps() { printf '%s\n' "${summary[@]}" | awk -F'|' '{ printf "%-18s %s\n", $1, $2 }'; }

# ---- 1. the machine --------------------------------------------------------
: >"$OUT/gpus.txt"
if command -v nvidia-smi >/dev/null; then timeout 20 nvidia-smi -L >"$OUT/gpus.txt" 2>&1 || true; fi
if grep -q '^GPU' "$OUT/gpus.txt"; then
  say "GPUs: $(tr '\n' ';' <"$OUT/gpus.txt")"
else
  say "WARNING: nvidia-smi lists no GPU; the CUDA steps below will say why they cannot run"
fi
export PATH="/usr/local/cuda/bin:$PATH"
if command -v nvcc >/dev/null; then nvcc --version | tail -n 2 >"$OUT/nvcc.txt" || true; fi

# NCCL from the Python wheel: include/ and lib/ beside nvidia/nccl/__init__.py.
# CMake's find_library wants libnccl.so; the wheel ships libnccl.so.2 only.
if [ -z "${NCCL_HOME:-}" ]; then
  nccl_py=$(python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__ or list(nvidia.nccl.__path__)[0]))' 2>/dev/null || true)
  if [ -n "$nccl_py" ] && [ -e "$nccl_py/include/nccl.h" ]; then
    NCCL_HOME="$OUT/nccl"
    mkdir -p "$NCCL_HOME/lib"
    ln -sfn "$nccl_py/include" "$NCCL_HOME/include"
    for so in "$nccl_py"/lib/libnccl.so*; do ln -sf "$so" "$NCCL_HOME/lib/"; done
    if [ ! -e "$NCCL_HOME/lib/libnccl.so" ]; then
      for so in "$nccl_py"/lib/libnccl.so.*; do ln -sf "$so" "$NCCL_HOME/lib/libnccl.so"; break; done
    fi
    say "NCCL from the Python package: $nccl_py"
  fi
fi
if [ -n "${NCCL_HOME:-}" ]; then
  export NCCL_HOME
  export LD_LIBRARY_PATH="$NCCL_HOME/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

# MPI: the system's, a carried Open MPI, or none (singleton runs need orted
# from some Open MPI all the same).
launcher=""
if [ -n "${MPI_RUNTIME:-}" ]; then
  [ -x "$MPI_RUNTIME/usr/bin/mpirun" ] || die "MPI_RUNTIME=$MPI_RUNTIME has no usr/bin/mpirun (unpack openmpi-bin with dpkg -x)"
  export OPAL_PREFIX="$MPI_RUNTIME/usr"
  export OPAL_LIBDIR="$MPI_RUNTIME/usr/lib/x86_64-linux-gnu/openmpi/lib"
  export PATH="$MPI_RUNTIME/usr/bin:$PATH"
  export LD_LIBRARY_PATH="$MPI_RUNTIME/usr/lib/x86_64-linux-gnu:$OPAL_LIBDIR:${LD_LIBRARY_PATH:-}"
  say "carried Open MPI: $MPI_RUNTIME"
fi
if [ -n "${RUNTIME_LIBS:-}" ]; then
  export LD_LIBRARY_PATH="$RUNTIME_LIBS:${LD_LIBRARY_PATH:-}"
fi
if command -v mpirun >/dev/null; then
  launcher=mpirun
  say "MPI launcher: $(command -v mpirun)"
elif ldconfig -p 2>/dev/null | grep -q 'libmpi\.so'; then
  say "libmpi found but no mpirun: single-rank runs only (MPI singleton)"
else
  say "no MPI library on this machine: it must come with the build (MPI_RUNTIME, RUNTIME_LIBS)"
fi
# shellcheck disable=SC2054  # commas belong to the btl list
mpi_flags=(--oversubscribe --mca mpi_yield_when_idle 1 --mca btl self,vader,tcp)
# A single rank: through the launcher when there is one, else an MPI singleton.
one_rank=()
[ -n "$launcher" ] && one_rank=(mpirun -np 1 "${mpi_flags[@]}")

# ---- 2. the build ----------------------------------------------------------
exe="$BUILD_DIR/src/shardroof"
if [ ! -x "$exe" ]; then
  command -v cmake >/dev/null || die "no carried build in $BUILD_DIR and no cmake to build one"
  say "building into $BUILD_DIR"
  step build-configure 120 cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DSHARDROOF_WITH_CUDA=ON -DSHARDROOF_WITH_NCCL=ON
  step build 200 cmake --build "$BUILD_DIR" -j "$(nproc)" --target shardroof gpu_tests
  [ -x "$exe" ] || { print_steps >&2; die "the build failed (see $OUT/build*.log)"; }
fi
if ldd "$exe" | grep -q 'not found'; then
  ldd "$exe" | grep 'not found' >&2
  die "$exe misses the libraries above: set RUNTIME_LIBS / MPI_RUNTIME / NCCL_HOME"
fi
"${one_rank[@]}" "$exe" --version >"$OUT/version.txt" 2>&1 || die "shardroof --version failed: $(tail -n 3 "$OUT/version.txt")"
say "$(grep -E '^(backends|GPU):' "$OUT/version.txt" | tr '\n' ' ')"
grep -q 'cuda' "$OUT/version.txt" || die "this build has no CUDA backend"

# ---- 3. GPU tests ----------------------------------------------------------
gpu_tests="$BUILD_DIR/tests/gpu/gpu_tests"
if [ -x "$gpu_tests" ]; then
  step gpu-tests 90 "${one_rank[@]}" "$gpu_tests"
  grep -q 'SKIPPED' "$OUT/gpu-tests.log" 2>/dev/null && say "some GPU tests were skipped: see gpu-tests.log"
  if [ -n "$launcher" ]; then
    step gpu-tests-2ranks 60 env SHARDROOF_ALLOW_SHARED_GPU=1 mpirun -np 2 "${mpi_flags[@]}" "$gpu_tests" \
      --gtest_filter='DeviceCollectivesTest.*'
  fi
else
  summary+=("gpu-tests|SKIPPED (no $gpu_tests)")
fi

# ---- 4. collectives --------------------------------------------------------
step coll-nccl 60 "${one_rank[@]}" "$exe" coll --backend cuda --transport nccl --impl all -b 1M -e 1G -f 4 \
  -d bfloat16 -n 10 -w 3 --json "$OUT/coll-nccl.json"
if [ -n "$launcher" ]; then
  # NCCL refuses two ranks on one GPU; the MPI transport moves device buffers
  # (staged through pinned host memory unless the MPI is CUDA-aware).
  step coll-mpi-2ranks 60 env SHARDROOF_ALLOW_SHARED_GPU=1 mpirun -np 2 "${mpi_flags[@]}" "$exe" coll \
    --backend cuda --transport mpi --impl all -b 1M -e 256M -f 4 -d bfloat16 -n 5 -w 2 --json "$OUT/coll-mpi.json"
fi

# ---- 5. peak ---------------------------------------------------------------
step peak 60 "${one_rank[@]}" "$exe" peak --backend cuda --datatypes bfloat16 --size 8192 --json "$OUT/peak.json"

# ---- 6. sweep, and the hybrid model --------------------------------------
# The sweep on one rank measures the GPU's compute over D (no partial sums
# move on one rank). The hybrid model is the model's crossover with C =
# the cuBLAS bfloat16 rate measured by `peak` and W, a from the H200
# preset's NVLink, for 8 GPUs.
sweep_model=()
if "$exe" sweep --help 2>/dev/null | grep -q -- '--model-hw'; then
  sweep_model=(--model-hw h200 --model-link nvlink)
fi
step sweep 100 "${one_rank[@]}" "$exe" sweep --backend cuda --transport nccl --datatype bfloat16 --B 8192 --F 8192 \
  --D 512:16384:x2 "${sweep_model[@]}" --json "$OUT/sweep.json"
measured_c=$(python3 - "$OUT/peak.json" <<'PY' 2>/dev/null || true
import json, sys
def walk(o):
    if isinstance(o, dict):
        if o.get("datatype") == "bfloat16" and "flops_per_s" in o and o.get("m") == o.get("k"):
            yield o["flops_per_s"]
        for v in o.values():
            yield from walk(v)
    elif isinstance(o, list):
        for v in o:
            yield from walk(v)
rates = list(walk(json.load(open(sys.argv[1]))))
print(f"{max(rates):.6g}" if rates else "")
PY
)
if [ -n "$measured_c" ]; then
  step hybrid-model 20 "${one_rank[@]}" "$exe" predict --hw h200 --link nvlink --flops "$measured_c" --ranks 8 \
    --datatype bfloat16 --B 8192 --F 8192 --json "$OUT/hybrid.json"
else
  summary+=("hybrid-model|SKIPPED (no bfloat16 rate from peak)")
fi

# ---- the table -------------------------------------------------------------
python3 - "$OUT" <<'PY' >"$OUT/summary.txt" 2>&1 || true
import json, os, sys
out = sys.argv[1]
def load(name):
    try:
        with open(os.path.join(out, name)) as f:
            return json.load(f)
    except Exception:
        return None
def find(obj, pred, path=""):
    """(path, value) of every number under a key for which pred(key) holds."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            p = f"{path}.{k}" if path else k
            if isinstance(v, (int, float)) and not isinstance(v, bool) and pred(k.lower()):
                yield p, v
            yield from find(v, pred, p)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from find(v, pred, f"{path}[{i}]")
rows = []
for name in ("coll-nccl.json", "coll-mpi.json"):
    doc = load(name)
    if not doc:
        continue
    best = {}
    for r in doc.get("results", []):
        key = (r.get("algorithm") or r.get("impl"), r.get("in_place"))
        if key not in best or r.get("bytes", 0) > best[key].get("bytes", 0):
            best[key] = r
    for (alg, inplace), r in sorted(best.items(), key=lambda x: str(x[0])):
        rows.append((f"{name[:-5]} {alg}{' in-place' if inplace else ''}",
                     f"{r.get('bytes', 0) / 2**20:.0f} MiB: busbw {r.get('busbw_GBps', 0):.1f} GB/s, "
                     f"wrong {r.get('wrong')}"))
def gemms(o):
    if isinstance(o, dict):
        if "flops_per_s" in o and "datatype" in o and o.get("m") == o.get("k"):
            yield o
        for v in o.values():
            yield from gemms(v)
    elif isinstance(o, list):
        for v in o:
            yield from gemms(v)
peak = load("peak.json")
if peak:
    for g in gemms(peak):
        rows.append((f"peak cuBLAS {g['datatype']} {g['m']}^3",
                     f"{g['flops_per_s'] / 1e12:.1f} TFLOP/s ({g.get('arithmetic', '')}; PyTorch reached ~790 bf16 on an H200)"))
hybrid = load("hybrid.json")
if hybrid:
    for p, v in list(find(hybrid, lambda k: k.startswith("d_star") or k in ("d", "dstar")))[:3]:
        rows.append((f"hybrid model (8 x H200, NVLink) {p}", f"{v:.4g}"))
sweep = load("sweep.json")
if sweep:
    for p, v in list(find(sweep.get("crossover", {}), lambda k: True))[:6]:
        rows.append((f"sweep crossover.{p}", f"{v:.4g}"))
    if sweep.get("summary"):
        rows.append(("sweep summary", str(sweep["summary"]).replace("\n", " ")[:200]))
w = max([len(a) for a, _ in rows] + [10])
for a, b in rows:
    print(f"{a:<{w}}  {b}")
PY

echo
echo "== shardroof device check: $(head -n 1 "$OUT/gpus.txt" | cut -c1-70) =="
print_steps
echo
cat "$OUT/summary.txt"
echo "results: $OUT   elapsed: $(( $(date +%s) - start_s ))s"
