// Reporters for `shardroof coll`: the nccl-tests-style table and the JSON
// record. They consume CollRecords; they never measure.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "measure/coll_runner.h"

namespace shardroof {

nlohmann::json to_json(const CollRecord& r);

class CollConsoleReporter {
 public:
  CollConsoleReporter(std::ostream& out, int nranks) : out_(out), nranks_(nranks) {}
  void header(const CollPlan& plan, const std::string& setup_text);
  // One table row per (implementation, size): out of place and in place.
  void row(const CollRecord& out_of_place, const CollRecord& in_place);
  void footer(const std::vector<CollRecord>& all);

 private:
  std::ostream& out_;
  int nranks_;
};

}  // namespace shardroof
