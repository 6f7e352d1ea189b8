// Which BLAS the program runs and which of its kernels: OpenBLAS picks a
// kernel for the CPU when the library loads (DYNAMIC_ARCH builds, as
// Debian's), and a CPU model it does not know gets an older kernel
// quietly (0.3.21 gives "Prescott", SSE3, to Intel family-6 models newer
// than it: a fall-through in get_coretype(), fixed in 0.3.25, OpenBLAS
// issue 4267). OPENBLAS_CORETYPE in the environment overrides the choice;
// the library reads it once, when it loads, before main().
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "hardware/cpu_isa.h"

namespace shardroof::hw {

struct BlasInfo {
  std::string library;       // "OpenBLAS"
  std::string version;       // "0.3.21"
  std::string config;        // the library's own build string
  std::string kernel;        // the kernel it runs, e.g. "Prescott", "SkylakeX"
  std::optional<VectorIsa> kernel_isa;  // what that kernel computes with; nullopt: not a kernel we know
  std::string coretype_env;  // OPENBLAS_CORETYPE as this process saw it; "" unset
  // Whether a bfloat16 GEMM of the library is used (no: Debian's
  // OpenBLAS has none, bfloat16 operands are widened to float).
  bool bf16_gemm = false;
};

// The linked library's answer, in this process.
BlasInfo query_blas();

// The vector level of an OpenBLAS kernel ("Prescott" -> Sse, "Haswell",
// "Zen" -> Fma256, "SkylakeX", "Cooperlake" -> Avx512), case-insensitive;
// nullopt for a name outside the x86 kernels of OpenBLAS's DYNAMIC_ARCH.
std::optional<VectorIsa> openblas_kernel_isa(std::string_view kernel);

// The OPENBLAS_CORETYPE whose kernels compute at `isa` on a CPU with
// `cpu`: "SkylakeX" (AVX-512 F, CD, BW, DQ, VL), "Haswell" (AVX2 and FMA),
// "Sandybridge" (AVX); "" when the level needs no kernel of its own (SSE)
// or the CPU lacks what the kernel needs. Values every OpenBLAS since
// 0.3.x accepts (0.3.21 cannot be forced to "Cooperlake" on every CPU,
// and its sgemm and dgemm kernels are SkylakeX's).
std::string openblas_coretype_for(VectorIsa isa, const CpuIsa& cpu);

// "0.3.21" from "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ..."; "" when absent.
std::string openblas_version(std::string_view config);

}  // namespace shardroof::hw
