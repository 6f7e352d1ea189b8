// Where the local partial product runs: OpenBLAS on the host (cpu/) or
// cuBLAS on a GPU (cuda/). A backend owns its memory operations (so the
// collectives can run on its buffers) and a clock that times its work
// correctly (host clock, or CUDA events).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "collectives/memory.h"
#include "collectives/types.h"
#include "timing/timing.h"

namespace shardroof {

class ComputeBackend {
 public:
  virtual ~ComputeBackend() = default;
  // e.g. "cpu (OpenBLAS, 1 thread)" or "cuda (NVIDIA H200, cuBLAS)".
  virtual std::string describe() const = 0;
  virtual coll::MemoryOps& memory() = 0;
  // Row-major C[m x n] = A[m x k] * B[k x n] in this backend's memory; C is
  // overwritten. k may be 0 (C becomes zeros). Returns when the work is
  // queued; synchronize() or the backend's clock waits for it.
  virtual void gemm(std::size_t m, std::size_t n, std::size_t k, const void* A, const void* B,
                    void* C, coll::DataType type) = 0;
  // What the GEMM really computes in, e.g. "float" or "bfloat16 inputs, float accumulate".
  virtual std::string arithmetic(coll::DataType type) const = 0;
  virtual bool supports(coll::DataType type) const = 0;
  virtual std::unique_ptr<Clock> make_clock() = 0;
  virtual void synchronize() = 0;
};

}  // namespace shardroof
