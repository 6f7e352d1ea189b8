// What `shardroof combine` reads from the records of several launches:
// a sweep's D* (and the book's) with each launch's own interval and
// bootstrap distribution, or a coll's rows (a time per collective,
// implementation, placement and size). Refuses what cannot be combined,
// naming the file and the reason: fewer than two launches, a file that is
// no shardroof record, records of different commands or settings (the
// first difference named), a run that did not finish. A sweep launch that
// located no crossover (its search ran off the range: T_comm below the
// GEMM's floor, or above T_math at the largest D) is kept apart, with
// why, so that a machine whose answer is "no crossover" still gets one
// (DESIGN: bad input gets an error, a true answer does not). No MPI; the
// records are read as JSON.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "launches/combination.h"
#include "launches/states.h"
#include "stability/stability.h"

namespace shardroof::launches {

// (1 + t)/(1 - t) for the sweep's +-10% target: for records that do not say.
inline constexpr double kDefaultMaterialRatio = 1.1 / 0.9;

// What every launch reports beside its numbers.
struct LaunchInfo {
  std::string path;
  std::string date;          // environment.date
  std::string load_average;  // environment.load_average at its start
  std::optional<stability::Verdict> stability;  // none where the record has no verdict
};

struct SweepLaunch {
  LaunchInfo info;
  LaunchEstimate d_star;                 // D_empirical, its interval and distribution
  std::optional<LaunchEstimate> book;    // D_book, with its interval where the record has one
  std::string stop;                      // how its search stopped, "" without one
  LaunchReadings readings;               // its levels, whole or per state (launches/states.h)
};

// A sweep launch without a crossover: what its record says instead of D*.
struct UncrossedLaunch {
  LaunchInfo info;
  std::string kind;                  // crossover.kind (below_range, above_range, ...)
  std::string cause;                 // crossover.no_crossover.cause ("overhead", ...), "" without one
  std::optional<double> t_comm_s;    // crossover.no_crossover: T_comm at S and the GEMM's floor it was set
  std::optional<double> floor_s;     // against, where the record has them
  LaunchReadings readings;           // its levels (launches/states.h), each part marked no_crossover
  // "below_range, overhead": the kind, and its cause where there is one.
  std::string kind_text(const std::string& separator = ", ") const {
    return cause.empty() ? kind : kind + separator + cause;
  }
};

// One row of coll: a collective, an implementation, a placement, a size.
struct CollRowKey {
  std::string collective, impl;
  bool in_place = false;
  std::uint64_t bytes = 0;
  bool operator<(const CollRowKey& o) const;
  bool operator==(const CollRowKey& o) const = default;
};
struct CollRow {
  CollRowKey key;
  LaunchEstimate time_s;     // the row's median time, its interval and distribution (seconds)
  double busbw_factor = 0;   // busbw = factor * bytes / time (model::bus_factor; 0 for an unknown collective)
  std::optional<stability::Verdict> stability;
  LaunchReadings readings;   // the row's time as its level, whole or per state
};
struct CollLaunch {
  LaunchInfo info;
  std::vector<CollRow> rows;
};

struct LaunchSet {
  std::string command;         // "sweep" or "coll"
  nlohmann::json settings;     // the first record's (every record's compared fields are equal)
  int ranks = 0;
  // The ratio a level must change by to matter, as the launches' own
  // stability tests used it (the first record's that says one).
  double material_ratio = kDefaultMaterialRatio;
  std::vector<SweepLaunch> sweeps;        // sweep launches with a crossover
  std::vector<UncrossedLaunch> uncrossed;  // sweep launches without one (not in `sweeps`), in file order
  std::vector<CollLaunch> colls;
};

// A sweep record's levels (launches/states.h): the collective's time at S
// (stability.t_comm's median over every sample, its noise), the ring
// probe's W (left out where the probe changed inside the launch) and
// C_peak (with the reference GEMM's noise). Where T_comm changed state
// inside the launch, one part per state with that state's crossing and
// share, or, where a state has none, no parts and the reason. The parts'
// values are the record's D* (0 without a crossover).
LaunchReadings sweep_readings(const nlohmann::json& doc);

// Parsed records in, or UsageError. `docs[i]` was read from `paths[i]`.
LaunchSet read_launches(const std::vector<std::string>& paths, const std::vector<nlohmann::json>& docs);

// Reads and parses the files (UsageError naming a file that cannot be read
// or is not JSON), then read_launches.
LaunchSet read_launch_files(const std::vector<std::string>& paths);

// `sweep --history FILE`: a `shardroof combine` record of sweep launches
// whose settings match `settings` (this run's record settings) and
// `ranks`; UsageError naming the first difference, or a file that is no
// such record.
LaunchHistory read_history(const std::string& path, const nlohmann::json& settings, int ranks);

// JSON of a launch's distribution: numbers, null for +infinity.
nlohmann::json percentiles_json(const std::vector<double>& p);
std::vector<double> percentiles_from_json(const nlohmann::json& j);

}  // namespace shardroof::launches
