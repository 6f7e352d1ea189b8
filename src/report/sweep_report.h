// Reporters for `shardroof sweep`: the console table and five-second
// summary (sweep_console.cpp), the JSON record (sweep_json.cpp) and the CSV
// (sweep_csv.cpp, one row per point). They consume the runner's records and
// the analysis; they never measure.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <optional>
#include <vector>

#include "sweep/analysis.h"
#include "sweep/plan.h"
#include "sweep/records.h"
#include "sweep/search.h"
#include "sweep/two_level.h"

namespace shardroof {

// Descriptive text a report carries beside the plan.
struct SweepContext {
  int ranks = 1;
  std::string backend;     // e.g. "cpu (OpenBLAS, 1 thread)"
  std::string arithmetic;  // what the GEMM computes in
  std::string timed_gemm;  // what the timed GEMM region holds
  std::string collective;  // e.g. "all_reduce ring/mpi"
  bool auto_D = false;     // --D auto was asked for (on one rank it times a fixed grid)
};

// With `--D auto`: the search and where it stands (stop is None while it runs).
struct SearchReport {
  const sweep::CrossoverSearch* search = nullptr;
  sweep::SearchStep stop;
  double elapsed_s = 0;
};

nlohmann::json sweep_settings_json(const sweep::SweepPlan& plan, const SweepContext& ctx);
nlohmann::json ceilings_json(const sweep::RunCeilings& c, const sweep::SweepAnalysis& a);
// A point and what the analysis derived from it (SweepAnalysis::points).
nlohmann::json point_json(const sweep::PointRecord& p, const sweep::PointDerived& d);
nlohmann::json crossover_json(const sweep::SweepAnalysis& a, const SearchReport& search = {});
// How crossover_json's D* and its interval are made, in words, from the
// constants that make them.
std::string crossover_method(int bootstrap_replicates = sweep::kBootstrapReplicates);
// The record's `stability`: T_comm over the run, the reference GEMM, and
// the crossover in each state (null when the analysis did not test it).
nlohmann::json sweep_stability_json(const sweep::SweepAnalysis& a);

// Per measurement of the point (t_math_s, t_comm_s, t_step_s, t_overlap_s)
// each rank's summary, and the rank named: {"ranks": [{rank, host, t_math_s:
// {time_s, skew_s, finish_s}, ...}], "straggler": {measurement, rank, host,
// slower, ...} or null}. `hosts` in rank order.
nlohmann::json point_ranks_json(const sweep::PointDerived& d, const std::vector<std::string>& hosts);

// The document's results from the run so far: "ceilings", "points" (each
// with its ranks, on `hosts`), "crossover", "stability", "two_level" (with
// `two` and the probes), "summary" and whether the run is "complete".
// With --history: where this launch's own levels place it among the
// history's states, part by part (launches::place_launch), as JSON
// (crossover.history_state).
nlohmann::json history_state_json(const launches::LaunchHistory& h, const std::vector<launches::PlacedPart>& parts);

void add_sweep_results_json(nlohmann::json& doc, const sweep::SweepPlan& plan, const sweep::RunCeilings& ceilings,
                            const sweep::SweepAnalysis& analysis, const std::vector<sweep::PointRecord>& points,
                            const SearchReport& search, const std::optional<sweep::TwoLevelProbes>& levels,
                            const std::optional<sweep::TwoLevelAnalysis>& two, const std::vector<std::string>& hosts);

// `a` analysed `points`: a.points holds one entry per point, in order.
std::string sweep_csv(const std::vector<sweep::PointRecord>& points, const sweep::SweepAnalysis& a,
                      const sweep::SweepPlan& plan);

class SweepConsoleReporter {
 public:
  explicit SweepConsoleReporter(std::ostream& out) : out_(out) {}
  void header(const sweep::SweepPlan& plan, const SweepContext& ctx);
  void ceilings(const sweep::RunCeilings& c, const sweep::SweepAnalysis& a, const SweepContext& ctx);
  void table_header(const sweep::SweepPlan& plan);
  void row(const sweep::PointRecord& p, const sweep::PointDerived& d);
  // After a row: one line naming the rank the analysis named, or nothing.
  void straggler(const sweep::PointRecord& p, const sweep::PointDerived& d, const std::vector<std::string>& hosts);
  void summary(const std::vector<sweep::PointRecord>& points, const sweep::SweepAnalysis& a,
               const sweep::RunCeilings& c, const sweep::SweepPlan& plan, const SearchReport& search = {});

 private:
  std::ostream& out_;
  std::string swept_ = "D";  // the swept dimension's name (header() sets it)
};

// The five-second summary line(s), also stored in the JSON: what the points
// say about D* (every case: bracketed, above or below the range, crossing
// only downward, tied, several crossings), the predictions and their
// errors, the error budget, and with --D auto how the search ended.
std::string sweep_summary_text(const std::vector<sweep::PointRecord>& points, const sweep::SweepAnalysis& a,
                               const sweep::RunCeilings& c, const sweep::SweepPlan& plan,
                               const SearchReport& search = {});

// "[52, 61]"; an unbounded side as "(0, 61]" or "[52, inf)".
std::string interval_text(const sweep::Interval& i);

}  // namespace shardroof
