// Formatting of the straggler analysis (timing/stragglers.h) for coll and
// sweep: each rank's summary in the JSON, and the console line that names
// the slowest rank. It never measures.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "timing/stragglers.h"

namespace shardroof {

// A time unit of the output: its name in field suffixes and text ("us",
// "s") and the factor from seconds.
struct TimeUnit {
  std::string_view name;
  double per_second;
};
inline constexpr TimeUnit kMicroseconds{"us", 1e6};
inline constexpr TimeUnit kMilliseconds{"ms", 1e3};
inline constexpr TimeUnit kSeconds{"s", 1.0};

// The host of `rank` in `hosts` (rank order), or "" when unknown.
std::string host_of(const std::vector<std::string>& hosts, int rank);

// {"rank", "host", "time_<unit>": {p50, p95, p99}, "skew_<unit>": ...,
//  "finish_<unit>": ...}.
nlohmann::json rank_summary_json(const RankSummary& r, const std::vector<std::string>& hosts, TimeUnit unit);
// The summaries of every rank, as an array.
nlohmann::json rank_summaries_json(const std::vector<RankSummary>& ranks, const std::vector<std::string>& hosts,
                                   TimeUnit unit);
// {"rank", "host", "slower", "median_rank", ...} or null.
nlohmann::json straggler_json(const std::optional<Straggler>& s, const std::vector<std::string>& hosts, TimeUnit unit);

// "rank 1 (node7) +35% (median finish 12.3 us vs 9.1 us, <what>); arrival
// skew p50 1.2 us, p99 4.0 us": the console's straggler line after its
// prefix.
std::string straggler_text(const Straggler& s, const std::vector<std::string>& hosts, TimeUnit unit,
                           std::string_view what);

// What the console says "slower" means, once in the header.
inline constexpr std::string_view kStragglerNote =
    "straggler: a rank named when its median finish time (from the earliest rank's entry to its own exit, on "
    "rank 0's aligned clock: arrival skew + its own time) is over 10% above the median rank's";

}  // namespace shardroof
