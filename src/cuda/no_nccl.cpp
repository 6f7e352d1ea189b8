#include "cuda/nccl_setup.h"
#include "util/error.h"

namespace shardroof {

std::unique_ptr<CommSetup> make_nccl_comm_setup(std::shared_ptr<CudaRankContext>, MPI_Comm) {
  throw_usage("--transport nccl: this shardroof was built without NCCL (set NCCL_HOME and reconfigure), "
              "use --transport mpi");
}

std::string nccl_version_text() { return {}; }

}  // namespace shardroof
