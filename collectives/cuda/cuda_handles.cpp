#include "collectives/cuda/cuda_handles.h"

#include <algorithm>

#include "collectives/cuda/cuda_check.h"

namespace shardroof::coll {

CudaStream::CudaStream() { SHARDROOF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }

CudaStream::~CudaStream() {
  if (stream_) cudaStreamDestroy(stream_);
}

CudaStream& CudaStream::operator=(CudaStream&& other) noexcept {
  if (this != &other) {
    if (stream_) cudaStreamDestroy(stream_);
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}

void CudaStream::synchronize() const { SHARDROOF_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

CudaEvent::CudaEvent() { SHARDROOF_CUDA_CHECK(cudaEventCreate(&event_)); }

CudaEvent::~CudaEvent() {
  if (event_) cudaEventDestroy(event_);
}

CudaEvent& CudaEvent::operator=(CudaEvent&& other) noexcept {
  if (this != &other) {
    if (event_) cudaEventDestroy(event_);
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}

void CudaEvent::record(cudaStream_t stream) { SHARDROOF_CUDA_CHECK(cudaEventRecord(event_, stream)); }

void CudaEvent::synchronize() const { SHARDROOF_CUDA_CHECK(cudaEventSynchronize(event_)); }

double CudaEvent::seconds_since(const CudaEvent& start) const {
  float ms = 0;
  SHARDROOF_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
  return static_cast<double>(ms) * 1e-3;
}

DeviceAllocation::DeviceAllocation(std::size_t bytes) : bytes_(bytes) {
  SHARDROOF_CUDA_CHECK(cudaMalloc(&data_, std::max<std::size_t>(bytes, 1)));
}

DeviceAllocation::~DeviceAllocation() {
  if (data_) cudaFree(data_);
}

PinnedAllocation::PinnedAllocation(std::size_t bytes) : bytes_(bytes) {
  SHARDROOF_CUDA_CHECK(cudaMallocHost(&data_, std::max<std::size_t>(bytes, 1)));
}

PinnedAllocation::~PinnedAllocation() {
  if (data_) cudaFreeHost(data_);
}

}  // namespace shardroof::coll
