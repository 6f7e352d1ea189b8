#include "timing/timing.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "collectives/clock.h"
#include "collectives/mpi_transport.h"
#include "collectives/trace.h"
#include "util/watchdog.h"

namespace shardroof {

TimeStats summarize(std::vector<double> samples) {
  TimeStats s;
  s.samples = std::move(samples);
  resummarize(s);
  return s;
}

void resummarize(TimeStats& s) {
  std::vector<double> samples = s.samples;
  s.median = s.min = s.max = s.p95 = s.p99 = s.iqm = 0;
  if (samples.empty()) return;
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
  const std::size_t lo = n < 4 ? 0 : n / 4;
  const std::size_t hi = n < 4 ? n : n - n / 4;
  double sum = 0;
  for (std::size_t i = lo; i < hi; ++i) sum += samples[i];
  s.iqm = sum / static_cast<double>(hi - lo);
}

TimeStats scaled(TimeStats stats, double factor) {
  for (double* v : {&stats.median, &stats.min, &stats.max, &stats.p95, &stats.p99, &stats.iqm}) *v *= factor;
  for (double& v : stats.samples) v *= factor;
  for (auto& rank : stats.per_rank)
    for (double& v : rank) v *= factor;
  return stats;
}

void append_samples(TimeStats& a, const TimeStats& b) {
  // Stamps only where every sample has one.
  const bool stamped = a.stamps.size() == a.samples.size() && b.stamps.size() == b.samples.size();
  if (a.windows.empty()) a.windows = {a.samples.size()};
  if (b.windows.empty())
    a.windows.push_back(b.samples.size());
  else
    a.windows.insert(a.windows.end(), b.windows.begin(), b.windows.end());
  a.samples.insert(a.samples.end(), b.samples.begin(), b.samples.end());
  const auto join = [](std::vector<std::vector<double>>& x, const std::vector<std::vector<double>>& y) {
    if (x.size() != y.size()) {
      x.clear();
      return;
    }
    for (std::size_t r = 0; r < y.size(); ++r) x[r].insert(x[r].end(), y[r].begin(), y[r].end());
  };
  join(a.per_rank, b.per_rank);
  join(a.per_rank_skew, b.per_rank_skew);
  if (stamped)
    a.stamps.insert(a.stamps.end(), b.stamps.begin(), b.stamps.end());
  else
    a.stamps.clear();
}

TimeStats joined(const TimeStats& a, const TimeStats& b) {
  TimeStats out = a;
  append_samples(out, b);
  resummarize(out);
  return out;
}

double AlignedClock::now() const { return coll::Tracer::now() + offset_s; }

std::string_view to_string(TimingMode mode) {
  return mode == TimingMode::Batched ? "batched" : "per-iteration";
}

std::optional<TimingMode> parse_timing_mode(std::string_view name) {
  for (const auto mode : {TimingMode::PerIteration, TimingMode::Batched})
    if (name == to_string(mode)) return mode;
  return std::nullopt;
}

std::string aggregation_note(const TimingPlan& plan) {
  if (plan.mode == TimingMode::PerIteration) return std::string(kAggregationNote);
  return fmt::format(
      "batched: an iteration is {} back-to-back calls after one barrier, time per call = the batch's time / {}; "
      "time per iteration = max over ranks; reported: median (min, max) over iterations",
      plan.batch, plan.batch);
}

void HostClock::start() { t0_ = coll::monotonic_seconds(); }

double HostClock::stop() { return coll::monotonic_seconds() - t0_; }

std::vector<std::size_t> balanced_order(std::size_t iteration, std::size_t n) {
  std::vector<std::size_t> row(n);
  if (n == 0) return row;
  const std::size_t rows = n % 2 == 0 ? n : 2 * n;
  const std::size_t r = iteration % rows;
  // First row 0, 1, n-1, 2, n-2, ...; row r adds r (mod n) to each entry.
  for (std::size_t j = 0; j < n; ++j) {
    const std::size_t first = j == 0 ? 0 : j % 2 == 1 ? (j + 1) / 2 : n - j / 2;
    row[j] = (first + r) % n;
  }
  if (r >= n) std::reverse(row.begin(), row.end());
  return row;
}

namespace {

// Per-iteration times of one operation.
struct OpTimes {
  std::vector<double> slowest;                     // max over ranks, per iteration
  std::vector<std::vector<double>> per_rank;       // [rank][iteration]
  std::vector<std::vector<double>> per_rank_skew;  // [rank][iteration]; empty without an aligned clock
  std::vector<double> stamps;                      // rank 0's start of each iteration (Tracer::now())
};

// Each rank's arrival less the earliest rank's, per iteration; `arrivals`
// is [rank][iteration] on the aligned clock.
std::vector<std::vector<double>> skews_of(std::vector<std::vector<double>> arrivals) {
  if (arrivals.empty()) return arrivals;
  for (std::size_t i = 0; i < arrivals.front().size(); ++i) {
    double first = arrivals.front()[i];
    for (const auto& rank : arrivals) first = std::min(first, rank[i]);
    for (auto& rank : arrivals) rank[i] -= first;
  }
  return arrivals;
}

// The one timing loop behind every measurement: each iteration runs ops[0],
// ops[1], ... in turn, each after its own barrier and timed on its own (in
// batched mode each as plan.batch back-to-back calls); prepares[k], if
// given, runs before ops[k]'s barrier, outside the timed region, and in a
// timed iteration after a barrier of its own. With
// `aligned`, each rank stamps the moment it enters each timed region.
std::vector<OpTimes> time_ops(MPI_Comm comm, const TimingPlan& plan, Clock& clock, const std::vector<IterationFn>& ops,
                              const std::vector<IterationFn>& prepares, TurnOrder order = TurnOrder::AsListed,
                              const AlignedClock* aligned = nullptr) {
  const std::size_t n_ops = ops.size();
  const auto has_prepare = [&](std::size_t k) { return k < prepares.size() && prepares[k]; };
  const auto prepare = [&](std::size_t k, int iteration) {
    if (has_prepare(k)) prepares[k](iteration);
  };
  const bool batched = plan.mode == TimingMode::Batched;
  const int calls = batched ? std::max(plan.batch, 1) : 1;
  // Each iteration is a watched step (util/watchdog.h): the scope opens
  // before the barrier and closes after the clock stops, outside the timed
  // region, and names the step in the watchdog's message.
  const auto step_name = [&](const char* what, int i, int of, std::size_t k) {
    return n_ops > 1 ? fmt::format("{} iteration {} of {}, operation {} of {}", what, i + 1, of, k + 1, n_ops)
                     : fmt::format("{} iteration {} of {}", what, i + 1, of);
  };
  if (batched) {
    // Warm-up calls back to back, as the timed ones run.
    for (std::size_t k = 0; k < n_ops && plan.warmup > 0; ++k) {
      WatchdogScope step(step_name("warm-up", 0, 1, k));
      prepare(k, -1);
      SHARDROOF_MPI_CHECK(MPI_Barrier(comm));
      for (int c = 0; c < plan.warmup; ++c) ops[k](-1 - c);
    }
  } else {
    for (int i = 0; i < plan.warmup; ++i) {
      for (std::size_t k = 0; k < n_ops; ++k) {
        WatchdogScope step(step_name("warm-up", i, plan.warmup, k));
        prepare(k, -1 - i);
        SHARDROOF_MPI_CHECK(MPI_Barrier(comm));
        ops[k](-1 - i);
      }
    }
  }
  const std::size_t iters = static_cast<std::size_t>(std::max(plan.iters, 0));
  std::vector<double> local(n_ops * iters);
  std::vector<double> arrivals(aligned ? local.size() : 0);
  std::vector<double> starts(local.size());
  for (std::size_t i = 0; i < iters; ++i) {
    const std::vector<std::size_t> row = order == TurnOrder::Balanced ? balanced_order(i, n_ops) : std::vector<std::size_t>{};
    for (std::size_t turn = 0; turn < n_ops; ++turn) {
      const std::size_t k = order == TurnOrder::Balanced ? row[turn] : turn;
      WatchdogScope step(step_name("timed", static_cast<int>(i), plan.iters, k));
      if (has_prepare(k)) {
        // A call can return on one rank while its peer's call still waits
        // for it: MPI may complete a send only when the receiver next
        // enters the library. A rank that went straight into an untimed
        // preparation (restoring an in-place input of 128 MiB: 8 ms) held
        // its peer's last send open that long, and the peer's timed call
        // read 2x. Every rank enters the library here before any prepares.
        SHARDROOF_MPI_CHECK(MPI_Barrier(comm));
        prepare(k, static_cast<int>(i));
      }
      SHARDROOF_MPI_CHECK(MPI_Barrier(comm));
      // The stamp is taken after the barrier, just before the clock starts:
      // it costs one clock read, outside the timed region.
      if (aligned) arrivals[k * iters + i] = aligned->now();
      starts[k * iters + i] = coll::Tracer::now();
      clock.start();
      for (int c = 0; c < calls; ++c) ops[k](static_cast<int>(i));
      local[k * iters + i] = clock.stop() / calls;
    }
  }
  // After the loop, outside timed regions: the maxima over ranks, and every
  // rank's own times.
  WatchdogScope step("max over ranks of the iteration times");
  std::vector<double> slowest(local.size());
  SHARDROOF_MPI_CHECK(MPI_Allreduce(local.data(), slowest.data(), static_cast<int>(local.size()), MPI_DOUBLE,
                                    MPI_MAX, comm));
  int nranks = 1;
  SHARDROOF_MPI_CHECK(MPI_Comm_size(comm, &nranks));
  // Every rank's times, its start stamps, and then (with an aligned clock)
  // its arrivals.
  const std::size_t times_size = local.size();
  local.insert(local.end(), starts.begin(), starts.end());
  local.insert(local.end(), arrivals.begin(), arrivals.end());
  std::vector<double> all(local.size() * static_cast<std::size_t>(nranks));
  SHARDROOF_MPI_CHECK(MPI_Allgather(local.data(), static_cast<int>(local.size()), MPI_DOUBLE, all.data(),
                                    static_cast<int>(local.size()), MPI_DOUBLE, comm));
  std::vector<OpTimes> out(n_ops);
  const auto at = [&](const std::vector<double>& v, std::size_t offset) {
    return v.begin() + static_cast<std::ptrdiff_t>(offset);
  };
  for (std::size_t k = 0; k < n_ops; ++k) {
    out[k].slowest.assign(at(slowest, k * iters), at(slowest, (k + 1) * iters));
    // Rank 0's stamps: one clock for the whole run, on every rank.
    out[k].stamps.assign(at(all, times_size + k * iters), at(all, times_size + (k + 1) * iters));
    std::vector<std::vector<double>> rank_arrivals;
    for (std::size_t r = 0; r < static_cast<std::size_t>(nranks); ++r) {
      const std::size_t base = r * local.size() + k * iters;
      out[k].per_rank.emplace_back(at(all, base), at(all, base + iters));
      if (aligned) {
        const std::size_t stamps = base + 2 * times_size;
        rank_arrivals.emplace_back(at(all, stamps), at(all, stamps + iters));
      }
    }
    out[k].per_rank_skew = skews_of(std::move(rank_arrivals));
  }
  return out;
}

TimeStats stats_of(OpTimes times) {
  TimeStats s = summarize(std::move(times.slowest));
  s.per_rank = std::move(times.per_rank);
  s.per_rank_skew = std::move(times.per_rank_skew);
  s.stamps = std::move(times.stamps);
  return s;
}

}  // namespace

std::vector<double> time_iterations(MPI_Comm comm, const TimingPlan& plan, Clock& clock,
                                    const IterationFn& op, const IterationFn& prepare) {
  return std::move(time_ops(comm, plan, clock, {op}, {prepare}).front().slowest);
}

TimeStats measure(MPI_Comm comm, const TimingPlan& plan, Clock& clock, const IterationFn& op,
                  const IterationFn& prepare, const AlignedClock* aligned) {
  return stats_of(std::move(time_ops(comm, plan, clock, {op}, {prepare}, TurnOrder::AsListed, aligned).front()));
}

std::vector<std::vector<double>> time_interleaved(MPI_Comm comm, const TimingPlan& plan, Clock& clock,
                                                  const std::vector<IterationFn>& ops) {
  std::vector<std::vector<double>> out;
  for (auto& t : time_ops(comm, plan, clock, ops, {})) out.push_back(std::move(t.slowest));
  return out;
}

std::vector<TimeStats> measure_interleaved(MPI_Comm comm, const TimingPlan& plan, Clock& clock,
                                           const std::vector<IterationFn>& ops,
                                           const std::vector<IterationFn>& prepares, TurnOrder order,
                                           const AlignedClock* aligned) {
  std::vector<TimeStats> out;
  for (auto& t : time_ops(comm, plan, clock, ops, prepares, order, aligned)) out.push_back(stats_of(std::move(t)));
  return out;
}

}  // namespace shardroof
