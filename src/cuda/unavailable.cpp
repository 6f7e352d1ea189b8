// The CUDA backend's entry points in a build without CUDA: each one explains
// how to get a build that has it.
#include "cuda/cuda_api.h"
#include "util/error.h"

namespace shardroof {
namespace {

[[noreturn]] void no_cuda() {
  throw_usage(
      "--backend cuda: this shardroof was built without CUDA; rebuild on a machine with the CUDA "
      "toolkit (nvcc, cuBLAS; NCCL for --transport nccl), where CMake enables it automatically, "
      "or use --backend cpu");
}

}  // namespace

std::unique_ptr<CommSetup> make_cuda_comm_setup(TransportKind, MPI_Comm) { no_cuda(); }

std::unique_ptr<ComputeBackend> make_cuda_compute_backend(MPI_Comm, const CudaComputeOptions&) { no_cuda(); }

std::string cuda_built_in_text() { return {}; }

}  // namespace shardroof
