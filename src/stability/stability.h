// Is a quantity that should be constant over a run one distribution, or did
// the machine change under it? T_comm at one size does not depend on D, a
// reference GEMM does not depend on when it runs, a collective at one size
// does not depend on the round: their samples over the run must be one
// distribution. A shared node, a busy fabric or a VM whose host moves its
// vCPUs breaks that (the same 4 MiB AllReduce on a 2-vCPU VM runs at 0.3 or
// 1.4 ms and switches within seconds), and every number derived from them
// follows the state the machine was in.
//
// Method (docs/statistics.md):
//  1. Blocks: each measurement window (consecutive samples of one
//     measurement) is cut into near-equal blocks of consecutive samples (at
//     least kMinBlockSamples, more when the run has many samples, so that
//     there are kMaxBlocks blocks at most); a block's value is the log of
//     its median. Windows shorter than a block are joined to the windows
//     that follow them in time until they fill one (many short rounds of a
//     long run), so a block spans two windows only then, and the test's
//     cost stays bounded however many windows there are. Blocks are ordered
//     by time.
//  2. Change points of the block series (stability/change_points.h:
//     E-divisive means, permutation test at 1%).
//  3. Levels: the samples between change points, each with its median and
//     when it began and ended. Neighbouring levels whose medians differ by
//     less than the material ratio are merged: a change that small cannot
//     move the caller's result outside its target (the caller derives the
//     ratio from its own target, e.g. (1 + t)/(1 - t) for a +-t interval
//     of a quantity proportional to the level).
//  4. Verdict: stable (no change point), drift (change points, but the
//     levels all lie within the material ratio) or unstable (levels that
//     differ by more). States: the levels grouped by value (levels within
//     the material ratio of each other are one state), each with the
//     median of its samples and its share of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stability/change_points.h"
#include "timing/stats.h"

namespace shardroof::stability {

inline constexpr std::size_t kMinBlockSamples = 5;
inline constexpr std::size_t kMaxBlocks = 128;

// Consecutive samples of one measurement.
struct TimedWindow {
  std::vector<double> samples;  // > 0 (seconds, or a ratio)
  std::vector<double> stamps;   // seconds since the run began, one per sample (empty: the window's order)
  std::uint64_t label = 0;      // what it was measured at (D, a size), for the report
};

struct Level {
  double median = 0;
  double begin_s = 0, end_s = 0;  // first and last sample's stamps
  std::size_t samples = 0;
  std::vector<std::uint64_t> labels;  // distinct, in order of time
  std::uint64_t first_label = 0, last_label = 0;
};

struct State {
  double median = 0;
  std::size_t samples = 0;
  double share = 0;  // of all samples
  // When the machine was in it: each of its levels' first and last stamp.
  std::vector<std::pair<double, double>> spans;
  // Whether `t_s` lies in one of the spans.
  bool holds(double t_s) const;
};

enum class Verdict {
  TooFew,    // too few blocks to test (fewer than two segments' worth)
  Stable,    // one distribution
  Drift,     // it changed, but by less than the material ratio
  Unstable,  // it changed by more
};
std::string to_string(Verdict v);  // "too_few", "stable", "drift", "unstable"
std::optional<Verdict> parse_verdict(std::string_view name);  // to_string's words; nullopt for others

struct Stability {
  Verdict verdict = Verdict::TooFew;
  std::vector<Level> levels;  // in time order, after merging
  std::vector<State> states;  // by value, ascending
  double max_ratio = 1;       // the largest level's median over the smallest's (after merging)
  double material_ratio = 1;
  std::size_t change_points = 0;  // significant before merging
  std::vector<double> p_values;   // of those change points
  std::size_t blocks = 0, samples = 0;
  std::size_t block_samples = 0;  // samples per block, at least (all of them when there are fewer)
  ChangePointWork work;           // what the change-point search cost
  double median = 0;              // over every sample
  // The measurement's own noise at one level: the standard deviation of
  // the blocks' log medians around their level's log median (the levels
  // after merging), 0 with fewer blocks than levels + 1. What two launches'
  // levels must differ by, beyond chance, to be two states
  // (launches/states.h).
  double noise_sd_log = 0;
};

Stability assess(const std::vector<TimedWindow>& windows, double material_ratio,
                 const ChangePointOptions& options = {});

// A statistic's measurements (TimeStats::windows) as timed windows, stamps
// as seconds since `origin_s`, samples divided by `scale` (a quantity over
// its own median, to join several into one series).
void append_windows(std::vector<TimedWindow>& out, const TimeStats& t, std::uint64_t label, double origin_s,
                    double scale = 1);

}  // namespace shardroof::stability
