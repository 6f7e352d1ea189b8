#include "collectives/ring_all_reduce.h"

#include "collectives/ring_all_gather.h"
#include "collectives/ring_detail.h"

namespace shardroof::coll {

RingAllReduce::RingAllReduce(Transport& transport, MemoryOps& memory, CollectiveOptions options)
    : phase_(std::make_unique<detail::RingReduceScatterPhase>(transport, memory, options)) {}

RingAllReduce::~RingAllReduce() = default;

void RingAllReduce::run(const void* send, void* recv, std::size_t count, DataType type,
                        ReduceOp op) {
  // The reduce-scatter phase never reads the input's own block (r-1) after
  // sending it and writes each other block once, so out of place the
  // output is filled without an up-front copy.
  phase_->run(send, recv, nullptr, count, type, op);
  Transport& t = phase_->transport();
  if (t.size() > 1)
    ring_all_gather_in_place(t, recv, count, size_of(type), phase_->options().tag + 1, phase_->options().tracer);
  phase_->finish(recv, count, type, op);
}

}  // namespace shardroof::coll
