#include "cuda/cuda_clock.h"

namespace shardroof {

void CudaEventClock::start() { begin_.record(stream_); }

double CudaEventClock::stop() {
  end_.record(stream_);
  end_.synchronize();
  return end_.seconds_since(begin_);
}

}  // namespace shardroof
