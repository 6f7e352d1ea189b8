// The interval a row's median should carry when its samples came in
// measurements spread over time (rounds): a two-stage percentile bootstrap
// (the measurements drawn again with replacement, then the samples within
// each drawn measurement), as the sweep's crossing interval is made, so
// that measurements that disagree (the machine in another state) widen it.
// Deterministic for a seed.
#pragma once

#include <cstdint>

#include "timing/stats.h"

namespace shardroof::stability {

struct MedianInterval {
  double low = 0, high = 0;
};

// Empty statistics give {0, 0}.
MedianInterval median_interval(const TimeStats& t, double level = 0.95, int replicates = 1000,
                               std::uint64_t seed = 1);

}  // namespace shardroof::stability
