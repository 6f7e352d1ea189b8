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
// With --sharding fsdp a point is one batch B instead (sweep/fsdp_step.cpp):
// the AllGather of the weight and the GEMM of each rank's rows.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "collectives/hierarchy_layout.h"
#include "compute/compute_backend.h"
#include "link/ring_probe.h"
#include "model/pipeline.h"
#include "model/roofline.h"
#include "sweep/levels.h"
#include "sweep/two_level.h"
#include "measure/comm_setup.h"
#include "ceilings/ceilings.h"
#include "sweep/check.h"
#include "sweep/overlap.h"
#include "sweep/plan.h"
#include "sweep/records.h"
#include "sweep/search.h"
#include "timing/timing.h"
#include "trace/recorder.h"
#include "util/memory_budget.h"

namespace shardroof::sweep {

// Rank 0's search step to every rank (only rank 0 keeps the reason).
void share_step(MPI_Comm comm, SearchStep& step);

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
  // C_peak, g, M, the GEMM's floor (B x F x 1) and smallest call, the
  // collective at S, and (with `probe_link`) the ring probe's W and alpha.
  RunCeilings measure_ceilings(bool probe_link);
  // One round of the ceilings the book prediction uses, measured again
  // beside the points (merge_ceilings joins it to the earlier rounds): the
  // reference GEMM at `first`'s C_peak shape, g, M, the GEMM's floor and,
  // where `first` has one, the ring probe. Fewer iterations than the first
  // measurement: the rounds add up.
  RunCeilings measure_ceiling_round(const RunCeilings& first);
  // The ring probe on each level of plan.ring.hier.node_of_rank (link/two_level_probe.h).
  std::optional<TwoLevelProbes> measure_two_level_probes();
  // Past two levels (sweep/levels.h): the ring probes of every level and
  // T_comm at S of our ring and hier over every group of each level at once,
  // checked. Empty with fsdp (hier gathers nothing).
  std::optional<LevelMeasurements> measure_levels(const coll::HierarchyLayout& layout);
  // The link model (W, alpha, g) `--overlap auto` weighs each K with; until
  // it is set, the measured T_comm is cut in proportion (no latency paid
  // again).
  void set_overlap_link(const model::Ceilings& link) { overlap_link_ = link; }
  // What the timed GEMM region contains, for the output.
  std::string timed_gemm_work() const;

 private:
  const SweepPlan& plan_;
  ComputeBackend& backend_;
  CommSetup& setup_;
  MPI_Comm comm_;
  trace::Recorder* trace_;
  int rank_ = 0;
  std::uint64_t measurements_ = 0;  // measurements so far: draws each one's spacer
  PointRecord measure(std::uint64_t D, const TimingPlan& timing, std::vector<std::byte>* z_out,
                      const ChunkEdit& edit_chunks);
  // --sharding fsdp at the whole batch B: `z_out` receives this rank's B/N rows of Z.
  PointRecord measure_fsdp(std::uint64_t B, const TimingPlan& timing, std::vector<std::byte>* z_out);
  // --overlap prefetch at that point, on the rank's rows of X.
  PrefetchRun measure_prefetch(std::uint64_t B, std::size_t rows, std::size_t first_row, const void* x,
                               const TimingPlan& timing, Clock& clock);
  // What one point's measurements share: its buffers, the prepared GEMM and
  // collective, the clocks, and the steps as measure() runs them.
  struct PointContext {
    std::uint64_t D;
    Shard shard;
    std::size_t out_count;  // elements of this rank's result
    const void* x;
    const void* y;
    void* partial;
    void* z;
    ComputeBackend::PreparedGemm& gemm;
    Clock& clock;
    const AlignedClock& aligned;
    coll::Tracer* tracer;
    const char* kind_name;
    std::function<void()> run_gemm;  // the unchunked GEMM (traced)
    std::function<void()> reduce;    // the unchunked collective (traced)
    std::function<PointCheck()> check_z;
    const TimingPlan& timing;
    const ChunkEdit& edit_chunks;
  };
  // With --overlap (sweep/overlap_runner.cpp): T_math, T_comm, the plain
  // step, the interference and every chunked step measured in the same
  // rounds, interleaved in a balanced order, so that the pipeline model's
  // inputs and the steps it predicts come from one state of the machine;
  // then each result checked.
  void measure_overlapped(const PointContext& c, PointRecord& rec);
  // One measurement of `body` (the timing rules of timing/timing.h) as a
  // region of the trace, its last timed iteration recorded; with `auto`
  // the region names the algorithm `collective` ran. `aligned`: stamps the
  // ranks' arrivals on one clock (nullptr: none).
  TimeStats timed_region(trace::Region region, const TimingPlan& timing, Clock& clock, const AlignedClock* aligned,
                         coll::Tracer* tracer, const coll::Collective& collective, const std::function<void()>& body);
  GemmRate peak_gemm();
  GemmRate floor_gemm(const TimingPlan& timing);
  GemmRate call_gemm(const TimingPlan& timing);
  MemoryBandwidth memory_bandwidth();
  ReduceRate reduce_rate();
  CollectiveTime collective_at_S();
  link::RingProbeResult ring_probe(const TimingPlan& timing);
  double now_on_rank0() const;
  // One operation timed alone (untraced): the median of the per-iteration maxima over ranks.
  double time_alone(const TimingPlan& timing, Clock& clock, const std::function<void()>& body);
  // The overlapped step's stamps (the first `filled` of `stamps`, on rank
  // 0's clock) into run's per-chunk times, the same on every rank.
  void summarize_stamps(const std::vector<std::vector<model::ChunkSpans>>& stamps, std::size_t filled,
                        OverlapRun& run) const;
  // --overlap auto at one point.
  OverlapChoiceRecord choose_chunks_at(std::size_t B, std::size_t F, std::size_t shard, const void* x, const void* y,
                                       void* partial, const TimingPlan& timing, double t_math, double t_comm,
                                       const model::Interference& interference);
  int ranks_ = 1;
  std::optional<model::Ceilings> overlap_link_;
};

// Memory per rank: the two shards, the partial sum and its result, and
// the buffers of T_comm at S (2 x 2*B*F), with --overlap on a CPU the second
// partial sum and result of the interference measurement (2*B*F more);
// refuse what cannot fit rather than die. --D auto stays below the
// largest D that fits. With --sharding fsdp: the rows of X and Z, the
// weight's block and the whole weight, T_comm at S's buffers (2 x D*F), and
// with --overlap prefetch each layer's block and rows of Z and a second
// whole weight; --B auto stays below the largest batch that fits.
void budget_memory(SweepPlan& plan, int ranks, const NodeMemory& node);

}  // namespace shardroof::sweep
