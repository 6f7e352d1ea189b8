// The CPU backend as a simulated rank runs it (SHARDROOF_SMPI only): the
// platform of scripts/simulate.sh says how local work is charged
// (collectives/simulated_host.h), and this backend says which in its
// description, so every output names it.
//
//  - benchmarked: OpenBLAS computes as on this machine; SMPI times each
//    stretch of computation between two MPI calls (its thread's CPU time)
//    and charges it scaled by smpi/host-speed (this machine's FLOP/s) over
//    the simulated host's speed. The product is real and is checked.
//  - injected: nothing is computed. A GEMM charges max(2mnk/C, (mk + kn +
//    mn) s/M) seconds from the preset's C for its datatype and memory
//    bandwidth M, as `predict` models T_math (no per-call overhead); the
//    STREAM kernels charge their bytes at M; the collectives' reductions
//    charge theirs, their copies nothing (collectives/host_memory_smpi.cpp). SMPI
//    charges nothing for the time the program really takes
//    (smpi/simulate-computation:no), so the simulated times do not depend
//    on this machine or its load. No product exists to check.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "compute/compute_backend.h"

namespace shardroof::sim {

struct SimulatedCompute {
  bool injected = false;
  std::string preset;                    // the preset the rates come from ("" when none)
  std::map<coll::DataType, double> flops;  // C per datatype (injected)
  double memory_bytes_per_s = 0;         // M (injected)
  double host_speed = 0;                 // the simulated host's FLOP/s
  double benchmark_speed = 0;            // smpi/host-speed: this machine's FLOP/s (benchmarked)
};

// The seconds an injected GEMM charges: max(2mnk/C, (mk + kn + mn) s/M).
double injected_gemm_seconds(std::size_t m, std::size_t n, std::size_t k, std::size_t element_bytes, double flops,
                             double memory_bytes_per_s);

// `inner` (the CPU backend) with its work charged as `compute` says.
std::unique_ptr<ComputeBackend> make_simulated_backend(std::unique_ptr<ComputeBackend> inner,
                                                       SimulatedCompute compute);

}  // namespace shardroof::sim
