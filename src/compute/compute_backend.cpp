#include "compute/compute_backend.h"

#include "cpu/cpu_backend.h"
#include "cuda/cuda_api.h"

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

}  // namespace

std::unique_ptr<ComputeBackend::PreparedGemm> ComputeBackend::prepare_gemm(
    std::size_t m, std::size_t n, std::size_t k, const void* A, const void* B, void* C,
    coll::DataType type) {
  return std::make_unique<DirectGemm>(*this, m, n, k, A, B, C, type);
}

std::unique_ptr<ComputeBackend> make_compute_backend(Backend backend, const ComputeOptions& options, MPI_Comm comm) {
  if (backend == Backend::Cpu) return make_cpu_backend(options.threads);
  CudaComputeOptions cuda;
  cuda.allow_tf32 = options.allow_tf32;
  return make_cuda_compute_backend(comm, cuda);
}

}  // namespace shardroof
