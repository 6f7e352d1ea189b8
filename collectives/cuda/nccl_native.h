// Native baselines on NCCL behind the Collective interface: ncclAllReduce,
// ncclReduceScatter, ncclAllGather and ncclBroadcast on device buffers, on
// the stream shared with the CudaMemoryOps. Their algorithms (ring, tree,
// NVLS, ...) are NCCL's choice. AllToAll is what nccl-tests runs: one
// ncclSend and one ncclRecv per peer inside one group (ncclAlltoAll exists
// only from NCCL 2.28 on); in place, the input is first copied to scratch.
//
// NCCL's reduce-scatter and all-gather need equal blocks. When `count` does
// not divide by the number of ranks, the balanced blocks of blocks.h are
// reduced with one ncclReduce per block (root = the block's owner) or
// broadcast with one ncclBroadcast per block, inside one group.
//
// Avg is a sum followed by one division in the element's precision (the
// same as the ring and MPI paths; ncclAvg would pre-scale floating inputs
// and round differently). run() returns when the result is complete.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>

#include "collectives/collective.h"
#include "collectives/cuda/cuda_memory.h"
#include "collectives/cuda/nccl_comm.h"

namespace shardroof::coll {

class NcclNativeCollective final : public Collective {
 public:
  // All borrowed; they must outlive the collective.
  // `root`: Broadcast's root (ignored by the others).
  NcclNativeCollective(CollectiveKind kind, NcclComm& comm, CudaMemoryOps& memory, int root = 0);
  CollectiveKind kind() const override { return kind_; }
  std::string algorithm() const override { return "nccl"; }
  void run(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) override;

 private:
  CollectiveKind kind_;
  NcclComm& comm_;
  CudaMemoryOps& memory_;
  int root_ = 0;
  std::unique_ptr<Allocation> input_copy_;  // AllToAll's input, in place
};

}  // namespace shardroof::coll
