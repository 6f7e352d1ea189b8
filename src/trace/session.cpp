#include "trace/session.h"

#include "collectives/mpi_transport.h"
#include "trace/clock_sync.h"
#include "trace/gather.h"
#include "util/node.h"

namespace shardroof::trace {

TraceSession::TraceSession(MPI_Comm comm, std::size_t max_spans_per_track)
    : comm_(comm), recorder_(max_spans_per_track) {
  SHARDROOF_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
  start_ = estimate_clock_offset(comm_);
}

std::vector<RankTrace> TraceSession::finish() {
  recorder_.set_recording(false);
  RankTrace mine = recorder_.collect(rank_);
  mine.clock_start = start_;
  mine.clock_end = estimate_clock_offset(comm_);
  mine.host = host_name();
  return gather_traces(comm_, mine);
}

}  // namespace shardroof::trace
