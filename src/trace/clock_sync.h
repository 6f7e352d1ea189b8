// Aligning the ranks' clocks for a merged trace. Spans are stamped with each
// rank's monotonic clock (coll::Tracer::now), whose origin differs between
// hosts, so rank 0 estimates every other rank's offset with a few
// ping-pongs: rank r sends at t0 (its clock), rank 0 answers with its time
// t, rank r receives at t1; offset = t - (t0 + t1) / 2, exact if both legs
// took equally long and wrong by at most (t1 - t0) / 2 otherwise, so the
// round with the smallest round trip is kept.
//
// MPI_Wtime is not used: Open MPI (4.1) sets MPI_WTIME_IS_GLOBAL to false,
// and its MPI_Wtime counts from an origin of each process's own (two ranks
// read it 0.2 s apart at the same moment after one started later); the
// trace records what the library declares.
#pragma once

#include <mpi.h>

#include "timing/timing.h"
#include "trace/recorder.h"

namespace shardroof::trace {

// Collective on `comm`, outside timed regions: rank 0 pings the other ranks
// one after another, `rounds` times each. Returns this rank's estimate
// (zero offset and round trip on rank 0).
ClockOffset estimate_clock_offset(MPI_Comm comm, int rounds = 16);

// Collective, outside timed regions: rank 0's clock as this rank reads it
// (timing/timing.h): on rank 0's host the same clock (offset zero: a Linux
// monotonic clock is one per host, unless ranks sit in different time
// namespaces); elsewhere from estimate_clock_offset with `rounds`
// ping-pongs per rank.
AlignedClock aligned_clock(MPI_Comm comm, int rounds = 8);

// Whether the MPI library declares MPI_Wtime synchronised across ranks
// (the MPI_WTIME_IS_GLOBAL attribute of MPI_COMM_WORLD).
bool mpi_wtime_is_global();

}  // namespace shardroof::trace
