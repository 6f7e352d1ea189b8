// Internal: the reduce-scatter phase shared by RingReduceScatter and
// RingAllReduce. Not part of the library's interface.
#pragma once

#include <cstddef>
#include <memory>

#include "collectives/memory.h"
#include "collectives/ring_options.h"
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

// Reduce-scatter phase over `count` elements of `input`.
// If `full_output` is set (AllReduce), the partial sum of block b is written
// to full_output + offset(b) and the result of block rank lands there too.
// Otherwise (ReduceScatter) partial sums go to two scratch blocks and the
// result of block rank is written to `block_output`.
void ring_reduce_scatter_phase(Transport& transport, MemoryOps& memory, const RingOptions& options,
                               ScratchPool& segments, ScratchPool& blocks, const void* input,
                               void* full_output, void* block_output, std::size_t count,
                               DataType type, ReduceOp op);

}  // namespace shardroof::coll::detail
