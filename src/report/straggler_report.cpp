#include "report/straggler_report.h"

#include <fmt/format.h>

namespace shardroof {

namespace {

nlohmann::json percentiles_json(const Percentiles& p, TimeUnit unit) {
  return {{"p50", p.p50 * unit.per_second}, {"p95", p.p95 * unit.per_second}, {"p99", p.p99 * unit.per_second}};
}

std::string field(std::string_view what, TimeUnit unit) { return fmt::format("{}_{}", what, unit.name); }

// "1234 us", "12.3 us", "0.41 ms".
std::string time_text(double seconds, TimeUnit unit) {
  const double v = seconds * unit.per_second;
  if (v >= 100) return fmt::format("{:.0f} {}", v, unit.name);
  if (v >= 10) return fmt::format("{:.1f} {}", v, unit.name);
  return fmt::format("{:.2f} {}", v, unit.name);
}

}  // namespace

std::string host_of(const std::vector<std::string>& hosts, int rank) {
  return rank >= 0 && static_cast<std::size_t>(rank) < hosts.size() ? hosts[static_cast<std::size_t>(rank)] : "";
}

nlohmann::json rank_summary_json(const RankSummary& r, const std::vector<std::string>& hosts, TimeUnit unit) {
  return {{"rank", r.rank},
          {"host", host_of(hosts, r.rank)},
          {field("time", unit), percentiles_json(r.time, unit)},
          {field("skew", unit), percentiles_json(r.skew, unit)},
          {field("finish", unit), percentiles_json(r.finish, unit)}};
}

nlohmann::json rank_summaries_json(const std::vector<RankSummary>& ranks, const std::vector<std::string>& hosts,
                                   TimeUnit unit) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : ranks) out.push_back(rank_summary_json(r, hosts, unit));
  return out;
}

nlohmann::json straggler_json(const std::optional<Straggler>& s, const std::vector<std::string>& hosts, TimeUnit unit) {
  if (!s) return nullptr;
  return {{"rank", s->slowest.rank},
          {"host", host_of(hosts, s->slowest.rank)},
          {"slower", s->slower},
          {"median_rank", s->median.rank},
          {field("finish_p50", unit), s->slowest.finish.p50 * unit.per_second},
          {field("median_rank_finish_p50", unit), s->median.finish.p50 * unit.per_second},
          {field("skew", unit), percentiles_json(s->slowest.skew, unit)}};
}

std::string straggler_text(const Straggler& s, const std::vector<std::string>& hosts, TimeUnit unit,
                           std::string_view what) {
  const std::string host = host_of(hosts, s.slowest.rank);
  return fmt::format("rank {}{} +{:.0f}% (median finish {} vs {} of rank {}, {}); arrival skew p50 {}, p99 {}",
                     s.slowest.rank, host.empty() ? "" : " (" + host + ")", s.slower * 100,
                     time_text(s.slowest.finish.p50, unit), time_text(s.median.finish.p50, unit), s.median.rank,
                     what, time_text(s.slowest.skew.p50, unit), time_text(s.slowest.skew.p99, unit));
}

}  // namespace shardroof
