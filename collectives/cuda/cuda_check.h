// Checks for CUDA runtime calls. A failing call throws
// shardroof::coll::TransportError naming the file, line, MPI rank, the call
// and the library's own message, e.g.
//   collectives/cuda/cuda_memory.cpp:42: rank 1: cudaMalloc(...) failed:
//   cudaErrorMemoryAllocation (out of memory)
// The NCCL and cuBLAS checks (nccl_comm.h, src/cuda/cublas_check.h) report
// through raise_library_error in the same format.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace shardroof::coll {

// Throws TransportError("file:line: rank R: what failed: message").
[[noreturn]] void raise_library_error(const char* what, const std::string& message, const char* file,
                                      int line);

// Rank in MPI_COMM_WORLD, or -1 before MPI_Init / after MPI_Finalize.
int world_rank_or_unknown();

void check_cuda(cudaError_t rc, const char* what, const char* file, int line);

}  // namespace shardroof::coll

#define SHARDROOF_CUDA_CHECK(call) ::shardroof::coll::check_cuda((call), #call, __FILE__, __LINE__)
// After a kernel launch: launch errors are reported by cudaGetLastError.
#define SHARDROOF_CUDA_CHECK_LAUNCH(what) \
  ::shardroof::coll::check_cuda(cudaGetLastError(), what, __FILE__, __LINE__)
