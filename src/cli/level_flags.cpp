#include "cli/level_flags.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "cli/values.h"
#include "util/error.h"

namespace shardroof {
namespace {

std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const auto at = text.find(sep, start);
    out.emplace_back(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

bool is_number(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

}  // namespace

model::TopologyLevel parse_level_flag(std::string_view text, int index) {
  const std::string what = fmt::format("--level '{}'", text);
  const auto fields = split(text, ':');
  if (fields.size() < 2 || fields.size() > 4)
    throw_usage("{}: G:LINK[:O] (a link of --hw) or G:W:A[:O] (bytes/s, seconds), e.g. 8:nvlink or "
                "4:5e10:9.6e-6:0.5",
                what);
  model::TopologyLevel l;
  const double g = parse_number(fields[0], what + " group size");
  if (!(g >= 1 && g == std::floor(g) && g <= 2147483647.0))
    throw_usage("{}: the group size '{}' is not a whole number of 1 or more", what, fields[0]);
  l.group_size = static_cast<int>(g);
  std::size_t next = 2;
  if (is_number(fields[1])) {
    if (fields.size() < 3) throw_usage("{}: W given, the latency A missing (G:W:A[:O])", what);
    l.bytes_per_s = parse_number(fields[1], what + " W");
    l.latency_s = parse_number(fields[2], what + " latency");
    if (!(l.bytes_per_s >= 1)) throw_usage("{}: W must be at least one byte per second", what);
    if (!(l.latency_s >= 0)) throw_usage("{}: the latency must be zero or more seconds", what);
    l.name = fmt::format("level {}", index);
    next = 3;
  } else {
    l.link = fields[1];
    l.name = fields[1];
    l.bytes_per_s_given = false;
    l.latency_s_given = false;
  }
  if (fields.size() > next + 1) throw_usage("{}: too many fields (G:LINK[:O] or G:W:A[:O])", what);
  if (fields.size() == next + 1) {
    l.oversubscription = parse_number(fields[next], what + " oversubscription");
    if (!(l.oversubscription > 0 && l.oversubscription <= 1))
      throw_usage("{}: the oversubscription must be in (0, 1], the share of a group's links that leave it (0.5 for "
                  "a 2:1 spine)",
                  what);
  }
  return l;
}

model::LevelTopology topology_of_level_flags(const std::vector<std::string>& flags) {
  model::LevelTopology t;
  t.name = "--level";
  t.origin = "--level";
  long long n = 1;
  for (std::size_t i = 0; i < flags.size(); ++i) {
    t.levels.push_back(parse_level_flag(flags[i], static_cast<int>(i)));
    n *= t.levels.back().group_size;
    if (n > 2147483647LL) throw_usage("--level: the group sizes multiply to more than 2147483647 ranks");
  }
  return t;
}

}  // namespace shardroof
