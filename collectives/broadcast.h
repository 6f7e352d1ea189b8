// Broadcast: a pipelined chain along the ring.
//
// Algorithm: the ranks form a chain in ring order from the root (root,
// root+1, ..., root-1). The message is cut into k segments. Every rank but
// the root receives segment j from its predecessor straight into its output
// and, unless it ends the chain, forwards it to its successor while segment
// j+1 arrives: the receive of segment j+1 is posted before segment j is
// waited for, and at most two sends per rank are in flight. No extra memory.
// The root sends from its input and, out of place, copies each segment to
// its own output while the segment is on its way (ncclBroadcast leaves the
// result on every rank, the root included).
//
// Cost (alpha-beta, S = count * element size bytes, k segments of S/k):
//   T = (N-2+k) * (alpha + S/k * beta)
// which tends to S * beta for k >> N (every link carries S once, and all
// links run at once); the best k = sqrt((N-2) * S * beta / alpha) gives
//   T = S * beta + (N-2) * alpha + 2 * sqrt((N-2) * alpha * S * beta).
// Segments are sized as for the ring (CollectiveOptions, collectives/segments.h),
// except that on two ranks, where nobody forwards and the best k is 1,
// automatic segments cover the whole message.
// Over a binomial tree's log2(N) * (alpha + S * beta) the chain wins for
// large S; nccl-tests counts busbw = algbw for broadcast.
#pragma once

#include <vector>

#include "collectives/collective.h"
#include "collectives/memory.h"
#include "collectives/collective_options.h"
#include "collectives/transport.h"

namespace shardroof::coll {

class RingBroadcast final : public Collective {
 public:
  // The root is options.broadcast.root. transport and memory are borrowed and must
  // outlive the collective.
  RingBroadcast(Transport& transport, MemoryOps& memory, CollectiveOptions options = {});
  CollectiveKind kind() const override { return CollectiveKind::Broadcast; }
  std::string algorithm() const override { return "ring"; }
  // InvalidArgument if the root is not a rank.
  void run(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) override;

 private:
  Transport& transport_;
  MemoryOps& memory_;
  CollectiveOptions options_;
  std::vector<RequestPtr> sends_;
};

}  // namespace shardroof::coll
