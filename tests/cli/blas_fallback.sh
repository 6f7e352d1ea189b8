#!/usr/bin/env bash
# Runs a check of the BLAS fallback (OPENBLAS_CORETYPE=Prescott, set by the
# test) where it means something: on a CPU with AVX or wider, where the SSE
# kernel is below what the CPU can do. Elsewhere exit 77 (CTest: skipped).
#   blas_fallback.sh <expect_exit.sh> <its arguments...>
if ! grep -qw avx /proc/cpuinfo 2>/dev/null; then
  echo "SKIPPED: this CPU has no AVX: an SSE kernel is not below it" >&2
  exit 77
fi
exec "$@"
