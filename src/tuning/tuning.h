// Tuning: the tables `--impl auto` chooses by, made, read and written in one
// place. The table itself and the `auto` collective that reads it belong to
// the collectives library (collectives/tuning.h, auto_collective.h: it knows
// no files); everything a benchmark does with tables lives here:
//
//   tuner.h           the rules from measured records: each size's ranking,
//                     the noise, the rules of one launch or of several
//   tuning_file.h     tables as TOML, the built-in table, which rules apply
//   tuning_sources.h  earlier launches' `coll --json` documents as sources
//   this header       the entry point commands use: a table from this run's
//                     records or from documents, and writing it to a file
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/command.h"
#include "collectives/tuning.h"
#include "measure/coll_records.h"
#include "measure/comm_setup.h"
#include "tuning/tuner.h"
#include "tuning/tuning_file.h"
#include "tuning/tuning_sources.h"

namespace shardroof {

// The table of one run's records of `kinds` on `ranks` ranks: the rules of
// tuner.h (tuning_rules), with `origin` as its one [[measured]] entry.
coll::TuningTable table_from_records(const std::vector<CollRecord>& records,
                                     const std::vector<coll::CollectiveKind>& kinds, int ranks,
                                     coll::TuningOrigin origin);

// The table of several launches' documents (tuning_sources.h): each size
// takes the implementation whose worst loss over the launches is least.
coll::TuningTable table_from_sources(const TuningSources& sources);

// How and where a --tune-to run measured its table: the machine, when, and
// its settings as typed.
struct TuningRunFacts {
  std::string host;
  std::size_t hosts = 1;
  std::string cpu, mpi_library, load_average, date;
  std::string datatype, op, sizes, timing;
  std::size_t iterations = 0;  // timed iterations per size (the tuner's passes come from them)
  std::string command;
};
// Its [[measured]] entry for the table of `kinds` on `ranks` ranks.
coll::TuningOrigin tuning_origin(const CollPlan& plan, const std::vector<coll::CollectiveKind>& kinds, int ranks,
                                 const TuningScope& scope, const TuningRunFacts& facts);

// coll --tune-from: the table at `tune_to` from earlier launches' documents
// (`from`); nothing is measured, and only rank 0 works (the documents say
// the rank count), then says on ctx.out what it wrote. `tuning` is --tuning,
// which must be empty. Collective: every rank ends with the same usage error.
int tune_from_documents(RunContext& ctx, const std::string& tune_to, const std::string& tuning,
                        const std::vector<std::string>& from);

// The implementations of `kind` that --tune-to measures: what auto can
// choose (coll::auto_candidates) and native, those this setup can build
// (the same on every rank: building a collective does not communicate).
std::vector<coll::Algorithm> tunable_impls(CommSetup& setup, coll::CollectiveKind kind,
                                           const coll::CollectiveOptions& ring);

// "5 passes of 4 iterations per size": the passes the tuner's noise comes
// from (tuner.h: pass_bounds) for `iterations` timed iterations.
std::string passes_text(std::size_t iterations);

// A table file may be written at `path` (`flag` names it in errors): it is a
// tuning table already (its other rules are kept), or does not exist yet;
// `force` allows replacing anything else. Throws UsageError otherwise.
void check_tuning_output(const std::string& path, bool force, const std::string& flag);

// Writes `measured` (the rules of `kinds` on `ranks` ranks over the sizes
// [lo, hi]) into the table at `path`, merged with the rules it holds for
// other rank counts, collectives and sizes; atomically (a reader never sees
// half a table). One process only.
void write_tuning_table(const std::string& path, int ranks, const std::vector<coll::CollectiveKind>& kinds,
                        std::uint64_t lo, std::uint64_t hi, const coll::TuningTable& measured);

}  // namespace shardroof
