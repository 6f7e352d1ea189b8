#include "link/level_probe.h"

#include "collectives/blocks.h"
#include "collectives/mpi_transport.h"
#include "collectives/sub_transport.h"
#include "link/ring_probe.h"
#include "util/comm_handle.h"

namespace shardroof::link {

LevelProbes measure_level_probes(coll::Transport& transport, coll::MemoryOps& memory, MPI_Comm comm,
                                 const coll::HierarchyLayout& layout, std::uint64_t elements,
                                 std::size_t element_bytes, const TimingPlan& timing) {
  LevelProbes out;
  out.sizes = layout.sizes();
  const int rank = transport.rank();
  const int index = layout.index_of(rank);
  const auto plan_for = [&](std::uint64_t block_elements) {
    RingProbePlan p;
    p.sizes = ring_probe_sizes(block_elements * element_bytes, element_bytes);
    p.timing = timing;
    // A ring step sends what its reduction has just written (sweep's probe does the same).
    p.fresh_send = true;
    return p;
  };
  long long below = 1;           // P_{l-1}
  std::uint64_t piece = elements;  // what the levels below leave each rank: S / P_{l-1}
  int stride = 1;
  for (int l = 0; l < layout.levels(); ++l) {
    const int g = layout.size(l);
    const long long ranks = below * g;
    if (g > 1) {
      LevelProbe probe;
      probe.level = l;
      probe.group_size = g;
      probe.ranks = ranks;
      const int c = layout.coordinate(rank, l);
      // Each transfer's times are gathered over a communicator of the
      // SubTransport's ranks in its order.
      coll::SubTransport phase(transport, layout.peers(rank, l));
      CommHandle phase_comm;
      SHARDROOF_MPI_CHECK(MPI_Comm_split(comm, index - c * stride, c, phase_comm.out()));
      probe.phase = measure_ring_probe(phase, memory, comm, phase_comm.get(),
                                       plan_for(coll::BlockPartition(piece, g).max_size()));
      if (below == 1) {
        probe.span = probe.phase;  // the innermost working level: hier's ring is the flat one
      } else {
        const int span = static_cast<int>(ranks);
        coll::SubTransport group(transport, layout.unit_members(rank, l));
        CommHandle group_comm;
        SHARDROOF_MPI_CHECK(MPI_Comm_split(comm, index / span, index % span, group_comm.out()));
        probe.span = measure_ring_probe(group, memory, comm, group_comm.get(),
                                        plan_for(coll::BlockPartition(elements, span).max_size()));
      }
      out.levels.push_back(std::move(probe));
    }
    piece = coll::BlockPartition(piece, g).max_size();
    stride *= g;
    below = ranks;
  }
  return out;
}

}  // namespace shardroof::link
