// Where the local partial product runs: OpenBLAS on the host (cpu/) or
// cuBLAS on a GPU (cuda/). A backend owns its memory operations (so the
// collectives can run on its buffers) and a clock that times its work
// correctly (host clock, or CUDA events).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectives/memory.h"
#include "collectives/types.h"
#include "hardware/gpu_peak.h"
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

  // A GEMM whose operands stay the same across timed iterations. A backend
  // may prepare them once, outside any timed region (the CPU backend widens
  // bfloat16 to float here, since OpenBLAS has no bfloat16 GEMM); run() is
  // what a benchmark times. The default runs gemm() as it is.
  class PreparedGemm {
   public:
    virtual ~PreparedGemm() = default;
    virtual void run() = 0;
    // What run() does, for the output, e.g. "float GEMM, then rounding C to bfloat16".
    virtual std::string timed_work() const = 0;
  };
  virtual std::unique_ptr<PreparedGemm> prepare_gemm(std::size_t m, std::size_t n, std::size_t k,
                                                     const void* A, const void* B, void* C,
                                                     coll::DataType type);

  // One product C = A[m x k] * B[k x n] (row-major, as gemm()) computed
  // chunk by chunk, for a step that reduces a finished chunk while the next
  // one computes (sweep --overlap). A chunk is a list of blocks; a block is
  // C[row : row + rows, col : col + cols], written densely (rows x cols,
  // row-major) at `dst`, so a chunk's blocks can sit next to each other in
  // the buffer its collective reads.
  struct GemmBlock {
    std::size_t row = 0, rows = 0, col = 0, cols = 0;
    void* dst = nullptr;
  };
  class PreparedGemmChunks {
   public:
    virtual ~PreparedGemmChunks() = default;
    // At the start of a step: chunks run from now on start after the work
    // already queued on this backend's memory, so the backend's clock,
    // started before, contains them.
    virtual void begin() = 0;
    // Computes chunk c (host), or queues it on a stream of its own, beside
    // the stream of the backend's memory on which collectives run (CUDA).
    virtual void run(std::size_t c) = 0;
    // On the thread that reduces chunk c, before it queues the reduction:
    // work queued on the backend's memory from now on starts after chunk c
    // has been computed.
    virtual void wait_for(std::size_t c) = 0;
  };
  // Operands are prepared here, outside any timed region, as in prepare_gemm.
  virtual std::unique_ptr<PreparedGemmChunks> prepare_gemm_chunks(std::size_t m, std::size_t n, std::size_t k,
                                                                  const void* A, const void* B,
                                                                  std::vector<std::vector<GemmBlock>> chunks,
                                                                  coll::DataType type) = 0;
  // STREAM-like kernels on three arrays of doubles in this backend's own
  // memory (host memory for the CPU, device memory for a GPU), for the
  // memory roof M: copy c = a, triad a = b + s * c. The arrays are
  // allocated and filled here, outside any timed region; a kernel returns
  // when its work is queued, and the backend's clock waits for it.
  class MemoryKernels {
   public:
    virtual ~MemoryKernels() = default;
    virtual void copy() = 0;
    virtual void triad() = 0;
  };
  // The default runs the loops on the host.
  virtual std::unique_ptr<MemoryKernels> prepare_memory_kernels(std::size_t elements);
  // Bytes of the last cache level in front of this backend's memory (a
  // GPU's L2), or 0 when the backend does not know it. Arrays meant to
  // measure the memory itself must be several times larger.
  virtual std::size_t cache_bytes() const { return 0; }
  // Bytes still free in this backend's memory (a GPU's free device memory;
  // by default the host's MemAvailable), or 0 when unknown: a ceiling that
  // grows its operands stays well inside it. Ranks that share the memory
  // see the same number.
  virtual std::size_t free_memory_bytes() const;

  // The GPU this backend computes on as its driver describes it now (its
  // spec, and the clock it runs at); nullopt for the CPU.
  virtual std::optional<hw::GpuDevice> gpu_device() { return std::nullopt; }

  // Whether the backend's GEMM computes the product. Only the simulated
  // build's backend with injected costs (sim/simulated_backend.h) does not:
  // it charges the GEMM's time and leaves C as it was, so no operands need
  // filling and no product can be checked.
  virtual bool computes_values() const { return true; }

  // Called first on a thread other than the one that made the backend,
  // before that thread queues work on the backend's memory (CUDA keeps the
  // current device per thread).
  virtual void enter_thread() {}
};

struct ComputeOptions {
  int threads = 1;          // BLAS threads per rank (cpu)
  bool allow_tf32 = false;  // float GEMMs on TF32 tensor cores (cuda)
};

// make_compute_backend (commands/backends.h) makes the backend a run asked
// for: cpu/'s or cuda/'s.

}  // namespace shardroof
