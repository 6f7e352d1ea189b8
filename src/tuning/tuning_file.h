// Tuning tables as files (TOML) and the built-in default.
//
//   [[measured]]                  # one per rank count and set of collectives
//   ranks = 2
//   collectives = ["all_reduce", "reduce_scatter", "all_gather"]
//   min_bytes = 8                 # the sizes measured
//   max_bytes = 268435456
//   host = "node17"               # further keys: where and how it was measured
//   transport = "mpi"             # (transport, backend and hosts decide
//   backend = "cpu"               #  whether a run may use the rules)
//   hosts = 1
//   ...
//
//   [auto]
//   rules = [
//     { collective = "all_reduce", ranks = 2, max_bytes = 11585, order = ["direct", "native", "ring"] },
//     { collective = "all_reduce", ranks = 2, order = ["ring", "pairwise", "native"] },  # no max_bytes: no bound
//   ]
//
// A rule may also pin `segment_bytes` for a segmented implementation. See
// collectives/tuning.h for how `auto` reads the rules.
#pragma once

#include <string>
#include <vector>

#include "collectives/tuning.h"

namespace shardroof {

// Parses a table; `source` names the text in messages. Throws UsageError
// (with the line) for malformed TOML, unknown keys, collectives or
// implementations, and rules that overlap.
coll::TuningTable parse_tuning_toml(const std::string& text, const std::string& source);

// Reads a table from a file (UsageError if unreadable or invalid).
coll::TuningTable read_tuning_file(const std::string& path);

// One line that says what a [[measured]] entry measured: ranks and
// collectives, sizes, transport, timing, the passes its noise came from,
// host, date and load average (those of its fields that are present).
std::string measured_summary(const coll::TuningOrigin& origin);

// The table as TOML text, as parse_tuning_toml reads it; `header` lines are
// written first as comments, followed (when there is a header) by one
// measured_summary line per [[measured]] entry.
std::string tuning_toml(const coll::TuningTable& table, const std::vector<std::string>& header = {});

// The table built into the binary (configs/tuning/default.toml): measured on
// one machine, which it names; `coll --tune-to` measures one for another.
const coll::TuningTable& builtin_tuning_table();

// Where a run happens, as far as a tuning table cares.
struct TuningScope {
  std::string transport;  // "mpi", "nccl"
  std::string backend;    // "cpu", "cuda"
  int hosts = 0;          // 0: unknown (not checked)
};

// `table` without the rules whose origin was measured elsewhere (another
// transport, backend or number of hosts): those sizes then fall back to
// the library's own collective. Each dropped set of rules adds a line to
// `notes` (if given).
coll::TuningTable applicable_tuning(const coll::TuningTable& table, const TuningScope& scope,
                                    std::vector<std::string>* notes = nullptr);

}  // namespace shardroof
