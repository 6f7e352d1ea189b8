// One rank's GPU: the device chosen by node-local rank, one stream, and the
// memory operations on that stream. Shared by the compute backend and the
// communication setup of the same rank (see CudaRankContext::acquire).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <string>

#include "collectives/cuda/cuda_handles.h"
#include "collectives/cuda/cuda_memory.h"

namespace shardroof {

struct DeviceChoice {
  int device = 0;        // CUDA ordinal this rank uses
  int device_count = 0;  // GPUs visible to this rank
  int local_rank = 0;    // rank among the ranks on this node
  int local_size = 1;    // ranks on this node
  std::string name;      // e.g. "NVIDIA H200"
  std::string host;
  // Read off the device, for kernels and ceilings sized to it.
  int multiprocessors = 0;
  int max_threads_per_multiprocessor = 0;
  std::size_t l2_bytes = 0;
};

// Collective over `comm`: splits it by node (MPI_COMM_TYPE_SHARED), picks
// GPU local_rank, makes it current. Every rank agrees on the verdict: no GPU
// visible, or fewer GPUs than ranks on a node, is a UsageError on all ranks.
// SHARDROOF_ALLOW_SHARED_GPU=1 lets ranks share GPUs round-robin (to test
// several ranks on a single-GPU machine; over NCCL see cuda/shared_gpu.h).
DeviceChoice select_device_by_local_rank(MPI_Comm comm);

class CudaRankContext {
 public:
  // The context alive in this process, or a new one (collective over
  // `comm` when it is created: device selection).
  static std::shared_ptr<CudaRankContext> acquire(MPI_Comm comm);

  const DeviceChoice& device() const { return device_; }
  cudaStream_t stream() const { return stream_.get(); }
  coll::CudaMemoryOps& memory() { return memory_; }
  // "NVIDIA H200 (device 0 of 8, local rank 0 of 8)"
  std::string describe() const;

  explicit CudaRankContext(DeviceChoice device);

 private:
  DeviceChoice device_;
  coll::CudaStream stream_;
  coll::CudaMemoryOps memory_;
};

}  // namespace shardroof
