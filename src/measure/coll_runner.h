// Measures collectives at one size, nccl-tests style: out of place, then in
// place; timed by the timing module (per iteration or batched), then checked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collectives/collective.h"
#include "measure/coll_records.h"
#include "measure/comm_setup.h"
#include "timing/timing.h"
#include "trace/recorder.h"

namespace shardroof {

// The sizes -b..-e by factor f (or by step bytes when step_bytes > 0),
// rounded down to whole elements, as nccl-tests does. UsageError when there
// would be more than kMaxSizes of them (a step or factor far too small for
// the range), before any is made.
inline constexpr std::size_t kMaxSizes = 100000;
std::vector<std::uint64_t> coll_sizes(std::uint64_t min_bytes, std::uint64_t max_bytes,
                                      double factor, std::uint64_t step_bytes,
                                      std::size_t element_bytes);

// Measures every implementation of `impls` at `bytes`, out of place and then
// in place, interleaved: each timed iteration runs them in turn (starting
// one further each iteration), each after its own barrier, so a change of
// load on a shared machine reaches them alike and their ratios hold. Results are checked afterwards by one more
// untimed call of each. Returns, per implementation in order, its
// out-of-place and its in-place record. With a recorder, the last timed
// iteration of each implementation and placement is traced (a region each),
// on the main track.
std::vector<CollRecord> measure_collectives(CommSetup& setup, MPI_Comm comm, const CollPlan& plan,
                                            const std::vector<coll::Algorithm>& impls, std::uint64_t bytes,
                                            trace::Recorder* trace = nullptr);

// A row measured again in a later round (`coll --rounds`): its samples
// appended to the earlier ones (windows and stamps kept) and the wrong
// elements added up. The row's statistics stay those of its earlier rounds
// until summarize_coll_record, so that a run of many rounds summarizes each
// row once, not once per round.
void append_coll_round(CollRecord& into, const CollRecord& more);

// The statistics, each rank's summary, the straggler and the bandwidths
// made again from all of the row's samples. `ranks` is the number of ranks
// (busbw).
void summarize_coll_record(CollRecord& r, int ranks);

// measure_collectives of one implementation: its out-of-place and in-place record.
std::vector<CollRecord> measure_collective(CommSetup& setup, MPI_Comm comm, const CollPlan& plan,
                                           coll::Algorithm impl, std::uint64_t bytes, trace::Recorder* trace = nullptr);

}  // namespace shardroof
