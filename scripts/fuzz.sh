#!/usr/bin/env bash
# Fuzz the parsers of user input (sizes, lists, ranges, numbers, TOML
# config text) and the model's numeric flags (`predict`'s checks) with
# libFuzzer for a bounded time.
#
#   scripts/fuzz.sh [SECONDS]     default 60
#
# Builds fuzz/ with clang (-DSHARDROOF_FUZZ=ON) in $BUILD_DIR (default
# build-fuzz), starts from the seeds in fuzz/corpus/ and the kept inputs in
# fuzz/regressions/, and writes new interesting inputs to $BUILD_DIR/corpus.
# A crash stops the run and leaves crash-<hash> in $BUILD_DIR/artifacts:
# fix the bug, then copy the file into fuzz/regressions/ so the unit test
# FuzzRegressions.EveryKeptInputParsesCleanly replays it from then on.
# Exit status: 0 when no crash was found, non-zero otherwise.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
seconds=${1:-60}
BUILD_DIR=${BUILD_DIR:-build-fuzz}
CXX_CLANG=${CXX_CLANG:-$(command -v clang++-14 || command -v clang++)}
CC_CLANG=${CC_CLANG:-$(command -v clang-14 || command -v clang)}

cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$CXX_CLANG" \
  -DCMAKE_C_COMPILER="$CC_CLANG" -DSHARDROOF_FUZZ=ON -DSHARDROOF_BUILD_TESTS=OFF \
  -DSHARDROOF_WITH_CUDA=OFF -DSHARDROOF_WITH_NCCL=OFF >/dev/null
cmake --build "$BUILD_DIR" --target shardroof_fuzz_parse -j "${JOBS:-$(nproc)}"

mkdir -p "$BUILD_DIR/corpus" "$BUILD_DIR/artifacts"
"$BUILD_DIR/fuzz/shardroof_fuzz_parse" -max_total_time="$seconds" -max_len=512 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$BUILD_DIR/artifacts/" \
  "$BUILD_DIR/corpus" fuzz/corpus fuzz/regressions
