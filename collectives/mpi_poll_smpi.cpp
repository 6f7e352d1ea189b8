#include "collectives/mpi_poll.h"

#include "collectives/mpi_transport.h"

namespace shardroof::coll {

bool poll_requests(std::vector<MPI_Request>& pending) {
  SHARDROOF_MPI_CHECK(MPI_Waitall(static_cast<int>(pending.size()), pending.data(), MPI_STATUSES_IGNORE));
  return true;
}

}  // namespace shardroof::coll
