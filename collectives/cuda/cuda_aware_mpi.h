// Whether the MPI library can read and write device buffers itself
// ("CUDA-aware"). Open MPI answers through mpi-ext.h (MPIX_CUDA_AWARE_SUPPORT
// at compile time, MPIX_Query_cuda_support() at run time); other libraries
// are taken as not CUDA-aware unless the environment says otherwise:
// SHARDROOF_CUDA_AWARE_MPI=1 forces direct device buffers, =0 forces
// staging through pinned host memory.
#pragma once

#include <string>

namespace shardroof::coll {

struct CudaAwareMpi {
  bool supported = false;
  std::string reason;  // how it was decided, for the report
};

// Call after MPI_Init.
CudaAwareMpi detect_cuda_aware_mpi();

}  // namespace shardroof::coll
