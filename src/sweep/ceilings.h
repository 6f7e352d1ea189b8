// Local and link ceilings measured on the ranks themselves, by the timing
// module's rules (every rank runs at once, per-iteration max over ranks):
// GEMM FLOP/s at a given shape, memory bandwidth (STREAM-like copy and
// triad), the local reduction rate g, and timings of one collective at
// several sizes for the alpha/W fit. Used by `sweep` and `peak`.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "collectives/collective.h"
#include "collectives/types.h"
#include "compute/compute_backend.h"
#include "measure/comm_setup.h"
#include "sweep/fit.h"
#include "timing/timing.h"

namespace shardroof::sweep {

struct GemmRate {
  std::size_t m = 0, n = 0, k = 0;
  coll::DataType type = coll::DataType::Float;
  TimeStats time;
  double flops_per_s = 0;  // 2*m*n*k / median time
};

// The formulas behind the rates below, from a median time in seconds (0
// when the time is not positive). Kept apart from the measuring so tests
// check them on synthetic times.
double gemm_flops_per_s(std::size_t m, std::size_t n, std::size_t k, double seconds);  // 2*m*n*k / t
double copy_bytes_per_s(std::size_t elements, double seconds);   // 2 arrays of doubles: 16*elements / t
double triad_bytes_per_s(std::size_t elements, double seconds);  // 3 arrays of doubles: 24*elements / t
double reduce_s_per_elem(std::size_t count, double seconds);     // g = t / count (0 for no elements)

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

struct CollectiveTimings {
  std::vector<std::uint64_t> bytes;  // S, whole array
  std::vector<TimeStats> time;
  LineFit line;  // median time against S
};

// Times `kind` at each size in `bytes` (out of place, non-zero data) and
// fits a line through the medians.
CollectiveTimings time_collective_sizes(CommSetup& setup, MPI_Comm comm, coll::CollectiveKind kind, Impl impl,
                                        const coll::RingOptions& ring, coll::DataType type,
                                        const std::vector<std::uint64_t>& bytes, const TimingPlan& timing);

// Sizes for the fit, spaced evenly around `center` bytes: center * {1/2,
// 3/4, 1, 5/4, 3/2}, whole elements, at least one element. The sweep's
// model needs T_comm at exactly one size, S = B*F*s, and a least-squares
// line passes through the mean of its points: with sizes whose mean is S,
// the fitted T_comm(S) is the mean of the measured times whatever the
// curvature of the real T(S) (a transport's protocol switches, a shaped
// link's burst), which a range reaching far below S (S/8) does not give.
std::vector<std::uint64_t> fit_sizes(std::uint64_t center, std::size_t element_bytes);

}  // namespace shardroof::sweep
