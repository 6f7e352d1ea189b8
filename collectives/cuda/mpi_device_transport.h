// MPI point-to-point on device buffers, in one of two modes:
//   Staged    - copies through page-locked host buffers: a send copies the
//               device data to a staging buffer (after the stream's earlier
//               work) and sends that; a receive lands in a staging buffer
//               and wait() copies it to the device buffer.
//   Direct    - hands device pointers to a CUDA-aware MPI library (see
//               cuda_aware_mpi.h), after synchronizing the stream so that
//               MPI never races the kernels that produce or read a buffer.
// Staging buffers come from a pool kept by the transport, so after the
// first (warm-up) call no page-locked memory is allocated.
// When wait() returns, the data is in place for host and stream alike.
#pragma once

#include <cuda_runtime_api.h>
#include <mpi.h>

#include <memory>
#include <mutex>
#include <vector>

#include "collectives/cuda/cuda_handles.h"
#include "collectives/mpi_transport.h"

namespace shardroof::coll {

enum class DeviceMpiMode { Staged, Direct };

// Page-locked buffers handed out and returned whole; a buffer goes back to
// the pool when its lease is destroyed.
class PinnedPool {
 public:
  class Lease {
   public:
    Lease(PinnedPool* pool, std::unique_ptr<PinnedAllocation> buf) : pool_(pool), buf_(std::move(buf)) {}
    ~Lease();
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    void* data() { return buf_->data(); }

   private:
    PinnedPool* pool_;
    std::unique_ptr<PinnedAllocation> buf_;
  };
  std::unique_ptr<Lease> acquire(std::size_t bytes);
  std::size_t pooled_bytes() const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<PinnedAllocation>> free_;
};

class MpiDeviceTransport final : public Transport {
 public:
  // The communicator and stream are borrowed; they must outlive the transport.
  MpiDeviceTransport(MPI_Comm comm, cudaStream_t stream, DeviceMpiMode mode);

  int rank() const override { return host_.rank(); }
  int size() const override { return host_.size(); }
  std::string_view name() const override { return mode_ == DeviceMpiMode::Staged ? "mpi-staged" : "mpi-cuda-aware"; }
  MemorySpace memory_space() const override { return MemorySpace::Device; }
  DeviceMpiMode mode() const { return mode_; }

  RequestPtr isend(const void* buf, std::size_t bytes, int peer, int tag) override;
  RequestPtr irecv(void* buf, std::size_t bytes, int peer, int tag) override;

 private:
  MpiTransport host_;
  cudaStream_t stream_;
  DeviceMpiMode mode_;
  PinnedPool pool_;
};

}  // namespace shardroof::coll
