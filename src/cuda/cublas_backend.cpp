#include "cuda/cublas_backend.h"

#include <fmt/format.h>

#include <climits>

#include "collectives/cuda/cuda_check.h"
#include "cuda/cublas_check.h"
#include "cuda/cuda_clock.h"
#include "util/error.h"

namespace shardroof {

void check_cublas(cublasStatus_t rc, const char* what, const char* file, int line) {
  if (rc == CUBLAS_STATUS_SUCCESS) return;
  coll::raise_library_error(what, fmt::format("{} ({})", cublasGetStatusName(rc), cublasGetStatusString(rc)),
                            file, line);
}

std::string cublas_version_text() {
  int major = 0, minor = 0, patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS) return "unknown";
  cublasGetProperty(MINOR_VERSION, &minor);
  cublasGetProperty(PATCH_LEVEL, &patch);
  return fmt::format("{}.{}.{}", major, minor, patch);
}

CublasHandle::CublasHandle(cudaStream_t stream) {
  SHARDROOF_CUBLAS_CHECK(cublasCreate(&handle_));
  SHARDROOF_CUBLAS_CHECK(cublasSetStream(handle_, stream));
  SHARDROOF_CUBLAS_CHECK(cublasSetPointerMode(handle_, CUBLAS_POINTER_MODE_HOST));
}

CublasHandle::~CublasHandle() {
  if (handle_) cublasDestroy(handle_);
}

CublasBackend::CublasBackend(std::shared_ptr<CudaRankContext> context, const CudaComputeOptions& options)
    : context_(std::move(context)), options_(options), handle_(context_->stream()) {}

std::string CublasBackend::describe() const {
  return fmt::format("cuda ({}, cuBLAS {}{})", context_->describe(), cublas_version_text(),
                     options_.allow_tf32 ? ", TF32 allowed for float" : "");
}

bool CublasBackend::supports(coll::DataType type) const { return type != coll::DataType::Int32; }

std::string CublasBackend::arithmetic(coll::DataType type) const {
  switch (type) {
    case coll::DataType::Float:
      return options_.allow_tf32 ? "float inputs rounded to TF32 (tensor cores), float accumulate"
                                 : "float (FP32 FMA, no TF32)";
    case coll::DataType::Double: return "double";
    case coll::DataType::BFloat16: return "bfloat16 inputs, float accumulate";
    case coll::DataType::Half: return "half inputs, float accumulate";
    case coll::DataType::Int32: return "unsupported";
  }
  return "?";
}

void CublasBackend::gemm(std::size_t m, std::size_t n, std::size_t k, const void* A, const void* B, void* C,
                         coll::DataType type) {
  if (!supports(type)) throw UsageError(fmt::format("cuBLAS backend: no GEMM for {}", coll::to_string(type)));
  if (m == 0 || n == 0) return;
  if (k == 0) {
    SHARDROOF_CUDA_CHECK(cudaMemsetAsync(C, 0, m * n * coll::size_of(type), context_->stream()));
    return;
  }
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX)
    throw UsageError(fmt::format("cuBLAS backend: GEMM {}x{}x{} exceeds cuBLAS's int dimensions", m, n, k));
  const int M = static_cast<int>(m), N = static_cast<int>(n), K = static_cast<int>(k);

  cudaDataType_t io = CUDA_R_32F;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  switch (type) {
    case coll::DataType::Float:
      compute = options_.allow_tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      break;
    case coll::DataType::Double:
      io = CUDA_R_64F;
      compute = CUBLAS_COMPUTE_64F;
      break;
    case coll::DataType::BFloat16: io = CUDA_R_16BF; break;
    case coll::DataType::Half: io = CUDA_R_16F; break;
    case coll::DataType::Int32: break;
  }
  // Row-major C[m x n] = A[m x k] B[k x n] is column-major C^T = B^T A^T:
  // cuBLAS sees B as an n x k matrix (ld n) and A as k x m (ld k).
  const float alpha_f = 1.0f, beta_f = 0.0f;
  const double alpha_d = 1.0, beta_d = 0.0;
  const bool f64 = compute == CUBLAS_COMPUTE_64F;
  const void* alpha = f64 ? static_cast<const void*>(&alpha_d) : static_cast<const void*>(&alpha_f);
  const void* beta = f64 ? static_cast<const void*>(&beta_d) : static_cast<const void*>(&beta_f);
  SHARDROOF_CUBLAS_CHECK(cublasGemmEx(handle_.get(), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, alpha, B, io, N, A, io, K,
                                      beta, C, io, N, compute, CUBLAS_GEMM_DEFAULT));
}

std::unique_ptr<Clock> CublasBackend::make_clock() { return std::make_unique<CudaEventClock>(context_->stream()); }

void CublasBackend::synchronize() { context_->memory().synchronize(); }

}  // namespace shardroof
