// The hardware's own limits, measured on the ranks beside the software's
// ceilings (hardware/: the core's FMA peak and clock, the BLAS kernel, the
// GPU's spec, the links' line rates). Every rank measures its own core at
// once, as the other ceilings are measured; the record keeps, per loop,
// the slowest rank's rate (a step is as fast as its slowest rank).
#pragma once

#include <mpi.h>

#include <optional>
#include <vector>

#include "collectives/types.h"
#include "ceilings/records.h"
#include "compute/compute_backend.h"
#include "hardware/line_rate.h"

namespace shardroof {

// Collective over `comm`. `types`: the GEMM datatypes the command times.
HardwareLimits measure_hardware_limits(ComputeBackend& backend, MPI_Comm comm, const std::vector<coll::DataType>& types,
                                       int threads, bool allow_tf32);

// Collective: with a GPU backend, every rank's driver-reported SM clock
// now (call it right after timed GEMMs), the lowest kept in `limits`.
void read_gpu_clocks(ComputeBackend& backend, MPI_Comm comm, HardwareLimits& limits);

// Collective: every rank's view of its network, in rank order.
std::vector<hw::HostNet> gather_host_nets(MPI_Comm comm);

}  // namespace shardroof
