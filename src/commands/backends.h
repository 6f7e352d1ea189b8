// The compute backend and the communication stack a run asked for: the
// host's (cpu/, measure/comm_setup.h) or a GPU's (cuda/). They are chosen
// here, above both, so that the interfaces (compute/, measure/) and the
// backends that implement them (cpu/, cuda/) never include each other.
#pragma once

#include <mpi.h>

#include <memory>

#include "compute/compute_backend.h"
#include "measure/comm_setup.h"
#include "util/comm_kinds.h"

namespace shardroof {

// The backend for `backend`. Collective over `comm` (a GPU backend selects
// this rank's device); throws UsageError when this build lacks the backend.
std::unique_ptr<ComputeBackend> make_compute_backend(Backend backend, const ComputeOptions& options, MPI_Comm comm);

// The setup for a backend and transport, with the built-in tuning table of
// `auto` (tuning/tuning.h) less the rules measured over another transport
// or memory space; throws UsageError for combinations this build cannot run.
std::unique_ptr<CommSetup> make_comm_setup(Backend backend, TransportKind transport, MPI_Comm comm);

}  // namespace shardroof
