#include "timing/timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "collectives/mpi_transport.h"
#include "util/watchdog.h"

namespace shardroof {

TimeStats summarize(std::vector<double> samples) {
  TimeStats s;
  if (samples.empty()) return s;
  s.samples = samples;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  s.min = samples.front();
  s.max = samples.back();
  s.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  // Nearest rank: the smallest sample with at least p% of the samples at or below it.
  const auto percentile = [&](double p) {
    const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(n)));
    return samples[std::clamp<std::size_t>(rank, 1, n) - 1];
  };
  s.p95 = percentile(95);
  s.p99 = percentile(99);
  return s;
}

TimeStats scaled(TimeStats stats, double factor) {
  for (double* v : {&stats.median, &stats.min, &stats.max, &stats.p95, &stats.p99}) *v *= factor;
  for (double& v : stats.samples) v *= factor;
  return stats;
}

void HostClock::start() {
  t0_ = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double HostClock::stop() {
  const double t1 =
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  return t1 - t0_;
}

namespace {

// The one timing loop behind time_iterations and time_interleaved: each
// iteration runs ops[0], ops[1], ... in turn, each after its own barrier and
// timed on its own; `prepare`, if given, runs before each iteration's first
// barrier, outside the timed region. Returns the per-iteration maxima over
// ranks, operation-major (each operation's samples contiguous).
std::vector<double> time_ops(MPI_Comm comm, const TimingPlan& plan, Clock& clock, const std::vector<IterationFn>& ops,
                             const IterationFn& prepare) {
  const std::size_t n_ops = ops.size();
  // Each iteration is a watched step (util/watchdog.h): the scope opens
  // before the barrier and closes after the clock stops, outside the timed
  // region, and names the step in the watchdog's message.
  const auto step_name = [&](const char* what, int i, int of, std::size_t k) {
    return n_ops > 1 ? fmt::format("{} iteration {} of {}, operation {} of {}", what, i + 1, of, k + 1, n_ops)
                     : fmt::format("{} iteration {} of {}", what, i + 1, of);
  };
  for (int i = 0; i < plan.warmup; ++i) {
    for (std::size_t k = 0; k < n_ops; ++k) {
      WatchdogScope step(step_name("warm-up", i, plan.warmup, k));
      if (k == 0 && prepare) prepare(-1 - i);
      SHARDROOF_MPI_CHECK(MPI_Barrier(comm));
      ops[k](-1 - i);
    }
  }
  const std::size_t iters = static_cast<std::size_t>(std::max(plan.iters, 0));
  std::vector<double> local(n_ops * iters);
  for (std::size_t i = 0; i < iters; ++i) {
    for (std::size_t k = 0; k < n_ops; ++k) {
      WatchdogScope step(step_name("timed", static_cast<int>(i), plan.iters, k));
      if (k == 0 && prepare) prepare(static_cast<int>(i));
      SHARDROOF_MPI_CHECK(MPI_Barrier(comm));
      clock.start();
      ops[k](static_cast<int>(i));
      local[k * iters + i] = clock.stop();
    }
  }
  // One reduction after the loop: the maxima are taken outside timed regions.
  std::vector<double> slowest(local.size());
  WatchdogScope step("max over ranks of the iteration times");
  SHARDROOF_MPI_CHECK(MPI_Allreduce(local.data(), slowest.data(), static_cast<int>(local.size()), MPI_DOUBLE,
                                    MPI_MAX, comm));
  return slowest;
}

}  // namespace

std::vector<double> time_iterations(MPI_Comm comm, const TimingPlan& plan, Clock& clock,
                                    const IterationFn& op, const IterationFn& prepare) {
  return time_ops(comm, plan, clock, {op}, prepare);
}

TimeStats measure(MPI_Comm comm, const TimingPlan& plan, Clock& clock, const IterationFn& op,
                  const IterationFn& prepare) {
  return summarize(time_iterations(comm, plan, clock, op, prepare));
}

std::vector<std::vector<double>> time_interleaved(MPI_Comm comm, const TimingPlan& plan, Clock& clock,
                                                  const std::vector<IterationFn>& ops) {
  const std::vector<double> slowest = time_ops(comm, plan, clock, ops, {});
  const std::size_t iters = static_cast<std::size_t>(std::max(plan.iters, 0));
  std::vector<std::vector<double>> out(ops.size());
  for (std::size_t k = 0; k < ops.size(); ++k)
    out[k].assign(slowest.begin() + static_cast<std::ptrdiff_t>(k * iters),
                  slowest.begin() + static_cast<std::ptrdiff_t>((k + 1) * iters));
  return out;
}

std::vector<TimeStats> measure_interleaved(MPI_Comm comm, const TimingPlan& plan, Clock& clock,
                                           const std::vector<IterationFn>& ops) {
  std::vector<TimeStats> out;
  for (auto& samples : time_interleaved(comm, plan, clock, ops)) out.push_back(summarize(std::move(samples)));
  return out;
}

}  // namespace shardroof
