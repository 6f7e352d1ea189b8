// The NCCL part of the CUDA backend, split out so that a CUDA build without
// NCCL links no_nccl.cpp instead of nccl_setup.cpp.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>

#include "cuda/cuda_context.h"
#include "measure/comm_setup.h"

namespace shardroof {

// Ring over ncclSend/ncclRecv and NCCL's native collectives on the
// context's device and stream. Collective over `comm` (NCCL init).
std::unique_ptr<CommSetup> make_nccl_comm_setup(std::shared_ptr<CudaRankContext> context, MPI_Comm comm);

// "NCCL 2.28.9", or "" without NCCL.
std::string nccl_version_text();

}  // namespace shardroof
