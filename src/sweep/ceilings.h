// Local and link ceilings measured on the ranks themselves, by the timing
// module's rules (every rank runs at once, per-iteration max over ranks):
// GEMM FLOP/s at a given shape, memory bandwidth (STREAM-like copy and
// triad), the local reduction rate g, and the time of one collective at one
// size. Used by `sweep` and `peak`.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "collectives/collective.h"
#include "collectives/types.h"
#include "compute/compute_backend.h"
#include "measure/comm_setup.h"
#include "timing/timing.h"

namespace shardroof::sweep {

struct GemmRate {
  std::size_t m = 0, n = 0, k = 0;
  coll::DataType type = coll::DataType::Float;
  TimeStats time;
  double flops_per_s = 0;  // 2*m*n*k / median time
};

// Times C[m x n] = A[m x k] B[k x n] on every rank at once.
GemmRate measure_gemm_rate(ComputeBackend& backend, MPI_Comm comm, std::size_t m, std::size_t n,
                           std::size_t k, coll::DataType type, const TimingPlan& timing);

struct MemoryBandwidth {
  std::size_t elements = 0;  // doubles per array
  TimeStats copy, triad;
  double copy_bytes_per_s = 0;   // 2 arrays touched: 16 bytes per element
  double triad_bytes_per_s = 0;  // 3 arrays touched: 24 bytes per element
};

// STREAM-like host kernels on arrays of `elements` doubles, every rank at once.
MemoryBandwidth measure_memory_bandwidth(MPI_Comm comm, std::size_t elements, const TimingPlan& timing);

struct ReduceRate {
  std::size_t count = 0;
  coll::DataType type = coll::DataType::Float;
  TimeStats time;
  double s_per_elem = 0;  // g
};

// dst = a + b over `count` elements with the memory's own reduction.
ReduceRate measure_reduce_rate(coll::MemoryOps& memory, MPI_Comm comm, coll::DataType type, std::size_t count,
                               const TimingPlan& timing);

struct CollectiveTime {
  std::uint64_t bytes = 0;  // S, the whole array
  TimeStats time;
};

// Times `kind` at `bytes` (out of place, non-zero data): the collective's
// own T_comm at the size the sweep's shapes use, S = B*F*s.
CollectiveTime time_collective(CommSetup& setup, MPI_Comm comm, coll::CollectiveKind kind, Impl impl,
                               const coll::RingOptions& ring, coll::DataType type, std::uint64_t bytes,
                               const TimingPlan& timing);

}  // namespace shardroof::sweep
