// ComputeBackend on cuBLAS: row-major C = A * B with cublasGemmEx on this
// rank's GPU and stream.
//   float     FP32 FMA (CUBLAS_COMPUTE_32F); with allow_tf32, TF32 tensor
//             cores with float accumulate (CUBLAS_COMPUTE_32F_FAST_TF32)
//   double    FP64 (CUBLAS_COMPUTE_64F)
//   bfloat16  bfloat16 inputs and output, float accumulate (tensor cores)
//   half      half inputs and output, float accumulate (tensor cores)
//   int32     not supported
#pragma once

#include <cublas_v2.h>

#include <memory>
#include <vector>

#include "compute/compute_backend.h"
#include "cuda/cuda_api.h"
#include "cuda/cuda_context.h"

namespace shardroof {

// Owned cuBLAS handle, bound to a stream.
class CublasHandle {
 public:
  explicit CublasHandle(cudaStream_t stream);
  ~CublasHandle();
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

class CublasBackend final : public ComputeBackend {
 public:
  CublasBackend(std::shared_ptr<CudaRankContext> context, const CudaComputeOptions& options);

  std::string describe() const override;
  coll::MemoryOps& memory() override { return context_->memory(); }
  void gemm(std::size_t m, std::size_t n, std::size_t k, const void* A, const void* B, void* C,
            coll::DataType type) override;
  std::string arithmetic(coll::DataType type) const override;
  bool supports(coll::DataType type) const override;
  std::unique_ptr<Clock> make_clock() override;
  void synchronize() override;
  std::unique_ptr<PreparedGemmChunks> prepare_gemm_chunks(std::size_t m, std::size_t n, std::size_t k, const void* A,
                                                          const void* B, std::vector<std::vector<GemmBlock>> chunks,
                                                          coll::DataType type) override;
  void enter_thread() override;
  // Copy and triad as kernels on device arrays; the device's L2 and free memory.
  std::unique_ptr<MemoryKernels> prepare_memory_kernels(std::size_t elements) override;
  std::size_t cache_bytes() const override { return context_->device().l2_bytes; }
  std::size_t free_memory_bytes() const override;
  std::optional<hw::GpuDevice> gpu_device() override;

 private:
  std::shared_ptr<CudaRankContext> context_;
  CudaComputeOptions options_;
  CublasHandle handle_;
};

// cuBLAS version of the loaded library, e.g. "13.0.2".
std::string cublas_version_text();

}  // namespace shardroof
