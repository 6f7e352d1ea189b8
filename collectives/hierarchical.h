// Hierarchical (two-level) AllReduce and ReduceScatter for ranks grouped
// into nodes (node_layout.h): M nodes of K ranks, rank (m, l) the l-th rank
// of node m. The slow links between nodes carry 1/K of what a flat ring
// puts on them.
//
// Algorithm, AllReduce:
//   1. ring ReduceScatter inside each node over K balanced pieces: rank
//      (m, l) holds piece l summed over its node, in place in the output;
//   2. ring AllReduce of piece l across the nodes, over the M ranks
//      (0, l) .. (M-1, l): K rings at once, one per local index;
//   3. ring AllGather of the K pieces inside each node.
// Algorithm, ReduceScatter (each node's ranks consecutive, rank = m*K + l):
//   0. the input is copied into scratch with the blocks regrouped so that
//      piece l is the blocks of the ranks (0, l) .. (M-1, l) in node order
//      (the balanced partition makes piece l exactly K-way balanced);
//   1. ring ReduceScatter inside each node: piece l summed over the node;
//   2. ring ReduceScatter of piece l across the nodes: rank (m, l) ends with
//      block m*K + l, its own, summed over all ranks.
// Every ring is the segmented one of ring_*.h, over a SubTransport of the
// one transport; each phase uses its own tags. Avg sums and divides once.
//
// Cost (S = count * element bytes; a_i, b_i = 1/W_i inside a node; a_o,
// b_o = 1/W_o per rank across nodes; g the reduction's time per byte):
//   AllReduce:     T = 2(K-1) a_i + 2(K-1)/K S b_i
//                    + 2(M-1) a_o + 2(M-1)/M (S/K) b_o
//                    + (K-1)/K S g + (M-1)/M (S/K) g
//   ReduceScatter: T = (K-1) a_i + (K-1)/K S b_i
//                    + (M-1) a_o + (M-1)/M (S/K) b_o
//                    + (K-1)/K S g + (M-1)/M (S/K) g + S c
//   (c: a local copy's time per byte). When the K ranks of a node share
//   fewer than K links out of it, b_o is that of one link's share
//   (src/model/two_level.h models it). K = 1 is the flat ring; M = 1 the
//   ring inside the node.
#pragma once

#include <memory>

#include "collectives/collective.h"
#include "collectives/memory.h"
#include "collectives/node_layout.h"
#include "collectives/collective_options.h"
#include "collectives/sub_transport.h"
#include "collectives/transport.h"

namespace shardroof::coll {

namespace detail {
class RingReduceScatterPhase;
class ScratchPool;
}  // namespace detail

class HierarchicalCollective final : public Collective {
 public:
  // kind: AllReduce or ReduceScatter (InvalidArgument otherwise, or when
  // options.hier.node_of_rank does not describe the transport's ranks, or for
  // ReduceScatter when a node's ranks are not consecutive). transport and
  // memory are borrowed and must outlive the collective.
  HierarchicalCollective(CollectiveKind kind, Transport& transport, MemoryOps& memory,
                         const CollectiveOptions& options);
  ~HierarchicalCollective() override;
  CollectiveKind kind() const override { return kind_; }
  std::string algorithm() const override { return "hier"; }
  void run(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) override;

 private:
  void all_reduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op);
  void reduce_scatter(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op);

  CollectiveKind kind_;
  Transport& transport_;
  MemoryOps& memory_;
  CollectiveOptions options_;
  NodeLayout layout_;
  SubTransport intra_;
  SubTransport inter_;
  std::unique_ptr<detail::RingReduceScatterPhase> intra_phase_;
  std::unique_ptr<detail::RingReduceScatterPhase> inter_phase_;
  // ReduceScatter's regrouped input and its piece reduced inside the node.
  std::unique_ptr<detail::ScratchPool> packed_;
  std::unique_ptr<detail::ScratchPool> piece_;
};

}  // namespace shardroof::coll
