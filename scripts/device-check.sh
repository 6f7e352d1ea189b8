#!/usr/bin/env bash
# One call on a single-GPU machine with CUDA and nothing else (written for
# an H200 with CUDA 13, no network and no packages to install): unpacks the
# archive made by scripts/device-bundle.sh, relocates its Open MPI, and runs
# these steps, most valuable first, each with its own time limit, never
# building anything:
#   preflight        every library resolves, `shardroof --version` on 1 and on
#                    2 ranks under the bundle's mpirun (20 s; stops the check)
#   peak             cuBLAS GEMMs bfloat16, half, float at 8192^3 after 10
#                    warm-ups, the thin inner dimensions, device memory
#                    bandwidth M and the reduction rate g
#   predict          D* for 8 such GPUs on the H200 preset's NVLink with this
#                    GPU's measured C, M and g (no GPU work)
#   sweep-1rank      sweep --backend cuda on 1 rank: the GEMM rate over D
#   sweep-2ranks     sweep --backend cuda on 2 ranks sharing the GPU over MPI:
#                    a measured crossover (over the shared GPU's MPI path)
#   sweep-overlap    the same at two D with --overlap auto: the chunked step
#                    on CUDA streams against the pipeline model, K chosen by it
#   coll-nccl-1rank  coll over NCCL, 1 rank, 1 MiB to 256 MiB (time and algbw;
#                    busbw is 0 on one rank by definition)
#   coll-mpi-2ranks  coll over MPI with device buffers (staged or CUDA-aware)
#   gpu-tests-*      the GPU tests on 1 and on 2 ranks
#   coll-nccl-2ranks coll over NCCL, 2 ranks sharing the GPU (NCCL's network
#                    transport between them): our ring against ncclAllReduce
#   overlap-*        sweep --overlap's GPU tests on 1 and 2 ranks
# All logs and JSON records go into one archive, device-check.tar.gz, in
# $OUT (the result folder of the GPU machine) or results/device-check-TIME/;
# the summary is printed last and kept beside it as summary.txt.
#
#   scripts/device-check.sh [--bundle FILE] [--preflight]
#
# --bundle FILE  the archive (default: device-bundle/shardroof-device.tar.xz,
#                else .tar.gz)
# --preflight    the preflight alone. Where no GPU is visible (a build
#                machine), it also runs the preflight again with the
#                system's copies of every carried library and Open MPI's
#                own folders hidden (a private mount namespace, where
#                `unshare -m` works), and runs every later step's command
#                up to the point where it needs a GPU, which proves that
#                each command line is accepted.
# Environment: OUT (result folder), BUDGET_S (seconds for all steps after
# the preflight, default 330), TMPDIR (where to unpack; default
# device-bundle/), KEEP_UNPACKED=1 (keep the unpacked bundle).
# shellcheck disable=SC2054  # commas inside the commands' values (lists), not between elements
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
start_s=$(date +%s)
BUDGET_S=${BUDGET_S:-330}
bundle=""
preflight_only=0
while [ $# -gt 0 ]; do
  case $1 in
    --bundle) bundle=${2:?--bundle needs a file}; shift 2 ;;
    --preflight) preflight_only=1; shift ;;
    -h|--help) sed -n '/^#   scripts/,/^# the preflight/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [--bundle FILE] [--preflight]" >&2; exit 2 ;;
  esac
done
if [ -z "$bundle" ]; then
  for b in device-bundle/shardroof-device.tar.xz device-bundle/shardroof-device.tar.gz; do
    [ -f "$b" ] && { bundle=$b; break; }
  done
fi

say() { echo "device-check: $*" >&2; }
die() { say "ERROR: $*"; exit 1; }
if [ -z "$bundle" ] || [ ! -f "$bundle" ]; then
  die "no bundle (make one with scripts/device-bundle.sh, or give --bundle FILE)"
fi

# ---- the results folder and the unpacked bundle ---------------------------
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  final=$(cd "$OUT" && pwd)
else
  final="$here/results/device-check-$(date +%Y%m%d-%H%M%S)"
  mkdir -p "$final"
fi
# Unpacked beside the bundle unless TMPDIR says otherwise: a machine's /tmp
# may not allow programs to run from it.
unpack_base=${TMPDIR:-$here/device-bundle}
mkdir -p "$unpack_base"
work=$(mktemp -d "$unpack_base/run.XXXXXX")
R="$work/results"
mkdir -p "$R"
cleanup() { [ "${KEEP_UNPACKED:-0}" = 1 ] || rm -rf "$work"; }
trap cleanup EXIT

