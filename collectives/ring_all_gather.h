// Ring AllGather.
//
// Algorithm: rank r starts with block r. In step k = 0..N-2 it sends block
// (r-k) mod N to rank r+1 and receives block (r-k-1) mod N from rank r-1,
// directly into its place in the output. No extra memory.
//
// Cost (S = count * element size bytes of the whole gathered array):
// T = (N-1) * alpha + (N-1)/N * S * beta.
#pragma once

#include "collectives/collective.h"
#include "collectives/memory.h"
#include "collectives/collective_options.h"
#include "collectives/trace.h"
#include "collectives/transport.h"

namespace shardroof::coll {

class RingAllGather final : public Collective {
 public:
  RingAllGather(Transport& transport, MemoryOps& memory, CollectiveOptions options = {});
  CollectiveKind kind() const override { return CollectiveKind::AllGather; }
  std::string algorithm() const override { return "ring"; }
  void run(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) override;

 private:
  Transport& transport_;
  MemoryOps& memory_;
  CollectiveOptions options_;
};

// The gather phase on a buffer that already holds block `rank` in place;
// shared by RingAllGather and RingAllReduce.
// `tracer` (may be null) receives a span per step and per send, receive and
// wait.
void ring_all_gather_in_place(Transport& transport, void* buf, std::size_t count,
                              std::size_t element_bytes, int tag, Tracer* tracer = nullptr);

}  // namespace shardroof::coll
