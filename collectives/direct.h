// Direct (one-round) AllReduce and ReduceScatter for small messages.
//
// Algorithm: every rank sends to every other rank at once what that rank
// needs: the whole input (AllReduce) or the destination's block
// (ReduceScatter), then posts its receives. When the N-1 messages are in, it
// reduces the N contributions in rank order 0, 1, ..., N-1, so every rank
// computes bit-identical results. All messages of the collective are in
// flight together: one latency instead of the ring's N-1 (ReduceScatter) or
// 2(N-1) (AllReduce) sequential steps.
//
// Cost (alpha-beta-gamma, S = count * element size bytes; the N-1 messages a
// rank sends leave back to back):
//   AllReduce:     T = alpha + (N-1) * S * beta + (N-1) * S * g
//   ReduceScatter: T = alpha + (N-1)/N * S * beta + (N-1)/N * S * g
// Extra memory: N receive slots of the result's size, N * S (AllReduce) or
// S (ReduceScatter) bytes. AllReduce sends N-1 times more than the ring, so
// it only pays below a few KiB; the `auto` choice uses it there only.
#pragma once

#include <memory>

#include "collectives/collective.h"
#include "collectives/memory.h"
#include "collectives/collective_options.h"
#include "collectives/transport.h"

namespace shardroof::coll {

class DirectCollective final : public Collective {
 public:
  // kind is AllReduce or ReduceScatter (InvalidArgument otherwise).
  // transport and memory are borrowed and must outlive the collective.
  DirectCollective(CollectiveKind kind, Transport& transport, MemoryOps& memory,
                   CollectiveOptions options = {});
  ~DirectCollective() override;
  CollectiveKind kind() const override { return kind_; }
  std::string algorithm() const override { return "direct"; }
  void run(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) override;

 private:
  class Impl;
  CollectiveKind kind_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace shardroof::coll
