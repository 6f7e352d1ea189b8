#!/usr/bin/env bash
# Runs `shardroof <args>` (singleton, no launcher) and passes when either
#  - a CUDA device is usable and the command succeeds, or
#  - it fails within 30 s with exit status 2 (usage) and exactly one
#    "shardroof: error:" line that names CUDA or the GPU.
set -uo pipefail
exe=$1
shift
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
start=$(date +%s)
timeout 60 "$exe" "$@" >"$out" 2>"$err"
rc=$?
elapsed=$(( $(date +%s) - start ))
if [ "$rc" -eq 0 ]; then
  echo "ok: '$*' ran (a GPU is usable here)"
  exit 0
fi
cat "$err" >&2
errors=$(grep -c '^shardroof: error' "$err" || true)
if [ "$rc" -ne 2 ]; then echo "FAIL: exit status $rc, expected 2 (usage)" >&2; exit 1; fi
if [ "$elapsed" -gt 30 ]; then echo "FAIL: took ${elapsed}s" >&2; exit 1; fi
if [ "$errors" -ne 1 ]; then echo "FAIL: $errors error lines, expected 1" >&2; exit 1; fi
if ! grep -qiE 'cuda|gpu' "$err"; then echo "FAIL: the error does not mention CUDA or the GPU" >&2; exit 1; fi
echo "ok: '$*' failed clearly in ${elapsed}s"
