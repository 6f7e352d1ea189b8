// The fewest iterations the sweep's calibration measurements take, whatever
// --iters and --warmup say: T_comm at S (at least 20 timed calls, since
// every prediction scales with it) and the ring probes (at least 50, since
// W comes from differences of times at sizes only 4x apart; a disturbance
// through 20 iterations of a shared-memory exchange once moved their
// medians by 1.8x), each after at least 2 untimed ones.
//
// These guard against a noisy machine. A simulated network
// (sample_floors_smpi.cpp, the SHARDROOF_SMPI build) has no noise: SimGrid
// gives the same time to the same traffic every time, so there the
// measurements take what --iters and --warmup say.
#pragma once

namespace shardroof::sweep {

struct SampleFloors {
  int warmup = 2;
  int collective_iters = 20;
  int probe_iters = 50;
};

SampleFloors sample_floors();

}  // namespace shardroof::sweep
