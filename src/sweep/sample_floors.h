// The fewest iterations the sweep's calibration measurements take, whatever
// --iters and --warmup say: T_comm at S (at least 20 timed calls, since
// every prediction scales with it) and the ring probes (at least 50, since
// W comes from differences of times at sizes only 4x apart; a disturbance
// through 20 iterations of a shared-memory exchange once moved their
// medians by 1.8x), each after at least 2 untimed ones.
//
// C_peak's GEMM is grown until one call takes at least peak_gemm_s (20 ms),
// so that a timer's resolution and a preemption are small beside it.
//
// These guard against a noisy machine. A simulated network
// (sample_floors_smpi.cpp, the SHARDROOF_SMPI build) has no noise: SimGrid
// gives the same time to the same traffic every time, so there the
// measurements take what --iters and --warmup say, and C_peak's GEMM is
// not grown: its simulated time is the charge SMPI scales from this
// machine's CPU time (x1e-4 for a preset's GPU), so a floor in simulated
// seconds grew it 64x per round, computed for real on every rank (a
// 16-rank checked sweep took 170 s, nearly all of it there).
#pragma once

namespace shardroof::sweep {

struct SampleFloors {
  int warmup = 2;
  int collective_iters = 20;
  int probe_iters = 50;
  double peak_gemm_s = 0.020;
};

SampleFloors sample_floors();

}  // namespace shardroof::sweep
