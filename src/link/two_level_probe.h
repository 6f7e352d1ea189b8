// The ring probe (link/ring_probe.h) on each level of the node grouping,
// over SubTransports of the run's transport: the ranks of each node in a
// ring (every node at once, as hier's first and last phase), then the ranks
// with one local index across the nodes (every local index at once, as
// hier's middle phase). Collective over `comm`: iterations start at
// barriers over `comm`, step times are the max over all ranks.
#pragma once

#include <mpi.h>

#include <optional>
#include <vector>

#include "collectives/memory.h"
#include "collectives/transport.h"
#include "link/records.h"
#include "timing/stats.h"

namespace shardroof::link {

// Empty on one node or one rank per node (one level) and when the nodes
// hold different numbers of ranks. `elements` of `element_bytes` each: the
// B x F partial sum, whose blocks size the probe's messages.
std::optional<TwoLevelProbes> measure_two_level_probe(coll::Transport& transport, coll::MemoryOps& memory,
                                                      MPI_Comm comm, const std::vector<int>& node_of_rank,
                                                      std::uint64_t elements, std::size_t element_bytes,
                                                      const TimingPlan& timing);

}  // namespace shardroof::link
