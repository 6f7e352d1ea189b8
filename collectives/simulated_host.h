// What the simulated platform says about the host this rank runs on, in
// the simulated build (SHARDROOF_SMPI) only. The platform that
// scripts/simulate.sh generates (src/sim/platform.cpp) gives every host
// these properties; without them (any other platform) SMPI benchmarks the
// computation as it does for every MPI program.
//
//   shardroof/compute             "injected": local work costs what the
//                                 preset's rates say, and SMPI charges
//                                 nothing for the time it really takes
//                                 (smpi/simulate-computation:no);
//                                 "benchmarked": SMPI times it and scales
//                                 it by smpi/host-speed over the host's speed
//   shardroof/memory_bytes_per_s  M, the preset's memory bandwidth
//   shardroof/flops/<datatype>    C, the preset's FLOP/s for a datatype
//                                 (its name as --datatype spells it)
//   shardroof/preset              the preset's name, for the output
//   shardroof/segment_bytes       the largest automatic segment of the
//                                 host's memory (default: this machine's)
//   shardroof/node                the node the host belongs to
//                                 (src/util/node_smpi.cpp)
#pragma once

#include <optional>
#include <string>

namespace shardroof::coll::sim {

// The property of this rank's host; "" when the platform does not set it.
std::string host_property(const std::string& key);

// M when the platform injects the cost of local work, else nothing.
std::optional<double> injected_memory_bytes_per_s();

// Charges `seconds` of simulated time to this rank, exactly (whatever the
// host's speed and smpi/host-speed).
void charge_seconds(double seconds);

}  // namespace shardroof::coll::sim
