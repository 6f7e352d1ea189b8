// Hierarchical AllReduce and ReduceScatter over L nested levels of ranks
// (hierarchy_layout.h): level 0 the ranks of a node, level 1 the nodes of a
// group, ..., level L-1 the outermost groups. A level-l unit holds g_l units
// of level l-1 (g_0: ranks per node), N = g_0 g_1 ... g_{L-1}, and rank r
// has one coordinate c_l per level. Its level-l ring is the g_l ranks that
// differ from it in c_l alone. Each level up carries 1/g of what the level
// below carries, so the slow outer links carry the least. Two levels (M
// nodes of K ranks: g_0 = K, g_1 = M) is the two-level algorithm: a ring
// inside each node, K rings across the nodes, a ring inside the node again.
//
// Algorithm, AllReduce:
//   up, l = 0 .. L-2: ring ReduceScatter, over the level-l ring, of the
//      piece the level below left (level 0: the whole input), in g_l
//      balanced sub-pieces: the rank keeps sub-piece c_l, summed over its
//      level-l unit, at its place in the output;
//   top: ring AllReduce (ReduceScatter, then AllGather) of the last piece
//      over the level-(L-1) ring: summed over all ranks;
//   down, l = L-2 .. 0: ring AllGather of the g_l sub-pieces over the
//      level-l ring.
// Algorithm, ReduceScatter (each unit of each level consecutive ranks:
// rank = c_0 + g_0 (c_1 + g_1 (c_2 + ...))):
//   0. the input is copied into scratch with its N blocks in the order of
//      (c_0, c_1, ..., c_{L-1}), c_0 slowest: level 0's piece c_0 is the
//      blocks of the ranks whose first coordinate is c_0, its sub-piece c_1
//      those whose second is c_1 too, and so on (the balanced partition
//      makes every piece exactly balanced among its sub-pieces);
//   l = 0 .. L-1: ring ReduceScatter of the piece over the level-l ring:
//      after the top level the rank holds its own block summed over all.
// A level of one unit (g_l = 1) moves nothing and is skipped: one level
// of size N is the flat ring. Every ring is the segmented one of ring_*.h,
// over a SubTransport of the one transport; each level's two phases use
// their own tags (tag + 2l, tag + 2l + 1). Avg sums and divides once.
//
// Cost (S = count * element bytes; S_l = S / (g_0 ... g_{l-1}) the bytes
// level l works on, S_0 = S; a_l, b_l = 1/W_l the latency and the time per
// byte one way of a level-l ring; g the reduction's time per byte; c a
// local copy's):
//   ReduceScatter of level l: (g_l-1) a_l + (g_l-1)/g_l S_l b_l + (g_l-1)/g_l S_l g
//   AllGather of level l:     (g_l-1) a_l + (g_l-1)/g_l S_l b_l
//   AllReduce:     T = sum_l [2(g_l-1) a_l + 2(g_l-1)/g_l S_l b_l + (g_l-1)/g_l S_l g]
//   ReduceScatter: T = sum_l [(g_l-1) a_l + (g_l-1)/g_l S_l b_l + (g_l-1)/g_l S_l g] + S c
//   (c only with two levels or more that move data). Two levels, with
//   a_i, b_i inside a node and a_o, b_o per rank across nodes:
//   AllReduce:     T = 2(K-1) a_i + 2(K-1)/K S b_i
//                    + 2(M-1) a_o + 2(M-1)/M (S/K) b_o
//                    + (K-1)/K S g + (M-1)/M (S/K) g
//   ReduceScatter: T = (K-1) a_i + (K-1)/K S b_i
//                    + (M-1) a_o + (M-1)/M (S/K) b_o
//                    + (K-1)/K S g + (M-1)/M (S/K) g + S c
//   When the rings of a unit share fewer links out of it than they are,
//   b_l is that of one link's share (src/model/two_level.h models it for
//   two levels).
#pragma once

#include <memory>
#include <vector>

#include "collectives/collective.h"
#include "collectives/collective_options.h"
#include "collectives/hierarchy_layout.h"
#include "collectives/memory.h"
#include "collectives/transport.h"

namespace shardroof::coll {

namespace detail {
class ScratchPool;
}  // namespace detail

class HierarchicalCollective final : public Collective {
 public:
  // kind: AllReduce or ReduceScatter (InvalidArgument otherwise, or when
  // options.hier does not describe equal nested levels of the transport's
  // ranks (hierarchy_layout.h), or for ReduceScatter when the units are not
  // consecutive ranks). transport and memory are borrowed and must outlive
  // the collective.
  HierarchicalCollective(CollectiveKind kind, Transport& transport, MemoryOps& memory,
                         const CollectiveOptions& options);
  ~HierarchicalCollective() override;
  CollectiveKind kind() const override { return kind_; }
  std::string algorithm() const override { return "hier"; }
  void run(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) override;

  const HierarchyLayout& layout() const { return layout_; }

 private:
  struct Level;
  // The elements of the output that a level works on.
  struct Piece {
    std::size_t offset = 0;
    std::size_t count = 0;
  };
  void all_reduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op);
  void reduce_scatter(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op);

  CollectiveKind kind_;
  Transport& transport_;
  MemoryOps& memory_;
  CollectiveOptions options_;
  HierarchyLayout layout_;
  // One ring per level, innermost first.
  std::vector<std::unique_ptr<Level>> levels_;
  // AllReduce: each level's piece, kept for the way down.
  std::vector<Piece> pieces_;
  // ReduceScatter: the block that goes to each place of the regrouped input.
  std::vector<int> packed_order_;
  // ReduceScatter's regrouped input and the pieces reduced on the way up.
  std::unique_ptr<detail::ScratchPool> packed_;
  std::unique_ptr<detail::ScratchPool> piece_;
};

}  // namespace shardroof::coll
