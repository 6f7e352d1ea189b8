#include "measure/tuner.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace shardroof {

std::vector<SizeRanking> rank_sizes(const std::vector<CollRecord>& records) {
  std::map<std::tuple<int, std::uint64_t>, std::map<std::string, double>> sums;
  for (const CollRecord& r : records) sums[{static_cast<int>(r.kind), r.bytes}][r.impl] += r.time.iqm;
  std::vector<SizeRanking> out;
  for (auto& [key, per_impl] : sums) {
    SizeRanking s;
    s.kind = static_cast<coll::CollectiveKind>(std::get<0>(key));
    s.bytes = std::get<1>(key);
    s.times.assign(per_impl.begin(), per_impl.end());
    std::stable_sort(s.times.begin(), s.times.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    out.push_back(std::move(s));
  }
  return out;
}

bool worth_measuring(const std::string& impl, const std::vector<SizeRanking>& rankings) {
  if (rankings.size() < static_cast<std::size_t>(kPruneSizes)) return true;
  for (auto it = rankings.end() - kPruneSizes; it != rankings.end(); ++it) {
    const auto mine = std::find_if(it->times.begin(), it->times.end(), [&](const auto& t) { return t.first == impl; });
    if (mine == it->times.end() || it->times.empty()) return false;  // pruned already
    if (mine->second <= kPruneFactor * it->times.front().second) return true;
  }
  return false;
}

std::vector<coll::TuningRule> tuning_rules(const std::vector<SizeRanking>& rankings, int ranks) {
  std::vector<coll::TuningRule> rules;
  for (std::size_t i = 0; i < rankings.size(); ++i) {
    const SizeRanking& s = rankings[i];
    coll::TuningRule r;
    r.kind = s.kind;
    r.ranks = ranks;
    for (const auto& [impl, t] : s.times) {
      r.order.push_back(impl);
      if (impl != coll::kNativeImpl) break;
    }
    if (r.order.empty()) continue;
    const bool last_of_kind = i + 1 == rankings.size() || rankings[i + 1].kind != s.kind;
    r.max_bytes = last_of_kind ? coll::kNoUpperBound
                               : static_cast<std::uint64_t>(std::sqrt(static_cast<double>(s.bytes) *
                                                                      static_cast<double>(rankings[i + 1].bytes)));
    // The previous rule of this collective extends to here when it runs the same.
    if (!rules.empty() && rules.back().kind == r.kind && rules.back().order == r.order) {
      rules.back().max_bytes = r.max_bytes;
    } else {
      rules.push_back(std::move(r));
    }
  }
  return rules;
}

}  // namespace shardroof
