#include "tuning/tuning.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <utility>

#include "report/results_file.h"
#include "util/error.h"

namespace shardroof {

coll::TuningTable table_from_records(const std::vector<CollRecord>& records,
                                     const std::vector<coll::CollectiveKind>& kinds, int ranks,
                                     coll::TuningOrigin origin) {
  coll::TuningTable t;
  t.measured.push_back(std::move(origin));
  const std::vector<SizeRanking> all = rank_sizes(records);
  for (const auto kind : kinds) {
    std::vector<SizeRanking> rankings;
    for (const auto& s : all)
      if (s.kind == kind) rankings.push_back(s);
    for (auto& r : tuning_rules(rankings, ranks)) t.rules.push_back(std::move(r));
  }
  t.sort();
  return t;
}

coll::TuningTable table_from_sources(const TuningSources& sources) {
  coll::TuningTable t;
  t.measured.push_back(sources.origin);
  t.rules = tuning_rules_over_launches(sources.launches, sources.ranks);
  t.sort();
  return t;
}

std::string passes_text(std::size_t iterations) {
  const auto passes = pass_bounds(iterations);
  if (passes.empty()) return "no passes";
  std::size_t shortest = iterations, longest = 0;
  for (const auto& [begin, end] : passes) {
    shortest = std::min(shortest, end - begin);
    longest = std::max(longest, end - begin);
  }
  return shortest == longest ? fmt::format("{} passes of {} iterations per size", passes.size(), shortest)
                             : fmt::format("{} passes of {}-{} iterations per size", passes.size(), shortest, longest);
}

void check_tuning_output(const std::string& path, bool force, const std::string& flag) {
  check_writable(path, flag);
  std::ifstream in(path);
  if (!in || force) return;
  try {
    read_tuning_file(path);
  } catch (const UsageError& e) {
    throw_usage("{}: '{}' exists and is not a tuning table ({}); --force replaces it", flag, path, e.what());
  }
}

void write_tuning_table(const std::string& path, int ranks, const std::vector<coll::CollectiveKind>& kinds,
                        std::uint64_t lo, std::uint64_t hi, const coll::TuningTable& measured) {
  coll::TuningTable table;
  if (std::ifstream(path)) {
    try {
      table = read_tuning_file(path);
    } catch (const UsageError&) {
      // not a table: check_tuning_output allowed replacing it (--force)
    }
  }
  table.merge(ranks, kinds, lo, hi, measured);
  write_file_atomically(
      path, tuning_toml(table, {"shardroof tuning table: which implementation `--impl auto` runs (coll, sweep).",
                                "Written by `shardroof coll --tune-to`; [[measured]] says where each rank count's "
                                "rules were measured.",
                                "A rule covers the sizes above the previous rule of its collective and rank "
                                "count up to max_bytes (none: no bound);",
                                "`order` lists implementations fastest first, up to the fastest of ours; auto "
                                "runs the first it can."}));
}

}  // namespace shardroof
