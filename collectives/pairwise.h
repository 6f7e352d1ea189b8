// Pairwise (all-to-all) ReduceScatter, AllGather and AllReduce, segmented.
//
// Algorithm: on a network where every pair of ranks has its own path (shared
// memory, a switch) the ring's order buys nothing, while its N-1 dependent
// steps each wait for the slowest neighbour. Here every rank talks to every
// other rank at once:
//   ReduceScatter  rank r sends block b of its input to rank b, for all b != r,
//                  and reduces the N-1 blocks r it receives into its own.
//   AllGather      rank r sends its block to every other rank and receives
//                  every other block straight into the output.
//   AllReduce      ReduceScatter, then AllGather of the reduced blocks; each
//                  reduced segment is sent on as soon as it is ready.
// Blocks are cut into segments; the receives of every segment (from all N-1
// peers) are posted before the sends, each into its own slot, so a segment
// sent by rendezvous is answered on arrival, the copy of the next segment
// and the reduction of this one overlap, and a segment is reduced soon
// after it lands.
//
// Cost (alpha-beta-gamma, S = count * element size bytes; every rank sends
// and receives the same bytes as in the ring, but the steps do not chain):
//   ReduceScatter: T = alpha + (N-1)/N * S * beta + (N-1)/N * S * g
//   AllGather:     T = alpha + (N-1)/N * S * beta
//   AllReduce:     T = 2 alpha + 2(N-1)/N * S * beta + (N-1)/N * S * g
// Extra memory: a slot per peer and segment, the size of the input, O(S). Each rank has N-1
// messages in flight per segment: meant for a moderate number of ranks
// (the tuning table of `auto` says where it pays).
#pragma once

#include <memory>

#include "collectives/collective.h"
#include "collectives/memory.h"
#include "collectives/collective_options.h"
#include "collectives/transport.h"

namespace shardroof::coll {

class PairwiseCollective final : public Collective {
 public:
  // transport and memory are borrowed and must outlive the collective.
  PairwiseCollective(CollectiveKind kind, Transport& transport, MemoryOps& memory,
                     CollectiveOptions options = {});
  ~PairwiseCollective() override;
  CollectiveKind kind() const override { return kind_; }
  std::string algorithm() const override { return "pairwise"; }
  void run(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) override;

 private:
  class Impl;
  CollectiveKind kind_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace shardroof::coll
