#include "tuning/tuning.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <thread>
#include <utility>

#include "collectives/algorithms.h"
#include "report/results_file.h"
#include "util/agreement.h"
#include "util/error.h"
#include "util/mpi_session.h"

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

std::vector<coll::Algorithm> tunable_impls(CommSetup& setup, coll::CollectiveKind kind,
                                           const coll::CollectiveOptions& ring) {
  // What auto can choose: our candidates (hier where the run's layout has
  // levels) and the library's own.
  std::vector<coll::Algorithm> candidates = coll::auto_candidates(kind, true, ring, setup.transport().size());
  candidates.push_back(coll::Algorithm::Native);
  std::vector<coll::Algorithm> out;
  for (const coll::Algorithm impl : candidates) {
    try {
      setup.make(kind, impl, ring);
      out.push_back(impl);
    } catch (const UsageError&) {
      // not on this setup (pairwise over NCCL)
    }
  }
  return out;
}

int tune_from_documents(RunContext& ctx, const std::string& tune_to, const std::string& tuning,
                        const std::vector<std::string>& from) {
  run_agreed(ctx.mpi.world(), [&] {
    if (tune_to.empty()) throw_usage("--tune-from: needs --tune-to FILE, the table it writes");
    if (!tuning.empty()) throw_usage("--tune-from writes a table; it does not read one (--tuning {})", tuning);
    if (!ctx.mpi.is_root()) return;
    check_tuning_output(tune_to, ctx.force, "--tune-to");
    std::string list;
    for (const auto& p : from) list += (list.empty() ? "" : ",") + p;
    const TuningSources sources =
        read_tuning_sources(from, fmt::format("shardroof coll --tune-to {} --tune-from {}", tune_to, list));
    const coll::TuningTable measured = table_from_sources(sources);
    ctx.out << fmt::format("# tuning from {} documents of {} ranks: each size takes the implementation whose worst "
                           "loss over the launches is least\n",
                           from.size(), sources.ranks);
    write_tuning_table(tune_to, sources.ranks, sources.origin.kinds, sources.origin.min_bytes,
                       sources.origin.max_bytes, measured);
    ctx.out << fmt::format("# tuning table written to {} ({} rules for {} ranks)\n", tune_to, measured.rules.size(),
                           sources.ranks);
  });
  return 0;
}

coll::TuningOrigin tuning_origin(const CollPlan& plan, const std::vector<coll::CollectiveKind>& kinds, int ranks,
                                 const TuningScope& scope, const TuningRunFacts& facts) {
  coll::TuningOrigin o;
  o.ranks = ranks;
  o.kinds = kinds;
  o.min_bytes = plan.sizes.empty() ? 0 : plan.sizes.front();
  o.max_bytes = plan.sizes.empty() ? 0 : plan.sizes.back();
  o.fields = {{"host", facts.host},
              {"hosts", std::to_string(facts.hosts)},
              {"cpu", facts.cpu},
              {"logical_cpus", std::to_string(std::thread::hardware_concurrency())},
              {"mpi_library", facts.mpi_library},
              {"transport", scope.transport},
              {"backend", scope.backend},
              {"datatype", facts.datatype},
              {"op", facts.op},
              {"sizes", facts.sizes},
              {"timing", facts.timing},
              {"passes", passes_text(facts.iterations)},
              {"load_average", facts.load_average},
              {"date", facts.date},
              {"command", facts.command}};
  return o;
}

}  // namespace shardroof
