#include "link/patterns.h"

#include <algorithm>
#include <array>
#include <utility>


namespace shardroof::link {
namespace {

struct PatternInfo {
  Pattern pattern;
  std::string_view name;
  std::string_view description;
};

constexpr std::array<PatternInfo, 4> kPatterns{{
    {Pattern::PingPong, "pingpong", "one pair at a time, one direction at a time: one-way time = round trip / 2"},
    {Pattern::Bidir, "bidir",
     "one pair at a time, both directions at once: time of the exchange, W per direction"},
    {Pattern::Shift, "shift",
     "in step k = 1 .. N-1 every rank sends to rank+k and receives from rank-k, all at once: time of each transfer"},
    {Pattern::Ring, "ring",
     "every rank sends to rank+1 and receives from rank-1, all at once (the ring's traffic): time of each transfer"},
}};

const PatternInfo& info(Pattern pattern) {
  for (const auto& p : kPatterns)
    if (p.pattern == pattern) return p;
  return kPatterns.front();
}

}  // namespace

std::string_view to_string(Pattern pattern) { return info(pattern).name; }

std::optional<Pattern> parse_pattern(std::string_view name) {
  for (const auto& p : kPatterns)
    if (p.name == name) return p.pattern;
  return std::nullopt;
}

std::string_view describe(Pattern pattern) { return info(pattern).description; }

bool is_loaded(Pattern pattern) { return pattern != Pattern::PingPong; }

bool all_ranks_at_once(Pattern pattern) { return pattern == Pattern::Shift || pattern == Pattern::Ring; }

std::vector<int> pattern_shifts(Pattern pattern, int ranks) {
  std::vector<int> out;
  if (pattern == Pattern::Ring && ranks > 1) out.push_back(1);
  if (pattern == Pattern::Shift)
    for (int k = 1; k < ranks; ++k) out.push_back(k);
  return out;
}

std::vector<RankPair> idle_reference_pairs(Pattern pattern, int ranks, const std::vector<RankPair>& pairs) {
  if (!all_ranks_at_once(pattern)) return pairs;
  std::vector<RankPair> out;
  for (const int k : pattern_shifts(pattern, ranks))
    for (int src = 0; src < ranks; ++src) {
      const int dst = (src + k) % ranks;
      const RankPair p{std::min(src, dst), std::max(src, dst)};
      if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    }
  std::sort(out.begin(), out.end(),
            [](const RankPair& a, const RankPair& b) { return std::pair(a.src, a.dst) < std::pair(b.src, b.dst); });
  return out;
}

}  // namespace shardroof::link
