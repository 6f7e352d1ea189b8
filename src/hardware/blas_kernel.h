// Which BLAS the program runs and which of its kernels. A library picks a
// kernel for the CPU when it loads, and a CPU model it does not know gets
// an older kernel quietly: Debian 12's OpenBLAS 0.3.21 gives "Prescott"
// (SSE3) to Intel family-6 models newer than it (a fall-through in
// get_coretype(), fixed in 0.3.25, OpenBLAS issue 4267), a fifth of an
// AVX-512 core; BLIS 0.9.0 gives those CPUs "haswell" (AVX2), half of it.
// Each library reads one variable when it loads, before main(), that
// overrides the choice: OPENBLAS_CORETYPE, BLIS_ARCH_TYPE.
//
// The library is chosen when the program is configured (SHARDROOF_BLAS):
// one file per library answers query_blas() and set_blas_threads()
// (blas_openblas.cpp, blas_blis.cpp, blas_other.cpp). The kernel tables
// below are plain data, the same in every build.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hardware/cpu_isa.h"

namespace shardroof::hw {

// The libraries whose kernels this program knows by name. Other: any
// CBLAS CMake's FindBLAS finds (Intel MKL, AOCL, Arm PL, ...), named but
// not judged.
enum class BlasFamily { OpenBlas, Blis, Other };

// Who chose the kernel this process runs.
//   Library    the library, by itself, when it loaded
//   User       the library's variable, set before the program started
//   Shardroof  the program, which ran itself again with the variable set
//              because the library's own choice computes below this CPU
//              (--blas-kernel auto)
//   Flag       the program, asked by --blas-kernel NAME
enum class KernelSetBy { Library, User, Shardroof, Flag };
std::string_view to_string(KernelSetBy by);

struct BlasInfo {
  BlasFamily family = BlasFamily::Other;
  std::string library;       // "OpenBLAS", "BLIS", or the vendor CMake found
  std::string version;       // "0.3.21"; "" unknown
  std::string config;        // the library's own build string
  std::string kernel;        // the kernel it runs, e.g. "Prescott", "SkylakeX", "skx"; "" unknown
  std::optional<VectorIsa> kernel_isa;  // what that kernel computes with; nullopt: not a kernel we know
  std::string kernel_variable;  // the variable that overrides the choice; "" none known
  std::string kernel_env;       // that variable as this process saw it; "" unset
  KernelSetBy set_by = KernelSetBy::Library;
  // Where this program set the kernel: the one the library chose by itself.
  std::string library_kernel;
  // Whether a bfloat16 GEMM of the library is used (no: neither Debian's
  // OpenBLAS nor BLIS has one, bfloat16 operands are widened to float).
  bool bf16_gemm = false;
  // What the variable takes for a kernel where that is not the kernel's
  // name: BLIS 0.9.0 reads BLIS_ARCH_TYPE as the number of its arch_t
  // (skx 0, haswell 3, penryn 5, ...), and a name reads as 0. Empty: the
  // name itself (OpenBLAS).
  std::vector<std::pair<std::string, std::string>> kernel_settings;
};

// The value of the library's variable that runs `kernel`: its entry in
// blas.kernel_settings (case-insensitive), else the name.
std::string kernel_setting(const BlasInfo& blas, std::string_view kernel);

// The linked library's answer, in this process.
BlasInfo query_blas();
// The linked library's threads per call; false where the library takes them
// only from its own variable.
bool set_blas_threads(int threads);
// The family the build links.
BlasFamily linked_blas_family();

// The variable a family reads for its kernel: "OPENBLAS_CORETYPE",
// "BLIS_ARCH_TYPE"; "" for Other.
std::string_view kernel_variable(BlasFamily family);
// The vector level of a family's kernel, case-insensitive; nullopt for a
// name outside its x86 kernels.
std::optional<VectorIsa> kernel_isa(BlasFamily family, std::string_view kernel);
// The kernel names the family's variable accepts on x86 (for --blas-kernel).
std::vector<std::string_view> kernel_names(BlasFamily family);
// The value of the family's variable whose kernels compute at `isa` on a
// CPU with `cpu`; "" when the level needs no kernel of its own (SSE), the
// CPU lacks what the kernel needs, or the family has no variable.
std::string kernel_for(BlasFamily family, VectorIsa isa, const CpuIsa& cpu);

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

// The vector level of a BLIS configuration ("skx", "knl" -> Avx512;
// "haswell", "zen", "zen2", "zen3" (BLIS 0.9.0 runs zen3 on Zen 4), the
// later AMD FX cores -> Fma256;
// "sandybridge", "bulldozer" -> Avx; "penryn" -> Sse; "generic", plain C,
// counts as Sse, the least a vector kernel does), case-insensitive.
std::optional<VectorIsa> blis_kernel_isa(std::string_view kernel);
// The BLIS_ARCH_TYPE for `isa` on `cpu`: "skx", "haswell", "sandybridge";
// "" as openblas_coretype_for.
std::string blis_arch_for(VectorIsa isa, const CpuIsa& cpu);

}  // namespace shardroof::hw
