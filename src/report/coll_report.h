// Reporters for `shardroof coll`: the nccl-tests-style table and the JSON
// record. They consume CollRecords; they never measure.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "collectives/tuning.h"
#include "measure/coll_records.h"
#include "measure/coll_stability.h"

namespace shardroof {

// With `hosts` (rank order), each rank's summary ("ranks") and the rank
// named as a straggler ("straggler", null when none) come with it.
nlohmann::json to_json(const CollRecord& r, const std::vector<std::string>& hosts = {});

// The model column's inputs (measure/coll_expectation.h): where the link
// comes from, alpha, W, g, c, and the probe's step time at each size.
nlohmann::json coll_model_json(const CollModelInputs& in);

// The record's "settings": the plan, and the flags whose text the plan does
// not keep (as typed: "auto", a step factor, the size list's bounds).
struct CollSettings {
  std::vector<coll::CollectiveKind> kinds;  // more than one: --tune-to
  int rounds = 1;
  double min_span_s = 0;
  std::string impl, backend, transport, stepfactor, stepbytes, table_source;
  std::string tune_to;      // "" without --tune-to
  int ranks_per_node = 0;   // 0: one shared-memory node
  std::vector<int> levels;  // hier's level sizes with levels above the node; empty: two levels
};
nlohmann::json coll_settings_json(const CollPlan& plan, const CollSettings& settings);

// The header's notes for `plan`: `auto_notes` (coll_auto_notes), hier's
// nodes (`hier_over`), the interleaving, the tuning's pruning (`prune_sizes`
// > 0: --tune-to, which has no model column) or the model column's source.
std::vector<std::string> coll_header_notes(const CollPlan& plan, std::vector<std::string> auto_notes,
                                           const std::string& hier_over, int prune_sizes,
                                           const std::string& model_source);

// Each row's stability and interval (in the order of `doc`'s results), and
// the run's under "stability", with the rounds run and asked for.
void add_coll_stability_json(nlohmann::json& doc, const CollStability& s, int rounds_done, int min_rounds,
                             double min_span_s);

// What the header says besides the plan.
// The header lines that say what `auto` chooses by: `dropped` (the rules
// the run leaves out, tuning/tuning_file.h), then the rules of `table` for
// `kind` on `ranks` ranks and where they were measured, or that it has none.
std::vector<std::string> coll_auto_notes(const coll::TuningTable& table, coll::CollectiveKind kind, int ranks,
                                         const std::string& source, const std::vector<std::string>& dropped);

struct CollHeader {
  std::string setup_text;          // what runs, e.g. "ring/mpi, mpi (cpu)"
  std::vector<std::string> notes;  // e.g. what `auto` chooses by
};

class CollConsoleReporter {
 public:
  CollConsoleReporter(std::ostream& out, int nranks, std::vector<std::string> hosts = {})
      : out_(out), nranks_(nranks), hosts_(std::move(hosts)) {}
  void header(const CollPlan& plan, const CollHeader& header);
  // One table row per (implementation, size): out of place and in place.
  void row(const CollRecord& out_of_place, const CollRecord& in_place);
  // After a size's rows: one line naming the slowest rank
  // (timing/stragglers.h) of the row and placement where it stands out most,
  // or nothing when no rank does.
  void stragglers(const std::vector<CollRecord>& size_records);
  // --tune-to: the implementations of one size, fastest first.
  void ranking(const SizeRanking& ranking);
  void footer(const std::vector<CollRecord>& all);
  // After the table: the rounds, each row whose time changed state (what,
  // by how much and when) and the whole run's verdict.
  void stability(const std::vector<CollRecord>& all, const CollStability& s, int rounds);

 private:
  std::ostream& out_;
  int nranks_;
  std::vector<std::string> hosts_;
};

}  // namespace shardroof
