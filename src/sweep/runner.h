// Measures one point of the sweep (one D) and the ceilings of the run, and
// returns plain records; it never prints. All data is made before timing.
//   T_math  the rank's partial GEMM Z_i = X[:, D_i] @ Y[D_i, :]
//   T_comm  the collective of the B x F partial sum
//   T_step  the GEMM then the collective, timed as one step
//   T_overlap  (with --overlap K > 1) the step in K chunks, chunk k's
//           collective on a communication thread while chunk k+1's GEMM
//           computes (sweep/overlap.h)
// After timing, the distributed Z left by the step is checked, and again
// after the overlapped step, which starts from a poisoned Z.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compute/compute_backend.h"
#include "link/ring_probe.h"
#include "measure/comm_setup.h"
#include "sweep/ceilings.h"
#include "sweep/check.h"
#include "sweep/overlap.h"
#include "sweep/plan.h"
#include "timing/timing.h"
#include "trace/recorder.h"

namespace shardroof::sweep {

struct PointCheck {
  bool checked = false;
  std::string method;      // "full", "freivalds" (or "none" on a rank holding nothing)
  long long wrong = 0;     // over all ranks
  long long tested = 0;    // over all ranks
  double worst_ratio = 0;  // max over ranks of |error| / tolerance
  bool passed() const { return !checked || wrong == 0; }
};

struct PointRecord {
  std::uint64_t D = 0;
  std::size_t shard_max = 0;  // ceil(D/N): the slowest rank's share
  TimeStats t_math, t_comm, t_step;
  double flops_per_s = 0;     // per rank: 2*B*ceil(D/N)*F / median T_math
  PointCheck check;           // the Z of the (unchunked) step
  int iterations = 0;         // timed iterations behind each statistic (merged ones add up)
  std::vector<int> windows;   // the iterations of each measurement merged into it, in order
  // Only with --overlap K > 1: the overlapped step and the check of its Z.
  std::optional<TimeStats> t_overlap;
  PointCheck overlap_check;
};

// The link of the book's model, measured apart from the collective under
// test: the ring probe on these ranks (link/ring_probe.h), or a
// `shardroof link` record (`sweep --link-from`).
struct BookLink {
  double W_bytes_per_s = 0;
  double alpha_s = 0;
  std::string source;                          // what W and alpha come from, for the output
  std::optional<link::RingProbeResult> probe;  // when the probe ran
};

struct RunCeilings {
  GemmRate peak_gemm;          // C_peak
  ReduceRate reduce;           // g
  MemoryBandwidth memory;      // M (triad)
  CollectiveTime collective;   // the collective's own T_comm at S = B*F*s
  BookLink link;               // W, alpha
};

// A point measured again: its samples joined to the earlier ones (medians
// and spreads over all of them), its checks combined.
void merge_point(PointRecord& into, const PointRecord& more);

class SweepRunner {
 public:
  // With a recorder, measure_point traces the last timed iteration of
  // T_math, T_comm and T_step (a region each); the ceilings are not traced.
  SweepRunner(const SweepPlan& plan, ComputeBackend& backend, CommSetup& setup, MPI_Comm comm,
              trace::Recorder* trace = nullptr);

  // Changes the overlapped step's chunks after planning: tests make a chunk
  // wrong through it to show that the check catches it.
  using ChunkEdit = std::function<void(std::vector<Chunk>&)>;

  // `z_out`, if given, receives this rank's part of the distributed Z
  // (all of it for AllReduce, its block for ReduceScatter), host bytes, as
  // the last step left it (the overlapped one with --overlap K > 1).
  PointRecord measure_point(std::uint64_t D, std::vector<std::byte>* z_out = nullptr,
                            const ChunkEdit& edit_chunks = {});
  // The same with its own iterations (`sweep --D auto` adds iterations near
  // the crossing).
  PointRecord measure_point(std::uint64_t D, const TimingPlan& timing);
  // C_peak, g, M, the collective at S, and (with `probe_link`) the ring
  // probe's W and alpha.
  RunCeilings measure_ceilings(bool probe_link);
  // What the timed GEMM region contains, for the output.
  std::string timed_gemm_work() const;

 private:
  const SweepPlan& plan_;
  ComputeBackend& backend_;
  CommSetup& setup_;
  MPI_Comm comm_;
  trace::Recorder* trace_;
  int rank_ = 0;
  PointRecord measure(std::uint64_t D, const TimingPlan& timing, std::vector<std::byte>* z_out,
                      const ChunkEdit& edit_chunks);
  GemmRate peak_gemm();
  MemoryBandwidth memory_bandwidth();
  ReduceRate reduce_rate();
  CollectiveTime collective_at_S();
  link::RingProbeResult ring_probe();
  int ranks_ = 1;
};

}  // namespace shardroof::sweep