# tar needs xz(1) for .tar.xz; Python's tarfile reads it without.
if ! tar -xf "$bundle" -C "$work" 2>"$R/unpack.log"; then
  python3 - "$bundle" "$work" <<'PY' 2>>"$R/unpack.log" || die "cannot unpack $bundle (see $R/unpack.log)"
import sys, tarfile
with tarfile.open(sys.argv[1]) as t:
    try:
        t.extractall(sys.argv[2], filter="tar")
    except TypeError:
        t.extractall(sys.argv[2])
PY
fi
B="$work/shardroof-device"
[ -x "$B/bin/shardroof" ] || die "$bundle holds no shardroof-device/bin/shardroof"
say "unpacked $bundle into $B in $(( $(date +%s) - start_s )) s"

# ---- the environment of every bundle command -------------------------------
# Only the bundle's libraries, plus the folders where this machine keeps the
# libraries the bundle leaves to it (cuBLAS, NCCL, the driver): found by
# name, in the loader's cache, the CUDA tree, the driver's folder, or the
# CUDA libraries of Python packages (nvidia-cublas, nvidia-nccl-cu13, ...).
machine_dirs=()
find_machine_lib() {  # prints the folder holding library $1, or nothing
  local name=$1 d
  # (No reader here stops early: with pipefail a writer cut off by SIGPIPE
  # would fail the pipeline.)
  ldconfig -p 2>/dev/null | awk -v n="$name" '$1 == n && !p { print $NF; p = 1 }' | xargs -r dirname
  for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/nvidia/lib64 \
           /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64; do
    [ -e "$d/$name" ] && { echo "$d"; return; }
  done
  python3 -c 'import nvidia, os; print("\n".join(os.path.realpath(p) for p in nvidia.__path__))' 2>/dev/null |
    while read -r d; do find "$d" -maxdepth 3 -name "$name" -printf '%h\n' 2>/dev/null; done || true
}
needed_from_machine() {  # names of libraries the bundle's programs miss
  {
    echo libcuda.so.1  # the CUDA runtime opens the driver itself
    for f in "$B"/bin/*; do LD_LIBRARY_PATH="$B/lib" ldd "$f" 2>/dev/null | awk '$3 == "not" { print $1 }'; done
  } | sort -u
}
for name in $(needed_from_machine); do
  d=$(find_machine_lib "$name" | sed -n 1p)
  if [ -n "$d" ]; then
    case " ${machine_dirs[*]:-} " in *" $d "*) ;; *) machine_dirs+=("$d") ;; esac
  else
    say "WARNING: $name is not on this machine"
  fi
done
lib_path="$B/lib"
for d in "${machine_dirs[@]}"; do lib_path+=":$d"; done
ln -sfn orterun "$B/openmpi/bin/mpirun"
benv=(
  LD_LIBRARY_PATH="$lib_path"
  PATH="$B/openmpi/bin:$PATH"
  # Open MPI and its PMIx where the bundle put them, not where they were built.
  OPAL_PREFIX="$B/openmpi"
  OPAL_SYSCONFDIR="$B/openmpi/etc/openmpi"
  PMIX_PREFIX="$B/pmix"
  PMIX_MCA_mca_base_component_path="$B/pmix/lib/pmix"
  # Ranks of one machine: shared memory and TCP, no single-copy kernel
  # mechanism (CMA is refused in some sandboxes), oversubscribed if need be,
  # not bound to cores (a virtual machine's topology may not allow it).
  OMPI_MCA_pml=ob1
  OMPI_MCA_btl=self,vader,tcp
  OMPI_MCA_btl_vader_single_copy_mechanism=none
  OMPI_MCA_rmaps_base_oversubscribe=1
  OMPI_MCA_hwloc_base_binding_policy=none
  OMPI_ALLOW_RUN_AS_ROOT=1
  OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # Two ranks share the one GPU (over NCCL with a host id each).
  SHARDROOF_ALLOW_SHARED_GPU=1
)
bx() { env "${benv[@]}" "$@"; }
SR="$B/bin/shardroof"

# ---- steps -----------------------------------------------------------------
: >"$R/steps.tsv"
failed_steps=0
steps_start_s=$(date +%s)
# step NAME LIMIT_S CMD...: runs CMD in the bundle's environment with a time
# limit, output in NAME.log; records the outcome; never stops the script.
# Steps are skipped once BUDGET_S seconds have gone since the first one.
step() {
  local name=$1 limit=$2
  shift 2
  local budget=$(( BUDGET_S - ($(date +%s) - steps_start_s) ))
  if [ "$budget" -lt 10 ]; then
    printf '%s\tSKIPPED (time budget spent)\t0\t%s\n' "$name" "$limit" >>"$R/steps.tsv"
    return 0
  fi
  [ "$limit" -gt "$budget" ] && limit=$budget
  say "$name (limit ${limit}s)"
  local t0 rc=0 status
  t0=$(date +%s)
  bx timeout --kill-after=5 "$limit" "$@" >"$R/$name.log" 2>&1 || rc=$?
  case $rc in
    0) status=ok ;;
    # The test binaries' "no failure, but cases skipped themselves".
    77) status="ok, some cases skipped" ;;
    124|137) status="TIMEOUT after ${limit}s" ;;
    *) status="FAILED rc=$rc" ;;
  esac
  [ "$rc" = 0 ] || [ "$rc" = 77 ] || failed_steps=$((failed_steps + 1))
  printf '%s\t%s\t%s\t%s\n' "$name" "$status" "$(( $(date +%s) - t0 ))" "$limit" >>"$R/steps.tsv"
  return 0
}

finish() {  # the summary into the results, one archive, the summary last
  python3 "$here/scripts/device_summary.py" "$R" >"$R/summary.txt" 2>&1 ||
    echo "(the summary script failed; the logs are in the archive)" >>"$R/summary.txt"
  tar -czf "$final/device-check.tar.gz" -C "$work" results
  cp "$R/summary.txt" "$final/summary.txt"
  echo
  cat "$R/summary.txt"
  echo "results: $final/device-check.tar.gz and summary.txt; $(( $(date +%s) - start_s )) s in all"
}

# ---- preflight --------------------------------------------------------------
# Every ELF of the bundle resolves each library inside the bundle or, for
# glibc, the driver, cuBLAS and NCCL, on this machine; shardroof answers
# --version on 1 rank and on 2 (the relocated launcher and orted work); the
# GPU tests load.
cat >"$work/preflight.sh" <<'SH'
set -eu
B=$1
machine_libs='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libutil|libcuda|libcublas|libcublasLt|libnccl)\.so'
bad=0 files=0
while IFS= read -r f; do
  files=$((files + 1))
  deps=$(ldd "$f" 2>&1) || true
  while read -r name arrow path _; do
    [ "$arrow" = "=>" ] || continue
    if [ "$path" = "not" ]; then
      echo "MISSING $name (for ${f#"$B"/})"; bad=1
    elif [[ $path != "$B"/* ]] && ! [[ $name =~ $machine_libs ]]; then
      echo "OUTSIDE THE BUNDLE $name => $path (for ${f#"$B"/})"; bad=1
    fi
  done <<<"$deps"
  # A library this machine has in too old a version (e.g. glibc older
  # than the build machine's): "version `GLIBC_2.36' not found".
  if [[ $deps == *"version \`"*"not found"* ]]; then
    grep 'not found' <<<"$deps" | sed "s|^|TOO OLD (for ${f#"$B"/}): |"; bad=1
  fi
done < <(find "$B/bin" "$B/lib" "$B/openmpi" "$B/pmix" -type f \( -perm -u+x -o -name '*.so*' \) | sort)
[ "$bad" = 0 ] || exit 1
echo "libraries: all resolved for $files programs and libraries (bundle, or this machine's glibc, driver, cuBLAS, NCCL)"
mpirun -np 1 "$B/bin/shardroof" --version
mpirun -np 2 "$B/bin/shardroof" --version >/dev/null && echo "mpirun -np 2: ok"
mpirun -np 1 "$B/bin/gpu_tests" --gtest_list_tests >/dev/null && echo "gpu_tests: loads"
ompi_info --path pkglibdir --parsable
SH
: >"$R/gpus.txt"
if command -v nvidia-smi >/dev/null; then timeout 20 nvidia-smi -L >"$R/gpus.txt" 2>&1 || true; fi
gpu_visible=0
grep -q '^GPU' "$R/gpus.txt" && gpu_visible=1
step preflight 20 bash "$work/preflight.sh" "$B"
if [ "$failed_steps" = 0 ] && ! grep -q '^backends:.*cuda' "$R/preflight.log"; then
  sed -i 's/^preflight\tok/preflight\tFAILED (this shardroof has no cuda backend)/' "$R/steps.tsv"
  failed_steps=1
fi
if [ "$failed_steps" -gt 0 ]; then
  cat "$R/preflight.log" >&2
  finish
  die "the preflight failed: nothing else was run"
fi
steps_start_s=$(date +%s)

# ---- the commands -------------------------------------------------------------
# Their records go to J: the results, or aside when the preflight only
# checks the command lines (their output is no result).
J=$R
if [ "$preflight_only" = 1 ]; then J="$R/command-lines"; mkdir -p "$J"; fi
np1=(mpirun -np 1)
np2=(mpirun -np 2)
peak=(peak --backend cuda --datatypes bfloat16,half,float --size 8192 --warmup 10 --iters 20
      --json "$J/peak.json" --force)
sweep=(sweep --backend cuda --datatype bfloat16 --B 4096 --F 4096 --warmup 3 --iters 10 --force)
sweep1=("${sweep[@]}" --transport nccl --D 256:65536:x4 --json "$J/sweep-1rank.json")
sweep2=("${sweep[@]}" --transport mpi --D 1024:262144:x4 --json "$J/sweep-2ranks.json")
sweep_overlap=(sweep --backend cuda --datatype bfloat16 --B 4096 --F 4096 --warmup 2 --iters 5 --force
               --transport mpi --D 16384,65536 --overlap auto --json "$J/sweep-overlap.json")
# Two rounds back to back: the device's time budget is short, and one
# lent machine is no place to watch a state change over minutes.
coll=(coll --backend cuda -d bfloat16 -b 1M -e 256M -f 4 --rounds 2 --min-span-s 0 --force)
coll_nccl1=("${coll[@]}" --transport nccl --impl all -w 5 -n 20 --json "$J/coll-nccl-1rank.json")
coll_mpi2=("${coll[@]}" --transport mpi --impl all -w 3 -n 10 --json "$J/coll-mpi-2ranks.json")
coll_nccl2=("${coll[@]}" --transport nccl --impl ring,native -w 3 -n 10 --json "$J/coll-nccl-2ranks.json")
gpu_tests_1rank=("$B/bin/gpu_tests" --gtest_color=no)
gpu_tests_2ranks=("$B/bin/gpu_tests" --gtest_color=no --gtest_filter='DeviceCollectivesTest.*:NcclModesTest.*')
overlap_tests=("$B/bin/gpu_sweep_overlap" --gtest_color=no)
# predict: the model with this GPU's C (bfloat16), M and g, on the H200
# preset's NVLink, for 8 GPUs: what the measured GPU predicts for a node.
predict=(predict --hw h200 --link nvlink --ranks 8 --datatype bfloat16 --B 8192 --F 8192
         --json "$J/predict.json" --force)

if [ "$preflight_only" = 1 ] && [ "$gpu_visible" = 0 ]; then
  # No GPU here. The preflight once more with the system's copies of the
  # carried libraries and Open MPI's and PMIx's own folders hidden (listed
  # here, with the system's tools, and hidden by bind mounts in a private
  # mount namespace), so nothing can resolve outside the bundle unnoticed.
  if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
    {
      for f in "$B"/lib/*; do
        name=$(basename "$f")
        for p in $(ldconfig -p | awk -v n="$name" '$1 == n { print $NF }') "/usr/local/cuda/lib64/$name"; do
          [ -e "$p" ] && echo "file $(readlink -f "$p")"
        done
      done
      if command -v ompi_info >/dev/null; then
        for d in pkglibdir pkgdatadir sysconfdir; do
          p=$(ompi_info --path "$d" --parsable | sed -n "s/^path:$d://p")
          [ -d "$p" ] && echo "dir $p"
        done
        for p in orterun orted ompi_info; do
          p=$(command -v "$p" || true)
          [ -n "$p" ] && echo "file $(readlink -f "$p")"
        done
      fi
      p=$(ldconfig -p | awk '$1 == "libpmix.so.2" && !p { print $NF; p = 1 }')
      if [ -n "$p" ]; then
        d=$(dirname "$(dirname "$(readlink -f "$p")")")
        [ -d "$d/lib/pmix" ] && echo "dir $d/lib/pmix" && echo "dir $d/share"
      fi
    } | sort -u >"$R/hidden.txt"
    cat >"$work/hide.sh" <<'SH'
set -eu
empty=$(dirname "$0")/empty
mkdir -p "$empty"
while read -r kind path; do
  if [ "$kind" = dir ]; then mount --bind "$empty" "$path"; else mount --bind /dev/null "$path"; fi
done <"$1"
echo "hidden: $(wc -l <"$1") files and folders of the system (hidden.txt)"
SH
    # shellcheck disable=SC2016  # expanded by the inner bash
    step preflight-isolated 30 unshare -m bash -c 'bash "$1" "$2" && bash "$3" "$4"' _ \
      "$work/hide.sh" "$R/hidden.txt" "$work/preflight.sh" "$B"
  else
    printf 'preflight-isolated\tSKIPPED (needs root and unshare -m)\t0\t30\n' >>"$R/steps.tsv"
  fi
  # Each later command must get as far as looking for the GPU: one rank
  # runs without the launcher (a singleton), which the preflight tested; a
  # failed job's launcher waits no grace before its SIGKILL.
  cat >"$work/command-lines.sh" <<'SH'
R=$1
bad=0
export OMPI_MCA_odls_base_sigkill_timeout=0
check() {
  local name=$1 rc=0
  shift
  "$@" >"$R/cmdline-$name.log" 2>&1 || rc=$?
  # Accepted: the command ran (0; 77 for a test binary whose GPU cases
  # skipped themselves), or it stopped where it looked for the GPU.
  if [ "$rc" = 0 ] || [ "$rc" = 77 ] || grep -q 'no CUDA GPU is visible' "$R/cmdline-$name.log"; then
    echo "$name: accepted (exit status $rc)"
  else
    echo "$name: REFUSED (exit status $rc)"
    cat "$R/cmdline-$name.log"
    bad=1
  fi
}
SH
  {
    emit() { printf 'check %q' "$1"; shift; printf ' %q' "$@"; echo; }
    emit peak "$SR" "${peak[@]}"
    emit predict "$SR" "${predict[@]}" --flops 7.9e14 --memory-bw 4.3e12 --reduce-rate 1e12
    emit sweep-1rank "$SR" "${sweep1[@]}"
    emit sweep-2ranks "${np2[@]}" "$SR" "${sweep2[@]}"
    emit sweep-overlap "${np2[@]}" "$SR" "${sweep_overlap[@]}"
    emit coll-nccl-1rank "$SR" "${coll_nccl1[@]}"
    emit coll-mpi-2ranks "${np2[@]}" "$SR" "${coll_mpi2[@]}"
    emit gpu-tests-2ranks "${np2[@]}" "${gpu_tests_2ranks[@]}"
    emit coll-nccl-2ranks "${np2[@]}" "$SR" "${coll_nccl2[@]}"
    echo "exit \$bad"
  } >>"$work/command-lines.sh"
  step command-lines 60 bash "$work/command-lines.sh" "$R"
  finish
  [ "$failed_steps" = 0 ] || die "$failed_steps preflight step(s) failed"
  exit 0
fi
if [ "$preflight_only" = 1 ]; then
  finish
  exit 0
fi
[ "$gpu_visible" = 1 ] || say "WARNING: nvidia-smi lists no GPU; the steps below will say why they cannot run"

# ---- the steps, most valuable first -------------------------------------------
step peak 60 "${np1[@]}" "$SR" "${peak[@]}"
model=$(python3 "$here/scripts/device_summary.py" --predict-flags "$R/peak.json" 2>/dev/null || true)
if [ -n "$model" ]; then
  read -r -a model_flags <<<"$model"
  step predict 20 "${np1[@]}" "$SR" "${predict[@]}" "${model_flags[@]}"
else
  printf 'predict\tSKIPPED (no bfloat16 rate in peak)\t0\t20\n' >>"$R/steps.tsv"
fi
step sweep-1rank 60 "${np1[@]}" "$SR" "${sweep1[@]}"
step sweep-2ranks 90 "${np2[@]}" "$SR" "${sweep2[@]}"
step sweep-overlap 40 "${np2[@]}" "$SR" "${sweep_overlap[@]}"
step coll-nccl-1rank 40 "${np1[@]}" "$SR" "${coll_nccl1[@]}"
step coll-mpi-2ranks 60 "${np2[@]}" "$SR" "${coll_mpi2[@]}"
step gpu-tests-1rank 90 "${np1[@]}" "${gpu_tests_1rank[@]}"
step gpu-tests-2ranks 60 "${np2[@]}" "${gpu_tests_2ranks[@]}"
step coll-nccl-2ranks 40 "${np2[@]}" "$SR" "${coll_nccl2[@]}"
step overlap-1rank 40 "${np1[@]}" "${overlap_tests[@]}"
step overlap-2ranks 40 "${np2[@]}" "${overlap_tests[@]}"
finish
