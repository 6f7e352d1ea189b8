// The plain records of the local ceilings (ceilings/ceilings.h measures
// them): a GEMM's rate, memory bandwidth, the reduction rate g and one
// collective's time. `sweep` and `peak` both carry them; no MPI here.
#pragma once

#include <cstddef>
#include <cstdint>

#include "collectives/types.h"
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

}  // namespace shardroof
