// The hardware's own limits beside what the software reaches: the core's
// compute peak per rank for a datatype (core_peak.h, times the BLAS
// threads), and whether the BLAS kernel computes below what the CPU can
// (blas_kernel.h), with the fix. Pure arithmetic on the records: no MPI,
// no measuring.
#pragma once

#include <optional>
#include <string>

#include "collectives/types.h"
#include "hardware/blas_kernel.h"
#include "hardware/core_peak.h"
#include "hardware/cpu_isa.h"

namespace shardroof::hw {

// A kernel computes below the CPU when the loop of its own level reaches
// less than this share of the CPU's fastest loop for the datatype. Levels
// differ by 2x or more where they differ at all (SSE 8 or 16 FLOP/cycle,
// AVX2+FMA 32, AVX-512 64 on a core with two 512-bit FMA units) and tie
// where a core splits wide instructions (a 512-bit FMA as two 256-bit
// halves): 3/4 lies between the two cases on any core.
inline constexpr double kBelowShare = 0.75;

// A ceiling is called far below its hardware limit under this share (the
// console's warning; gates take their own share, `hw:F`).
inline constexpr double kLowShare = 0.5;

// The hardware's compute peak per rank for one datatype.
struct ComputeLimit {
  coll::DataType type = coll::DataType::Float;
  double flops_per_s = 0;  // per rank
  std::string name;        // "this core's AVX-512 FMA peak", "this GPU's bfloat16 tensor peak"
  std::string kind;        // what computes, without whose: "AVX-512 FMA", "bfloat16 tensor"
  std::string formula;     // "32.0 FLOP/cycle x 3.69 GHz x 1 thread"; FLOP/s alone where the clock is unknown
};

// The core's peak for `type` per rank: the fastest loop for the datatype
// (the AVX512_BF16 dot for bfloat16 where the CPU has it, else float's),
// as measured with every rank of the node at once (a rank's share where
// ranks share a core's units), times the BLAS threads of a rank. nullopt
// where nothing was measured.
std::optional<ComputeLimit> cpu_compute_limit(const CorePeak& peak, coll::DataType type, int threads);

// Whether the BLAS kernel computes `type` below what the CPU can.
struct KernelVerdict {
  coll::DataType type = coll::DataType::Float;
  std::optional<VectorIsa> kernel_isa;  // the kernel's level (blas.kernel_isa)
  std::optional<VectorIsa> best_isa;    // the CPU's fastest loop's level for the datatype's arithmetic
  double kernel_flops = 0;              // per core: the loop of the kernel's level, in the GEMM's arithmetic
  double best_flops = 0;                // per core: the fastest loop for the datatype
  // true: below (kernel_flops < kBelowShare x best_flops, or bfloat16
  // multiplied in float on a CPU with AVX512_BF16); nullopt: not known (a
  // kernel we do not know, or nothing measured).
  std::optional<bool> below_cpu;
  std::string cause;         // what falls short, in words; "" when not below
  std::string fix_kernel;    // the value of the library's kernel variable that fixes it; "" when none does
  std::string fix;           // the fix in words, "" when none is known
};

KernelVerdict judge_blas_kernel(const BlasInfo& blas, const CpuIsa& cpu, const CorePeak& peak, coll::DataType type);

// The core's bound on the local reduction g (seconds per element of
// dst = a + b): one vector of sums per cycle at the CPU's widest level,
// two loads and a store, which a core of that level sustains from its L1.
// A bound, not a goal: a reduction larger than the caches is bound by
// memory instead. nullopt where nothing was measured or the clock is
// unknown.
std::optional<double> reduce_bound_s_per_elem(const CorePeak& peak, const CpuIsa& cpu, std::size_t element_bytes);
// The vector width in bytes of a level.
std::size_t vector_bytes(VectorIsa isa);

// "1.23 GHz"-style helpers shared by the reporters.
std::string ghz_text(double hz);
// A loop's rate per cycle where the clock is known ("32.0 FLOP/cycle"),
// else per second ("118.2 GFLOP/s").
std::string loop_rate_text(const CorePeak& peak, const LoopRate& r);

}  // namespace shardroof::hw
