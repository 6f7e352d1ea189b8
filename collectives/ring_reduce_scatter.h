// Ring ReduceScatter.
//
// Algorithm: the N ranks form a ring (rank r sends to r+1, receives from
// r-1). The array is cut into N balanced blocks. In step k = 0..N-2 rank r
// sends the partial sum of block (r-k-1) mod N and receives block
// (r-k-2) mod N, which it reduces with its own input of that block. After
// N-1 steps rank r holds block r reduced over all ranks. Each step is cut
// into segments, each reduced as soon as it arrives; every segment's
// receive is posted as the step starts (after its sends), so a segment
// sent by rendezvous is answered on arrival (with two receive buffers, the answer
// waited behind this rank's own data on the connection: 0.76 of the line
// rate over TCP at 16 MiB). Extra memory: a block for receives and two
// blocks of partial sums, O(count/N).
//
// Cost (alpha-beta-gamma, S = count * element size bytes, g = time to reduce
// one byte): T = (N-1) * alpha + (N-1)/N * S * beta + (N-1)/N * S * g.
#pragma once

#include <memory>

#include "collectives/collective.h"
#include "collectives/memory.h"
#include "collectives/collective_options.h"
#include "collectives/transport.h"

namespace shardroof::coll {

namespace detail {
class RingReduceScatterPhase;
}  // namespace detail

class RingReduceScatter final : public Collective {
 public:
  // transport and memory are borrowed and must outlive the collective.
  RingReduceScatter(Transport& transport, MemoryOps& memory, CollectiveOptions options = {});
  ~RingReduceScatter() override;
  CollectiveKind kind() const override { return CollectiveKind::ReduceScatter; }
  std::string algorithm() const override { return "ring"; }
  void run(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) override;

 private:
  std::unique_ptr<detail::RingReduceScatterPhase> phase_;
};

}  // namespace shardroof::coll
