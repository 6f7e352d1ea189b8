#include "cuda/cublas_backend.h"

#include <fmt/format.h>

#include <climits>
#include <cstddef>
#include <vector>

#include "collectives/cuda/cuda_check.h"
#include "collectives/cuda/cuda_handles.h"
#include "cuda/cublas_check.h"
#include "cuda/cuda_clock.h"
#include "cuda/gpu_device.h"
#include "cuda/memory_kernels.h"
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

std::optional<hw::GpuDevice> CublasBackend::gpu_device() { return query_gpu_device(context_->device().device); }

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

namespace {

// Row-major C[m x n] = A[m x k] * B[k x n] on `handle`'s stream; A and C
// dense, B's rows ldb elements apart (a block of columns of a wider B when
// ldb > n).
void cublas_gemm(cublasHandle_t handle, cudaStream_t stream, bool allow_tf32, std::size_t m, std::size_t n,
                 std::size_t k, const void* A, const void* B, std::size_t ldb, void* C, coll::DataType type) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    SHARDROOF_CUDA_CHECK(cudaMemsetAsync(C, 0, m * n * coll::size_of(type), stream));
    return;
  }
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX || ldb > INT_MAX)
    throw UsageError(fmt::format("cuBLAS backend: GEMM {}x{}x{} exceeds cuBLAS's int dimensions", m, n, k));
  const int M = static_cast<int>(m), N = static_cast<int>(n), K = static_cast<int>(k);

  cudaDataType_t io = CUDA_R_32F;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  switch (type) {
    case coll::DataType::Float:
      compute = allow_tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
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
  // cuBLAS sees B as an n x k matrix (ld ldb) and A as k x m (ld k).
  const float alpha_f = 1.0f, beta_f = 0.0f;
  const double alpha_d = 1.0, beta_d = 0.0;
  const bool f64 = compute == CUBLAS_COMPUTE_64F;
  const void* alpha = f64 ? static_cast<const void*>(&alpha_d) : static_cast<const void*>(&alpha_f);
  const void* beta = f64 ? static_cast<const void*>(&beta_d) : static_cast<const void*>(&beta_f);
  SHARDROOF_CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, alpha, B, io, static_cast<int>(ldb),
                                      A, io, K, beta, C, io, N, compute, CUBLAS_GEMM_DEFAULT));
}

// The chunked product on a second stream with its own cuBLAS handle, so the
// collectives, which run on the rank's stream (the backend's memory), are
// free to reduce chunk c while chunk c + 1 computes. Events order the two
// streams: begin() holds the GEMM stream behind the work already on the
// rank's stream (the clock's start event), and wait_for(c) holds the rank's
// stream behind chunk c's event. The streams, handle and events are made
// here, before timing.
class CublasGemmChunks final : public ComputeBackend::PreparedGemmChunks {
 public:
  CublasGemmChunks(cudaStream_t main, bool allow_tf32, std::size_t n, std::size_t k, const void* A, const void* B,
                   std::vector<std::vector<ComputeBackend::GemmBlock>> chunks, coll::DataType type)
      : main_(main), allow_tf32_(allow_tf32), n_(n), k_(k), A_(static_cast<const std::byte*>(A)),
        B_(static_cast<const std::byte*>(B)), chunks_(std::move(chunks)), type_(type), handle_(stream_.get()),
        done_(chunks_.size()) {}

  void begin() override {
    start_.record(main_);
    SHARDROOF_CUDA_CHECK(cudaStreamWaitEvent(stream_.get(), start_.get(), 0));
  }
  void run(std::size_t c) override {
    const std::size_t es = coll::size_of(type_);
    for (const auto& b : chunks_[c])
      cublas_gemm(handle_.get(), stream_.get(), allow_tf32_, b.rows, b.cols, k_, A_ + b.row * k_ * es, B_ + b.col * es,
                  n_, b.dst, type_);
    done_[c].record(stream_.get());
  }
  void wait_for(std::size_t c) override { SHARDROOF_CUDA_CHECK(cudaStreamWaitEvent(main_, done_[c].get(), 0)); }

 private:
  cudaStream_t main_;
  bool allow_tf32_;
  std::size_t n_, k_;
  const std::byte* A_;
  const std::byte* B_;
  std::vector<std::vector<ComputeBackend::GemmBlock>> chunks_;
  coll::DataType type_;
  coll::CudaStream stream_;
  CublasHandle handle_;
  coll::CudaEvent start_;
  std::vector<coll::CudaEvent> done_;
};

// STREAM's copy and triad on three device arrays, on the rank's stream (so
// the backend's event clock times them).
class DeviceMemoryKernels final : public ComputeBackend::MemoryKernels {
 public:
  DeviceMemoryKernels(std::size_t elements, const DeviceChoice& device, cudaStream_t stream)
      : n_(elements), blocks_(memory_kernel_blocks(device.multiprocessors, device.max_threads_per_multiprocessor)),
        stream_(stream), a_(n_ * sizeof(double)), b_(n_ * sizeof(double)), c_(n_ * sizeof(double)) {
    launch_fill(a(), 1.0, n_, blocks_, stream_);
    launch_fill(b(), 2.0, n_, blocks_, stream_);
    launch_fill(c(), 0.5, n_, blocks_, stream_);
    SHARDROOF_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  void copy() override { launch_copy(c(), a(), n_, blocks_, stream_); }
  void triad() override { launch_triad(a(), b(), c(), 3.0, n_, blocks_, stream_); }

 private:
  double* a() { return static_cast<double*>(a_.data()); }
  double* b() { return static_cast<double*>(b_.data()); }
  double* c() { return static_cast<double*>(c_.data()); }
  std::size_t n_;
  unsigned blocks_;
  cudaStream_t stream_;
  coll::DeviceAllocation a_, b_, c_;
};

}  // namespace

std::unique_ptr<ComputeBackend::MemoryKernels> CublasBackend::prepare_memory_kernels(std::size_t elements) {
  return std::make_unique<DeviceMemoryKernels>(elements, context_->device(), context_->stream());
}

std::size_t CublasBackend::free_memory_bytes() const {
  std::size_t free = 0, total = 0;
  SHARDROOF_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return free;
}

void CublasBackend::gemm(std::size_t m, std::size_t n, std::size_t k, const void* A, const void* B, void* C,
                         coll::DataType type) {
  if (!supports(type)) throw UsageError(fmt::format("cuBLAS backend: no GEMM for {}", coll::to_string(type)));
  cublas_gemm(handle_.get(), context_->stream(), options_.allow_tf32, m, n, k, A, B, n, C, type);
}

std::unique_ptr<ComputeBackend::PreparedGemmChunks> CublasBackend::prepare_gemm_chunks(
    std::size_t, std::size_t n, std::size_t k, const void* A, const void* B, std::vector<std::vector<GemmBlock>> chunks,
    coll::DataType type) {
  if (!supports(type)) throw UsageError(fmt::format("cuBLAS backend: no GEMM for {}", coll::to_string(type)));
  return std::make_unique<CublasGemmChunks>(context_->stream(), options_.allow_tf32, n, k, A, B, std::move(chunks),
                                            type);
}

void CublasBackend::enter_thread() { SHARDROOF_CUDA_CHECK(cudaSetDevice(context_->device().device)); }

std::unique_ptr<Clock> CublasBackend::make_clock() { return std::make_unique<CudaEventClock>(context_->stream()); }

void CublasBackend::synchronize() { context_->memory().synchronize(); }

}  // namespace shardroof
