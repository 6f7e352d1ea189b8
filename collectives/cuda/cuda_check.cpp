#include "collectives/cuda/cuda_check.h"

#include <mpi.h>

#include "collectives/error.h"

namespace shardroof::coll {

int world_rank_or_unknown() {
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) return -1;
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

void raise_library_error(const char* what, const std::string& message, const char* file, int line) {
  throw TransportError(std::string(file) + ":" + std::to_string(line) + ": rank " +
                       std::to_string(world_rank_or_unknown()) + ": " + what + " failed: " + message);
}

void check_cuda(cudaError_t rc, const char* what, const char* file, int line) {
  if (rc == cudaSuccess) return;
  raise_library_error(what, std::string(cudaGetErrorName(rc)) + " (" + cudaGetErrorString(rc) + ")",
                      file, line);
}

}  // namespace shardroof::coll
