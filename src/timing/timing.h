// The one timing module every command uses (the timing rules stated in the README):
//  - warm-up runs first and is never timed;
//  - each timed iteration starts after a barrier;
//  - an iteration's time is the MAX over ranks (a step ends when its
//    slowest rank ends);
//  - a measurement reports the median, min and max over iterations (and
//    nearest-rank p95/p99), keeps every sample, and keeps each rank's own
//    per-iteration times and, given an aligned clock, how late each rank
//    entered each timed iteration, so a straggler can be seen.
// Two modes: per iteration (one call per barrier, the default) and batched
// (several back-to-back calls per barrier, the time per call averaged over
// the batch: what OSU-style and nccl-tests-style benchmarks report).
// The body measures itself through a Clock, so device work can be timed with
// stream events (the CUDA backend's clock) and host work with the monotonic
// clock of collectives/clock.h (steady_clock; simulated time under SMPI).
#pragma once

#include <mpi.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "timing/stats.h"

namespace shardroof {

// Times one operation on this rank.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual void start() = 0;
  // Seconds since start(), after all work issued since then has finished.
  virtual double stop() = 0;
};

class HostClock final : public Clock {
 public:
  void start() override;
  double stop() override;

 private:
  double t0_ = 0;
};

// Rank 0's clock as this rank reads it: the trace's monotonic clock
// (coll::Tracer::now) plus this rank's offset against rank 0, which
// trace::aligned_clock estimates. Stamps taken on different hosts compare on
// it; arrival skews are taken on it.
struct AlignedClock {
  double offset_s = 0;  // rank 0's time = this rank's Tracer::now() + offset_s
  double now() const;
};

using IterationFn = std::function<void(int iteration)>;

// Runs `op(iteration)` plan.warmup times untimed, then plan.iters timed
// iterations, each after a barrier on `comm`. Per iteration: one call, or in
// batched mode plan.batch back-to-back calls timed together (the sample is
// their time divided by plan.batch); batched warm-up calls run back to back
// after one barrier. Returns the per-iteration maxima over ranks (identical
// on every rank). `op` receives the iteration index, negative for warm-up.
// `prepare(iteration)`, if given, runs before each iteration's barrier,
// outside the timed region, and before a timed iteration only once every
// rank has entered a barrier after its previous call (so no peer's call
// waits out this rank's preparation): it refreshes or rotates buffers (e.g.
// restores an in-place input); in batched mode it runs once per batch, so
// the calls of a batch after the first see what the previous call left.
std::vector<double> time_iterations(MPI_Comm comm, const TimingPlan& plan, Clock& clock,
                                    const IterationFn& op, const IterationFn& prepare = {});

// time_iterations followed by summarize; also keeps each rank's own
// per-iteration times (TimeStats::per_rank) and, with `aligned`, each rank's
// arrival skew per iteration (TimeStats::per_rank_skew): when it entered the
// timed region, after the barrier, against the earliest rank, on `aligned`.
TimeStats measure(MPI_Comm comm, const TimingPlan& plan, Clock& clock, const IterationFn& op,
                  const IterationFn& prepare = {}, const AlignedClock* aligned = nullptr);

// Several operations measured together: each iteration (warm-up or timed)
// runs ops[0], ops[1], ... in turn, each after its own barrier and timed on
// its own. A change of load on a shared machine then reaches every
// operation alike instead of the one that happened to be running, so their
// ratios (T_math against T_comm, one message size against another) hold
// even when their absolute values drift. Returns, per operation, the
// per-iteration maxima over ranks (identical on every rank).
std::vector<std::vector<double>> time_interleaved(MPI_Comm comm, const TimingPlan& plan, Clock& clock,
                                                  const std::vector<IterationFn>& ops);

// The order in which an interleaved measurement runs its operations.
enum class TurnOrder {
  AsListed,  // ops[0], ops[1], ... every iteration
  // Iteration i runs the operations in row i of a Williams design (see
  // balanced_order): over its rows every operation runs first equally
  // often and right after every other one equally often. An operation
  // inherits caches, scratch and scheduler state from the one before it;
  // with a plain rotation (ops[i mod n] first, then in list order) each one
  // always followed the same neighbour, and on 4 ranks over 2 cores the
  // one after the MPI library's call read 1.15-1.3x slower than the same
  // code measured beside it.
  Balanced,
};

// The operations' order in iteration `iteration` of a balanced measurement
// of n operations: row `iteration mod rows` of a Williams Latin square
// (rows = n for even n, 2n for odd n, where the second half mirrors the
// first). In each set of rows every ordered pair (a, b), a != b, stands
// side by side equally often (once for even n, twice for odd n).
std::vector<std::size_t> balanced_order(std::size_t iteration, std::size_t n);

// time_interleaved followed by summarize, per operation, with each rank's
// own per-iteration times (and, with `aligned`, arrival skews, as measure
// keeps them). prepares[k], if given, runs before each of
// ops[k]'s iterations (warm-up included: before its warm-up batch in
// batched mode), outside the timed region, as `prepare` does for measure.
std::vector<TimeStats> measure_interleaved(MPI_Comm comm, const TimingPlan& plan, Clock& clock,
                                           const std::vector<IterationFn>& ops,
                                           const std::vector<IterationFn>& prepares = {},
                                           TurnOrder order = TurnOrder::AsListed,
                                           const AlignedClock* aligned = nullptr);

}  // namespace shardroof
