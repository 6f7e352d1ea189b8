// The CUDA backend as the rest of the program sees it. Declared for every
// build; defined by the CUDA sources in CUDA builds, and by unavailable.cpp
// otherwise, where each factory throws a UsageError saying that this build
// has no CUDA. Callers therefore never need an #if.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>

#include "compute/compute_backend.h"
#include "measure/comm_setup.h"

namespace shardroof {

struct CudaComputeOptions {
  // Let float GEMMs run on TF32 tensor cores (10-bit mantissa inputs, float
  // accumulate). Off by default: float means IEEE float FMA.
  bool allow_tf32 = false;
};

// Device buffers over `transport`: NCCL (ring over ncclSend/ncclRecv, native
// = NCCL's collectives) or MPI (device buffers staged through pinned host
// memory, or handed to a CUDA-aware MPI). Collective over `comm`: selects
// this rank's GPU by node-local rank first. Throws UsageError (agreed by
// all ranks) when there is no GPU, too few GPUs, or no CUDA in this build.
std::unique_ptr<CommSetup> make_cuda_comm_setup(TransportKind transport, MPI_Comm comm);

// cuBLAS GEMMs on this rank's GPU. Collective over `comm` (device selection).
// Shares its stream and memory operations with make_cuda_comm_setup's
// setup while both are alive, so a GEMM and the collective that reduces its
// result are ordered on one stream.
std::unique_ptr<ComputeBackend> make_cuda_compute_backend(MPI_Comm comm, const CudaComputeOptions& options);

// For `--version`: what the CUDA part of this build provides, e.g.
// "CUDA runtime 13.0, NCCL 2.28.9; CUDA-aware MPI: no (...)". Empty when
// the build has no CUDA. Needs MPI to be initialised.
std::string cuda_built_in_text();

}  // namespace shardroof
