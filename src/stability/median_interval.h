// The interval a row's median should carry when its samples came in
// measurements spread over time (rounds): a two-stage percentile bootstrap
// (the measurements drawn again with replacement, then the samples within
// each drawn measurement), as the sweep's crossing interval is made, so
// that measurements that disagree (the machine in another state) widen it.
// Deterministic for a seed.
#pragma once

#include <cstdint>
#include <vector>

#include "timing/stats.h"

namespace shardroof::stability {

struct MedianInterval {
  double low = 0, high = 0;
  // The replicates' 0th..100th percentiles (101 values): the distribution
  // `shardroof combine` draws this launch's median from. Empty for empty
  // statistics.
  std::vector<double> percentiles;
};

// Empty statistics give {0, 0}.
MedianInterval median_interval(const TimeStats& t, double level = 0.95, int replicates = 1000,
                               std::uint64_t seed = 1);

}  // namespace shardroof::stability
