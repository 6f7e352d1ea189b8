// The core's own compute peak, measured with core_loops.h: the clock the
// core runs at and each loop's FLOP/s, hence FLOP per cycle per level and
// datatype (which also shows how many FMA units of which width the core
// has, with no table of CPU models to go stale). Per process, no MPI
// (ceilings/ceilings.h runs it on every rank at once).
//
// Each rate is the fastest of many short repetitions (about a millisecond
// each): a hardware limit is an upper bound, and a repetition that the OS
// preempted only takes longer, so the fastest one is the limit's estimate.
// The loops touch no memory, so nothing is cached that a later repetition
// could benefit from. One loop at a time, all its repetitions together,
// after `sync` (the ranks' barrier): every rank of a node runs the same
// loop at the same moment, so units that two ranks share (the two
// hardware threads of one core) are measured shared, as a sweep's ranks
// use them.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "collectives/types.h"
#include "hardware/core_loops.h"
#include "hardware/cpu_isa.h"

namespace shardroof::hw {

struct LoopRate {
  CoreLoop loop;
  double flops_per_s = 0;  // the fastest repetition's
};

struct CorePeak {
  double clock_hz = 0;           // the clock loop's fastest repetition; 0: not measured
  std::vector<LoopRate> rates;   // every loop this CPU runs, in the order of kVectorIsas, float then double then bfloat16
  int repetitions = 0;
  double repetition_s = 0;       // about how long one repetition of a loop runs

  // Whether the ranks of a node share their cores' units (two hardware
  // threads of one core, vCPUs the host runs on fewer cores): the fastest
  // loop of each datatype run for longer (about 20 ms per iteration) by
  // every rank of the node at once, against the same loop run by the
  // node's first rank alone just before; `sustained` keeps the ratio
  // (together / alone, the lowest node's). A machine loaded by something
  // else slows both alike, so the ratio is the sharing alone. Empty on
  // nodes of one rank.
  struct Sharing {
    CoreLoop loop;
    double together_flops_per_s = 0;  // per rank, every rank of the node at once
    double alone_flops_per_s = 0;     // the node's first rank alone
    double ratio() const { return alone_flops_per_s > 0 ? together_flops_per_s / alone_flops_per_s : 1; }
  };
  std::vector<Sharing> sustained;
  int sustained_ranks = 1;  // ranks of the node that ran it at once (the largest node's)

  bool measured() const { return clock_hz > 0 && !rates.empty(); }
  // The sharing of `type`'s fastest loop, or nullptr.
  const Sharing* sustained_for(coll::DataType type) const;
  // The rate of one loop, or nullptr when it was not measured.
  const LoopRate* rate(CoreLoop loop) const;
  // The fastest loop for `type`'s arithmetic (BFloat16: the AVX512_BF16 dot
  // where the CPU has it); nullptr when none was measured. Among loops
  // within 10% of the fastest the widest is returned: a tie is the same
  // units (a 512-bit FMA split into two 256-bit halves), and the wider
  // kernel is the one a library tunes for such a core.
  const LoopRate* fastest(coll::DataType type) const;
};

// FLOPs per cycle of a rate at the measured clock.
double flop_per_cycle(const LoopRate& r, double clock_hz);

// Every loop a CPU with `cpu` runs for `types` (Float, Double, BFloat16),
// in the order CorePeak::rates keeps.
std::vector<CoreLoop> loops_for(const CpuIsa& cpu, const std::vector<coll::DataType>& types);

// The clock: the fastest of `repetitions` runs of the clock loop, each
// about `repetition_s`; 0 where this build has no clock loop.
double measure_clock_hz(int repetitions, double repetition_s);
// One loop's FLOP/s, the fastest of its repetitions (where loop_available).
double measure_loop_flops(CoreLoop loop, int repetitions, double repetition_s);

// Measures the clock and every loop of `loops`, `repetitions` times each,
// each repetition sized to about `repetition_s`, calling `sync` before
// each (ceilings/ passes a barrier). Returns an unmeasured CorePeak where
// this build has no loops.
CorePeak measure_core_peak(const std::vector<CoreLoop>& loops, int repetitions = 30, double repetition_s = 1e-3,
                           const std::function<void()>& sync = {});

}  // namespace shardroof::hw
