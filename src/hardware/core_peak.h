// The core's own compute peak, measured with core_loops.h: the clock the
// core runs at and each loop's FLOP/s, hence FLOP per cycle per level and
// datatype (which also shows how many FMA units of which width the core
// has, with no table of CPU models to go stale). Per process, no MPI
// (ceilings/hardware_limits.h runs it on every rank at once).
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
//
// Every per-cycle figure rests on a clock that passed two physical checks
// (judge_clock): the two chains of core_loops.h agree, and every loop
// reaches a FLOP per cycle a core can have. A clock that fails either is
// unknown, and the figures stay in FLOP/s.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "collectives/types.h"
#include "hardware/core_loops.h"
#include "hardware/cpu_isa.h"

namespace shardroof::hw {

// The two clock chains must agree within this share: both are the clock
// itself, so they differ by noise (1-2%), or by a multiple where a chain
// is not what it is taken for (a folded add, a multiply of another latency).
inline constexpr double kClockAgreement = 0.05;
// A loop's FLOP per cycle must lie within this share of a physical value.
inline constexpr double kFlopPerCycleTolerance = 0.10;
// A plausible clock for any x86 core of the last two decades; a reading
// outside it is not a clock.
inline constexpr double kMinClockHz = 0.5e9;
inline constexpr double kMaxClockHz = 6.5e9;
// Where the clock failed its checks, the loops are measured again, up to
// this many times in all (ceilings/hardware_limits.h): a busy moment
// passes, a clock that is not the core's (a chain a core shortcuts) fails
// every time.
inline constexpr int kClockMeasurements = 3;

struct LoopRate {
  CoreLoop loop;
  double flops_per_s = 0;  // the fastest repetition's
  // The add chain's clock right after the loop's repetitions: the clock
  // the core keeps under this loop (wide vectors can lower it for a few
  // milliseconds, Intel's AVX-512 licence levels). 0: not measured.
  double clock_hz = 0;
};

struct CorePeak {
  double add_chain_hz = 0;   // the add chain's fastest repetition; 0: not measured
  double imul_chain_hz = 0;  // the multiply chain's
  // The clock: the add chain's, where judge_clock passed it; 0 where not
  // measured or not physical (clock_unknown says why).
  double clock_hz = 0;
  std::string clock_unknown;
  std::vector<LoopRate> rates;   // every loop this CPU runs, in the order of kVectorIsas, float then double then bfloat16
  int repetitions = 0;
  double repetition_s = 0;       // about how long one repetition of a loop runs

  // The AMX tile loop's bfloat16 rate (where the CPU has AMX-BF16 and the
  // kernel granted the tile state); amx_unavailable says why not.
  std::optional<double> amx_bf16_flops_per_s;
  double amx_clock_hz = 0;  // the add chain right after the tile loop
  std::string amx_unavailable;

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
  int sustained_iterations = 0;  // timed iterations of each measurement
  double sustained_s = 0;        // about how long one iteration runs

  bool measured() const { return !rates.empty(); }
  bool clock_known() const { return clock_hz > 0; }
  // The sharing of `type`'s fastest loop, or nullptr.
  const Sharing* sustained_for(coll::DataType type) const;
  // The share of a core one rank gets when the node's ranks compute `type`
  // at once: the sustained ratio where the ranks share units (below
  // kSharedCoreShare), else 1.
  double rank_share(coll::DataType type) const;
  // How many times the loops were measured before the clock passed its
  // checks, or before giving up (ceilings/hardware_limits.h tries again on
  // a machine that was busy the first time).
  int measurements = 1;
  // The rate of one loop, or nullptr when it was not measured.
  const LoopRate* rate(CoreLoop loop) const;
  // The fastest loop for `type`'s arithmetic (BFloat16: the AVX512_BF16 dot
  // where the CPU has it); nullptr when none was measured. Among loops
  // within 10% of the fastest the widest is returned: a tie is the same
  // units (a 512-bit FMA split into two 256-bit halves), and the wider
  // kernel is the one a library tunes for such a core.
  const LoopRate* fastest(coll::DataType type) const;
  // FLOPs per cycle of a rank running the loop with the node's other ranks
  // at once (as the rates are measured): its rate over the clock under it.
  // nullopt where the clock is unknown.
  std::optional<double> flop_per_cycle(const LoopRate& r) const;
  // The tile loop's FLOPs per cycle; nullopt where unmeasured or the clock unknown.
  std::optional<double> amx_flop_per_cycle() const;
};

// Ranks share their cores' units when a loop run by every rank of a node at
// once reaches less than this share of one rank alone: two ranks on one
// core's units get half each, ranks with a core each all of it, and a
// loaded machine slows both measurements alike; 3/4 lies between (as
// kBelowShare) with room for the noise of a shared machine.
inline constexpr double kSharedCoreShare = 0.75;

// The FLOPs per cycle a core can reach in `loop`: lanes x FLOPs per lane x
// the instructions a core issues per cycle (FMA loops: 1 or 2 units; the
// bfloat16 dot: 1/2, 1 or 2; multiply-and-add loops: 1 to 4 pipes taking
// either).
std::vector<double> physical_flop_per_cycle(CoreLoop loop);
// The same, and where `shared` (ranks measured sharing a core's units) half
// of each value too, for the judged loops.
std::vector<double> physical_flop_per_cycle(CoreLoop loop, bool shared);
// Whether judge_clock holds the loop to those values: the FMA and dot
// loops. A multiply-and-add loop mixes two kinds of instruction over ports
// that take one or both, and lands between whole issue rates (2.6 of 3 per
// cycle for AVX on Emerald Rapids): shown, not judged.
bool judged_per_cycle(CoreLoop loop);
// The physical value nearest to `flop_per_cycle`.
double nearest_physical(CoreLoop loop, double flop_per_cycle, bool shared = false);
// The tile loop's limit: one tdpbf16ps per 16 cycles (16 x 16 x 32
// multiply-adds) per core, 1024 FLOP per cycle.
inline constexpr double kAmxBf16FlopPerCycle = 1024;

// Sets peak.clock_hz from the chains where both checks pass, else leaves
// it 0 and says why in peak.clock_unknown: the chains agree within
// kClockAgreement, the clock is between kMinClockHz and kMaxClockHz, and
// every judged loop's FLOP per cycle at the clock under it is within
// kFlopPerCycleTolerance of a physical value (half a core's counted too
// where the ranks were measured sharing cores).
void judge_clock(CorePeak& peak);

// Every loop a CPU with `cpu` runs for `types` (Float, Double, BFloat16),
// in the order CorePeak::rates keeps.
std::vector<CoreLoop> loops_for(const CpuIsa& cpu, const std::vector<coll::DataType>& types);
// Every loop slot for `types`, whether or not this CPU runs it, in the same
// order: ranks whose CPUs differ still measure (and reduce) one list.
std::vector<CoreLoop> loop_slots(const std::vector<coll::DataType>& types);

// Measures both clock chains and every loop of `loops` that this CPU runs
// (a slot it lacks reads 0), `repetitions` times each, each repetition
// sized to about `repetition_s`, calling `sync` before the clock and before
// each loop (ceilings/ passes a barrier), and the tile loop where
// `with_amx`. Then judge_clock. Returns an unmeasured CorePeak where this
// build has no loops. The one measurement the product and the tests run.
CorePeak measure_core_peak(const CpuIsa& cpu, const std::vector<CoreLoop>& loops, int repetitions = 30,
                           double repetition_s = 1e-3, const std::function<void()>& sync = {}, bool with_amx = false);

}  // namespace shardroof::hw
