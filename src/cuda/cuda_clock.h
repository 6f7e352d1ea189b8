// A Clock (timing/timing.h) that times the work queued on one stream with
// CUDA events: start() records an event, stop() records another, waits for
// it and returns the time between them on the GPU. Work issued on the stream
// between the two calls is what is timed, including gaps in which the host
// was still issuing it (a step costs those too).
#pragma once

#include <cuda_runtime_api.h>

#include "collectives/cuda/cuda_handles.h"
#include "timing/timing.h"

namespace shardroof {

class CudaEventClock final : public Clock {
 public:
  // The stream is borrowed and must outlive the clock.
  explicit CudaEventClock(cudaStream_t stream) : stream_(stream) {}
  void start() override;
  double stop() override;

 private:
  cudaStream_t stream_;
  coll::CudaEvent begin_;
  coll::CudaEvent end_;
};

}  // namespace shardroof
