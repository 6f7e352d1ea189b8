// The plain records of the timing module: the statistics of a measurement
// and the plan it was timed by. No MPI: reporters and the analysis read
// them; timing/timing.h measures them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardroof {

// Statistics over iterations of the per-iteration maximum over ranks.
struct TimeStats {
  double median = 0;  // = p50
  double min = 0;
  double max = 0;
  double p95 = 0;  // nearest-rank percentiles over iterations
  double p99 = 0;
  // Interquartile mean: the mean of the middle half of the sorted samples.
  // Where the times of one operation fall into two modes (small messages:
  // which rank leaves the barrier first), the median jumps between them as
  // their shares pass one half; this moves smoothly, and still ignores the
  // rare iteration that lost its core.
  double iqm = 0;
  // The per-iteration values themselves, in iteration order: what a
  // resampling (bootstrap) interval or a later reader needs.
  std::vector<double> samples;
  // Each rank's own per-iteration times ([rank][iteration], on that rank's
  // clock), of which `samples` holds the maxima. Empty when the statistics
  // were made from bare samples (summarize).
  std::vector<std::vector<double>> per_rank;
  // Each rank's arrival skew per iteration ([rank][iteration], seconds):
  // how much later than the earliest rank it entered the timed region
  // (left the barrier), on the aligned clock (timing/timing.h). Empty when
  // the measurement had no aligned clock.
  std::vector<std::vector<double>> per_rank_skew;
  // When each timed iteration began (rank 0's monotonic clock,
  // coll::Tracer::now(), seconds), one per sample: where a measurement lies
  // in time, so that samples taken over a run can be tested for a change of
  // the machine's state (stability/stability.h). Empty when the statistics
  // were made from bare samples.
  std::vector<double> stamps;
  // The samples of each measurement joined into these (joined), in order;
  // empty: one measurement. Samples of one measurement share the machine's
  // state of that moment, so resampling and change-point tests keep them
  // together.
  std::vector<std::size_t> windows;
};

// What the output says about how numbers were aggregated (per-iteration mode).
inline constexpr std::string_view kAggregationNote =
    "time per iteration = max over ranks; reported: median (min, max) over iterations";

TimeStats summarize(std::vector<double> samples);

// The median of `v`: the middle value, or the mean of the middle two; 0 when
// empty. Reorders v (nth_element: linear, no sort).
inline double median_in_place(std::vector<double>& v) {
  if (v.empty()) return 0;
  const std::size_t n = v.size();
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(v.begin(), mid, v.end());
  const double hi = *mid;
  if (n % 2) return hi;
  return 0.5 * (hi + *std::max_element(v.begin(), mid));
}
inline double median_of(std::vector<double> v) { return median_in_place(v); }
// The statistics (median, min, max, percentiles, iqm) made again from
// `samples`, the rest kept.
void resummarize(TimeStats& stats);

// Every statistic and sample (per-rank ones too) multiplied by `factor` (a
// round trip halved into a one-way time, say). Arrival skews are moments,
// not durations of the operation: they stay.
TimeStats scaled(TimeStats stats, double factor);

// The samples of `a` and then of `b` summarized together (a measurement
// taken again); each rank's times and skews joined likewise, or dropped
// when the two do not hold the same ranks.
TimeStats joined(const TimeStats& a, const TimeStats& b);
// joined without the summary: b's samples, each rank's, the stamps and the
// windows appended to a's, whose statistics stay as they were until
// resummarize. Many measurements joined one by one then cost one summary,
// not one per measurement.
void append_samples(TimeStats& a, const TimeStats& b);

enum class TimingMode {
  // One call per timed iteration, each after a barrier: the time of a step
  // as the sweep sees it, with its variation from call to call.
  PerIteration,
  // A timed iteration is a batch of back-to-back calls after one barrier;
  // its time is the batch's time divided by the number of calls. Calls
  // overlap their neighbours' start-up and wind-down, as in an application
  // loop: what OSU Micro-Benchmarks and nccl-tests report.
  Batched,
};

std::string_view to_string(TimingMode mode);  // "per-iteration", "batched"
std::optional<TimingMode> parse_timing_mode(std::string_view name);

struct TimingPlan {
  int warmup = 5;  // untimed calls before the timed ones
  int iters = 20;  // timed iterations (batches in batched mode)
  TimingMode mode = TimingMode::PerIteration;
  int batch = 20;  // calls per timed iteration in batched mode
};

// What the output says about how a plan's numbers were aggregated.
std::string aggregation_note(const TimingPlan& plan);

}  // namespace shardroof
