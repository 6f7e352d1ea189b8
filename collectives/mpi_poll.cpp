#include "collectives/mpi_poll.h"

#include "collectives/mpi_transport.h"

namespace shardroof::coll {

bool poll_requests(std::vector<MPI_Request>& pending) {
  int done = 0;
  SHARDROOF_MPI_CHECK(MPI_Testall(static_cast<int>(pending.size()), pending.data(), &done, MPI_STATUSES_IGNORE));
  return done != 0;
}

}  // namespace shardroof::coll
