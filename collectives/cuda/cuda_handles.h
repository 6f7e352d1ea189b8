// RAII owners of CUDA runtime handles: streams, events, device and pinned
// host allocations. Each is move-only and releases its handle once; a
// destructor never throws (a failing release is ignored, as the runtime is
// usually shutting down or already in an error state then).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "collectives/memory.h"

namespace shardroof::coll {

// A non-blocking stream (no implicit synchronisation with the legacy
// default stream).
class CudaStream {
 public:
  CudaStream();
  ~CudaStream();
  CudaStream(CudaStream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  CudaStream& operator=(CudaStream&& other) noexcept;
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  cudaStream_t get() const { return stream_; }
  void synchronize() const;

 private:
  cudaStream_t stream_ = nullptr;
};

class CudaEvent {
 public:
  CudaEvent();
  ~CudaEvent();
  CudaEvent(CudaEvent&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  CudaEvent& operator=(CudaEvent&& other) noexcept;
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;

  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream);
  void synchronize() const;
  // Seconds from `start` to this event; both must have completed.
  double seconds_since(const CudaEvent& start) const;

 private:
  cudaEvent_t event_ = nullptr;
};

// Device memory from cudaMalloc, freed on destruction. A zero-byte
// allocation still has a valid (unique) pointer.
class DeviceAllocation final : public Allocation {
 public:
  explicit DeviceAllocation(std::size_t bytes);
  ~DeviceAllocation() override;
  DeviceAllocation(const DeviceAllocation&) = delete;
  DeviceAllocation& operator=(const DeviceAllocation&) = delete;
  void* data() override { return data_; }
  std::size_t bytes() const override { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Page-locked host memory from cudaMallocHost (fast, asynchronous copies).
class PinnedAllocation final : public Allocation {
 public:
  explicit PinnedAllocation(std::size_t bytes);
  ~PinnedAllocation() override;
  PinnedAllocation(const PinnedAllocation&) = delete;
  PinnedAllocation& operator=(const PinnedAllocation&) = delete;
  void* data() override { return data_; }
  std::size_t bytes() const override { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace shardroof::coll
