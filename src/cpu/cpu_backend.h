// The CPU compute backend: OpenBLAS sgemm/dgemm on host memory, row-major.
// bfloat16 operands are stored (and communicated) as bfloat16 but multiplied
// in float, because Debian's OpenBLAS has no bfloat16 GEMM; the result is
// rounded to bfloat16 once.
#pragma once

#include <memory>

#include "compute/compute_backend.h"

namespace shardroof {

// `threads`: OpenBLAS threads for this rank's GEMMs (>= 1).
std::unique_ptr<ComputeBackend> make_cpu_backend(int threads);

}  // namespace shardroof
