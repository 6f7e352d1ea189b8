// One `--trace` run on every rank: the clock offsets before measuring, the
// recorder the measurements fill, and the gathering on rank 0 after them.
#pragma once

#include <mpi.h>

#include <memory>
#include <vector>

#include "trace/recorder.h"

namespace shardroof::trace {

class TraceSession {
 public:
  // Collective on `comm`: estimates this rank's clock offset (outside any
  // timed region) and reserves the span buffers.
  explicit TraceSession(MPI_Comm comm, std::size_t max_spans_per_track = Recorder::kDefaultMaxSpans);

  Recorder& recorder() { return recorder_; }

  // Collective: estimates the offsets again and gathers every rank's trace;
  // rank 0 gets all of them in rank order, the other ranks an empty vector.
  std::vector<RankTrace> finish();

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  Recorder recorder_;
  ClockOffset start_;
};

}  // namespace shardroof::trace
