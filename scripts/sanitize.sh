#!/usr/bin/env bash
# Build shardroof with AddressSanitizer and UndefinedBehaviorSanitizer and
# run the test suite under them (CI runs this; so can anyone):
#
#   scripts/sanitize.sh                 the tests CI runs (see default_ctest_args)
#   scripts/sanitize.sh -R Watchdog     other ctest arguments instead
#   scripts/sanitize.sh --thread [...]  ThreadSanitizer instead, in build-tsan,
#                                       on the tests of the code that runs
#                                       threads (see thread_ctest_args)
#
# Environment: BUILD_DIR (default build-asan, or build-tsan), JOBS (default:
# number of cores; also the tests run at once, an MPI test counting its
# ranks), SHARDROOF_CMAKE_ARGS (extra cmake arguments).
#
# The build has no CUDA or NCCL (the sanitizers do not see into the GPU) and
# compiles at -O1 with line tables (-g1), as the sanitizers' documentation
# suggests for speed and readable reports, with the libraries as a unity
# build (their sources compiled together), which compiles in about half the
# time. Every test gets the run-time options of
# tests/sanitizers/options.txt: the first finding aborts the process, leaks
# are checked. The script also fails when a sanitizer report appears
# anywhere in ctest's log, even under a test that passed.
# Exit status: ctest's when a test failed, 1 for a report in the log, else 0.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
sanitizer=(-DSHARDROOF_SANITIZE=ON)
default_build_dir=build-asan
if [ "${1:-}" = "--thread" ]; then
  shift
  sanitizer=(-DSHARDROOF_SANITIZE_THREAD=ON)
  default_build_dir=build-tsan
fi
BUILD_DIR=${BUILD_DIR:-$default_build_dir}
JOBS=${JOBS:-$(nproc)}

# Every test but the cluster ones (slurm, emulation: they need root, a
# private Slurm and network namespaces), gpu and bundle (no CUDA in this
# build) and bad_input_extra (more cases of a bad-input class whose path a
# sampled case already runs; tests/reliability/CMakeLists.txt says which),
# and browser (Chromium, its own CI stage; the report's code runs here in
# the cli tests report.*).
default_ctest_args=(-LE 'slurm|emulation|bundle|gpu|bad_input_extra|browser')
# Under ThreadSanitizer: the code that runs threads. The watchdog's thread
# (in every command), the overlapped step's communication thread and the
# tracer's second track, alone and in whole runs that stop, kill or
# interrupt ranks.
thread_ctest_args=(-LE 'slurm|emulation|gpu|browser'
  -R 'Watchdog|ChunkWorker|Trace|overlap_product|sweep_overlap_run|trace[.]sweep[.]overlap|watchdog_sigstop|killed_run|sweep_output')
if [ "${sanitizer[0]}" = -DSHARDROOF_SANITIZE_THREAD=ON ]; then default_ctest_args=("${thread_ctest_args[@]}"); fi

if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# shellcheck disable=SC2086
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DCMAKE_UNITY_BUILD=ON "${sanitizer[@]}" -DSHARDROOF_WITH_CUDA=OFF -DSHARDROOF_WITH_NCCL=OFF \
  ${SHARDROOF_CMAKE_ARGS:-} >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS"

rc=0
if [ $# -gt 0 ]; then
  ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" "$@" || rc=$?
else
  ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" "${default_ctest_args[@]}" || rc=$?
fi
log="$BUILD_DIR/Testing/Temporary/LastTest.log"
pattern='ERROR: (Address|Leak)Sanitizer|runtime error:|WARNING: ThreadSanitizer'
if grep -Eq "$pattern" "$log"; then
  echo "sanitize: sanitizer reports in $log:" >&2
  grep -En -B2 -A20 "$pattern" "$log" >&2 || true
  [ "$rc" -ne 0 ] || rc=1
fi
exit "$rc"
