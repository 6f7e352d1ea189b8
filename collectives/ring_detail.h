// Internal: the reduce-scatter phase shared by RingReduceScatter and
// RingAllReduce, and the scratch memory of the collectives. Not part of the
// library's interface.
#pragma once

#include <cstddef>
#include <memory>

#include "collectives/memory.h"
#include "collectives/collective_options.h"
#include "collectives/transport.h"

namespace shardroof::coll::detail {

// Scratch memory kept between calls so that allocation never happens inside
// a timed call after the first (warm-up) one.
class ScratchPool {
 public:
  void* get(MemoryOps& memory, std::size_t bytes) {
    if (!alloc_ || alloc_->bytes() < bytes) alloc_ = memory.allocate(bytes);
    return alloc_->data();
  }

 private:
  std::unique_ptr<Allocation> alloc_;
};

// The reduce-scatter phase (ring_reduce_scatter.h) with the stack it runs
// on and the scratch it keeps between calls: RingReduceScatter is this phase
// alone, RingAllReduce this phase and then the ring all-gather.
class RingReduceScatterPhase {
 public:
  // transport and memory are borrowed and must outlive the phase.
  RingReduceScatterPhase(Transport& transport, MemoryOps& memory, CollectiveOptions options)
      : transport_(transport), memory_(memory), options_(options) {}

  Transport& transport() { return transport_; }
  const CollectiveOptions& options() const { return options_; }

  // Reduces `count` elements of `input` over the ranks. With `full_output`
  // (AllReduce) the partial sum of block b is written to full_output +
  // offset(b) and the result of block rank lands there too; otherwise
  // (ReduceScatter) partial sums go to two scratch blocks and the result of
  // block rank is written to `block_output`. On one rank the input is the
  // result, copied to the output.
  void run(const void* input, void* full_output, void* block_output, std::size_t count, DataType type,
           ReduceOp op);

  // The end of a call: Avg divides the `elements` of `result` by the rank
  // count, and device work is waited for.
  void finish(void* result, std::size_t elements, DataType type, ReduceOp op);

 private:
  Transport& transport_;
  MemoryOps& memory_;
  CollectiveOptions options_;
  ScratchPool segments_;
  ScratchPool blocks_;
};

}  // namespace shardroof::coll::detail
