// The text of `sweep --sharding fsdp --overlap prefetch` (the next layer's
// weights gathered during this layer's GEMM) for the console and the JSON
// summary: over the points, how far the pipeline model's prediction was
// from the measured T_prefetch, and how much of the hideable time the
// prefetch hid.
#pragma once

#include <string>
#include <vector>

#include "sweep/analysis.h"
#include "sweep/records.h"

namespace shardroof {

// "\nprefetch over 4 layers: ..." (empty without a prefetched point).
std::string prefetch_summary(const std::vector<sweep::PointRecord>& points, const sweep::SweepAnalysis& a,
                             int layers);

}  // namespace shardroof
