#include "measure/coll_stability.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace shardroof {

CollStability assess_coll_stability(const std::vector<CollRecord>& records, double target) {
  CollStability out;
  const double ratio = (1 + target) / (1 - target);
  double origin = std::numeric_limits<double>::infinity();
  for (const auto& r : records)
    if (!r.time.stamps.empty()) origin = std::min(origin, r.time.stamps.front());
  out.origin_s = std::isfinite(origin) ? origin : 0;
  std::vector<stability::TimedWindow> run;
  for (const auto& r : records) {
    std::vector<stability::TimedWindow> row;
    stability::append_windows(row, r.time, r.bytes, out.origin_s);
    out.rows.push_back(stability::assess(row, ratio));
    stability::MedianInterval ci = stability::median_interval(r.time);
    if (out.rows.back().verdict == stability::Verdict::Unstable)
      for (const auto& state : out.rows.back().states) {
        ci.low = std::min(ci.low, state.median);
        ci.high = std::max(ci.high, state.median);
      }
    out.intervals.push_back(ci);
    if (r.time.median > 0) stability::append_windows(run, r.time, r.bytes, out.origin_s, r.time.median);
  }
  out.run = stability::assess(run, ratio);
  return out;
}

}  // namespace shardroof
