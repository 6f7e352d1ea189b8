// `coll --tune-to`: from measurements of every implementation at every size to
// a tuning table (collectives/tuning.h). Measuring is coll_runner's; these
// are the plain decisions on its records, so they can be tested alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collectives/tuning.h"
#include "measure/coll_runner.h"

namespace shardroof {

// An implementation that took more than kPruneFactor times the best at
// kPruneSizes sizes in a row is not measured at larger sizes (direct
// AllReduce sends N-1 times the ring's bytes; its loss only grows).
inline constexpr double kPruneFactor = 4.0;
inline constexpr int kPruneSizes = 2;

// A size's time of each implementation: the sum of its out-of-place and
// in-place interquartile means (auto serves both placements; TimeStats::iqm
// says why not the median), fastest first.
struct SizeRanking {
  coll::CollectiveKind kind = coll::CollectiveKind::AllReduce;
  std::uint64_t bytes = 0;
  std::vector<std::pair<std::string, double>> times;  // impl, seconds; fastest first
};

// One ranking per (collective, size) among `records` (coll_runner's, every
// implementation side by side), in increasing size.
std::vector<SizeRanking> rank_sizes(const std::vector<CollRecord>& records);

// Whether `impl` is still worth measuring after `rankings` (of one
// collective, in increasing size): false once it was slower than
// kPruneFactor times the best at the last kPruneSizes sizes.
bool worth_measuring(const std::string& impl, const std::vector<SizeRanking>& rankings);

// The rules for `ranks` ranks from `rankings`: a measured size's rule covers
// the sizes up to the geometric mean of it and the next measured size (the
// largest has no upper bound); its order lists the implementations fastest
// first, up to and including the fastest of ours (what follows can never
// be chosen where ours are all available). Neighbouring sizes with the same
// order share one rule.
std::vector<coll::TuningRule> tuning_rules(const std::vector<SizeRanking>& rankings, int ranks);

}  // namespace shardroof
