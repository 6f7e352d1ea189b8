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

void TuningTable::merge(int ranks, const std::vector<CollectiveKind>& kinds, std::uint64_t lo, std::uint64_t hi,
                        const TuningTable& other) {
  const auto measured_now = [&](CollectiveKind k) { return std::find(kinds.begin(), kinds.end(), k) != kinds.end(); };
  std::vector<TuningRule> merged;
  for (const CollectiveKind kind : kinds) {
    const std::vector<TuningRule> old_rules = rules_for(kind, ranks);
    const std::vector<TuningRule> new_rules = other.rules_for(kind, ranks);
    // How far the old rules were measured (a table without origins: all of it).
    std::uint64_t measured_lo = kNoUpperBound, measured_hi = 0;
    bool any_origin = false;
    for (const TuningOrigin& o : measured) {
      if (o.ranks != ranks || std::find(o.kinds.begin(), o.kinds.end(), kind) == o.kinds.end()) continue;
      any_origin = true;
      measured_lo = std::min(measured_lo, o.min_bytes);
      measured_hi = std::max(measured_hi, o.max_bytes);
    }
    if (!any_origin) {
      measured_lo = 0;
      measured_hi = kNoUpperBound;
    }
    // Each rule covers (previous max, max]; keep the old parts below lo and
    // above hi where the old measurement reached (elsewhere the new rules'
    // choice at their edge extends), and the new rules within [lo, hi].
    std::vector<TuningRule> out;
    std::uint64_t start = 0;  // first size the rule covers
    for (const TuningRule& r : old_rules) {
      if (lo > 0 && measured_lo < lo && start <= lo - 1) {
        TuningRule cut = r;
        cut.max_bytes = std::min(r.max_bytes, lo - 1);
        out.push_back(cut);
      }
      start = r.max_bytes == kNoUpperBound ? kNoUpperBound : r.max_bytes + 1;
    }
    for (const TuningRule& r : new_rules) {
      if (r.max_bytes < lo) continue;
      TuningRule cut = r;
      cut.max_bytes = std::min(r.max_bytes, hi);
      out.push_back(cut);
      if (r.max_bytes >= hi) break;
    }
    if (measured_hi > hi)
      for (const TuningRule& r : old_rules)
        if (r.max_bytes > hi) out.push_back(r);
    if (!out.empty()) out.back().max_bytes = kNoUpperBound;
    // Neighbours that run the same become one rule.
    for (TuningRule& r : out) {
      if (!merged.empty() && merged.back().kind == r.kind && merged.back().ranks == r.ranks &&
          merged.back().order == r.order && merged.back().segment_bytes == r.segment_bytes) {
        merged.back().max_bytes = r.max_bytes;
      } else {
        merged.push_back(std::move(r));
      }
    }
  }
  rules.erase(std::remove_if(rules.begin(), rules.end(),
                             [&](const TuningRule& r) { return r.ranks == ranks && measured_now(r.kind); }),
              rules.end());
  rules.insert(rules.end(), merged.begin(), merged.end());
  // Older origins keep the collectives whose range was not all measured anew.
  for (TuningOrigin& o : measured) {
    if (o.ranks != ranks || o.min_bytes < lo || o.max_bytes > hi) continue;
    o.kinds.erase(std::remove_if(o.kinds.begin(), o.kinds.end(), measured_now), o.kinds.end());
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
  std::stable_sort(measured.begin(), measured.end(), [](const TuningOrigin& a, const TuningOrigin& b) {
    return std::make_tuple(a.ranks, a.min_bytes) < std::make_tuple(b.ranks, b.min_bytes);
  });
}

}  // namespace shardroof::coll
