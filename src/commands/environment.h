// Gathers the run's Environment (report/environment.h): the MPI library,
// BLAS and CUDA build queried on this rank, the host names of every rank.
#pragma once

#include <string>

#include "report/environment.h"
#include "util/mpi_session.h"

namespace shardroof {

// Collective (gathers host names): every rank calls it.
Environment gather_environment(const MpiSession& mpi);
// This rank's libraries and build alone, no host names: what --version says.
Environment local_environment(const MpiSession& mpi);

// "backends: cpu, cuda; transports: mpi, nccl"
std::string built_in_text();
std::string utc_timestamp();
// The first "model name" of /proc/cpuinfo, or "".
std::string cpu_model();
// The 1, 5 and 15 minute load averages of /proc/loadavg ("0.57 2.18 2.34"), or "".
std::string load_average();

}  // namespace shardroof
