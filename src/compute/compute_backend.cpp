#include "compute/compute_backend.h"

#include <vector>

#include "compute/host_backend.h"
#include "cuda/cuda_api.h"
#include "util/memory_budget.h"

namespace shardroof {

namespace {

class DirectGemm final : public ComputeBackend::PreparedGemm {
 public:
  DirectGemm(ComputeBackend& backend, std::size_t m, std::size_t n, std::size_t k, const void* A,
             const void* B, void* C, coll::DataType type)
      : backend_(backend), m_(m), n_(n), k_(k), A_(A), B_(B), C_(C), type_(type) {}
  void run() override { backend_.gemm(m_, n_, k_, A_, B_, C_, type_); }
  std::string timed_work() const override { return "GEMM (" + backend_.arithmetic(type_) + ")"; }

 private:
  ComputeBackend& backend_;
  std::size_t m_, n_, k_;
  const void* A_;
  const void* B_;
  void* C_;
  coll::DataType type_;
};

// The host loops of STREAM (McCalpin), on vectors of this rank.
class HostMemoryKernels final : public ComputeBackend::MemoryKernels {
 public:
  explicit HostMemoryKernels(std::size_t elements) : a_(elements, 1.0), b_(elements, 2.0), c_(elements, 0.5) {}
  ~HostMemoryKernels() override {
    // Keep the results observable so the loops are not optimised away.
    if (!a_.empty()) {
      volatile double sink = a_[a_.size() / 2] + c_[c_.size() / 3];
      (void)sink;
    }
  }
  void copy() override {
    double* __restrict dst = c_.data();
    const double* __restrict src = a_.data();
    for (std::size_t i = 0, n = a_.size(); i < n; ++i) dst[i] = src[i];
  }
  void triad() override {
    double* __restrict dst = a_.data();
    const double* __restrict x = b_.data();
    const double* __restrict y = c_.data();
    for (std::size_t i = 0, n = a_.size(); i < n; ++i) dst[i] = x[i] + kScalar * y[i];
  }

 private:
  static constexpr double kScalar = 3.0;
  std::vector<double> a_, b_, c_;
};

}  // namespace

std::unique_ptr<ComputeBackend::MemoryKernels> ComputeBackend::prepare_memory_kernels(std::size_t elements) {
  return std::make_unique<HostMemoryKernels>(elements);
}

std::size_t ComputeBackend::free_memory_bytes() const { return mem_available_bytes().value_or(0); }

std::unique_ptr<ComputeBackend::PreparedGemm> ComputeBackend::prepare_gemm(
    std::size_t m, std::size_t n, std::size_t k, const void* A, const void* B, void* C,
    coll::DataType type) {
  return std::make_unique<DirectGemm>(*this, m, n, k, A, B, C, type);
}

std::unique_ptr<ComputeBackend> make_compute_backend(Backend backend, const ComputeOptions& options, MPI_Comm comm) {
  if (backend == Backend::Cpu) return make_host_backend(options.threads);
  CudaComputeOptions cuda;
  cuda.allow_tf32 = options.allow_tf32;
  return make_cuda_compute_backend(comm, cuda);
}

}  // namespace shardroof
