#include "commands/backends.h"

#include <string>

#include "cpu/host_backend.h"
#include "cuda/cuda_api.h"
#include "tuning/tuning_file.h"
#include "util/error.h"

namespace shardroof {

std::unique_ptr<ComputeBackend> make_compute_backend(Backend backend, const ComputeOptions& options, MPI_Comm comm) {
  if (backend == Backend::Cpu) return make_host_backend(options.threads);
  CudaComputeOptions cuda;
  cuda.allow_tf32 = options.allow_tf32;
  return make_cuda_compute_backend(comm, cuda);
}

std::unique_ptr<CommSetup> make_comm_setup(Backend backend, TransportKind transport, MPI_Comm comm) {
  std::unique_ptr<CommSetup> setup;
  if (backend == Backend::Cpu) {
    if (transport != TransportKind::Mpi)
      throw_usage("--transport {} needs --backend cuda (NCCL moves device buffers)", to_string(transport));
    setup = make_host_mpi_setup(comm);
  } else {
    // Defined by the CUDA sources, or by cuda/unavailable.cpp (a UsageError) in builds without CUDA.
    setup = make_cuda_comm_setup(transport, comm);
  }
  const TuningScope scope{std::string(setup->transport().name()),
                          setup->memory().space() == coll::MemorySpace::Host ? "cpu" : "cuda", 0};
  setup->set_tuning(std::make_shared<const coll::TuningTable>(applicable_tuning(builtin_tuning_table(), scope)));
  return setup;
}

}  // namespace shardroof
