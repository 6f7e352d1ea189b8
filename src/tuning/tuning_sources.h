// `coll --tune-to FILE --tune-from A.json,B.json,...`: a tuning table from
// several earlier launches' JSON documents instead of one new measurement
// (tuner.h: tuning_rules_over_launches says why and how they are combined).
//
// A document is what `coll --json` wrote for a run that measured several
// implementations side by side: a `--tune-to` run, or `--impl
// ring,pairwise,direct,native` (auto's own records are left out: it ran one
// of the others). Each document counts as one launch; one launch may have
// written several documents (one per collective or size range). A size's
// time of an implementation is the sum of its placements' interquartile
// means, as in one launch (coll_records.h: SizeRanking).
#pragma once

#include <string>
#include <vector>

#include "collectives/tuning.h"
#include "measure/coll_records.h"

namespace shardroof {

struct TuningSources {
  int ranks = 0;
  std::vector<std::vector<SizeRanking>> launches;  // one per document, as rank_sizes orders them
  coll::TuningOrigin origin;                       // where and how they were measured, in one [[measured]] entry
};

// Reads the documents at `paths`. Throws UsageError naming the file for: an
// unreadable or malformed document, one without results of two
// implementations or more, results with wrong elements, documents that
// differ in rank count, transport, backend, datatype, op, timing mode or
// number of hosts, and a (collective, size) that fewer than two documents
// measured. `command` is recorded in the origin.
TuningSources read_tuning_sources(const std::vector<std::string>& paths, const std::string& command);

}  // namespace shardroof
