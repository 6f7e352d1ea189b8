#include "collectives/tuning.h"

#include <algorithm>
#include <tuple>

namespace shardroof::coll {

std::string TuningOrigin::get(const std::string& key) const {
  for (const auto& [k, v] : fields)
    if (k == key) return v;
  return "";
}

const TuningRule* TuningTable::rule_for(CollectiveKind kind, int ranks, std::uint64_t bytes) const {
  const TuningRule* best = nullptr;
  for (const TuningRule& r : rules) {
    if (r.kind != kind || r.ranks != ranks || r.max_bytes < bytes) continue;
    if (!best || r.max_bytes < best->max_bytes) best = &r;
  }
  return best;
}

std::vector<TuningRule> TuningTable::rules_for(CollectiveKind kind, int ranks) const {
  std::vector<TuningRule> out;
  for (const TuningRule& r : rules)
    if (r.kind == kind && r.ranks == ranks) out.push_back(r);
  std::sort(out.begin(), out.end(), [](const TuningRule& a, const TuningRule& b) { return a.max_bytes < b.max_bytes; });
  return out;
}

const TuningOrigin* TuningTable::origin_for(CollectiveKind kind, int ranks) const {
  for (const TuningOrigin& o : measured)
    if (o.ranks == ranks && std::find(o.kinds.begin(), o.kinds.end(), kind) != o.kinds.end()) return &o;
  return nullptr;
}

void TuningTable::replace(int ranks, const std::vector<CollectiveKind>& kinds, const TuningTable& other) {
  const auto replaced = [&](const TuningRule& r) {
    return r.ranks == ranks && std::find(kinds.begin(), kinds.end(), r.kind) != kinds.end();
  };
  rules.erase(std::remove_if(rules.begin(), rules.end(), replaced), rules.end());
  for (const TuningRule& r : other.rules)
    if (replaced(r)) rules.push_back(r);
  // Older origins of this rank count keep the collectives not measured anew.
  for (TuningOrigin& o : measured) {
    if (o.ranks != ranks) continue;
    o.kinds.erase(std::remove_if(o.kinds.begin(), o.kinds.end(),
                                 [&](CollectiveKind k) { return std::find(kinds.begin(), kinds.end(), k) != kinds.end(); }),
                  o.kinds.end());
  }
  measured.erase(std::remove_if(measured.begin(), measured.end(), [](const TuningOrigin& o) { return o.kinds.empty(); }),
                 measured.end());
  for (const TuningOrigin& o : other.measured)
    if (o.ranks == ranks) measured.push_back(o);
  sort();
}

void TuningTable::sort() {
  const auto key = [](const TuningRule& r) { return std::make_tuple(static_cast<int>(r.kind), r.ranks, r.max_bytes); };
  std::stable_sort(rules.begin(), rules.end(), [&](const TuningRule& a, const TuningRule& b) { return key(a) < key(b); });
  std::stable_sort(measured.begin(), measured.end(),
                   [](const TuningOrigin& a, const TuningOrigin& b) { return a.ranks < b.ranks; });
}

}  // namespace shardroof::coll
