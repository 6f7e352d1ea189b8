// The plain records of the local ceilings (ceilings/ceilings.h measures
// them): a GEMM's rate, memory bandwidth, the reduction rate g and one
// collective's time. `sweep` and `peak` both carry them; no MPI here.
#pragma once

#include <cstddef>
#include <cstdint>

#include <optional>
#include <string>
#include <vector>

#include "collectives/types.h"
#include "hardware/blas_kernel.h"
#include "hardware/core_peak.h"
#include "hardware/cpu_isa.h"
#include "hardware/gpu_peak.h"
#include "hardware/limits.h"
#include "hardware/line_rate.h"
#include "timing/stats.h"

namespace shardroof {

struct GemmRate {
  std::size_t m = 0, n = 0, k = 0;
  coll::DataType type = coll::DataType::Float;
  TimeStats time;
  double flops_per_s = 0;  // 2*m*n*k / median time
};

struct MemoryBandwidth {
  std::size_t elements = 0;  // doubles per array
  TimeStats copy, triad;
  double copy_bytes_per_s = 0;   // 2 arrays touched: 16 bytes per element
  double triad_bytes_per_s = 0;  // 3 arrays touched: 24 bytes per element
};

struct ReduceRate {
  std::size_t count = 0;
  coll::DataType type = coll::DataType::Float;
  TimeStats time;
  double s_per_elem = 0;  // g
};

struct CollectiveTime {
  std::uint64_t bytes = 0;  // S, the whole array
  TimeStats time;
};

// The hardware's own limits beside the ceilings (ceilings/hardware_limits.h
// measures them).
struct HardwareLimits {
  std::string cpu_model;  // rank 0's
  hw::CpuIsa cpu;         // rank 0's
  hw::BlasInfo blas;      // rank 0's
  // The CPU backend: each loop's rate, min over ranks (a loop some rank
  // lacks is left out); the clock likewise. Unmeasured with a GPU backend.
  hw::CorePeak core;
  int threads = 1;  // BLAS threads per rank
  // A GPU backend: rank 0's device, its clock replaced by the lowest any
  // rank's driver reported (read_gpu_clocks), and which rank that was.
  std::optional<hw::GpuDevice> gpu;
  int gpu_clock_rank = 0;
  bool allow_tf32 = false;

  // The hardware's peak per rank for the GEMM of `type`: the core's (CPU
  // backend) or the GPU's; nullopt where not known.
  std::optional<hw::ComputeLimit> compute_limit(coll::DataType type) const;
  // The BLAS kernel against the CPU (CPU backend only).
  std::optional<hw::KernelVerdict> blas_verdict(coll::DataType type) const;
};

}  // namespace shardroof
