// Ring AllReduce = ring ReduceScatter followed by ring AllGather.
//
// Algorithm: the reduce-scatter phase (see ring_reduce_scatter.h) leaves
// block r of the result on rank r, written straight into the output buffer;
// the all-gather phase (see ring_all_gather.h) then circulates the reduced
// blocks. Out of place, the input is read where a block is first reduced,
// so no up-front copy is made. Extra memory: two receive segments.
//
// Cost (S = count * element size bytes):
// T = 2(N-1) * alpha + 2(N-1)/N * S * beta + (N-1)/N * S * g.
// This is bandwidth-optimal: each rank sends and receives 2(N-1)/N * S bytes.
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

class RingAllReduce final : public Collective {
 public:
  RingAllReduce(Transport& transport, MemoryOps& memory, CollectiveOptions options = {});
  ~RingAllReduce() override;
  CollectiveKind kind() const override { return CollectiveKind::AllReduce; }
  std::string algorithm() const override { return "ring"; }
  void run(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) override;

 private:
  std::unique_ptr<detail::RingReduceScatterPhase> phase_;
};

}  // namespace shardroof::coll
