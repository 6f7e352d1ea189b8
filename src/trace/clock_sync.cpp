#include "trace/clock_sync.h"

#include <limits>

#include "collectives/mpi_transport.h"
#include "collectives/trace.h"
#include "util/mpi_session.h"
#include "util/node.h"

namespace shardroof::trace {

namespace {
constexpr int kTag = 0x7ace;
}  // namespace

ClockOffset estimate_clock_offset(MPI_Comm comm, int rounds) {
  int rank = 0, size = 1;
  SHARDROOF_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  SHARDROOF_MPI_CHECK(MPI_Comm_size(comm, &size));
  ClockOffset out;
  out.rounds = rounds;
  out.local_time_s = coll::Tracer::now();
  if (rank == 0) {
    for (int peer = 1; peer < size; ++peer) {
      for (int i = 0; i < rounds; ++i) {
        char ping = 0;
        SHARDROOF_MPI_CHECK(MPI_Recv(&ping, 1, MPI_CHAR, peer, kTag, comm, MPI_STATUS_IGNORE));
        const double t = coll::Tracer::now();
        SHARDROOF_MPI_CHECK(MPI_Send(&t, 1, MPI_DOUBLE, peer, kTag, comm));
      }
    }
  } else {
    out.round_trip_s = std::numeric_limits<double>::infinity();
    for (int i = 0; i < rounds; ++i) {
      const char ping = 0;
      double t = 0;
      const double t0 = coll::Tracer::now();
      SHARDROOF_MPI_CHECK(MPI_Send(&ping, 1, MPI_CHAR, 0, kTag, comm));
      SHARDROOF_MPI_CHECK(MPI_Recv(&t, 1, MPI_DOUBLE, 0, kTag, comm, MPI_STATUS_IGNORE));
      const double t1 = coll::Tracer::now();
      if (t1 - t0 < out.round_trip_s) {
        out.round_trip_s = t1 - t0;
        out.offset_s = t - 0.5 * (t0 + t1);
        out.local_time_s = 0.5 * (t0 + t1);
      }
    }
  }
  // Ranks wait for the last pair, so no rank starts timing while rank 0 is
  // still busy with the ping-pongs.
  SHARDROOF_MPI_CHECK(MPI_Barrier(comm));
  return out;
}

AlignedClock aligned_clock(MPI_Comm comm, int rounds) {
  const ClockOffset estimate = estimate_clock_offset(comm, rounds);
  // Ranks on rank 0's host read the same monotonic clock: their offset is
  // zero, not an estimate that a rank short of CPU time would skew by its
  // ping-pongs' waits.
  if (broadcast_string(comm, host_name()) == host_name()) return {0.0};
  return {estimate.offset_s};
}

bool mpi_wtime_is_global() {
  int* value = nullptr;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &value, &found);
  return found && value && *value != 0;
}

}  // namespace shardroof::trace
