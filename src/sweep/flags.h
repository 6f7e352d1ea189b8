// The flags of `shardroof sweep` as typed, their declaration and the plan
// made from them (sweep/plan.h), validated: every bad value, and every flag
// that belongs to the other sharding case, is a UsageError naming the flag.
// Kept here so that commands/sweep.cpp reads as the command's flow.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "cli/common_flags.h"
#include "sweep/plan.h"
#include "sweep/search.h"
#include "util/memory_budget.h"

namespace shardroof::sweep {

// The flags as typed; their defaults are configs/default.toml's (built in,
// set again from it by apply_config_defaults in the command).
struct SweepFlags {
  std::string sharding = "contracting";
  std::string B = "1024";
  std::uint64_t F = 1024;
  std::string D = "auto";
  int layers = 4;
  std::string budget_s = "60";
  std::string min_span_s = "30";
  int min_rounds = static_cast<int>(kMinRounds);
  ComputeFlags compute;
  std::string collective = "all_reduce";
  std::string impl = "ring";
  std::string transport = "mpi";
  TimingFlags timing{2, 10};
  int check = 1;
  std::uint64_t seed = 20240601;
  std::string segment_bytes = "auto";
  std::string overlap = "1";
  std::string overlap_chunks = "graded";
  std::string overlap_wait = "sleep";
  int ranks_per_node = 0;
  std::string levels;  // --levels g1,g2,...: levels of groups above the node
  OutputFlags output;
  BaselineFlags baseline;
  std::string model_hw;
  std::string model_link;
  std::string link_from;
  std::string expect_C;
  std::string history;
  int redraw_buffers = 1;
};

// Declares every flag of the command on `app`.
void add_sweep_flags(CLI::App& app, SweepFlags& f);

// The fixed D of the fsdp case when --D is not given, and the swept batch
// then (auto).
inline constexpr std::size_t kFsdpDefaultD = 1024;

// The plan on `ranks` ranks. `app` says which flags were given (on the
// command line or in --config), as opposed to left at their defaults: --B
// and --D change roles with --sharding, and a flag of the other case is
// refused only where it was given.
SweepPlan make_sweep_plan(const SweepFlags& f, const CLI::App& app, int ranks, const NodeMemory& node);

}  // namespace shardroof::sweep
