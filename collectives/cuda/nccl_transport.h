// Transport over NCCL point-to-point (ncclSend / ncclRecv) on device
// buffers, all on one CUDA stream shared with the CudaMemoryOps that reduces
// the received data.
//
// Completion is stream-ordered: isend/irecv only queue the operation; wait()
// issues it (if it is still queued) inside ncclGroupStart/ncclGroupEnd and
// returns once it is enqueued on the stream. Work queued on the same stream
// afterwards (the ring's reduction of a received segment, the next send of
// that data) runs after the transfer; the host must synchronize the stream
// before it reads a buffer (MemoryOps::synchronize).
//
// Deadlock freedom: NCCL matches point-to-point operations per peer in the
// order they are issued, and a send kernel does not finish until its peer's
// receive runs. If a rank put all the sends of a ring step on its stream
// before receives that it posts later, every rank's stream could wait on a
// neighbour's later receive. So a flush triggered by a receive issues every
// queued receive together with the same number of queued sends (oldest
// first); a flush triggered by a send issues the queued sends up to it and
// every queued receive. Each group then pairs with the neighbours' groups
// of the same position in the ring schedule.
//
// Tags are not used by NCCL: messages between two ranks match in the order
// they were posted. That is enough for collectives that post the messages
// between two ranks in the same order on both sides (ring, direct), one
// collective at a time; it is not for collectives that keep messages of
// two tags in flight between the same ranks (pairwise), which the NCCL
// setup refuses. Zero-byte messages are not sent (both sides skip them
// alike).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "collectives/cuda/nccl_comm.h"
#include "collectives/cuda/p2p_queue.h"
#include "collectives/transport.h"

namespace shardroof::coll {

class NcclTransport final : public Transport {
 public:
  // Both are borrowed and must outlive the transport and its requests.
  NcclTransport(NcclComm& comm, cudaStream_t stream);

  int rank() const override { return comm_.rank(); }
  int size() const override { return comm_.size(); }
  std::string_view name() const override { return "nccl"; }
  MemorySpace memory_space() const override { return MemorySpace::Device; }

  RequestPtr isend(const void* buf, std::size_t bytes, int peer, int tag) override;
  RequestPtr irecv(void* buf, std::size_t bytes, int peer, int tag) override;

  // Issues operation `id` now if it is still queued (see the flush rule above).
  void issue_through(std::uint64_t id);
  // Operations queued but not yet issued.
  std::size_t queued() const { return queue_.queued(); }

 private:
  RequestPtr enqueue(bool send, void* buf, std::size_t bytes, int peer);

  NcclComm& comm_;
  cudaStream_t stream_;
  P2pQueue queue_;
};

}  // namespace shardroof::coll
