// The one timing module every command uses (the timing rules stated in the README):
//  - warm-up iterations run first and are never timed;
//  - each timed iteration starts after a barrier;
//  - an iteration's time is the MAX over ranks (a step ends when its
//    slowest rank ends);
//  - a measurement reports the median, min and max over iterations.
// The body measures itself through a Clock, so device work can be timed with
// stream events (the CUDA backend's clock) and host work with steady_clock.
#pragma once

#include <mpi.h>

#include <functional>
#include <string_view>
#include <vector>

namespace shardroof {

// Statistics over iterations of the per-iteration maximum over ranks.
struct TimeStats {
  double median = 0;
  double min = 0;
  double max = 0;
  double p95 = 0;  // nearest-rank percentiles over iterations
  double p99 = 0;
  // The per-iteration values themselves, in iteration order: what a
  // resampling (bootstrap) interval or a later reader needs.
  std::vector<double> samples;
};

// What the output says about how numbers were aggregated.
inline constexpr std::string_view kAggregationNote =
    "time per iteration = max over ranks; reported: median (min, max) over iterations";

TimeStats summarize(std::vector<double> samples);

// Every statistic and sample multiplied by `factor` (a round trip halved
// into a one-way time, say).
TimeStats scaled(TimeStats stats, double factor);

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

struct TimingPlan {
  int warmup = 5;
  int iters = 20;
};

using IterationFn = std::function<void(int iteration)>;

// Runs `op(iteration)` plan.warmup times untimed, then plan.iters times
// timed, each after a barrier on `comm`. Returns the per-iteration maxima
// over ranks (identical on every rank). `op` receives the iteration index,
// negative for warm-up. `prepare(iteration)`, if given, runs before each
// iteration's barrier, outside the timed region: it refreshes or rotates
// buffers (e.g. restores an in-place input).
std::vector<double> time_iterations(MPI_Comm comm, const TimingPlan& plan, Clock& clock,
                                    const IterationFn& op, const IterationFn& prepare = {});

// time_iterations followed by summarize.
TimeStats measure(MPI_Comm comm, const TimingPlan& plan, Clock& clock, const IterationFn& op,
                  const IterationFn& prepare = {});

// Several operations measured together: each iteration (warm-up or timed)
// runs ops[0], ops[1], ... in turn, each after its own barrier and timed on
// its own. A change of load on a shared machine then reaches every
// operation alike instead of the one that happened to be running, so their
// ratios (T_math against T_comm, one message size against another) hold
// even when their absolute values drift. Returns, per operation, the
// per-iteration maxima over ranks (identical on every rank).
std::vector<std::vector<double>> time_interleaved(MPI_Comm comm, const TimingPlan& plan, Clock& clock,
                                                  const std::vector<IterationFn>& ops);

// time_interleaved followed by summarize, per operation.
std::vector<TimeStats> measure_interleaved(MPI_Comm comm, const TimingPlan& plan, Clock& clock,
                                           const std::vector<IterationFn>& ops);

}  // namespace shardroof
