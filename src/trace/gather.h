// Moving every rank's trace to rank 0 once the measurements are over:
// each rank serializes its RankTrace (CBOR), rank 0 collects them with
// MPI_Gatherv. Never inside a timed region.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "trace/recorder.h"

namespace shardroof::trace {

// Round trip of a RankTrace through bytes (exposed for tests).
std::vector<std::uint8_t> serialize(const RankTrace& trace);
RankTrace deserialize(const std::vector<std::uint8_t>& bytes);

// Collective on `comm`: rank 0 returns every rank's trace in rank order,
// the other ranks an empty vector.
std::vector<RankTrace> gather_traces(MPI_Comm comm, const RankTrace& mine);

}  // namespace shardroof::trace
