// The simulated build's clock (see clock.h). SMPI's MPI_Wtime is the
// simulated time of this rank, the same origin on every rank; each call
// also ends the current stretch of computation, which SMPI then charges
// (benchmarked, or nothing where the platform injects the costs itself).
#include <mpi.h>

#include "collectives/clock.h"

namespace shardroof::coll {

double monotonic_seconds() noexcept { return MPI_Wtime(); }

}  // namespace shardroof::coll
