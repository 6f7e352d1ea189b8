#include "timing/stragglers.h"

#include <algorithm>

namespace shardroof {

Percentiles percentiles(std::vector<double> values) {
  const TimeStats s = summarize(std::move(values));
  return {s.median, s.p95, s.p99};
}

std::vector<RankSummary> rank_summaries(const TimeStats& t) {
  std::vector<RankSummary> out;
  const bool skews = t.per_rank_skew.size() == t.per_rank.size();
  for (std::size_t r = 0; r < t.per_rank.size(); ++r) {
    const std::vector<double>& own = t.per_rank[r];
    std::vector<double> skew(own.size(), 0.0);
    if (skews && t.per_rank_skew[r].size() == own.size()) skew = t.per_rank_skew[r];
    std::vector<double> finish(own.size());
    for (std::size_t i = 0; i < own.size(); ++i) finish[i] = skew[i] + own[i];
    out.push_back({static_cast<int>(r), percentiles(own), percentiles(std::move(skew)), percentiles(std::move(finish))});
  }
  return out;
}

std::optional<Straggler> find_straggler(const std::vector<RankSummary>& ranks, double threshold) {
  if (ranks.size() < 2) return std::nullopt;
  std::vector<RankSummary> order = ranks;
  std::stable_sort(order.begin(), order.end(),
                   [](const RankSummary& a, const RankSummary& b) { return a.finish.p50 < b.finish.p50; });
  const RankSummary& median = order[(order.size() - 1) / 2];
  const RankSummary& slowest = order.back();
  if (!(median.finish.p50 > 0)) return std::nullopt;
  const double slower = slowest.finish.p50 / median.finish.p50 - 1;
  if (!(slower > threshold)) return std::nullopt;
  return Straggler{slowest, median, slower};
}

}  // namespace shardroof
