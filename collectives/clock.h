// The monotonic clock every measurement reads (the timing module's host
// clock, the spans of a trace, the stamps of every iteration), in seconds
// from an origin of this process's own.
//
// Which clock it is depends on the build, not on a setting: the machine's
// steady clock (clock.cpp), or, in the simulated build (SHARDROOF_SMPI),
// SimGrid's simulated clock (clock_smpi.cpp: MPI_Wtime, which SMPI advances
// by the simulated platform's time for communication and for the
// computation it benchmarks or is told about).
#pragma once

namespace shardroof::coll {

double monotonic_seconds() noexcept;

}  // namespace shardroof::coll
