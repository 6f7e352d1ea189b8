#include "collectives/cuda/cuda_memory.h"

#include "collectives/cuda/cuda_check.h"
#include "collectives/cuda/cuda_handles.h"
#include "collectives/cuda/device_reduce.h"

namespace shardroof::coll {

std::unique_ptr<Allocation> CudaMemoryOps::allocate(std::size_t bytes) {
  return std::make_unique<DeviceAllocation>(bytes);
}

void CudaMemoryOps::copy(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0 || dst == src) return;
  SHARDROOF_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream_));
}

void CudaMemoryOps::reduce(void* dst, const void* a, const void* b, std::size_t count, DataType type,
                           ReduceOp op) {
  device_reduce(dst, a, b, count, type, op, stream_);
}

void CudaMemoryOps::divide(void* buf, std::size_t count, DataType type, int divisor) {
  device_divide(buf, count, type, divisor, stream_);
}

void CudaMemoryOps::synchronize() { SHARDROOF_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

}  // namespace shardroof::coll
