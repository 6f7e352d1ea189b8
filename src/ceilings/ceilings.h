// Local and link ceilings measured on the ranks themselves, by the timing
// module's rules (every rank runs at once, per-iteration max over ranks):
// GEMM FLOP/s at a given shape, memory bandwidth (STREAM-like copy and
// triad), the local reduction rate g, and the time of one collective at one
// size. Used by `sweep` and `peak`; the records are ceilings/records.h.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "collectives/collective.h"
#include "collectives/types.h"
#include "compute/compute_backend.h"
#include "measure/comm_setup.h"
#include "ceilings/records.h"
#include "timing/timing.h"

namespace shardroof {

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

// The smallest call the backend makes: a 1 x 1 x 1 GEMM, each call timed on
// the host clock up to the device's synchronisation (on a GPU a launch and
// a synchronisation; on a CPU the library's own per-call cost).
GemmRate measure_call_rate(ComputeBackend& backend, MPI_Comm comm, coll::DataType type, const TimingPlan& timing);

// C_peak: the GEMM at m x n x k, grown (all three dimensions alike) until
// one call takes at least `min_seconds`, so that the ceiling is measured on
// work that fills the device and outlasts launch and timer overheads by
// far (a 2048x2048x1024 product takes about 10 us on an H200). Growth stops
// where the operands would pass a quarter of the backend's free memory
// shared by the ranks of the node; the rate of the last shape is returned.
GemmRate measure_peak_gemm_rate(ComputeBackend& backend, MPI_Comm comm, std::size_t m, std::size_t n,
                                std::size_t k, coll::DataType type, const TimingPlan& timing,
                                double min_seconds = 0.020);

struct GemmShape {
  std::size_t m = 0, n = 0, k = 0;
  bool operator==(const GemmShape&) const = default;
};

// The next shape to try when `shape` took `seconds` per call: its volume
// scaled by 1.2 * min_seconds / seconds (at least 2, at most 64, as one
// call far shorter than a launch says little about the larger one), each
// dimension by the cube root, rounded up to a multiple of 128, and then cut
// back so that A, B and C together stay within `max_bytes`. Returns
// `shape` itself when no larger shape fits.
GemmShape grown_gemm_shape(GemmShape shape, double seconds, double min_seconds, std::size_t element_bytes,
                           std::size_t max_bytes);

// STREAM-like copy and triad on arrays of `elements` doubles in the
// backend's own memory (device memory with --backend cuda), timed with the
// backend's clock, every rank at once. Each array is made at least
// kCacheMultiple times the backend's cache_bytes(), so the kernels stream
// from memory rather than from a GPU's L2.
MemoryBandwidth measure_memory_bandwidth(ComputeBackend& backend, MPI_Comm comm, std::size_t elements,
                                         const TimingPlan& timing);
inline constexpr std::size_t kCacheMultiple = 8;

// dst = a + b over `count` elements with the backend memory's own
// reduction, timed with the backend's clock (CUDA events on a GPU).
ReduceRate measure_reduce_rate(ComputeBackend& backend, MPI_Comm comm, coll::DataType type, std::size_t count,
                               const TimingPlan& timing);

// Times `kind` at `bytes` (out of place, non-zero data): the collective's
// own T_comm at the size the sweep's shapes use, S = B*F*s.
CollectiveTime time_collective(CommSetup& setup, MPI_Comm comm, coll::CollectiveKind kind, coll::Algorithm impl,
                               const coll::CollectiveOptions& ring, coll::DataType type, std::uint64_t bytes,
                               const TimingPlan& timing);

}  // namespace shardroof
