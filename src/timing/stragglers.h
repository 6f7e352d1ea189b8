// Which rank holds the others back: each rank's own times per iteration and
// its arrival skews (TimeStats::per_rank, per_rank_skew) summarized per
// rank, and the slowest rank named when it stands out. A plain analysis of
// the timing records: no MPI; the reporters format what it finds.
//
// A rank's time per iteration here is its finish time: from the moment the
// earliest rank entered the timed region to the moment this rank left it,
// on the aligned clock (arrival skew + its own time). A rank that entered
// late or worked slowly finishes late; a rank that only waited inside a
// collective for a late one does not finish after it, so it is not named
// for the other's lateness (its own time alone would be the longest).
// Without skews (no aligned clock) the finish time is the own time.
#pragma once

#include <optional>
#include <vector>

#include "timing/stats.h"

namespace shardroof {

// Nearest-rank percentiles over iterations, as summarize takes them.
struct Percentiles {
  double p50 = 0;
  double p95 = 0;
  double p99 = 0;
};

Percentiles percentiles(std::vector<double> values);

struct RankSummary {
  int rank = 0;
  Percentiles time;    // its own time per iteration (seconds)
  Percentiles skew;    // its arrival skew per iteration (seconds); zeros without skews
  Percentiles finish;  // its finish time per iteration: skew + own time
};

// One summary per rank, in rank order; empty when the statistics hold no
// per-rank times.
std::vector<RankSummary> rank_summaries(const TimeStats& t);

// A rank is named when its median finish time exceeds the median rank's by
// more than this fraction.
inline constexpr double kStragglerThreshold = 0.10;

struct Straggler {
  RankSummary slowest;     // the rank with the largest median finish time
  RankSummary median;      // the median rank (the lower middle one for an even count)
  double slower = 0;       // slowest.finish.p50 / median.finish.p50 - 1
};

// The slowest rank, when it is more than `threshold` slower than the median
// rank; nothing for fewer than two ranks or a zero median.
std::optional<Straggler> find_straggler(const std::vector<RankSummary>& ranks,
                                        double threshold = kStragglerThreshold);

}  // namespace shardroof
