#include "link/two_level_probe.h"

#include <algorithm>

#include "collectives/blocks.h"
#include "collectives/error.h"
#include "collectives/node_layout.h"
#include "collectives/sub_transport.h"
#include "link/ring_probe.h"
#include "util/comm_handle.h"
#include "collectives/mpi_transport.h"

namespace shardroof::link {

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
  const auto plan_for = [&](std::uint64_t block) {
    link::RingProbePlan p;
    p.sizes = link::ring_probe_sizes(block, element_bytes);
    p.timing = timing;
    return p;
  };
  out.intra = link::measure_ring_probe(intra, memory, comm, intra_comm.get(), plan_for(intra_block));
  out.inter = link::measure_ring_probe(inter, memory, comm, inter_comm.get(), plan_for(inter_block));
  // Each ring across the nodes alone, one local index after the other (the
  // others wait): what one flow gets with the link to itself. Each ring's
  // ranks time it among themselves.
  std::vector<double> mine;  // this rank's ring: W, alpha, valid, wrong
  for (int l = 0; l < k; ++l) {
    if (layout->local_index(rank) == l) {
      out.inter_alone =
          link::measure_ring_probe(inter, memory, inter_comm.get(), inter_comm.get(), plan_for(inter_block));
      const link::AlphaBetaFit& f = out.inter_alone.fit;
      mine = {f.W_bytes_per_s, f.alpha_s, f.valid ? 1.0 : 0.0, static_cast<double>(out.inter_alone.wrong)};
    }
    SHARDROOF_MPI_CHECK(MPI_Barrier(comm));
  }
  // Every rank gets every ring's fit and check (from each ring's ranks;
  // they agree, the first across the nodes is taken).
  std::vector<double> all(mine.size() * static_cast<std::size_t>(transport.size()));
  SHARDROOF_MPI_CHECK(MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(),
                                    static_cast<int>(mine.size()), MPI_DOUBLE, comm));
  for (int l = 0; l < k; ++l) {
    const double* v = all.data() + mine.size() * static_cast<std::size_t>(layout->peers_across_nodes(l).front());
    link::AlphaBetaFit f;
    f.W_bytes_per_s = v[0];
    f.alpha_s = v[1];
    f.valid = v[2] != 0;
    out.inter_alone_fits.push_back(f);
    out.inter_alone_wrong += static_cast<long long>(v[3]);
  }
  return out;
}

}  // namespace shardroof::link
