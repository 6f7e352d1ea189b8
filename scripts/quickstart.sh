#!/usr/bin/env bash
# Set up, build and run shardroof on a fresh Debian 12 machine.
#
#   scripts/quickstart.sh main   install what is missing, build, run the main job:
#                                `shardroof sweep` on 2 local ranks, three shorter
#                                launches, combined (`shardroof combine`), so the
#                                answer is one the next launch should confirm;
#                                write results/ and one HTML report, whose path
#                                it prints last
#   scripts/quickstart.sh test   install what is missing, build, run the test suite: every
#                                test but the cluster (slurm, emulation), browser and
#                                device-bundle ones, which need what quickstart does not install and run
#                                as stages of their own in `.ci/run` (which runs all of CI)
#   scripts/quickstart.sh build  install what is missing and build only
#
# Environment: BUILD_DIR (default build), JOBS (default: number of cores; also
# the tests run at once), SHARDROOF_CMAKE_ARGS (extra cmake arguments), NP
# (ranks for `main`, default 2), CTEST_ARGS (more ctest arguments, e.g. -R NAME),
# LAUNCHES (launches of `main`, default 3), LAUNCH_BUDGET_S (seconds each may
# measure, default 20: three launches take the time one default launch does).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
NP=${NP:-2}
LAUNCHES=${LAUNCHES:-3}
LAUNCH_BUDGET_S=${LAUNCH_BUDGET_S:-20}
what=${1:-main}

# Debian packages the build, the tests and the plot need.
packages=(build-essential cmake pkg-config openmpi-bin libopenmpi-dev libopenblas-dev
          libcli11-dev libtomlplusplus-dev nlohmann-json3-dev libfmt-dev libgtest-dev
          libbenchmark-dev python3 python3-matplotlib)

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "quickstart: installing ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

build() {
  # shellcheck disable=SC2086
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release ${SHARDROOF_CMAKE_ARGS:-} >/dev/null
  cmake --build "$BUILD_DIR" -j "$JOBS"
}

mpi_flags=(--oversubscribe --mca mpi_yield_when_idle 1)

if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

case "$what" in
  build)
    install_missing
    build
    ;;
  main)
    install_missing
    build
    # The BLAS kernel: shardroof itself runs the CPU's where the library's
    # own choice is below it (--blas-kernel auto); each header says which ran.
    mkdir -p results
    stamp=$(date +%Y%m%d-%H%M%S)
    # One launch is one draw of what stays fixed while it runs (placement,
    # addresses, the MPI library's segments): several shorter launches,
    # combined, give an answer that carries over to the next launch.
    # Each measures for LAUNCH_BUDGET_S seconds, its rounds spread over
    # 40% of it.
    records=()
    for ((k = 1; k <= LAUNCHES; k++)); do
      echo "quickstart: launch $k of $LAUNCHES (load average $(cut -d' ' -f1-3 /proc/loadavg))" >&2
      mpirun -np "$NP" "${mpi_flags[@]}" "$BUILD_DIR/src/shardroof" sweep \
        --budget-s "$LAUNCH_BUDGET_S" --min-span-s "$(( LAUNCH_BUDGET_S * 2 / 5 ))" \
        --json "results/sweep-$stamp-$k.json" --csv "results/sweep-$stamp-$k.csv"
      records+=("results/sweep-$stamp-$k.json")
    done
    "$BUILD_DIR/src/shardroof" combine "${records[@]}" \
      --json "results/combine-$stamp.json" --csv "results/combine-$stamp.csv"
    # One page to open (inline SVG, no network): the answer, the last
    # launch's sweep plot, the launches side by side, ceilings beside the
    # hardware, the environment. The inter-chip roofline panel is plot.py's.
    "$BUILD_DIR/src/shardroof" report "${records[@]}" "results/combine-$stamp.json" \
      -o "results/report-$stamp.html" > /dev/null
    if ! /usr/bin/python3 scripts/plot.py "results/sweep-$stamp-$LAUNCHES.json" -o "results/sweep-$stamp-$LAUNCHES.png" \
         > /dev/null; then
      echo "quickstart: the roofline plot failed (results/sweep-$stamp-$LAUNCHES.png); the report has the rest" >&2
    fi
    echo "quickstart: records in results/sweep-$stamp-{1..$LAUNCHES}.{json,csv} and results/combine-$stamp.{json,csv}"
    echo "quickstart: report: results/report-$stamp.html"
    ;;
  test)
    install_missing
    build
    # Tests run JOBS at a time: an MPI test counts its ranks (PROCESSORS), so
    # one of 2 ranks fills a 2-core machine alone, and tests that time a
    # shaped link or start daemons are the stages left out here.
    # shellcheck disable=SC2086
    ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" -LE 'slurm|emulation|bundle|browser' ${CTEST_ARGS:-}
    ;;
  *)
    echo "usage: $0 main|test|build" >&2
    exit 2
    ;;
esac
