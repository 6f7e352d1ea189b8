// The backend of `--backend cpu`: OpenBLAS on this machine (host_backend.cpp),
// or, in the simulated build (SHARDROOF_SMPI), OpenBLAS whose work the
// simulated platform charges, benchmarked or injected from a preset
// (sim/host_backend_smpi.cpp, sim/simulated_backend.h).
#pragma once

#include <memory>

#include "compute/compute_backend.h"

namespace shardroof {

std::unique_ptr<ComputeBackend> make_host_backend(int threads);

}  // namespace shardroof
