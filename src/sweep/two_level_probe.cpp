#include "sweep/two_level_probe.h"

#include <algorithm>

#include "collectives/blocks.h"
#include "collectives/error.h"
#include "collectives/node_layout.h"
#include "collectives/sub_transport.h"
#include "link/ring_probe.h"
#include "util/comm_handle.h"
#include "collectives/mpi_transport.h"

namespace shardroof::sweep {

std::optional<TwoLevelProbes> measure_two_level_probe(coll::Transport& transport, coll::MemoryOps& memory,
                                                      MPI_Comm comm, const std::vector<int>& node_of_rank,
                                                      std::uint64_t elements, std::size_t element_bytes,
                                                      const TimingPlan& timing) {
  if (node_of_rank.size() != static_cast<std::size_t>(transport.size())) return std::nullopt;
  std::optional<coll::NodeLayout> layout;
  try {
    layout.emplace(node_of_rank);
  } catch (const coll::InvalidArgument&) {
    return std::nullopt;  // unequal nodes: no hier, no two levels to model
  }
  const int k = layout->ranks_per_node();
  const int m = layout->nodes();
  if (k < 2 || m < 2) return std::nullopt;
  const int rank = transport.rank();
  coll::SubTransport intra(transport, layout->node_ranks(layout->node(rank)));
  coll::SubTransport inter(transport, layout->peers_across_nodes(layout->local_index(rank)));
  // Message sizes of each phase's ring step: a block of S/K inside, of S/(K*M) across.
  const coll::BlockPartition pieces(elements, k);
  const std::uint64_t intra_block = pieces.max_size() * element_bytes;
  const std::uint64_t inter_block = coll::BlockPartition(pieces.max_size(), m).max_size() * element_bytes;
  TwoLevelProbes out;
  out.nodes = m;
  out.ranks_per_node = k;
  // Each transfer's times are gathered over a communicator of the
  // SubTransport's ranks in its order: the node's ranks by local index, the
  // peers across nodes by node; iterations start together over `comm`.
  CommHandle intra_comm, inter_comm;
  SHARDROOF_MPI_CHECK(MPI_Comm_split(comm, layout->node(rank), layout->local_index(rank), intra_comm.out()));
  SHARDROOF_MPI_CHECK(MPI_Comm_split(comm, layout->local_index(rank), layout->node(rank), inter_comm.out()));
  out.intra = link::measure_ring_probe(intra, memory, comm, intra_comm.get(),
                                       {link::ring_probe_sizes(intra_block, element_bytes), timing});
  out.inter = link::measure_ring_probe(inter, memory, comm, inter_comm.get(),
                                       {link::ring_probe_sizes(inter_block, element_bytes), timing});
  return out;
}

}  // namespace shardroof::sweep
