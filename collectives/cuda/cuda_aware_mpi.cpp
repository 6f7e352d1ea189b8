#include "collectives/cuda/cuda_aware_mpi.h"

#include <mpi.h>

#include <cstdlib>
#include <string_view>

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace shardroof::coll {

CudaAwareMpi detect_cuda_aware_mpi() {
  if (const char* env = std::getenv("SHARDROOF_CUDA_AWARE_MPI")) {
    const std::string_view v(env);
    if (v == "1" || v == "0")
      return {v == "1", std::string("set by SHARDROOF_CUDA_AWARE_MPI=") + env};
  }
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  if (MPIX_Query_cuda_support() == 1) return {true, "MPIX_Query_cuda_support() = 1"};
  return {false, "MPIX_Query_cuda_support() = 0 (CUDA support disabled at run time)"};
#elif defined(MPIX_CUDA_AWARE_SUPPORT)
  return {false, "mpi-ext.h: MPIX_CUDA_AWARE_SUPPORT = 0 (library built without CUDA)"};
#else
  return {false, "the MPI library does not declare CUDA support (no MPIX_CUDA_AWARE_SUPPORT)"};
#endif
}

}  // namespace shardroof::coll
