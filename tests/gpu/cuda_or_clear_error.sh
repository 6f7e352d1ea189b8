#!/usr/bin/env bash
# cuda_or_clear_error.sh EXPECT_EXIT WITH_CUDA SHARDROOF ARGS...
# Runs `shardroof ARGS` (singleton, no launcher) through the tests' exit
# helper (EXPECT_EXIT). Which outcome is right is decided here, before the
# run, from the build and the machine, never from what the command did:
#  - a build with CUDA on a machine with a visible NVIDIA device: the
#    command must succeed;
#  - otherwise it must fail within 30 s with exit status 2 (usage) and
#    exactly one "shardroof: error" line, which names CUDA or the GPU.
set -uo pipefail
expect_exit=$1 with_cuda=$2
shift 2

# Visible devices: none when CUDA_VISIBLE_DEVICES hides them all, else the
# driver's device files (nvidia-smi, where installed, lists the same).
visible_gpus() {
  if [ "${CUDA_VISIBLE_DEVICES+set}" = set ]; then
    case "$CUDA_VISIBLE_DEVICES" in ""|-1|NoDevFiles) echo 0; return ;; esac
  fi
  if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true
    return
  fi
  local n=0 f
  for f in /dev/nvidia[0-9]*; do [ -e "$f" ] && n=$((n + 1)); done
  echo "$n"
}

gpus=$(visible_gpus)
if [ "$with_cuda" = 1 ] && [ "$gpus" -gt 0 ]; then
  echo "cuda_or_clear_error: a CUDA build and $gpus visible GPU(s): '${*:2}' must run"
  exec "$expect_exit" --status 0 -- timeout 120 "$@"
fi
echo "cuda_or_clear_error: $([ "$with_cuda" = 1 ] && echo "no visible GPU" || echo "a build without CUDA"):" \
     "'${*:2}' must fail clearly"
exec "$expect_exit" --status 2 --seconds 30 --once '^shardroof: error' --match '[Cc][Uu][Dd][Aa]|GPU|gpu' -- timeout 60 "$@"
