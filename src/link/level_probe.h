// The ring probe on every level of L nested levels (collectives/
// hierarchy_layout.h), over SubTransports of the run's transport: at each
// level that moves data, hier's ring of that level (every ring at once, as
// hier's phase runs them) and a flat ring over each group of that level
// (every group at once, as a flat collective over a shard that spans the
// level runs). Collective over `comm`: iterations start at barriers over
// `comm`, step times are the max over all ranks.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "collectives/hierarchy_layout.h"
#include "collectives/memory.h"
#include "collectives/transport.h"
#include "link/records.h"
#include "timing/stats.h"

namespace shardroof::link {

// `elements` of `element_bytes` each: the B x F partial sum, whose blocks
// size each probe's messages (level l's ring step moves S / (P_{l-1} g_l);
// the flat ring over a group of level l, S / P_l).
LevelProbes measure_level_probes(coll::Transport& transport, coll::MemoryOps& memory, MPI_Comm comm,
                                 const coll::HierarchyLayout& layout, std::uint64_t elements,
                                 std::size_t element_bytes, const TimingPlan& timing);

}  // namespace shardroof::link
