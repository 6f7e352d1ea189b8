// Reporters for `shardroof coll`: the nccl-tests-style table and the JSON
// record. They consume CollRecords; they never measure.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "measure/coll_records.h"

namespace shardroof {

nlohmann::json to_json(const CollRecord& r);

// What the header says besides the plan.
struct CollHeader {
  std::string setup_text;          // what runs, e.g. "ring/mpi, mpi (cpu)"
  std::vector<std::string> notes;  // e.g. what `auto` chooses by
};

class CollConsoleReporter {
 public:
  CollConsoleReporter(std::ostream& out, int nranks) : out_(out), nranks_(nranks) {}
  void header(const CollPlan& plan, const CollHeader& header);
  // One table row per (implementation, size): out of place and in place.
  void row(const CollRecord& out_of_place, const CollRecord& in_place);
  // --tune-to: the implementations of one size, fastest first.
  void ranking(const SizeRanking& ranking);
  void footer(const std::vector<CollRecord>& all);

 private:
  std::ostream& out_;
  int nranks_;
};

}  // namespace shardroof
