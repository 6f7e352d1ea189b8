#include "collectives/ring_all_reduce.h"

#include "collectives/ring_all_gather.h"
#include "collectives/ring_detail.h"

namespace shardroof::coll {

class RingAllReduce::Impl {
 public:
  Impl(Transport& t, MemoryOps& m, RingOptions o) : transport(t), memory(m), options(o) {}
  Transport& transport;
  MemoryOps& memory;
  RingOptions options;
  detail::ScratchPool segments;
  detail::ScratchPool unused_blocks;
};

RingAllReduce::RingAllReduce(Transport& transport, MemoryOps& memory, RingOptions options)
    : impl_(std::make_unique<Impl>(transport, memory, options)) {}

RingAllReduce::~RingAllReduce() = default;

void RingAllReduce::run(const void* send, void* recv, std::size_t count, DataType type,
                        ReduceOp op) {
  auto& t = impl_->transport;
  const std::size_t es = size_of(type);
  if (t.size() == 1) {
    impl_->memory.copy(recv, send, count * es);
  } else {
    // The reduce-scatter phase never reads the input's own block (r-1) after
    // sending it and writes each other block once, so out of place the
    // output is filled without an up-front copy.
    detail::ring_reduce_scatter_phase(t, impl_->memory, impl_->options, impl_->segments,
                                      impl_->unused_blocks, send, recv, nullptr, count, type, op);
    ring_all_gather_in_place(t, recv, count, es, impl_->options.tag + 1, impl_->options.tracer);
  }
  if (op == ReduceOp::Avg) impl_->memory.divide(recv, count, type, t.size());
  impl_->memory.synchronize();
}

}  // namespace shardroof::coll
