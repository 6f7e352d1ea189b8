// MemoryOps on device memory: allocations with cudaMalloc, copies with
// cudaMemcpyAsync and reductions as kernels, all queued on one stream so
// that they are ordered with each other and with the NCCL operations issued
// on the same stream. synchronize() waits for the stream.
//
// copy() accepts any pair of host and device pointers (cudaMemcpyDefault,
// unified addressing); overlapping ranges other than dst == src are not
// supported. A copy into pageable host memory has finished when copy()
// returns; anything else is finished after synchronize().
#pragma once

#include <cuda_runtime_api.h>

#include "collectives/memory.h"

namespace shardroof::coll {

class CudaMemoryOps final : public MemoryOps {
 public:
  // The stream is borrowed and must outlive this object.
  explicit CudaMemoryOps(cudaStream_t stream) : stream_(stream) {}

  MemorySpace space() const override { return MemorySpace::Device; }
  std::unique_ptr<Allocation> allocate(std::size_t bytes) override;
  void copy(void* dst, const void* src, std::size_t bytes) override;
  void reduce(void* dst, const void* a, const void* b, std::size_t count, DataType type,
              ReduceOp op) override;
  void divide(void* buf, std::size_t count, DataType type, int divisor) override;
  void synchronize() override;

  cudaStream_t stream() const { return stream_; }

 private:
  cudaStream_t stream_;
};

}  // namespace shardroof::coll
